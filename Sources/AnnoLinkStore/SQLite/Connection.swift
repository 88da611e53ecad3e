import CSQLite
import Foundation

/// One open SQLite database file: the only owner of its `sqlite3 *` handle.
///
/// A connection is used from one thread at a time and is not `Sendable`. Statements are
/// prepared once per SQL text and kept in a cache; writes go through `write(_:)`, which runs
/// the body in a `BEGIN IMMEDIATE` transaction so that a concurrent writer waits (busy timeout)
/// instead of failing half-way.
public final class Connection {
    /// How the file is opened.
    public enum Mode: Sendable {
        /// Read only: the file must exist; nothing can be written (`query_only`, or a read-only
        /// open where the file cannot be written; see `openForReading`).
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
    /// Seconds a statement that evaluates a condition from outside may run as part of an edit
    /// (`withConditionTimeLimit`); nil for no limit. `serve` sets its query time limit here.
    public var conditionTimeLimit: Double?
    /// Run by `write` right after it begins its outermost transaction, before the body: a check
    /// that the transaction may go ahead (`annolink serve` checks that its file is still the
    /// served file and its layout the one it read; docs/serve.md). What it throws rolls the
    /// transaction back and is thrown by `write`.
    public var beginCheck: (() throws -> Void)?
    /// Run by `write` after `beginCheck` and again right before it commits its outermost
    /// transaction (`true`, then `false`): the change-capture triggers pass over the writes in
    /// between, so annolink's own edits are not recorded as outside edits (docs/follow.md). What
    /// it throws rolls the transaction back.
    public var ownWrites: ((_ begun: Bool) throws -> Void)?

    /// Opens `path`. For writable connections `journalMode` (WAL unless told otherwise; nil
    /// leaves the file's own) is requested and the answer checked; a 5-second busy timeout and
    /// extended result codes are set. Every connection is hardened before the file's SQL runs:
    /// `fts3_tokenizer()` cannot take pointers, defensive mode is on (`setDefensive(false)`
    /// only around annolink's own shadow-table writes), and a read-only connection does not
    /// trust the schema (a writer must: the R-tree triggers need it).
    ///
    /// - Throws: `SQLiteError` when the file cannot be opened, is not a database, or WAL cannot
    ///   be set.
    public init(path: String, mode: Mode = .readWrite, journalMode: String? = "WAL", busyTimeoutMilliseconds: Int32 = 5000) throws {
        switch mode {
        case .readOnly:
            self.database = try Self.openForReading(path)
        case .readWrite:
            self.database = try Self.open(path, flags: SQLITE_OPEN_READWRITE)
        case .create:
            self.database = try Self.open(path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        }
        self.path = path
        let db = database.pointer
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, busyTimeoutMilliseconds)
        installProgressHandler()
        // Before any SQL of the file runs: a GeoPackage is input from anyone, and its schema,
        // triggers and stored where clauses are SQL (see `annolink_sqlite_harden`). Writers
        // must trust the schema: the GeoPackage R-tree triggers write an `rtree` virtual table,
        // which Debian 12's SQLite 3.40 does not mark innocuous, so with an untrusted schema
        // every feature write fails ("unsafe use of virtual table"). Readers distrust it.
        let hardened = annolink_sqlite_harden(db, mode == .readOnly ? 0 : 1)
        guard hardened == SQLITE_OK else { throw SQLiteError(code: hardened, message: "cannot configure the connection's safety settings") }
        try Self.boundFunctions(db)
        if mode == .readOnly, sqlite3_db_readonly(db, "main") == 0 {
            try execute("PRAGMA query_only = ON")
        }
        // Reading the schema is the first thing that fails on a file that is not a database.
        try execute("SELECT count(*) FROM sqlite_master")
        if mode != .readOnly, let journalMode {
            let journal = try scalarText("PRAGMA journal_mode = \(journalMode)")
            guard journal?.lowercased() == journalMode.lowercased() else {
                throw SQLiteError(.error, message: "could not switch to \(journalMode) journaling (got \(journal ?? "nothing"))")
            }
        }
    }

