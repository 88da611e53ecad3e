import Foundation

/// A thread that follows the edits other programs make to a served GeoPackage (QGIS, GDAL,
/// `sqlite3`; docs/follow.md): four times a second it asks the writer connection whether
/// another connection committed (`PRAGMA data_version`, no file read), and if so follows what
/// the change capture recorded, as one edit of the server's own (`Dataset.followOutsideEdits`).
/// Several servers on one file each try; the first to take the write lock follows a change,
/// and the others find nothing left.
final class OutsideEditFollower: @unchecked Sendable {
    private let condition = NSCondition()
    private var stopping = false

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
        if !stopping { _ = condition.wait(until: Date().addingTimeInterval(0.25)) }
        return stopping
    }

    /// Ends the thread within a quarter second.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }
}
