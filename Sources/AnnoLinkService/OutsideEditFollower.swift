import Foundation

/// A thread that follows the edits other programs make to the served data (QGIS, GDAL,
/// `sqlite3`, psql; docs/follow.md), as one edit of the server's own each time
/// (`Dataset.followOutsideEdits`). On a GeoPackage, four times a second it asks the writer
/// connection whether another connection committed (`PRAGMA data_version`, no file read); on
/// PostGIS the journal listener wakes it (`wake()`) as soon as a change capture's notification
/// arrives. Several servers on one file or database each try; the first to take the write lock
/// (the follow lock on PostGIS) follows a change, and the others find nothing left.
final class OutsideEditFollower: @unchecked Sendable {
    private let condition = NSCondition()
    private var stopping = false
    private var woken = false

    /// Starts following for `dataset` (held weakly: the follower ends with it).
    init(_ dataset: Dataset) {
        let thread = Thread { [weak self, weak dataset] in
            var lastError: String?
            while let self, !self.waitForTick() {
                guard let dataset else { return }
                let error = dataset.followOutsideEdits()
                if let error, error != lastError {
                    FileHandle.standardError.write(Data("annolink serve: cannot follow outside edits: \(error)\n".utf8))
                }
                lastError = error
            }
        }
        thread.name = "annolink outside edit follower"
        thread.start()
    }

    /// Waits a quarter second; true when stopping.
    private func waitForTick() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if !stopping, !woken { _ = condition.wait(until: Date().addingTimeInterval(0.25)) }
        woken = false
        return stopping
    }

    /// Ends the current wait at once, so that the thread looks for outside edits now.
    func wake() {
        condition.lock()
        woken = true
        condition.broadcast()
        condition.unlock()
    }

    /// Ends the thread within a quarter second.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }
}
