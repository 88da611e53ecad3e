import AnnoLinkEditing
import AnnoLinkPostGIS
import AnnoLinkStore
import Foundation

/// The data set a server publishes — a GeoPackage file or a PostGIS database — and the only way
/// routes reach it: reads on a pool of read-only connections, so many run at once; edits through
/// the edit service.
///
/// Routes never open files or databases: the dataset's location is fixed when the server starts,
/// so no request can reach another.
///
/// - **GeoPackage**: a writable dataset switches the file to WAL journaling (readers then never
///   wait for the writer, nor the writer for readers). Each read runs in one read transaction
///   (one snapshot) under the query time limit; edits go through one `EditService`, one at a time
///   (the file has one writer).
/// - **PostGIS** (`postgresql://…`, `PG:…`; docs/postgis.md): reads borrow a connection of a
///   pool and run in one read-only `REPEATABLE READ` transaction under `statement_timeout`; each
///   edit borrows a writer connection of its own and is one PostgreSQL transaction whose rows are
///   locked `FOR UPDATE` by the store, so edits of different requests run at once and several
///   servers may share one database: nothing is kept between requests but layout caches. A
///   listener connection `LISTEN`s on the journal's channel and counts what it hears
///   (`journalNotifications`), so the map page's key sees other servers' edits.
public final class Dataset: @unchecked Sendable {
    /// Which kind of store the dataset is.
    public enum Kind: String, Sendable {
        case geoPackage
        case postGIS
    }

    /// The service name: the file's stem (`loudoun` for `loudoun.gpkg`), or the database's name.
    public let name: String
    /// The file's path, or the connection string without its password.
    public let path: String
    /// The kind of store.
    public let kind: Kind
    /// Whether the server refuses every edit (`--read-only`).
    public let readOnly: Bool
    /// The most records one response may hold (`--max-records`): routes page beyond it (Esri's
    /// `maxRecordCount` and `exceededTransferLimit`, OGC's `limit` ceiling and next link).
    public let maxRecords: Int
    /// Seconds the SQL of one read may run (`--query-timeout`) before SQLite interrupts it
    /// (PostgreSQL cancels it) and `read` throws `ServiceError.queryTimeLimitExceeded`.
    public let queryTimeLimit: Double

    private let readers: Pool<GeoPackage>?
    /// Stops the SQL of every GeoPackage connection of the dataset (`stopStatements()`).
    private let statementStop: StatementStop
    private let writeLock = NSRecursiveLock()
    /// The key under which a thread's borrowed reader is kept while it reads.
    private var readerKey: String { "annolink.Dataset.reader.\(ObjectIdentifier(self).hashValue)" }
    /// The key under which a thread's borrowed PostGIS edit service is kept while it writes.
    private var writerKey: String { "annolink.Dataset.writer.\(ObjectIdentifier(self).hashValue)" }
    private let writer: EditService?
    private let storeReaders: Pool<PostGISStore>?
    private let storeWriters: Pool<EditService>?
    private let listener: JournalListener?

    /// Opens `path` for serving: a GeoPackage file, or a PostGIS database when `path` is a
    /// connection string (`ConnectionString.isPostgreSQL`). One reader now (to check the store),
    /// more on demand up to `readerLimit`, and the writer unless `readOnly` (on PostGIS, up to
    /// `readerLimit` writer connections, opened on demand, and the journal's listener).
    ///
    /// - Throws: `StoreError` when the file is missing or not a GeoPackage, or the database holds
    ///   no annolink data set; `SQLiteError` when the file cannot be switched to WAL;
    ///   `PostgreSQLError` when the server cannot be reached.
    public init(path: String, readOnly: Bool = false, maxRecords: Int = 2000, queryTimeLimit: Double = 5, readerLimit: Int = 8) throws {
        self.readOnly = readOnly
        self.maxRecords = maxRecords
        self.queryTimeLimit = queryTimeLimit
        let stop = StatementStop()
        statementStop = stop
        if ConnectionString.isPostgreSQL(path) {
            kind = .postGIS
            let first = try PostGISStore(path)
            self.path = first.location
            name = try first.connection.query("SELECT current_database()").scalar?.textValue ?? "annolink"
            storeReaders = Pool(first: first, limit: max(1, readerLimit)) { try PostGISStore(path) }
            storeWriters = readOnly ? nil : Pool(first: nil, limit: max(1, readerLimit)) { EditService(store: try PostGISStore(path)) }
            listener = try JournalListener(connectionString: path, maxWaiters: max(1, readerLimit / 2))
            readers = nil
            writer = nil
            return
        }
        kind = .geoPackage
        self.path = path
        name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        storeReaders = nil
        storeWriters = nil
        listener = nil
        if readOnly {
            writer = nil
        } else {
            let package = try GeoPackage(path: path)
            let mode = try package.connection.scalarText("PRAGMA journal_mode = WAL")
            guard mode?.lowercased() == "wal" else {
                throw SQLiteError(.error, message: "could not switch \(path) to WAL journaling (got \(mode ?? "nothing"))")
            }
            // The class where clauses an edit evaluates run under the query time limit too.
            package.connection.conditionTimeLimit = queryTimeLimit
            package.connection.statementStop = stop
            writer = EditService(package: package)
        }
        func reader() throws -> GeoPackage {
            let package = try GeoPackage(path: path, readOnly: true)
            package.connection.statementStop = stop
            return package
        }
        readers = Pool(first: try reader(), limit: max(1, readerLimit)) { try reader() }
    }

