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
///   (the file has one writer). The served file stays the served file (issue 25): every read
///   and edit first checks that the path still names the file opened at the start (device and
///   inode, and SQLite's own view of its open file) and refuses with
///   `ServiceError.fileReplaced` (503) when it was moved away or another file renamed over it;
///   an edit is checked again as its transaction begins and after it, so none is acknowledged
///   into a replaced file. Layout caches follow the file: a reader forgets its table layouts
///   when the schema cookie changed, the writer forgets layouts and compiled annotation classes
///   when another connection committed (`PRAGMA data_version`), and an edit whose transaction
///   finds the schema changed since it began is refused (`ServiceError.layoutChanged`).
/// - **PostGIS** (`postgresql://…`, `PG:…`; docs/postgis.md): reads borrow a connection of a
///   pool and run in one read-only `REPEATABLE READ` transaction under `statement_timeout`; each
///   edit borrows a writer connection of its own and is one PostgreSQL transaction whose rows are
///   locked `FOR UPDATE` by the store, so edits of different requests run at once and several
///   servers may share one database: nothing is kept between requests but layout caches, which
///   each request makes current (`PostGISStore.followLayout`). A
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
    /// The most edits one request may make (`--max-edits-per-request`): adds, updates and
    /// deletes of one `applyEdits` together; a request of more is refused before any is made.
    public let maxEditsPerRequest: Int
    /// Seconds one edit request may take from asking for the writer to its commit
    /// (`--edit-timeout`): waiting for the writer, then its edits; past it the edits roll back
    /// and `write` throws `ServiceError.editTimeLimitExceeded`.
    public let editTimeLimit: Double
    /// Whether an edit may leave a field that a label reads empty or NULL (`serve
    /// --allow-empty`); refused by default, as the CLI refuses it without `--allow-empty`.
    public let allowsEmptyLabelValues: Bool
    /// How long an idempotency key's answer is remembered (`FeatureServerEdits`, docs/serve.md).
    public static let idempotencyKeySeconds: Double = 24 * 60 * 60

    private let readers: Pool<ServedReader>?
    /// Stops the SQL of every GeoPackage connection of the dataset (`stopStatements()`).
    private let statementStop: StatementStop
    /// The served file as it was opened (GeoPackage only): what `checkServedFile` compares
    /// the path with.
    private let servedFile: FileIdentity?
    /// The writer's GeoPackage (GeoPackage only, not `--read-only`).
    private let writerPackage: GeoPackage?
    /// The writer's schema cookie and data version when its caches were last made current;
    /// read and written under `writeLock`.
    private var writerVersions: (schema: Int64, data: Int64)?
    private let writeLock = NSRecursiveLock()
    /// The key under which a thread's borrowed reader is kept while it reads.
    private var readerKey: String { "annolink.Dataset.reader.\(ObjectIdentifier(self).hashValue)" }
    /// The key under which a thread's borrowed PostGIS edit service is kept while it writes.
    private var writerKey: String { "annolink.Dataset.writer.\(ObjectIdentifier(self).hashValue)" }
    /// The key under which a thread's edit deadline is kept while it writes.
    private var deadlineKey: String { "annolink.Dataset.deadline.\(ObjectIdentifier(self).hashValue)" }
    private let stopping = StopClock()
    private let writer: EditService?
    private let storeReaders: Pool<PostGISStore>?
    private let storeWriters: Pool<EditService>?
    private let listener: JournalListener?
    /// Follows other programs' edits of the served data (not `--read-only`).
    private var follower: OutsideEditFollower?
    /// The writer's `data_version` when the follower last followed; only its thread uses it.
    private var followedVersion: Int64?
    /// A read-only connection of a `--read-only` GeoPackage dataset, kept only to ask
    /// `PRAGMA data_version` (`changeEpoch()`); under `watchLock`.
    private let watchPackage: GeoPackage?
    private let watchLock = NSLock()
    /// Random for each server run, in every change stamp: a server started again does not
    /// reuse the tags of an earlier run, whose file may have been changed while it was down.
    private let runNonce = UInt64.random(in: .min ... .max)
    /// The last pictures `/render.png` drew, by view and change key.
    let renderCache = RenderCache(capacity: 8)

    /// Opens `path` for serving: a GeoPackage file, or a PostGIS database when `path` is a
    /// connection string (`ConnectionString.isPostgreSQL`). One reader now (to check the store),
    /// more on demand up to `readerLimit`, and the writer unless `readOnly` (on PostGIS, up to
    /// `readerLimit` writer connections, opened on demand, and the journal's listener).
    ///
    /// - Throws: `StoreError` when the file is missing or not a GeoPackage, or the database holds
    ///   no annolink data set; `SQLiteError` when the file cannot be switched to WAL;
    ///   `PostgreSQLError` when the server cannot be reached.
    public init(path: String, readOnly: Bool = false, maxRecords: Int = 2000, queryTimeLimit: Double = 5, readerLimit: Int = 8,
                maxEditsPerRequest: Int = 10_000, editTimeLimit: Double = 30, allowsEmptyLabelValues: Bool = false) throws {
        self.readOnly = readOnly
        self.allowsEmptyLabelValues = allowsEmptyLabelValues
        self.maxRecords = maxRecords
        self.queryTimeLimit = queryTimeLimit
        let stop = StatementStop()
        statementStop = stop
        self.maxEditsPerRequest = maxEditsPerRequest
        self.editTimeLimit = editTimeLimit
        if ConnectionString.isPostgreSQL(path) {
            kind = .postGIS
            let first = try PostGISStore(path)
            self.path = first.location
            name = try first.connection.query("SELECT current_database()").scalar?.textValue ?? "annolink"
            storeReaders = Pool(first: first, limit: max(1, readerLimit)) { try PostGISStore(path) }
            storeWriters = readOnly ? nil : Pool(first: nil, limit: max(1, readerLimit)) { EditService(store: try PostGISStore(path)) }
            let listener = try JournalListener(connectionString: path, maxWaiters: max(1, readerLimit / 2))
            self.listener = listener
            readers = nil
            writer = nil
            writerPackage = nil
            servedFile = nil
            watchPackage = nil
            if !readOnly {
                let follower = OutsideEditFollower(self)
                self.follower = follower
                listener.onChange { [weak follower] in follower?.wake() }
            }
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
            writerPackage = nil
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
            writerPackage = package
        }
        func reader() throws -> GeoPackage {
            let package = try GeoPackage(path: path, readOnly: true)
            package.connection.statementStop = stop
            return package
        }
        let first = try reader()
        watchPackage = readOnly ? try reader() : nil
        // The file the connections just opened: the path names it, and SQLite has it open.
        guard let opened = FileIdentity(path: path), try !first.connection.fileHasMoved(),
              try writerPackage?.connection.fileHasMoved() != true else {
            throw ServiceError.fileReplaced(path: path)
        }
        servedFile = opened
        readers = Pool(first: ServedReader(first), limit: max(1, readerLimit)) { ServedReader(try reader()) }
        writerPackage?.connection.beginCheck = { [weak self] in try self?.checkWriteTransaction() }
        if writerPackage != nil { follower = OutsideEditFollower(self) }
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
        follower?.stop()
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
        return try readers.lend(heldAs: readerKey) { reader, joined in
            let package = reader.package
            if joined { return try body(package) }
            do {
                return try package.connection.withTimeLimit(seconds: queryTimeLimit) {
                    try package.connection.read {
                        // In the read transaction, so that the layout is checked in the snapshot the body reads.
                        try checkServedFile(package.connection)
                        try reader.followSchema()
                        return try body(package)
                    }
                }
            } catch let error as SQLiteError where error.resultCode == .interrupt && !statementStop.isStopped {
                throw ServiceError.queryTimeLimitExceeded(seconds: queryTimeLimit)
            } catch ServiceError.fileReplaced(let path) {
                // Found by a read (an edit's request reads first too), after its transaction:
                // the writer's WAL goes into the file it has open, as the writer's own check
                // does it (`checkWriterFile`), so the edits acknowledged before the move stay.
                emptyWriterWAL()
                throw ServiceError.fileReplaced(path: path)
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
                    try store.followLayout()
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
    /// The whole call — waiting for the writer, then `body` — is bounded by `editTimeLimit`
    /// (its SQL by SQLite's progress handler, as `read`'s; `body` checks between its edits with
    /// `checkEditTime()`), and by `stopEdits(within:)` once the server is stopping: past either,
    /// nothing of `body` is kept.
    ///
    /// On a GeoPackage the file is checked before and after `body` (`checkServedFile`), and as
    /// each transaction of the writer begins (`checkWriteTransaction`); the writer's caches are
    /// made current first (`followFile`).
    ///
    /// - Throws: `ServiceError.readOnly` when the server was started with `--read-only`;
    ///   `ServiceError.editTimeLimitExceeded` or `.stopping` past the time limit or the stop;
    ///   `ServiceError.fileReplaced` when the served file was moved away or replaced — also when
    ///   `body` returned, since what it wrote went to the replaced file and must not be
    ///   acknowledged; `ServiceError.layoutChanged` when another program changed the schema as
    ///   an edit's transaction began; whatever `body` throws.
    public func write<T>(user: String? = nil, _ body: (EditService) throws -> T) throws -> T {
        if readOnly { throw ServiceError.readOnly }
        let held = Thread.current.threadDictionary
        if let deadline = held[deadlineKey] as? EditDeadline {
            return try writeJoined(user: user, deadline: deadline, timed: false, body)
        }
        let deadline = EditDeadline(seconds: editTimeLimit, stopping: stopping)
        try deadline.check()
        held[deadlineKey] = deadline
        defer { held.removeObject(forKey: deadlineKey) }
        do {
            return try writeJoined(user: user, deadline: deadline, timed: true, body)
        } catch let error as SQLiteError where error.resultCode == .interrupt && deadline.hasPassed {
            try deadline.check()
            throw error
        } catch let error as PostgreSQLError where error.sqlState == "57014" && deadline.hasPassed {
            try deadline.check()
            throw error
        } catch let error as SQLiteError where error.resultCode == .interrupt && !statementStop.isStopped {
            // Neither the edit's time nor the stop: a class where clause ran past
            // `conditionTimeLimit`; the edit rolled back.
            throw ServiceError.queryTimeLimitExceeded(seconds: queryTimeLimit)
        }
    }

    /// `write`'s work: `timed` for the outermost call, which sets the time limit of the SQL.
    private func writeJoined<T>(user: String?, deadline: EditDeadline, timed: Bool, _ body: (EditService) throws -> T) throws -> T {
        if let storeWriters {
            return try storeWriters.lend(heldAs: writerKey) { service, joined in
                if joined { return try body(service) }
                // A class added or changed by another server or command since this service's last edit.
                if let store = service.store as? PostGISStore, try store.followLayout() { service.annotation.forgetClasses() }
                // Every statement, a wait for another session's row locks included, ends by
                // the edit's deadline (SQLSTATE 57014, then `editTimeLimitExceeded` below).
                return try service.store.withStatementTimeLimit(seconds: deadline.remaining) {
                    try Self.asUser(user, service) { try body(service) }
                }
            }
        }
        guard let writer, let writerPackage else { throw ServiceError.readOnly }
        // The writer is asked for in short waits, so that a stop or the time limit ends the wait.
        while !writeLock.lock(before: Date().addingTimeInterval(min(0.1, max(0.001, deadline.remaining)))) {
            try deadline.check()
        }
        defer { writeLock.unlock() }
        let connection = writerPackage.connection
        guard timed, !connection.isInTransaction else {
            return try Self.asUser(user, writer) { try body(writer) }
        }
        try checkWriterFile(writerPackage)
        try followFile(writer, writerPackage)
        let result: T
        do {
            result = try connection.withTimeLimit(seconds: deadline.remaining) {
                try Self.asUser(user, writer) { try body(writer) }
            }
        } catch {
            // The progress handler may have interrupted the ROLLBACK itself; the writer must not
            // stay in the transaction.
            if connection.isInTransaction { try? connection.execute("ROLLBACK") }
            // A transaction that found the file replaced as it began: its WAL is seen to here.
            try? checkWriterFile(writerPackage)
            throw error
        }
        // An edit committed into a file that was replaced meanwhile is lost: not acknowledged.
        try checkWriterFile(writerPackage)
        return result
    }

    // MARK: The served file stays the served file

    /// Throws `ServiceError.fileReplaced` unless `path` still names the file the server opened
    /// and `connection` has that file open. One `stat(2)` for each.
    private func checkServedFile(_ connection: Connection) throws {
        guard let servedFile else { return }
        guard FileIdentity(path: path) == servedFile, try !connection.fileHasMoved() else {
            throw ServiceError.fileReplaced(path: path)
        }
    }

    /// `checkServedFile` for the writer; when the file was moved or replaced, the writer's WAL
    /// is first emptied into the file it has open (`PRAGMA wal_checkpoint(TRUNCATE)`). The
    /// `-wal` and `-shm` keep their names, so they now sit beside a file they do not belong to:
    /// SQLite, which does not checkpoint a moved file when it closes it, would leave the frames
    /// there for the next program that opens the new file to read as its own (a damaged file),
    /// and a file moved away would lack its newest edits. Called under `writeLock`.
    private func checkWriterFile(_ package: GeoPackage) throws {
        do {
            try checkServedFile(package.connection)
        } catch {
            try? package.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            throw error
        }
    }

    /// Empties the writer's WAL into the file it has open (`checkWriterFile`), unless an edit
    /// holds the writer: then that edit's own check does it.
    private func emptyWriterWAL() {
        guard let writerPackage, writeLock.lock(before: Date()) else { return }
        defer { writeLock.unlock() }
        try? checkWriterFile(writerPackage)
    }

    /// Makes the writer's caches current: when another connection committed since they were
    /// read (a class added or changed by `annolink annotate`, a column dropped by another
    /// program), its table layouts and compiled classes are forgotten and read again on use.
    /// Called under `writeLock`.
    private func followFile(_ writer: EditService, _ package: GeoPackage) throws {
        let versions = (schema: try package.connection.schemaVersion(), data: try package.connection.dataVersion())
        if let known = writerVersions, known != versions {
            package.forgetLayout()
            writer.annotation.forgetClasses()
        }
        writerVersions = versions
    }

    /// The writer connection's `beginCheck`: right after `BEGIN IMMEDIATE`, in the transaction
    /// the edit will write in, the file is still the served file and its schema the one the
    /// caches were made current for; a commit of another connection since (data only) makes
    /// them current again. Runs under `writeLock` (only `write` uses the writer).
    private func checkWriteTransaction() throws {
        guard let writer, let writerPackage else { return }
        try checkServedFile(writerPackage.connection)
        guard let known = writerVersions else { return try followFile(writer, writerPackage) }
        // The writer's own schema changes (the journal's tables, made by the first edit; a batch
        // of edits in transactions of their own) move the schema cookie but not `data_version`,
        // which counts other connections' commits only.
        let connection = writerPackage.connection
        if try connection.schemaVersion() != known.schema, try connection.dataVersion() != known.data { throw ServiceError.layoutChanged }
        try followFile(writer, writerPackage)
    }

    /// Follows the edits other programs committed since the last call (`EditService.
    /// followOutsideEdits`), as an edit of the server's own, when the writer's `data_version`
    /// says another connection committed (on PostGIS: when the listener heard of a change since);
    /// nothing when an edit holds the GeoPackage's writer (it catches up itself). The first call
    /// follows what was recorded while no server ran. Returns what went wrong, for the follower
    /// to report. Called by `OutsideEditFollower`'s thread only.
    func followOutsideEdits() -> String? {
        guard stopping.stopsAt == nil else { return nil }
        let version: Int64?
        if let listener {
            version = Int64(listener.changeCount)
        } else {
            guard let writerPackage, writeLock.try() else { return nil }
            version = try? writerPackage.connection.dataVersion()
            writeLock.unlock()
        }
        guard let version, version != followedVersion else { return nil }
        do {
            try write { try $0.followOutsideEdits(command: "annolink serve (following outside edits)") }
            followedVersion = version
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// Throws when the edit request this thread is making has run past `editTimeLimit`, or the
    /// server is stopping and its edits' time is up; nothing when it is not writing. Long
    /// batches call it between edits, so that Swift code between statements is bounded too.
    ///
    /// - Throws: `ServiceError.editTimeLimitExceeded` or `ServiceError.stopping`.
    public func checkEditTime() throws {
        try (Thread.current.threadDictionary[deadlineKey] as? EditDeadline)?.check()
    }

    /// From now on edits not begun are refused, and edits in flight stop (roll back and are
    /// answered `ServiceError.stopping`) once `seconds` have passed: `HTTPServer.stop(grace:)`
    /// calls it so that every request in flight is answered within its grace.
    public func stopEdits(within seconds: Double) {
        stopping.stop(within: seconds)
        follower?.stop()
    }

    /// Runs `body` as `write` does, unless `key` of `user` answered a request already: then
    /// returns that request's answer and runs nothing. Otherwise the answer `body` returns is
    /// remembered under `key`, for `idempotencyKeySeconds`, in the same transaction as its edits.
    /// `fingerprint` sums up the request (its operation and parameters): the same key for a
    /// different request is refused.
    ///
    /// - Throws: `ServiceError.idempotencyKeyReused` for a key of another request; whatever
    ///   `write` throws.
    public func writeOnce(key: String, fingerprint: String, user: String?, _ body: (EditService) throws -> String) throws -> String {
        try write(user: user) { service in
            let store = service.store
            return try store.inTransaction {
                if let remembered = try store.rememberedAnswer(key: key, user: user, keptFor: Self.idempotencyKeySeconds) {
                    guard remembered.fingerprint == fingerprint else { throw ServiceError.idempotencyKeyReused }
                    return remembered.answer
                }
                let answer = try body(service)
                try store.remember(key: key, user: user, fingerprint: fingerprint, answer: answer, keepingFor: Self.idempotencyKeySeconds)
                return answer
            }
        }
    }

    private static func asUser<T>(_ user: String?, _ service: EditService, _ body: () throws -> T) throws -> T {
        let journal = try service.journal()
        let outerUser = journal.user
        journal.user = user
        defer { journal.user = outerUser }
        return try body()
    }

    // MARK: Change stamps (docs/serve.md, "Compression and validators")

    /// A number that changes whenever a program other than this server committed to the file
    /// (another `annolink`, QGIS, `sqlite3`): `PRAGMA data_version` of the writer, which counts
    /// other connections' commits only (of a `--read-only` server's watch connection, where
    /// every commit is another's). Nil when it cannot be known now — on PostGIS, or while an
    /// edit holds the writer — and answers then fall back to tags of their bytes.
    ///
    /// An answer may be tagged from `changeStamp(of:in:)` only when the epoch read before its
    /// read transaction began equals the one read after the stamp: then no outside commit fell
    /// between, and the stamp describes the snapshot the answer is read from.
    public func changeEpoch() -> Int64? {
        if let writerPackage {
            guard writeLock.try() else { return nil }
            defer { writeLock.unlock() }
            return try? writerPackage.connection.dataVersion()
        }
        guard let watchPackage else { return nil }
        watchLock.lock()
        defer { watchLock.unlock() }
        return try? watchPackage.connection.dataVersion()
    }

    /// What the rows of `tables` are at in `package`'s snapshot (a `read`'s): for each table its
    /// `gpkg_contents.last_change` (every annolink edit, undo and redo stamps it) and the newest
    /// done journal entry that changed it (entries form one line, so that entry fixes the
    /// table's rows; an undo moves it back), with this server run's nonce. Nil when a table is
    /// not in `gpkg_contents`.
    ///
    /// Edits of this server are all journaled; other programs' commits are caught by
    /// `changeEpoch()`, which goes with the stamp into the tag.
    public func changeStamp(of tables: [String], in package: GeoPackage) throws -> String? {
        let connection = package.connection
        let hasJournal = try connection.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'annolink_journal'") == 1
        var parts = ["run \(runNonce)"]
        for table in tables {
            guard let changed = try connection.rows("SELECT last_change FROM gpkg_contents WHERE lower(table_name) = lower(?)", [.text(table)]).first
            else { return nil }
            let entry = hasJournal ? try connection.scalarInt("""
                SELECT coalesce(max(id), 0) FROM annolink_journal
                WHERE state = 'done' AND instr(char(10) || lower(tables) || char(10), char(10) || lower(?) || char(10)) > 0
                """, [.text(table)]) ?? 0 : 0
            parts.append("\(table) \(changed[0].textValue ?? "") \(entry)")
        }
        return parts.joined(separator: "\n")
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

    /// A key that changes with every journaled change of the data, whichever process made it,
    /// and with `gpkg_contents.last_change` (which GDAL and QGIS stamp when they write): what
    /// `GET /journal` answers as `key`, and what `/render.png`'s cache is keyed by.
    public func changeKey() throws -> String {
        let head = try journalHead()
        let lastChange = kind == .geoPackage
            ? try read { try $0.connection.scalarText("SELECT max(last_change) FROM gpkg_contents") ?? "" } : ""
        return head.key + "/" + lastChange
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
    /// An edit request waited for the writer and made its edits for longer than the edit time
    /// limit; nothing of it was kept (HTTP 503; Esri clients get error code 500).
    case editTimeLimitExceeded(seconds: Double)
    /// The server is stopping (SIGTERM): the edit was not begun, or rolled back (HTTP 503).
    case stopping
    /// An idempotency key came again with another request than the one it answered (HTTP 422;
    /// Esri: error code 400).
    case idempotencyKeyReused
    /// The served file was moved away, removed, or another file was renamed over it while the
    /// server ran (HTTP 503): the server neither reads nor writes either file any more.
    case fileReplaced(path: String)
    /// Another program changed the file's schema (tables, columns) just as an edit's
    /// transaction began; nothing was written (HTTP 503, try again).
    case layoutChanged

    public var description: String {
        switch self {
        case .readOnly: "the server is read-only"
        case .notOnThisStore(let what): "\(what) is not served from a PostGIS database yet (docs/postgis.md); serve a GeoPackage for it"
        case .queryTimeLimitExceeded(let seconds):
            "the query ran longer than the server's limit of \(String(format: "%g", seconds)) s; ask for less (a smaller area, fewer records)"
        case .editTimeLimitExceeded(let seconds):
            "the edits took longer than the server's limit of \(String(format: "%g", seconds)) s (--edit-timeout), waiting for other edits " +
                "included; nothing of them was kept: send fewer edits per request, or send them again"
        case .stopping: "the server is stopping; nothing of this edit was kept: send it again when the server is back"
        case .idempotencyKeyReused: "this idempotency key answered another request; give each request a key of its own"
        case .fileReplaced(let path):
            "the served file \(path) was moved away or replaced by another file while the server ran; nothing is read from or " +
                "written to it any more: restart annolink serve to serve the file there now"
        case .layoutChanged: "another program changed the file's tables as the edit began; nothing was written; try again"
        }
    }
}

/// Whether the server is stopping, and when the edits in flight must give up: set once by
/// `Dataset.stopEdits(within:)`, read by every writing thread.
private final class StopClock: @unchecked Sendable {
    private let lock = NSLock()
    private var end: UInt64?

    func stop(within seconds: Double) {
        lock.lock()
        if end == nil { end = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, seconds) * 1_000_000_000) }
        lock.unlock()
    }

    /// When edits in flight must stop; nil while the server is not stopping.
    var stopsAt: UInt64? {
        lock.lock()
        defer { lock.unlock() }
        return end
    }
}

/// The end of one edit request's time: `editTimeLimit` after it asked for the writer, or the
/// stop, whichever comes first. A request begun after the stop was called is refused at once.
private final class EditDeadline {
    private let end: UInt64
    private let stopping: StopClock
    private let begunWhileStopping: Bool
    let seconds: Double

    init(seconds: Double, stopping: StopClock) {
        self.seconds = seconds
        self.stopping = stopping
        end = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, seconds) * 1_000_000_000)
        begunWhileStopping = stopping.stopsAt != nil
    }

    /// Seconds left (0 when past).
    var remaining: Double {
        let now = DispatchTime.now().uptimeNanoseconds
        let limit = min(end, stopping.stopsAt ?? .max)
        return limit > now ? Double(limit - now) / 1_000_000_000 : 0
    }

    var hasPassed: Bool { begunWhileStopping || remaining <= 0 }

    func check() throws {
        if begunWhileStopping { throw ServiceError.stopping }
        let now = DispatchTime.now().uptimeNanoseconds
        if let stop = stopping.stopsAt, now >= stop { throw ServiceError.stopping }
        if now >= end { throw ServiceError.editTimeLimitExceeded(seconds: seconds) }
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

/// A pooled reader of the served file, and the schema cookie its table layouts were read at.
private final class ServedReader {
    let package: GeoPackage
    private var schemaVersion: Int64?

    init(_ package: GeoPackage) { self.package = package }

    /// Forgets the reader's table layouts when the schema changed since they were read; call
    /// it in the read transaction.
    func followSchema() throws {
        let now = try package.connection.schemaVersion()
        if let schemaVersion, schemaVersion != now { package.forgetLayout() }
        schemaVersion = now
    }
}
