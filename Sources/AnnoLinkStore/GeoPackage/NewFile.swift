import Foundation

/// A new file written under a temporary name in its destination's folder and given its name
/// only when it is complete, so that an interrupted `sample` or `import` (an error, Ctrl-C, a
/// kill) never leaves a half-written file under the name the user asked for (issue 16, D3).
///
/// The temporary name is hidden and says what it is (`.NAME.annolink-PID.tmp`); it is removed
/// when the writing fails or the process is stopped by SIGINT, SIGTERM or SIGHUP, and left
/// (never mistaken for the output) only after a SIGKILL.
public enum NewFile {
    /// Runs `body` with the temporary path for `path`, then gives the file written there the
    /// name `path`, refusing to replace a file that appeared meanwhile — or, with `replacing`,
    /// replacing the file at `path` in one rename (its `-wal`, `-shm` and `-journal` are removed
    /// first, so that SQLite cannot apply them to the new file).
    ///
    /// `body` must have closed everything it opened on the temporary path, or switched a WAL
    /// database out of WAL mode, before it returns: the file is moved without its `-wal`.
    ///
    /// - Throws: `StoreError.fileExists` when `path` exists (before or after), `StoreError.
    ///   cannotCreate` when its folder is missing, and whatever `body` throws; in every case
    ///   the temporary file is removed.
    public static func write<T>(_ path: String, replacing: Bool = false, _ body: (String) throws -> T) throws -> T {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        guard !path.isEmpty, !url.lastPathComponent.isEmpty else { throw StoreError.cannotCreate(path: path, reason: "no file name given") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw StoreError.cannotCreate(path: path, reason: "the folder \(folder) does not exist")
        }
        guard replacing || !FileManager.default.fileExists(atPath: path) else { throw StoreError.fileExists(path: path) }
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).annolink-\(getpid()).tmp").path
        removeDatabase(temporary)
        InterruptCleanup.arm(temporary)
        defer { InterruptCleanup.disarm() }
        do {
            let result = try body(temporary)
            if replacing {
                for suffix in databaseSuffixes.dropFirst() { try? FileManager.default.removeItem(atPath: path + suffix) }
                guard rename(temporary, path) == 0 else { throw StoreError.cannotCreate(path: path, reason: String(cString: strerror(errno))) }
                removeDatabase(temporary)
                return result
            }
            // link(2) fails when the name exists, where rename(2) would replace it.
            guard link(temporary, path) == 0 else {
                let code = errno
                if code == EEXIST { throw StoreError.fileExists(path: path) }
                throw StoreError.cannotCreate(path: path, reason: String(cString: strerror(code)))
            }
            removeDatabase(temporary)
            return result
        } catch {
            removeDatabase(temporary)
            throw error
        }
    }

    /// A database file and the files SQLite keeps beside it, by the suffix of their names.
    static let databaseSuffixes = ["", "-wal", "-shm", "-journal"]

    /// Removes a database file and the files SQLite keeps beside it.
    static func removeDatabase(_ path: String) {
        for suffix in databaseSuffixes { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}

/// Removes the temporary file of a `NewFile.write` when a signal stops the process: the paths
/// are kept as C strings made before the signal can come, and the handler only calls
/// `unlink`, which is safe in a signal handler, then dies of the signal as it would have.
enum InterruptCleanup {
    private static let suffixes = NewFile.databaseSuffixes
    private static let count = suffixes.count
    nonisolated(unsafe) private static let paths: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let paths = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: count)
        paths.initialize(repeating: nil, count: count)
        return paths
    }()
    private static let signals = [SIGINT, SIGTERM, SIGHUP]
    /// The signals whose handler `arm` replaced (not those ignored, as under `nohup`).
    nonisolated(unsafe) private static var armed: [Int32] = []

    static func arm(_ temporary: String) {
        for (i, suffix) in suffixes.enumerated() { paths[i] = strdup(temporary + suffix) }
        armed = []
        for number in signals {
            let previous = signal(number) { received in
                for i in 0..<InterruptCleanup.count { if let path = InterruptCleanup.paths[i] { unlink(path) } }
                signal(received, SIG_DFL)
                raise(received)
            }
            // A signal the caller chose to ignore stays ignored.
            if address(previous) == address(SIG_IGN) { signal(number, SIG_IGN) } else { armed.append(number) }
        }
    }

    private static func address(_ handler: (@convention(c) (Int32) -> Void)?) -> Int {
        handler.map { unsafeBitCast($0, to: Int.self) } ?? 0
    }

    static func disarm() {
        for number in armed { signal(number, SIG_DFL) }
        armed = []
        for i in 0..<count {
            free(paths[i])
            paths[i] = nil
        }
    }
}

extension GeoPackage {
    /// Creates a new GeoPackage at `path` (see `create(path:)`), fills it with `body` and gives
    /// it its name only when `body` returns (`NewFile`). The file is in WAL mode, as every file
    /// annolink creates, and carries a QGIS style for each feature table (`writeLayerStyles`).
    ///
    /// - Throws: `StoreError.fileExists`, `.cannotCreate`, and whatever `body` throws; then
    ///   nothing is left at `path`.
    public static func build<T>(at path: String, _ body: (GeoPackage) throws -> T) throws -> T {
        let result = try NewFile.write(path) { temporary in
            let package = try GeoPackage.create(path: temporary)
            let result = try body(package)
            // Every file annolink makes opens in QGIS with its annotation shown as text.
            try package.writeLayerStyles()
            // Out of WAL for the move: the checkpoint puts every page in the file itself and
            // SQLite removes the -wal; the finished file is switched back under its own name.
            try package.connection.execute("PRAGMA journal_mode = DELETE")
            return result
        }
        _ = try Connection(path: path, mode: .readWrite, journalMode: "WAL")
        return result
    }
}
