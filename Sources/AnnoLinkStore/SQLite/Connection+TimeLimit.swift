import CSQLite
import Foundation

extension Connection {
    /// Runs `body` with a time limit on the SQL it runs: once `seconds` have passed, SQLite
    /// interrupts the running statement, which throws `SQLiteError` with result code
    /// `.interrupt` (and a read or write transaction of this connection rolls back as usual).
    /// Wraps `sqlite3_progress_handler`, called every 1000 virtual machine instructions, so
    /// the limit is kept to within a fraction of a millisecond of work.
    ///
    /// Only the SQL is limited: Swift code between statements runs to its end.
    public func withTimeLimit<T>(seconds: Double, _ body: () throws -> T) throws -> T {
        let deadline = Deadline(uptimeNanoseconds: DispatchTime.now().uptimeNanoseconds + UInt64(max(0, seconds) * 1_000_000_000))
        let context = Unmanaged.passUnretained(deadline).toOpaque()
        sqlite3_progress_handler(handle, 1000, { context in
            guard let context else { return 0 }
            let deadline = Unmanaged<Deadline>.fromOpaque(context).takeUnretainedValue()
            return DispatchTime.now().uptimeNanoseconds > deadline.uptimeNanoseconds ? 1 : 0
        }, context)
        defer { sqlite3_progress_handler(handle, 0, nil, nil) }
        return try withExtendedLifetime(deadline) { try body() }
    }
}

/// The moment a time limit ends, for the progress handler's context pointer.
private final class Deadline {
    let uptimeNanoseconds: UInt64

    init(uptimeNanoseconds: UInt64) { self.uptimeNanoseconds = uptimeNanoseconds }
}
