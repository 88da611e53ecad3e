import CSQLite

/// One open SQLite database file: the only owner of its `sqlite3 *` handle.
///
/// A connection is used from one thread at a time and is not `Sendable`. Statements are
/// prepared once per SQL text and kept in a cache; writes go through `write(_:)`, which runs
/// the body in a `BEGIN IMMEDIATE` transaction so that a concurrent writer waits (busy timeout)
/// instead of failing half-way.
public final class Connection {
    /// How the file is opened.
    public enum Mode: Sendable {
        /// Read only: the file must exist; nothing can be written.
        case readOnly
        /// Read and write: the file must exist.
        case readWrite
        /// Read and write, creating the file when it is absent.
        case create
    }

    let database: Database
    var handle: OpaquePointer { database.pointer }
    /// The path the connection was opened with.
    public let path: String
    private var statementCache: [String: Statement] = [:]

    /// Opens `path`. For writable connections `journalMode` (WAL unless told otherwise; nil
    /// leaves the file's own) is requested and the answer checked; a 5-second busy timeout and extended result codes are set.
    ///
    /// - Throws: `SQLiteError` when the file cannot be opened, is not a database, or WAL cannot
    ///   be set.
    public init(path: String, mode: Mode = .readWrite, journalMode: String? = "WAL", busyTimeoutMilliseconds: Int32 = 5000) throws {
        var db: OpaquePointer?
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        switch mode {
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        case .readWrite: flags |= SQLITE_OPEN_READWRITE
        case .create: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        }
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, message: message)
        }
        self.database = Database(pointer: db)
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, busyTimeoutMilliseconds)
        // Reading the schema is the first thing that fails on a file that is not a database.
        try execute("SELECT count(*) FROM sqlite_master")
        if mode != .readOnly, let journalMode {
            let journal = try scalarText("PRAGMA journal_mode = \(journalMode)")
            guard journal?.lowercased() == journalMode.lowercased() else {
                throw SQLiteError(.error, message: "could not switch to \(journalMode) journaling (got \(journal ?? "nothing"))")
            }
        }
    }

    /// The last error on this connection, with `sql` attached.
    func lastError(sql: String? = nil, code: Int32? = nil) -> SQLiteError {
        database.lastError(sql: sql, code: code)
    }

    /// A prepared statement for `sql`, from the cache when it was prepared before. The
    /// statement is reset and its bindings cleared.
    ///
    /// - Throws: `SQLiteError` when the SQL does not compile.
    public func prepare(_ sql: String) throws -> Statement {
        if let cached = statementCache[sql] {
            cached.reset()
            return cached
        }
        let statement = try Statement(database: database, sql: sql)
        statementCache[sql] = statement
        return statement
    }

    /// Prepares a statement outside the cache (for SQL run once, such as schema changes).
    public func prepareUncached(_ sql: String) throws -> Statement {
        try Statement(database: database, sql: sql)
    }

    /// Runs one or more SQL statements that return no rows of interest. Wraps `sqlite3_exec`.
    public func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_free(message)
            throw SQLiteError(code: sqlite3_extended_errcode(handle), message: text, sql: sql)
        }
    }

    /// Runs `sql` with `bindings` and returns the first column of the first row as text.
    ///
    /// The statement is reset afterwards: one left on a row counts as in progress, and SQLite
    /// then refuses to COMMIT or VACUUM.
    public func scalarText(_ sql: String, _ bindings: [SQLValue] = []) throws -> String? {
        let statement = try prepare(sql)
        defer { statement.reset() }
        try statement.bind(bindings)
        return try statement.step() ? statement.text(0) : nil
    }

    /// Runs `sql` with `bindings` and returns the first column of the first row as an integer.
    /// The statement is reset afterwards, as in `scalarText`.
    public func scalarInt(_ sql: String, _ bindings: [SQLValue] = []) throws -> Int64? {
        let statement = try prepare(sql)
        defer { statement.reset() }
        try statement.bind(bindings)
        guard try statement.step(), !statement.isNull(0) else { return nil }
        return statement.int64(0)
    }

    /// Runs `sql` with `bindings`, stepping it to completion. Returns the number of rows changed.
    @discardableResult
    public func run(_ sql: String, _ bindings: [SQLValue] = []) throws -> Int {
        let statement = try prepare(sql)
        try statement.bind(bindings)
        while try statement.step() {}
        return Int(sqlite3_changes64(handle))
    }

    /// All rows of `sql` as arrays of values (for small results: schema, registry, tests).
    public func rows(_ sql: String, _ bindings: [SQLValue] = []) throws -> [[SQLValue]] {
        let statement = try prepare(sql)
        try statement.bind(bindings)
        var result: [[SQLValue]] = []
        while try statement.step() {
            result.append((0..<statement.columnCount).map { statement.value($0) })
        }
        return result
    }

    /// Whether the main database has a table named exactly `name`.
    public func hasTable(_ name: String) throws -> Bool {
        try scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(name)]) == 1
    }

    /// The number of rows the last INSERT, UPDATE or DELETE on this connection changed (not
    /// counting trigger writes). Wraps `sqlite3_changes64`.
    public var changeCount: Int { Int(sqlite3_changes64(handle)) }

    /// The rowid of the last row inserted on this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Whether a transaction is open.
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction: committed when it returns, rolled back
    /// when it throws. Nested calls run inside the outer transaction (a savepoint each), so that
    /// services compose.
    public func write<T>(_ body: () throws -> T) throws -> T {
        if isInTransaction {
            let name = "annolink_nested"
            try execute("SAVEPOINT \(name)")
            do {
                let result = try body()
                try execute("RELEASE \(name)")
                return result
            } catch {
                try? execute("ROLLBACK TO \(name); RELEASE \(name)")
                throw error
            }
        }
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Whether SQLite's defensive mode is on. In that mode ordinary SQL may not write to the
    /// shadow tables of virtual tables (`rtree_…_node` and the like). Wraps
    /// `sqlite3_db_config(SQLITE_DBCONFIG_DEFENSIVE)`.
    ///
    /// - Throws: `SQLiteError` when SQLite refuses the call.
    public func isDefensive() throws -> Bool {
        try defensiveState(-1)
    }

    /// Turns SQLite's defensive mode on or off. Wraps
    /// `sqlite3_db_config(SQLITE_DBCONFIG_DEFENSIVE)`.
    ///
    /// - Throws: `SQLiteError` when SQLite refuses the call.
    public func setDefensive(_ on: Bool) throws {
        _ = try defensiveState(on ? 1 : 0)
    }

    private func defensiveState(_ request: Int32) throws -> Bool {
        var current: Int32 = 0
        let rc = annolink_sqlite_db_config_defensive_state(handle, request, &current)
        guard rc == SQLITE_OK else { throw SQLiteError(code: rc, message: "cannot configure defensive mode") }
        return current != 0
    }

    /// Copies the whole database, as one consistent snapshot, into a new file at `path` with
    /// SQLite's online backup. Wraps `sqlite3_backup_init`, `sqlite3_backup_step` and
    /// `sqlite3_backup_finish`.
    ///
    /// - Throws: `SQLiteError` when the destination cannot be written.
    public func backup(to path: String) throws {
        let destination = try Connection(path: path, mode: .create, journalMode: nil)
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw destination.lastError()
        }
        let rc = sqlite3_backup_step(backup, -1)
        let finish = sqlite3_backup_finish(backup)
        guard rc == SQLITE_DONE, finish == SQLITE_OK else { throw destination.lastError(code: rc == SQLITE_DONE ? finish : rc) }
    }

    /// Runs `body` in a read transaction so that every read sees one snapshot.
    public func read<T>(_ body: () throws -> T) throws -> T {
        if isInTransaction { return try body() }
        try execute("BEGIN DEFERRED")
        defer { if isInTransaction { try? execute("COMMIT") } }
        return try body()
    }
}

@available(*, unavailable)
extension Connection: Sendable {}

/// The one owner of a `sqlite3 *`. Both the connection and its statements hold it, so the
/// handle is closed only after the last statement is finalized, and the statement cache in
/// `Connection` makes no reference cycle.
final class Database {
    let pointer: OpaquePointer

    init(pointer: OpaquePointer) { self.pointer = pointer }

    deinit { sqlite3_close_v2(pointer) }

    func lastError(sql: String? = nil, code: Int32? = nil) -> SQLiteError {
        SQLiteError(code: code ?? sqlite3_extended_errcode(pointer), message: String(cString: sqlite3_errmsg(pointer)), sql: sql)
    }
}

@available(*, unavailable)
extension Database: Sendable {}
