import AnnoLinkStore
import AnnoLinkTestSupport
import Foundation
import Testing

/// `Journal.head()`: where the journal stands, and a key that changes with every journaled
/// change, read by another connection as `annolink serve` reads it for the map page.
@Suite struct JournalHeadTests {
    @Test("the head follows new entries, undo, redo and a discarded redo; each state has its own key")
    func headFollowsTheJournal() throws {
        let db = try JournalScratch()
        let journal = try Journal(package: db.package)
        // Another connection, read-only, as the server's readers are.
        let reader = try Journal(package: try GeoPackage(path: db.path, readOnly: true))
        func edit(_ name: String) throws {
            try journal.record(command: "annolink set", summary: "set \(name)") { _ in
                try db.package.connection.run("UPDATE parcel_lines SET Name = ? WHERE fid = 1", [.text(name)])
            }
        }
        let empty = try reader.head()
        #expect(empty == JournalHead(lastEntry: 0, undo: nil, redo: nil))
        #expect(empty.key == "0.0")

        try edit("A")
        try edit("B")
        let two = try reader.head()
        #expect(two.lastEntry == 2 && two.undo?.id == 2 && two.undo?.summary == "set B" && two.redo == nil)
        #expect(two.undo == (try journal.entries().first), "the entry as `log` reads it")

        _ = try journal.undo()
        let undone = try reader.head()
        #expect(undone.lastEntry == 2 && undone.undo?.id == 1 && undone.redo?.id == 2 && undone.redo?.state == .undone)
        _ = try journal.undo()
        let both = try reader.head()
        #expect(both.undo == nil && both.redo?.id == 1, "redo takes the oldest undone entry")
        _ = try journal.redo()
        #expect(try reader.head() == undone, "redo brings back the state, and its key, before the second undo")

        // A new edit discards entry 2 (undone): the newest id is 3, never 2 again.
        try edit("C")
        let after = try reader.head()
        #expect(after.lastEntry == 3 && after.undo?.id == 3 && after.redo == nil)
        let keys = [empty, two, undone, both, after].map(\.key)
        #expect(Set(keys).count == keys.count, "\(keys)")
    }
}
