import Foundation

/// The last few pictures `/render.png` drew (docs/editor.md, "Overviews"), so that the same view
/// asked again — a page returning to the full extent, a second tab — is answered without drawing.
///
/// An entry is keyed by the request's view (bbox, size, overview) and the data's change key
/// (`Dataset.changeKey()`: the journal's head and `gpkg_contents.last_change`), read before the
/// picture is drawn: an edit changes the key, so the next request draws again, and an entry drawn
/// from data newer than its key is only ever asked for under that older key. The least recently
/// used entry goes when a new one comes past `capacity`. Shared by the server's threads (a lock).
final class RenderCache: @unchecked Sendable {
    /// A drawn picture and the headers that say what it holds.
    struct Entry {
        var png: [UInt8]
        var headers: [(String, String)]
    }

    /// How many pictures are kept.
    let capacity: Int
    private var entries: [(key: String, entry: Entry)] = []
    private let lock = NSLock()

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The entry kept for `key`, made the most recently used; nil when there is none.
    func entry(_ key: String) -> Entry? {
        lock.lock()
        defer { lock.unlock() }
        guard let index = entries.firstIndex(where: { $0.key == key }) else { return nil }
        let found = entries.remove(at: index)
        entries.append(found)
        return found.entry
    }

    /// Keeps `entry` for `key`, dropping the least recently used past `capacity`.
    func keep(_ entry: Entry, for key: String) {
        lock.lock()
        defer { lock.unlock() }
        entries.removeAll { $0.key == key }
        entries.append((key, entry))
        if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
    }
}
