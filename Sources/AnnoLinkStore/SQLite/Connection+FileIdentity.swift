import CSQLite
import Foundation

/// Which file a path names: its device and inode, as `stat(2)` reports them. Two paths (or one
/// path at two moments) name the same file when their identities are equal; a file renamed
/// over another, or moved away and replaced, has another identity under the same path.
public struct FileIdentity: Equatable, Sendable, CustomStringConvertible {
    /// `st_dev`.
    public var device: UInt64
    /// `st_ino`.
    public var inode: UInt64

    /// The file `path` names now; nil when the path names nothing (moved away or removed).
    /// Wraps `stat(2)`, which follows symbolic links, as SQLite's open does.
    public init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    public var description: String { "device \(device), inode \(inode)" }
}

extension Connection {
    /// Whether the file this connection has open is no longer the file its path names: it was
    /// moved away, removed, or another file was renamed over it (`mv other.gpkg served.gpkg`).
    /// One `stat(2)` of the path. Wraps `sqlite3_file_control(SQLITE_FCNTL_HAS_MOVED)`, which
    /// compares the inode SQLite has open with the one at the path.
    ///
    /// - Throws: `SQLiteError` when the VFS cannot tell (not the unix VFS).
    public func fileHasMoved() throws -> Bool {
        var moved: Int32 = 0
        let rc = sqlite3_file_control(handle, "main", SQLITE_FCNTL_HAS_MOVED, &moved)
        guard rc == SQLITE_OK else { throw SQLiteError(code: rc, message: "cannot tell whether \(path) was moved") }
        return moved != 0
    }

    /// The schema cookie (`PRAGMA schema_version`): it changes with every change of the schema
    /// (a table, column, index or trigger created, altered or dropped) by any connection, so a
    /// layout read at one value is current as long as the value is the same.
    public func schemaVersion() throws -> Int64 {
        try scalarInt("PRAGMA schema_version") ?? 0
    }

    /// `PRAGMA data_version`: changes when another connection (of this process or another)
    /// committed since this connection last asked; this connection's own commits leave it.
    public func dataVersion() throws -> Int64 {
        try scalarInt("PRAGMA data_version") ?? 0
    }
}