    /// Opens `path` with `flags`. Wraps `sqlite3_open_v2`.
    private static func open(_ path: String, flags: Int32) throws -> Database {
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, message: message)
        }
        return Database(pointer: db)
    }

    /// Opens `path` for a command that only reads.
    ///
    /// Where the file and its folder can be written, it is opened for writing with
    /// `query_only` on: a reader that cannot write leaves a WAL file's `-wal` and `-shm`
    /// behind, because only a connection that can write removes them when it closes. Where
    /// they cannot (a read-only folder or medium), it is opened read-only, and when SQLite
    /// cannot open a WAL file that way (it needs a `-shm` it cannot create), as immutable —
    /// as GDAL does; the file is then read as it stands, without a `-wal` it cannot see.
    private static func openForReading(_ path: String) throws -> Database {
        let folder = (path as NSString).deletingLastPathComponent
        if access(path, W_OK) == 0, access(folder.isEmpty ? "." : folder, W_OK) == 0 {
            return try open(path, flags: SQLITE_OPEN_READWRITE)
        }
        let readOnly = try open(path, flags: SQLITE_OPEN_READONLY)
        if sqlite3_exec(readOnly.pointer, "SELECT count(*) FROM sqlite_master", nil, nil, nil) == SQLITE_OK {
            return readOnly
        }
        return try open(immutableURI(path), flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI)
    }

    /// `file:` URI for `path` with `immutable=1`; `%`, `?` and `#` escaped as RFC 3986 says.
    static func immutableURI(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var uri = "file:"
        for character in absolute {
            switch character {
            case "%": uri += "%25"
            case "?": uri += "%3F"
            case "#": uri += "%23"
            default: uri.append(character)
            }
        }
        return uri + "?immutable=1"
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
            try beginCheck?()
            try ownWrites?(true)
            let result = try body()
            try ownWrites?(false)
            try execute("COMMIT")
            return result
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Runs `body` in a transaction (a savepoint inside the caller's) that is always rolled back,
    /// and returns what it returned: a dry run. Whatever `body` writes is seen by its own reads
    /// and then discarded. SQLite's cache is kept from spilling meanwhile, so that not a page
    /// of the database file is written (a rollback journal or WAL file is written only at a
    /// commit or a spill); the cost is that the changed pages stay in memory until the end.
    ///
    /// - Throws: whatever `body` throws; `SQLiteError` when the transaction cannot begin.
    public func withoutCommitting<T>(_ body: () throws -> T) throws -> T {
        let spill = try scalarInt("PRAGMA cache_spill") ?? 1
        try execute("PRAGMA cache_spill = 0")
        defer { try? execute("PRAGMA cache_spill = \(spill)") }
        var result: T?
        do {
            try write { () throws -> Void in
                result = try body()
                throw DiscardedTransaction()
            }
        } catch is DiscardedTransaction {}
        return result!
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
    ///
    /// `progress` is told the pages copied and the pages in all after every 4096 pages (16 MiB
    /// of 4 KiB pages) and at the end.
    public func backup(to path: String, progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }) throws {
        let destination = try Connection(path: path, mode: .create, journalMode: nil)
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw destination.lastError()
        }
        var rc: Int32
        repeat {
            rc = sqlite3_backup_step(backup, 4096)
            let total = Int(sqlite3_backup_pagecount(backup))
            progress(total - Int(sqlite3_backup_remaining(backup)), total)
        } while rc == SQLITE_OK
        let finish = sqlite3_backup_finish(backup)
        guard rc == SQLITE_DONE, finish == SQLITE_OK else { throw destination.lastError(code: rc == SQLITE_DONE ? finish : rc) }
    }

    /// Runs `body` in a read transaction so that every read sees one snapshot, and the newest
    /// snapshot at that.
    ///
    /// Statements left part-way through their rows (a cached statement stepped to a row and
    /// not to its end: a page of `LIMIT` rows, a first match) are reset before the transaction
    /// begins and before it ends. SQLite keeps a connection's read snapshot while one of its
    /// statements is in progress, COMMIT or not: left alone, such a statement pins the
    /// snapshot, so every later read on the connection sees the file as it was then, and a
    /// WAL file cannot be checkpointed past it and grows without bound (found by
    /// scripts/serve-load: `annolink serve` answered old values after paged reads).
    public func read<T>(_ body: () throws -> T) throws -> T {
        if isInTransaction { return try body() }
        resetStatementsInProgress()
        try execute("BEGIN DEFERRED")
        defer {
            resetStatementsInProgress()
            if isInTransaction { try? execute("COMMIT") }
        }
        return try body()
    }

    /// Runs `body` with this connection's page cache allowed to grow to `kibibytes`, then puts
    /// the cache size back as it was. SQLite's default of 2 MB suits edits; a scan that revisits
    /// pages (every row looked up in its R-tree, say) reads the file several times over with it.
    /// The cache takes memory only for the pages it holds.
    public func withPageCache<T>(kibibytes: Int, _ body: () throws -> T) throws -> T {
        let previous = try scalarInt("PRAGMA cache_size") ?? -2000
        try execute("PRAGMA cache_size = -\(kibibytes)")
        defer { try? execute("PRAGMA cache_size = \(previous)") }
        return try body()
    }

    /// Resets every statement of this connection that has begun and not reached its end
    /// (`sqlite3_stmt_busy`), cached or not, found with `sqlite3_next_stmt`.
    public func resetStatementsInProgress() {
        var statement = sqlite3_next_stmt(handle, nil)
        while let current = statement {
            if sqlite3_stmt_busy(current) != 0 { sqlite3_reset(current) }
            statement = sqlite3_next_stmt(handle, current)
        }
    }
}

@available(*, unavailable)
extension Connection: Sendable {}

/// Thrown inside `Connection.withoutCommitting` to roll its transaction back.
private struct DiscardedTransaction: Error {}

/// The one owner of a `sqlite3 *`. Both the connection and its statements hold it, so the
/// handle is closed only after the last statement is finalized, and the statement cache in
/// `Connection` makes no reference cycle.
final class Database {
    let pointer: OpaquePointer
    /// When the SQL of `Connection.withTimeLimit` must stop (`DispatchTime` uptime
    /// nanoseconds); 0 for no limit. Read by the progress handler on the connection's thread.
    var deadline: UInt64 = 0
    /// The switch that stops every statement (`Connection.statementStop`).
    var stop: StatementStop?

    init(pointer: OpaquePointer) { self.pointer = pointer }

    deinit { sqlite3_close_v2(pointer) }

    func lastError(sql: String? = nil, code: Int32? = nil) -> SQLiteError {
        SQLiteError(code: code ?? sqlite3_extended_errcode(pointer), message: String(cString: sqlite3_errmsg(pointer)), sql: sql)
    }
}

@available(*, unavailable)
extension Database: Sendable {}
