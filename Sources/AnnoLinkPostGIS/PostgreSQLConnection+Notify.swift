import AnnoLinkStore
import CLibPQ
import Foundation

/// A message another session sent with `NOTIFY` (or `pg_notify`) on a channel this
/// connection listens to; delivered when the sender's transaction commits.
public struct PostgreSQLNotification: Hashable, Sendable {
    /// The channel name.
    public var channel: String
    /// The payload text ('' when none was given).
    public var payload: String
    /// The server process id of the sending session.
    public var processID: Int32
}

extension PostgreSQLConnection {
    /// Starts listening on `channel` (`LISTEN`); notifications arrive through
    /// `waitForNotifications(timeout:)`.
    public func listen(_ channel: String) throws {
        try execute("LISTEN \(quoteIdentifier(channel))")
    }

    /// Sends `payload` on `channel` (`pg_notify`): inside a transaction it is delivered when
    /// the transaction commits, and not at all when it rolls back.
    public func notify(_ channel: String, payload: String = "") throws {
        try query("SELECT pg_notify($1, $2)", [.text(channel), .text(payload)])
    }

    /// The notifications that have arrived, waiting up to `timeout` seconds for the first when
    /// none is there yet (0: only those already received). Reads the socket
    /// (`PQconsumeInput`) and drains libpq's queue (`PQnotifies`).
    ///
    /// - Throws: `PostgreSQLError` when the connection is lost.
    public func waitForNotifications(timeout: Double) throws -> [PostgreSQLNotification] {
        var received = try drainNotifications()
        guard received.isEmpty, timeout > 0 else { return received }
        let socket = PQsocket(pointer)
        guard socket >= 0 else { throw lastError() }
        let deadline = Date().addingTimeInterval(timeout)
        while received.isEmpty {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { break }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(min(remaining * 1000, 1000).rounded(.up)))
            if ready < 0, errno != EINTR { throw PostgreSQLError(sqlState: nil, message: "poll failed: \(String(cString: strerror(errno)))") }
            received = try drainNotifications()
        }
        return received
    }

    private func drainNotifications() throws -> [PostgreSQLNotification] {
        guard PQconsumeInput(pointer) == 1 else { throw lastError() }
        var received: [PostgreSQLNotification] = []
        while let notice = PQnotifies(pointer) {
            received.append(PostgreSQLNotification(
                channel: String(cString: notice.pointee.relname), payload: notice.pointee.extra.map { String(cString: $0) } ?? "",
                processID: notice.pointee.be_pid))
            PQfreemem(notice)
        }
        return received
    }
}