    /// Stops every SQL statement running or yet to run on the dataset's GeoPackage connections:
    /// each fails as interrupted (an edit rolls back whole). For a server whose grace period on
    /// SIGTERM is over (`HTTPServer.stop(grace:)`); nothing of the dataset runs SQL after it.
    /// PostGIS statements are bounded by `statement_timeout` for reads and are not stopped.
    public func stopStatements() {
        statementStop.stop()
    }

    deinit {
        listener?.stop()
    }

    /// Runs `body` with a read-only view of the GeoPackage, in one read transaction, under the
    /// query time limit. Many reads run at once, each on its own connection; a `read` inside
    /// another on the same thread joins the outer one (its connection, snapshot and time limit).
    /// Routes that need no GeoPackage SQL use `readStore` instead, which serves both stores.
    ///
    /// - Throws: `ServiceError.notOnThisStore` on a PostGIS dataset;
    ///   `ServiceError.queryTimeLimitExceeded` when the SQL ran longer than `queryTimeLimit`;
    ///   whatever `body` throws.
    public func read<T>(_ body: (GeoPackage) throws -> T) throws -> T {
        guard let readers else { throw ServiceError.notOnThisStore("this resource") }
        return try readers.lend(heldAs: readerKey) { package, joined in
            if joined { return try body(package) }
            do {
                return try package.connection.withTimeLimit(seconds: queryTimeLimit) {
                    try package.connection.read { try body(package) }
                }
            } catch let error as SQLiteError where error.resultCode == .interrupt && !statementStop.isStopped {
                throw ServiceError.queryTimeLimitExceeded(seconds: queryTimeLimit)
            }
        }
    }

    /// Runs `body` with a read-only view of the store, as one snapshot under the query time
    /// limit: on a GeoPackage as `read`; on PostGIS in one read-only `REPEATABLE READ`
    /// transaction of a pooled connection with `statement_timeout`. A `readStore` inside another
    /// on the same thread joins the outer one.
    ///
    /// - Throws: `ServiceError.queryTimeLimitExceeded`; `PostgreSQLError`; whatever `body` throws.
    public func readStore<T>(_ body: (any FeatureStore) throws -> T) throws -> T {
        guard let storeReaders else { return try read { try body($0) } }
        return try storeReaders.lend(heldAs: readerKey) { store, joined in
            if joined { return try body(store) }
            do {
                return try store.connection.inTransaction(isolation: .repeatableRead) {
                    _ = try store.connection.execute("SET TRANSACTION READ ONLY")
                    _ = try store.connection.execute("SET LOCAL statement_timeout = \(max(1, Int((queryTimeLimit * 1000).rounded())))")
                    return try body(store)
                }
            } catch let error as PostgreSQLError where error.sqlState == "57014" {
                throw ServiceError.queryTimeLimitExceeded(seconds: queryTimeLimit)
            }
        }
    }

    /// Runs `body` with the edit service; every journal entry it writes records `user` (nil: no
    /// user, as on the command line). A `write` inside another on the same thread runs inside
    /// the outer one. On a GeoPackage one writer at a time; on PostGIS each call borrows an edit
    /// service with a connection of its own (the store locks the rows each edit reads), so
    /// edits run at once and serialize only on the rows they share.
    ///
    /// - Throws: `ServiceError.readOnly` when the server was started with `--read-only`.
    public func write<T>(user: String? = nil, _ body: (EditService) throws -> T) throws -> T {
        if readOnly { throw ServiceError.readOnly }
        if let storeWriters {
            return try storeWriters.lend(heldAs: writerKey) { service, joined in
                joined ? try body(service) : try Self.asUser(user, service) { try body(service) }
            }
        }
        guard let writer else { throw ServiceError.readOnly }
        writeLock.lock()
        defer { writeLock.unlock() }
        do {
            return try Self.asUser(user, writer) { try body(writer) }
        } catch let error as SQLiteError where error.resultCode == .interrupt && !statementStop.isStopped {
            // A class where clause ran past `conditionTimeLimit`; the edit rolled back.
            throw ServiceError.queryTimeLimitExceeded(seconds: queryTimeLimit)
        }
    }

