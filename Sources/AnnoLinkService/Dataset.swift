import AnnoLinkEditing
import AnnoLinkStore
import Foundation

/// The GeoPackage a server publishes, and the only way routes reach it: reads on a pool of
/// read-only connections, so many run at once; edits through one `EditService` that serializes
/// every write.
///
/// Routes never open files: the dataset's path is fixed when the server starts, so no request can
/// reach another file.
///
/// A writable dataset switches the file to WAL journaling (readers then never wait for the
/// writer, nor the writer for readers). Each read runs in one read transaction (one snapshot)
/// under the query time limit.
public final class Dataset: @unchecked Sendable {
    /// The service name: the file's stem (`loudoun` for `loudoun.gpkg`).
    public let name: String
    /// The file's path.
    public let path: String
    /// Whether the server refuses every edit (`--read-only`).
    public let readOnly: Bool
    /// The most records one response may hold (`--max-records`): routes page beyond it (Esri's
    /// `maxRecordCount` and `exceededTransferLimit`, OGC's `limit` ceiling and next link).
    public let maxRecords: Int
    /// Seconds the SQL of one read may run (`--query-timeout`) before SQLite interrupts it
    /// and `read` throws `ServiceError.queryTimeLimitExceeded`.
    public let queryTimeLimit: Double

    private let readers: ReaderPool
    private let writeLock = NSRecursiveLock()
    /// The key under which a thread's borrowed reader is kept while it reads.
    private var readerKey: String { "annolink.Dataset.reader.\(ObjectIdentifier(self).hashValue)" }
    private let writer: EditService?

    /// Opens `path` for serving: one reader now (to check the file), more on demand up to
    /// `readerLimit`, and the writer unless `readOnly`.
    ///
    /// - Throws: `StoreError` when the file is missing or not a GeoPackage; `SQLiteError` when
    ///   it cannot be switched to WAL.
    public init(path: String, readOnly: Bool = false, maxRecords: Int = 2000, queryTimeLimit: Double = 5, readerLimit: Int = 8) throws {
        self.path = path
        self.readOnly = readOnly
        self.maxRecords = maxRecords
        self.queryTimeLimit = queryTimeLimit
        name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        if readOnly {
            writer = nil
        } else {
            let package = try GeoPackage(path: path)
            let mode = try package.connection.scalarText("PRAGMA journal_mode = WAL")
            guard mode?.lowercased() == "wal" else {
                throw SQLiteError(.error, message: "could not switch \(path) to WAL journaling (got \(mode ?? "nothing"))")
            }
            writer = EditService(package: package)
        }
        readers = try ReaderPool(path: path, limit: max(1, readerLimit))
    }

    /// Runs `body` with a read-only view of the file, in one read transaction, under the query
    /// time limit. Many reads run at once, each on its own connection; a `read` inside another
    /// on the same thread joins the outer one (its connection, snapshot and time limit).
    ///
    /// - Throws: `ServiceError.queryTimeLimitExceeded` when the SQL ran longer than
    ///   `queryTimeLimit`; whatever `body` throws.
    public func read<T>(_ body: (GeoPackage) throws -> T) throws -> T {
        let held = Thread.current.threadDictionary
        if let package = held[readerKey] as? GeoPackage { return try body(package) }
        let package = try readers.borrow()
        held[readerKey] = package
        defer {
            held.removeObject(forKey: readerKey)
            readers.giveBack(package)
        }
        do {
            return try package.connection.withTimeLimit(seconds: queryTimeLimit) {
                try package.connection.read { try body(package) }
            }
        } catch let error as SQLiteError where error.resultCode == .interrupt {
            throw ServiceError.queryTimeLimitExceeded(seconds: queryTimeLimit)
        }
    }

    /// Runs `body` with the edit service, one writer at a time; every journal entry it writes
    /// records `user` (nil: no user, as on the command line). A `write` inside another on the
    /// same thread runs inside the outer one.
    ///
    /// - Throws: `ServiceError.readOnly` when the server was started with `--read-only`.
    public func write<T>(user: String? = nil, _ body: (EditService) throws -> T) throws -> T {
        guard let writer else { throw ServiceError.readOnly }
        writeLock.lock()
        defer { writeLock.unlock() }
        let journal = try writer.journal()
        let outerUser = journal.user
        journal.user = user
        defer { journal.user = outerUser }
        return try body(writer)
    }
}

/// Failures of the service layer itself (the interfaces map them to their error responses).
public enum ServiceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The server runs with `--read-only`.
    case readOnly
    /// A read ran longer than the query time limit and was interrupted (HTTP 503 or 504; Esri
    /// clients get error code 500 with this message).
    case queryTimeLimitExceeded(seconds: Double)

    public var description: String {
        switch self {
        case .readOnly: "the server is read-only"
        case .queryTimeLimitExceeded(let seconds):
            "the query ran longer than the server's limit of \(String(format: "%g", seconds)) s; ask for less (a smaller area, fewer records)"
        }
    }
}

/// Read-only connections to one file, lent one per read: at most `limit` are opened, and a
/// read that finds all of them lent waits for one to come back. Each connection is used by one
/// thread at a time; the lock hands it over.
private final class ReaderPool: @unchecked Sendable {
    private let path: String
    private let limit: Int
    private let condition = NSCondition()
    private var idle: [GeoPackage] = []
    private var opened = 0

    init(path: String, limit: Int) throws {
        self.path = path
        self.limit = limit
        idle = [try GeoPackage(path: path, readOnly: true)]
        opened = 1
    }

    func borrow() throws -> GeoPackage {
        condition.lock()
        while idle.isEmpty, opened >= limit { condition.wait() }
        if let package = idle.popLast() {
            condition.unlock()
            return package
        }
        opened += 1
        condition.unlock()
        do {
            return try GeoPackage(path: path, readOnly: true)
        } catch {
            condition.lock()
            opened -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    func giveBack(_ package: GeoPackage) {
        condition.lock()
        idle.append(package)
        condition.signal()
        condition.unlock()
    }
}
