import CSQLite
import Foundation
import Synchronization

extension Connection {
    /// Runs `body` with a time limit on the SQL it runs: once `seconds` have passed, SQLite
    /// interrupts the running statement, which throws `SQLiteError` with result code
    /// `.interrupt` (and a read or write transaction of this connection rolls back as usual).
    /// A limit inside another keeps the earlier of the two deadlines and restores the outer one
    /// when it ends.
    ///
    /// Checked by the connection's progress handler (`installProgressHandler`), called every
    /// 1000 virtual machine instructions, so the limit is kept to within a fraction of a
    /// millisecond of work. Only the SQL is limited: Swift code between statements runs to its
    /// end, and so does one call of an SQL function (which is why the where guard allows no
    /// function whose work a condition can make unbounded; docs/reliability.md).
    public func withTimeLimit<T>(seconds: Double, _ body: () throws -> T) throws -> T {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, min(seconds, 1e9)) * 1_000_000_000)
        let outer = database.deadline
        database.deadline = outer == 0 ? deadline : min(outer, deadline)
        defer { database.deadline = outer }
        return try body()
    }

    /// Runs `body` under `conditionTimeLimit` when one is set: how annolink runs a statement
    /// that evaluates a condition from outside (`SQLCondition`) as part of an edit.
    public func withConditionTimeLimit<T>(_ body: () throws -> T) throws -> T {
        guard let conditionTimeLimit else { return try body() }
        return try withTimeLimit(seconds: conditionTimeLimit, body)
    }

    /// The switch that stops every statement of this connection (see `StatementStop`), or nil.
    /// Set it from the thread that uses the connection; `StatementStop.stop()` may be called from
    /// any thread.
    public var statementStop: StatementStop? {
        get { database.stop }
        set { database.stop = newValue }
    }

    /// Installs the progress handler that keeps `withTimeLimit` and `statementStop`. Wraps
    /// `sqlite3_progress_handler`; the handler finds its `Database` through its user data,
    /// which the handle it is installed on cannot outlive.
    func installProgressHandler() {
        sqlite3_progress_handler(handle, 1000, { context in
            guard let context else { return 0 }
            let database = Unmanaged<Database>.fromOpaque(context).takeUnretainedValue()
            if database.stop?.isStopped == true { return 1 }
            let deadline = database.deadline
            return deadline != 0 && DispatchTime.now().uptimeNanoseconds > deadline ? 1 : 0
        }, Unmanaged.passUnretained(database).toOpaque())
    }
}

/// A switch that stops the SQL of every connection given it (`Connection.statementStop`): once
/// `stop()` is called, a statement running on one of them, and every statement started there
/// after, fails with `SQLiteError` `.interrupt` within 1000 virtual machine instructions. A
/// server stopping on SIGTERM throws it when its grace period is over (docs/serve.md), so that
/// no statement holds the process past it.
public final class StatementStop: Sendable {
    private let stopped = Atomic<Bool>(false)

    public init() {}

    /// Stops the statements of every connection holding this switch. Any thread.
    public func stop() { stopped.store(true, ordering: .relaxed) }

    /// Whether `stop()` was called.
    public var isStopped: Bool { stopped.load(ordering: .relaxed) }
}
