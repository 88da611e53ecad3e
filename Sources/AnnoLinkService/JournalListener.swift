import AnnoLinkPostGIS
import Foundation

/// A thread with a PostgreSQL connection of its own that `LISTEN`s on the journal's channel
/// (`PostGISJournal.notificationChannel`) and counts the notifications it hears: every entry
/// committed, undone or redone by any server or command on the database sends one. `GET
/// /journal?wait=…` waits on the count, so a page learns of another server's edit as soon as it
/// commits. It listens on the change capture's channel too (`PostGISStore.changesChannel`: another
/// program's edit of a linked table) and counts those apart, waking the server's
/// `OutsideEditFollower` at once. A lost connection is opened again (a notification sent
/// meanwhile is missed, so both counts are bumped once on reconnecting: what they stand for is
/// read fresh anyway).
final class JournalListener: @unchecked Sendable {
    private let connectionString: String
    private let condition = NSCondition()
    private var heard = 0
    private var changesHeard = 0
    /// Called on the listener's thread when another program's change was heard.
    private var onChange: (@Sendable () -> Void)?
    private var stopping = false
    private var thread: Thread?
    /// The connection the thread starts with (handed over once, then only the thread uses it).
    private var firstConnection: PostgreSQLConnection?
    /// The most requests that may wait at once (each holds one of the server's threads).
    private let maxWaiters: Int
    private var waiters = 0

    /// Connects and starts listening (the first `LISTEN` happens before this returns, so an
    /// edit committed after the server started is heard).
    ///
    /// - Throws: `PostgreSQLError` when the server cannot be reached.
    init(connectionString: String, maxWaiters: Int) throws {
        self.connectionString = connectionString
        self.maxWaiters = max(1, maxWaiters)
        firstConnection = try Self.connect(connectionString)
        let thread = Thread { [weak self] in self?.run() }
        thread.name = "annolink journal listener"
        self.thread = thread
        thread.start()
    }

    private static func connect(_ text: String) throws -> PostgreSQLConnection {
        let connection = try PostgreSQLConnection(text)
        try connection.listen(PostGISJournal.notificationChannel)
        try connection.listen(PostGISStore.changesChannel)
        return connection
    }

    /// The notifications heard so far.
    var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return heard
    }

    /// The change capture's notifications heard so far.
    var changeCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return changesHeard
    }

    /// Calls `handler` (on the listener's thread) whenever a change capture's notification was heard.
    func onChange(_ handler: @escaping @Sendable () -> Void) {
        condition.lock()
        onChange = handler
        condition.unlock()
    }

    /// Waits until more than `seen` notifications were heard, or `timeout` seconds passed;
    /// returns the count. Returns at once when `maxWaiters` requests wait already, so that
    /// waiting pages never take all of the server's threads.
    func wait(after seen: Int, timeout: Double) -> Int {
        let deadline = Date().addingTimeInterval(max(0, timeout))
        condition.lock()
        defer { condition.unlock() }
        guard waiters < maxWaiters else { return heard }
        waiters += 1
        defer { waiters -= 1 }
        while heard <= seen, !stopping, condition.wait(until: deadline) {}
        return heard
    }

    /// Ends the thread within a second.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    private var isStopping: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopping
    }

    private func bump(journal: Int, changes: Int) {
        condition.lock()
        heard += journal
        changesHeard += changes
        let handler = changes > 0 ? onChange : nil
        condition.broadcast()
        condition.unlock()
        handler?()
    }

    private func run() {
        condition.lock()
        var connection = firstConnection
        firstConnection = nil
        condition.unlock()
        while !isStopping {
            guard let current = connection else {
                Thread.sleep(forTimeInterval: 1)
                connection = try? Self.connect(connectionString)
                if connection != nil { bump(journal: 1, changes: 1) }
                continue
            }
            do {
                let received = try current.waitForNotifications(timeout: 1)
                let changes = received.filter { $0.channel == PostGISStore.changesChannel }.count
                if !received.isEmpty { bump(journal: received.count - changes, changes: changes) }
            } catch {
                connection = nil
            }
        }
    }
}