    private static func asUser<T>(_ user: String?, _ service: EditService, _ body: () throws -> T) throws -> T {
        let journal = try service.journal()
        let outerUser = journal.user
        journal.user = user
        defer { journal.user = outerUser }
        return try body()
    }

    /// Where the journal stands, read fresh: `Journal.head()` of the file, or the PostGIS
    /// journal's newest entry and undo/redo candidates.
    public func journalHead() throws -> JournalHead {
        try readStore { store in
            if let store = store as? PostGISStore { return try store.journalHead() }
            guard let package = store as? GeoPackage else { throw ServiceError.notOnThisStore("the journal's state") }
            return try Journal(package: package).head()
        }
    }

    /// How many journal notifications (`NOTIFY annolink_journal`, sent by every server's and
    /// command's edits, undos and redos) this server has heard since it started; nil on a
    /// GeoPackage, which has none.
    public var journalNotifications: Int? { listener?.count }

    /// Waits up to `timeout` seconds for a journal notification beyond the `seen`-th; returns
    /// the count then. Returns at once on a GeoPackage (nil), and when half the server's threads
    /// (`readerLimit / 2`) are waiting already.
    public func waitForJournalNotification(after seen: Int, timeout: Double) -> Int? {
        listener?.wait(after: seen, timeout: timeout)
    }
}

/// Failures of the service layer itself (the interfaces map them to their error responses).
public enum ServiceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The server runs with `--read-only`.
    case readOnly
    /// A read ran longer than the query time limit and was interrupted (HTTP 503; Esri
    /// clients get error code 500 with this message).
    case queryTimeLimitExceeded(seconds: Double)
    /// What was asked is not served from this kind of store yet (HTTP 501); the text names it.
    case notOnThisStore(String)

    public var description: String {
        switch self {
        case .readOnly: "the server is read-only"
        case .notOnThisStore(let what): "\(what) is not served from a PostGIS database yet (docs/postgis.md); serve a GeoPackage for it"
        case .queryTimeLimitExceeded(let seconds):
            "the query ran longer than the server's limit of \(String(format: "%g", seconds)) s; ask for less (a smaller area, fewer records)"
        }
    }
}

/// Connections (or the objects owning them) lent one per request: at most `limit` are opened,
/// and a request that finds all of them lent waits for one to come back. Each is used by one
/// thread at a time; the lock hands it over. One given back broken (its connection lost) is
/// dropped, and the next borrower opens a new one.
private final class Pool<Item>: @unchecked Sendable {
    private let limit: Int
    private let open: () throws -> Item
    private let condition = NSCondition()
    private var idle: [Item] = []
    private var opened = 0

    init(first: Item?, limit: Int, open: @escaping () throws -> Item) {
        self.limit = limit
        self.open = open
        if let first {
            idle = [first]
            opened = 1
        }
    }

    func borrow() throws -> Item {
        condition.lock()
        while idle.isEmpty, opened >= limit { condition.wait() }
        if let item = idle.popLast() {
            condition.unlock()
            return item
        }
        opened += 1
        condition.unlock()
        do {
            return try open()
        } catch {
            condition.lock()
            opened -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    /// Runs `body` with an item lent to this thread, kept in its thread dictionary under `key`
    /// meanwhile: a `lend` inside another on the same thread gets the outer one's item, and
    /// `body` is told it `joined` it. The item goes back when the outermost `body` returns; one
    /// whose connection was lost (`PostgreSQLError.isConnectionFailure`) is dropped.
    func lend<T>(heldAs key: String, _ body: (Item, _ joined: Bool) throws -> T) throws -> T {
        let held = Thread.current.threadDictionary
        if let item = held[key] as? Item { return try body(item, true) }
        let item = try borrow()
        held[key] = item
        var broken = false
        defer {
            held.removeObject(forKey: key)
            giveBack(item, broken: broken)
        }
        do {
            return try body(item, false)
        } catch let error as PostgreSQLError {
            broken = error.isConnectionFailure
            throw error
        }
    }

    func giveBack(_ item: Item, broken: Bool = false) {
        condition.lock()
        if broken { opened -= 1 } else { idle.append(item) }
        condition.signal()
        condition.unlock()
    }
}
