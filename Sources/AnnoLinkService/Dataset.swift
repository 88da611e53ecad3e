import AnnoLinkEditing
import AnnoLinkStore
import Foundation

/// The GeoPackage a server publishes, and the only way routes reach it: reads on a read-only
/// connection, edits through one `EditService` that serializes every write.
///
/// Routes never open files: the dataset's path is fixed when the server starts, so no request can
/// reach another file.
public final class Dataset: @unchecked Sendable {
    /// The service name: the file's stem (`loudoun` for `loudoun.gpkg`).
    public let name: String
    /// The file's path.
    public let path: String
    /// Whether the server refuses every edit (`--read-only`).
    public let readOnly: Bool

    private let readLock = NSLock()
    private let reader: GeoPackage
    private let writeLock = NSLock()
    private let writer: EditService?

    /// Opens `path` for serving.
    public init(path: String, readOnly: Bool = false) throws {
        self.path = path
        self.readOnly = readOnly
        name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        reader = try GeoPackage(path: path, readOnly: true)
        writer = readOnly ? nil : EditService(package: try GeoPackage(path: path))
    }

    /// Runs `body` with a read-only view of the file.
    public func read<T>(_ body: (GeoPackage) throws -> T) throws -> T {
        readLock.lock()
        defer { readLock.unlock() }
        return try body(reader)
    }

    /// Runs `body` with the edit service, one writer at a time.
    ///
    /// - Throws: `ServiceError.readOnly` when the server was started with `--read-only`.
    public func write<T>(_ body: (EditService) throws -> T) throws -> T {
        guard let writer else { throw ServiceError.readOnly }
        writeLock.lock()
        defer { writeLock.unlock() }
        return try body(writer)
    }
}

/// Failures of the service layer itself (the interfaces map them to their error responses).
public enum ServiceError: Error, Equatable, Sendable {
    /// The server runs with `--read-only`.
    case readOnly
}
