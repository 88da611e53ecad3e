import Foundation
import Synchronization

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
    /// A file that another process has open through SQLite (`annolink serve` or `sketch`, QGIS)
    /// is never replaced: that process would go on reading and writing the replaced file, and
    /// lose what it writes (issue 25). It is found by its lock (`DatabaseFileHold`), checked
    /// before `body` runs and held from just before the rename until after it, so that no
    /// process opens the old file meanwhile. The process calling this must not have `path` open
    /// itself (its own locks do not count, and closing the hold would release them).
    ///
    /// - Throws: `StoreError.fileExists` when `path` exists (before or after), `StoreError.
    ///   fileInUse` when `replacing` and another process has it open, `StoreError.
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
        // Refused before the work, when it is certain; the hold is taken again for the rename.
        if replacing { try DatabaseFileHold(path)?.release() }
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).annolink-\(getpid()).tmp").path
        removeDatabase(temporary)
        let cleanup = InterruptCleanup.arm(temporary)
        defer { InterruptCleanup.disarm(cleanup) }
        do {
            let result = try body(temporary)
            if replacing {
                let hold = try DatabaseFileHold(path)
                defer { hold?.release() }
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

/// A hold on an existing database file that proves no other process has it open through
/// SQLite, kept while `NewFile` replaces it.
///
/// SQLite's unix VFS marks a connection's use of a file with POSIX advisory locks on bytes of
/// its own at offset 1 GiB (`PENDING_BYTE`): a connection in WAL mode — every connection of
/// `annolink serve`, `sketch` and an edit in progress, QGIS's — holds a read lock on the
/// shared range (`PENDING_BYTE + 2`, 510 bytes) from its first read until it closes (that is
/// how SQLite's last connection knows it is the last), and any reader or writer of a
/// rollback-journal file holds it for its transaction. So a write lock over those 512 bytes is
/// granted only when no other process has the file open in WAL mode or in a transaction; while
/// it is held, a connection opening the file waits (busy timeout) instead of reading it. An
/// idle connection to a rollback-journal file holds nothing and cannot be seen; `annolink
/// serve` then finds its file replaced on the next request and answers 503 (docs/serve.md).
///
/// POSIX locks belong to the process and are released when any descriptor of the file closes,
/// so this must not be used on a file the process itself has open through SQLite.
struct DatabaseFileHold {
    private let descriptor: Int32

    /// Where SQLite's lock bytes begin (`PENDING_BYTE`), and how many it uses (pending,
    /// reserved, and the 510-byte shared range).
    private static let lockBytes = (start: off_t(0x4000_0000), count: off_t(512))

    /// Takes the hold on `path`; nil when there is no file there (nothing to hold). A file this
    /// process may not write is only tested (`F_GETLK`), not held.
    ///
    /// - Throws: `StoreError.fileInUse` when another process has the file open;
    ///   `StoreError.cannotCreate` when it cannot be opened or locked for another reason.
    init?(_ path: String) throws {
        var descriptor = open(path, O_RDWR | O_CLOEXEC)
        let writable = descriptor >= 0
        if !writable { descriptor = open(path, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw StoreError.cannotCreate(path: path, reason: String(cString: strerror(errno)))
        }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = Self.lockBytes.start
        lock.l_len = Self.lockBytes.count
        if writable {
            if fcntl(descriptor, F_SETLK, &lock) != 0 {
                let code = errno
                close(descriptor)
                if code == EAGAIN || code == EACCES { throw StoreError.fileInUse(path: path) }
                throw StoreError.cannotCreate(path: path, reason: "cannot lock it: \(String(cString: strerror(code)))")
            }
        } else {
            let tested = fcntl(descriptor, F_GETLK, &lock)
            let code = errno
            if tested != 0 || lock.l_type != Int16(F_UNLCK) {
                close(descriptor)
                if tested == 0 { throw StoreError.fileInUse(path: path) }
                throw StoreError.cannotCreate(path: path, reason: "cannot test its locks: \(String(cString: strerror(code)))")
            }
        }
        self.descriptor = descriptor
    }

    /// Ends the hold (closing the descriptor releases the lock).
    func release() {
        close(descriptor)
    }
}

/// Removes the temporary files of the `NewFile.write`s in progress when a signal stops the
/// process. The handler may come at any moment on any thread, so it touches only memory made
/// before it can come and never freed: a fixed table of path buffers, one row per write in
/// progress, and one atomic word saying which rows are in use. It only calls `unlink`, which is
/// safe in a signal handler, then dies of the signal as it would have.
///
/// Several writes may be in progress at once in one process (the tests build files on many
/// threads): each takes its own row, and the handlers are installed by the first and restored by
/// the last. A write that finds all rows taken goes on without cleanup on a signal.
enum InterruptCleanup {
    private static let suffixes = NewFile.databaseSuffixes
    private static let rows = 64
    private static let pathCapacity = Int(PATH_MAX) + 16
    /// `rows × suffixes` buffers of `pathCapacity` bytes each.
    nonisolated(unsafe) private static let paths: UnsafeMutablePointer<CChar> = {
        let paths = UnsafeMutablePointer<CChar>.allocate(capacity: rows * suffixes.count * pathCapacity)
        paths.initialize(repeating: 0, count: rows * suffixes.count * pathCapacity)
        return paths
    }()
    /// Bit `r` set: row `r`'s paths are complete and belong to a write in progress.
    private static let inUse = Atomic<UInt64>(0)
    private static let signals = [SIGINT, SIGTERM, SIGHUP]
    /// Guards `writes` and `replaced`. An `NSLock` (a pthread mutex), which ThreadSanitizer sees;
    /// it does not see the `Synchronization` module's `Mutex`, and reported its state as raced.
    private static let lock = NSLock()
    /// The writes in progress.
    nonisolated(unsafe) private static var writes = 0
    /// The signals whose handler the first write in progress replaced (not those ignored, as
    /// under `nohup`).
    nonisolated(unsafe) private static var replaced: [Int32] = []

    private static func path(row: Int, suffix: Int) -> UnsafeMutablePointer<CChar> {
        paths + (row * suffixes.count + suffix) * pathCapacity
    }

    /// Registers `temporary` for removal on a signal; returns the row to give to `disarm`.
    static func arm(_ temporary: String) -> Int? {
        lock.withLock {
            if writes == 0 { replaced = install() }
            writes += 1
            let free = (0..<rows).first { inUse.load(ordering: .relaxed) & (1 << UInt64($0)) == 0 }
            guard let row = free, temporary.utf8.count + 16 < pathCapacity else { return nil }
            for (i, suffix) in suffixes.enumerated() {
                _ = (temporary + suffix).withCString { strcpy(path(row: row, suffix: i), $0) }
            }
            inUse.bitwiseOr(1 << UInt64(row), ordering: .releasing)
            return row
        }
    }

    static func disarm(_ row: Int?) {
        lock.withLock {
            if let row { inUse.bitwiseAnd(~(1 << UInt64(row)), ordering: .releasing) }
            writes -= 1
            if writes == 0 {
                for number in replaced { signal(number, SIG_DFL) }
                replaced = []
            }
        }
    }

    private static func install() -> [Int32] {
        var replaced: [Int32] = []
        for number in signals {
            let previous = signal(number) { received in
                let rows = InterruptCleanup.inUse.load(ordering: .acquiring)
                for row in 0..<InterruptCleanup.rows where rows & (1 << UInt64(row)) != 0 {
                    for suffix in 0..<InterruptCleanup.suffixes.count {
                        unlink(InterruptCleanup.path(row: row, suffix: suffix))
                    }
                }
                signal(received, SIG_DFL)
                raise(received)
            }
            // A signal the caller chose to ignore stays ignored.
            if address(previous) == address(SIG_IGN) { signal(number, SIG_IGN) } else { replaced.append(number) }
        }
        return replaced
    }

    private static func address(_ handler: (@convention(c) (Int32) -> Void)?) -> Int {
        handler.map { unsafeBitCast($0, to: Int.self) } ?? 0
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
            // Every file annolink makes opens in QGIS with its annotation shown as text, and
            // follows the edits QGIS or GDAL make in it (docs/follow.md).
            try package.writeLayerStyles()
            try package.captureOutsideEditsOfLinkedTables()
            // Out of WAL for the move: the checkpoint puts every page in the file itself and
            // SQLite removes the -wal; the finished file is switched back under its own name.
            try package.connection.execute("PRAGMA journal_mode = DELETE")
            return result
        }
        _ = try Connection(path: path, mode: .readWrite, journalMode: "WAL")
        return result
    }
}
