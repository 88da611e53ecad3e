import AnnoLinkGeometry
import AnnoLinkStore
import AnnoLinkTestSupport
import Foundation
import Testing

// The oracle for undo is the file itself: a dump of every table (R-trees included) taken before
// the edit must come back exactly; for redo, the dump taken after it. The spatial index is also
// checked against the geometries' envelopes as SQLite's rtree module rounds them.

@Suite struct JournalTests {

    // MARK: Ordinary edits

    @Test("an attribute edit and its annotation text are undone and redone exactly")
    func attributeEdit() throws {
        let db = try JournalScratch()
        let journal = try Journal(package: db.package)
        let before = try db.dump()
        try journal.record(command: "annolink set test.gpkg parcel_lines 3 Name=Oak", summary: "set Name of parcel_lines fid 3") { _ in
            try db.package.connection.run("UPDATE parcel_lines SET Name = 'Oak' WHERE fid = 3")
            try db.package.connection.run("UPDATE parcel_lines_anno SET TextString = 'Oak' WHERE FeatureID = 3")
        }
        let after = try db.dump()
        #expect(after != before)

        let entries = try journal.entries()
        #expect(entries.count == 1)
        let entry = try #require(entries.first)
        #expect(entry.id == 1)
        #expect(entry.command == "annolink set test.gpkg parcel_lines 3 Name=Oak")
        #expect(entry.summary == "set Name of parcel_lines fid 3")
        #expect(entry.state == .done)
        #expect(entry.kind == .ordinary)
        #expect(entry.rowCount == 2)
        #expect(entry.tables == ["parcel_lines", "parcel_lines_anno"])
        #expect(entry.time.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil)

        let undone = try journal.undo()
        #expect(undone.id == 1 && undone.state == .undone)
        #expect(try db.dump() == before)
        #expect(try journal.entries().first?.state == .undone)

        let redone = try journal.redo()
        #expect(redone.id == 1 && redone.state == .done)
        #expect(try db.dump() == after)
        #expect(throws: JournalError.nothingToRedo) { try journal.redo() }
    }

    @Test("a geometry edit with its footprint and extent: the R-tree follows undo and redo")
    func geometryEdit() throws {
        let db = try JournalScratch()
        let journal = try Journal(package: db.package)
        let before = try db.dump()
        try journal.record(command: "annolink move test.gpkg parcel_lines 2 --to 11896500,7034500", summary: "move parcel_lines fid 2") { _ in
            let c = db.package.connection
            try c.run("UPDATE parcel_lines SET geom = ? WHERE fid = 2", [.blob(db.package.encode(JournalScratch.line(2, dx: 420, dy: -310.5), for: db.lines))])
            try c.run("UPDATE parcel_lines_anno SET geom = ?, AnchorX = AnchorX + 420, AnchorY = AnchorY - 310.5 WHERE FeatureID = 2",
                      [.blob(db.package.encode(JournalScratch.footprint(2, dx: 420, dy: -310.5), for: db.annotation))])
            try db.package.refreshContents(of: db.lines)
            try db.package.refreshContents(of: db.annotation)
        }
        let after = try db.dump()
        #expect(after["rtree_parcel_lines_geom"] != before["rtree_parcel_lines_geom"])
        #expect(after["gpkg_contents"] != before["gpkg_contents"])
        #expect(try journal.entries().first?.tables == ["parcel_lines", "parcel_lines_anno", "gpkg_contents"])

        _ = try journal.undo()
        #expect(try db.dump() == before)
        try db.expectIndexMatchesGeometries(db.lines)
        try db.expectIndexMatchesGeometries(db.annotation)

        _ = try journal.redo()
        #expect(try db.dump() == after)
        try db.expectIndexMatchesGeometries(db.lines)
        try db.expectIndexMatchesGeometries(db.annotation)
    }

    @Test("an insert with its annotation is undone and redone, spatial index included")
    func insertEdit() throws {
        let db = try JournalScratch()
        let journal = try Journal(package: db.package)
        let before = try db.dump()
        try journal.record(command: "annolink add test.gpkg parcel_lines --geometry 'LINESTRING(…)'", summary: "add parcel_lines fid 40") { _ in
            try db.insertLine(fid: 40)
        }
        let after = try db.dump()
        #expect(after["parcel_lines"]?.count == 7)
        #expect(after["rtree_parcel_lines_geom"]?.count == 7)

        _ = try journal.undo()
        #expect(try db.dump() == before)
        try db.expectIndexMatchesGeometries(db.lines)
        try db.expectIndexMatchesGeometries(db.annotation)
        _ = try journal.redo()
        #expect(try db.dump() == after)
        try db.expectIndexMatchesGeometries(db.lines)
    }

    @Test("a delete with its annotation is undone and redone, spatial index included")
    func deleteEdit() throws {
        let db = try JournalScratch()
        let journal = try Journal(package: db.package)
        let before = try db.dump()
        try journal.record(command: "annolink delete test.gpkg parcel_lines 4", summary: "delete parcel_lines fid 4") { _ in
            try db.package.connection.run("DELETE FROM parcel_lines_anno WHERE FeatureID = 4")
            try db.package.connection.run("DELETE FROM parcel_lines WHERE fid = 4")
        }
        let after = try db.dump()
        #expect(after["parcel_lines"]?.count == 5)
        #expect(after["rtree_parcel_lines_anno_geom"]?.count == 5)

        _ = try journal.undo()
        #expect(try db.dump() == before)
        try db.expectIndexMatchesGeometries(db.lines)
        try db.expectIndexMatchesGeometries(db.annotation)
        _ = try journal.redo()
        #expect(try db.dump() == after)
        try db.expectIndexMatchesGeometries(db.annotation)
    }

    @Test("undo and redo from another connection, as another process would, in order")
    func acrossConnections() throws {
        let db = try JournalScratch()
        var states = [try db.dump()]
        do {
            let journal = try Journal(package: db.package)
            for fid in [1, 2, 3] as [Int64] {
                try journal.record(command: "annolink set test.gpkg parcel_lines \(fid) Length=99", summary: "set Length of parcel_lines fid \(fid)") { _ in
                    try db.package.connection.run("UPDATE parcel_lines SET Length = 99 WHERE fid = ?", [.integer(fid)])
                }
                states.append(try db.dump())
            }
        }
        let (other, journal) = try db.otherProcess()
        #expect(try journal.entries().map(\.id) == [3, 2, 1])
        #expect(try journal.entries(limit: 2).map(\.id) == [3, 2])
        #expect(try journal.undo().id == 3)
        #expect(try db.dump(other.connection) == states[2])
        #expect(try Journal(package: db.package).undo().id == 2)
        #expect(try db.dump() == states[1])
        let (_, third) = try db.otherProcess()
        #expect(try third.redo().id == 2)
        #expect(try db.dump() == states[2])
        #expect(try journal.entries().map(\.state) == [.undone, .done, .done])
    }

    // MARK: Conflicts

    @Test("undo refuses, naming table and fid, when the row was changed since; nothing changes")
    func undoConflict() throws {
        let db = try JournalScratch()
        let journal = try Journal(package: db.package)
        try journal.record(command: "annolink set test.gpkg parcel_lines 5 Name=Elm", summary: "set Name") { _ in
            try db.package.connection.run("UPDATE parcel_lines SET Name = 'Elm St' WHERE fid = 5")
            try db.package.connection.run("UPDATE parcel_lines_anno SET TextString = 'Elm St' WHERE FeatureID = 5")
        }
        // Another tool changes the same row afterwards.
        let (other, _) = try db.otherProcess()
        try other.connection.run("UPDATE parcel_lines SET Name = 'Oak St' WHERE fid = 5")
        let before = try db.dump()

        let error = #expect(throws: JournalError.self) { try journal.undo() }
        guard case .conflict(let action, let entry, let table, let fid, let reason) = error else {
            Issue.record("expected a conflict, got \(String(describing: error))")
            return
        }
        #expect(action == .undo && entry == 1 && table == "parcel_lines" && fid == 5)
        #expect(reason == "was changed after edit #1 (Name is 'Oak St' now; edit #1 left 'Elm St')")
        #expect(error?.description == "undo refused: parcel_lines fid 5 was changed after edit #1 (Name is 'Oak St' now; edit #1 left 'Elm St')")
        #expect(try db.dump() == before)
        #expect(try journal.entries().first?.state == .done)
        #expect(!db.package.connection.isInTransaction)
    }

    @Test("undo refuses when a row it would delete or restore was deleted or added since")
    func missingAndExistingRows() throws {
        let db = try JournalScratch()
        let journal = try Journal(package: db.package)
        try journal.record(command: "add", summary: "add fid 50") { _ in try db.insertLine(fid: 50) }
        try db.package.connection.run("DELETE FROM parcel_lines WHERE fid = 50")
        let before = try db.dump()
        let deleted = #expect(throws: JournalError.self) { try journal.undo() }
        #expect(deleted?.description.hasPrefix("undo refused: parcel_lines fid 50 was deleted after edit #1") == true)
        #expect(try db.dump() == before)

        let second = try JournalScratch()
        let journal2 = try Journal(package: second.package)
        try journal2.record(command: "delete", summary: "delete fid 2") { _ in
            try second.package.connection.run("DELETE FROM parcel_lines WHERE fid = 2")
        }
        try second.insertLine(fid: 2, name: "new line")
        let existing = #expect(throws: JournalError.self) { try journal2.undo() }
        guard case .conflict(_, _, "parcel_lines", 2, let reason) = existing else {
            Issue.record("expected a conflict on parcel_lines fid 2, got \(String(describing: existing))")
            return
        }
        #expect(reason.hasPrefix("exists again"))
    }

    @Test("redo refuses when the row was changed after the undo")
    func redoConflict() throws {
        let db = try JournalScratch()
        let journal = try Journal(package: db.package)
        try journal.record(command: "set", summary: "set Length") { _ in
            try db.package.connection.run("UPDATE parcel_lines SET Length = 1.5 WHERE fid = 6")
        }
        _ = try journal.undo()
        try db.package.connection.run("UPDATE parcel_lines SET Length = 2.5 WHERE fid = 6")
        let before = try db.dump()
        let error = #expect(throws: JournalError.self) { try journal.redo() }
        #expect(error?.description == "redo refused: parcel_lines fid 6 was changed after edit #1 was undone (Length is 2.5 now; its undo left 42.575)")
        #expect(try db.dump() == before)
        #expect(try journal.entries().first?.state == .undone)
    }

    @Test("an extent rewritten by another tool does not block undo; it is recomputed")
    func contentsRewrittenElsewhere() throws {
        let db = try JournalScratch()
        let journal = try Journal(package: db.package)
        let before = try db.dump()
        try journal.record(command: "move", summary: "move fid 1") { _ in
            try db.package.connection.run("UPDATE parcel_lines SET geom = ? WHERE fid = 1",
                [.blob(db.package.encode(JournalScratch.line(1, dx: -5000), for: db.lines))])
            try db.package.refreshContents(of: db.lines)
        }
        try db.package.connection.run("UPDATE gpkg_contents SET last_change = '2030-01-01T00:00:00.000Z' WHERE table_name = 'parcel_lines'")
        _ = try journal.undo()
        let after = try db.dump()
        #expect(after["parcel_lines"] == before["parcel_lines"])
        #expect(after["rtree_parcel_lines_geom"] == before["rtree_parcel_lines_geom"])
        let extent = try db.package.connection.rows("SELECT min_x, max_x FROM gpkg_contents WHERE table_name = 'parcel_lines'")[0]
        let indexed = try db.package.connection.rows("SELECT min(minx), max(maxx) FROM rtree_parcel_lines_geom")[0]
        #expect(extent == indexed)
    }

    // MARK: History

    @Test("a new edit after undo discards what was undone; ids are never reused")
    func newEditDropsRedo() throws {
        let db = try JournalScratch()
        let journal = try Journal(package: db.package)
        for fid in [1, 2] as [Int64] {
            try journal.record(command: "set \(fid)", summary: "set \(fid)") { _ in
                try db.package.connection.run("UPDATE parcel_lines SET Name = 'x' WHERE fid = ?", [.integer(fid)])
            }
        }
        _ = try journal.undo()
        try journal.record(command: "set 3", summary: "set 3") { _ in
            try db.package.connection.run("UPDATE parcel_lines SET Name = 'y' WHERE fid = 3")
        }
        #expect(throws: JournalError.nothingToRedo) { try journal.redo() }
        #expect(try journal.entries().map(\.id) == [3, 1])
        #expect(try journal.undo().id == 3)
        #expect(try journal.undo().id == 1)
        #expect(throws: JournalError.nothingToUndo) { try journal.undo() }
        #expect(try db.package.connection.scalarText("SELECT group_concat(coalesce(Name, ''), ',') FROM parcel_lines")
            == "Line 1,Line 2,Line 3,Line 4,Line 5,Line 6")
    }

    @Test("an edit that changes nothing writes no entry and keeps redo")
    func emptyEdit() throws {
        let db = try JournalScratch()
        let journal = try Journal(package: db.package)
        try journal.record(command: "set", summary: "set") { _ in
            try db.package.connection.run("UPDATE parcel_lines SET Name = 'z' WHERE fid = 1")
        }
        _ = try journal.undo()
        try journal.record(command: "noop", summary: "nothing") { _ in
            try db.package.connection.run("UPDATE parcel_lines SET Name = Name WHERE fid = 2")
        }
        #expect(try journal.entries().count == 1)
        #expect(try journal.redo().id == 1)
    }

    @Test("a failure inside record leaves no entry and no change")
    func failureInsideRecord() throws {
        struct Injected: Error {}
        let db = try JournalScratch()
        let journal = try Journal(package: db.package)
        try journal.record(command: "set", summary: "first") { _ in
            try db.package.connection.run("UPDATE parcel_lines SET Name = 'kept' WHERE fid = 1")
        }
        _ = try journal.undo()
        let before = try db.dump()
        let tablesBefore = try db.package.connection.rows("SELECT name FROM sqlite_master ORDER BY name")
        #expect(throws: Injected.self) {
            try journal.record(command: "set", summary: "fails") { recorder in
                try db.package.connection.run("UPDATE parcel_lines SET Name = 'lost' WHERE fid = 2")
                try recorder.captureImages(table: "parcel_lines_anno", columns: ["AnchorX"], rowsWhere: "1")
                try db.package.connection.run("UPDATE parcel_lines_anno SET AnchorX = 0")
                throw Injected()
            }
        }
        #expect(try db.dump() == before)
        #expect(try db.package.connection.rows("SELECT name FROM sqlite_master ORDER BY name") == tablesBefore)
        #expect(try journal.entries().map(\.state) == [.undone], "the undone entry is still there")
        #expect(!db.package.connection.isInTransaction)
        #expect(try journal.redo().id == 1)
    }

    @Test("nothing to undo or redo in a file without a journal")
    func emptyJournal() throws {
        let db = try JournalScratch()
        let journal = try Journal(package: db.package)
        #expect(try journal.entries().isEmpty)
        #expect(throws: JournalError.nothingToUndo) { try journal.undo() }
        #expect(throws: JournalError.nothingToRedo) { try journal.redo() }
        #expect(try db.package.connection.scalarInt("SELECT count(*) FROM sqlite_master WHERE name LIKE 'annolink_journal%'") == 0)
    }

    @Test("nested record calls join the outer entry")
    func nestedRecord() throws {
        let db = try JournalScratch()
        let journal = try Journal(package: db.package)
        try journal.record(command: "outer", summary: "outer") { _ in
            try db.package.connection.run("UPDATE parcel_lines SET Name = 'a' WHERE fid = 1")
            try journal.record(command: "inner", summary: "inner") { _ in
                try db.package.connection.run("UPDATE parcel_lines SET Name = 'b' WHERE fid = 2")
            }
        }
        let entries = try journal.entries()
        #expect(entries.count == 1)
        #expect(entries.first?.rowCount == 2)
    }

    @Test("inside a caller's transaction the entry commits or rolls back with it")
    func callersTransaction() throws {
        struct Injected: Error {}
        let db = try JournalScratch()
        let journal = try Journal(package: db.package)
        let c = db.package.connection
        #expect(throws: Injected.self) {
            try c.write {
                try journal.record(command: "set", summary: "rolled back") { _ in try c.run("UPDATE parcel_lines SET Name = 'r' WHERE fid = 1") }
                throw Injected()
            }
        }
        #expect(try c.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'annolink_journal'") == 0)
        _ = try c.write {
            try journal.record(command: "set", summary: "kept") { _ in try c.run("UPDATE parcel_lines SET Name = 'k' WHERE fid = 1") }
        }
        #expect(try journal.entries().map(\.summary) == ["kept"])
        _ = try journal.undo()
        #expect(try c.scalarText("SELECT Name FROM parcel_lines WHERE fid = 1") == "Line 1")
    }

    @Test("error descriptions are one line in the user's words")
    func descriptions() {
        #expect(JournalError.nothingToUndo.description == "nothing to undo: every edit in the journal is undone already, or there is none")
        #expect(JournalError.nothingToRedo.description == "nothing to redo: no edit was undone since the last edit")
        #expect(JournalError.conflict(action: .undo, entry: 5, table: "parcel_lines", fid: 12, reason: "was deleted after edit #5").description
            == "undo refused: parcel_lines fid 12 was deleted after edit #5")
        #expect(JournalError.conflict(action: .redo, entry: 5, table: "parcels", fid: nil,
                                      reason: "no longer exists: it was dropped after edit #5 was undone").description
            == "redo refused: parcels no longer exists: it was dropped after edit #5 was undone")
        #expect(JournalError.corrupt(entry: 3, reason: "its image table annolink_journal_3_1_before is missing").description
            == "journal entry #3 cannot be used: its image table annolink_journal_3_1_before is missing")
        #expect(JournalError.unsupportedBulkChange(table: "parcels", reason: "it has no INTEGER PRIMARY KEY").description
            == "cannot record the bulk change of parcels: it has no INTEGER PRIMARY KEY; nothing was changed")
    }

    @Test("undo refuses when a table of the entry was dropped")
    func droppedTable() throws {
        let db = try JournalScratch()
        let journal = try Journal(package: db.package)
        try db.package.connection.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
        try journal.record(command: "note", summary: "note") { _ in
            try db.package.connection.run("INSERT INTO notes (body) VALUES ('x')")
            try db.package.connection.run("UPDATE parcel_lines SET Name = 'n' WHERE fid = 1")
        }
        try db.package.connection.execute("DROP TABLE notes")
        let before = try db.dump()
        let error = #expect(throws: JournalError.self) { try journal.undo() }
        #expect(error?.description == "undo refused: notes no longer exists: it was dropped after edit #1")
        #expect(try db.dump() == before)
    }

    // MARK: Validation

    @Test("validate_gpkg.py accepts a file after journaled edits, bulk images included")
    func validatorAccepts() throws {
        let db = try JournalScratch(features: 40, srsID: 2924)
        let journal = try Journal(package: db.package)
        try journal.record(command: "set", summary: "set") { _ in
            try db.package.connection.run("UPDATE parcel_lines SET Name = 'v' WHERE fid = 1")
        }
        try journal.record(command: "translate", summary: "translate all") { recorder in
            try recorder.captureImages(table: "parcel_lines", columns: ["geom"], rowsWhere: "1")
            try db.package.withSpatialIndexSuspended(table: "parcel_lines") { try db.translate(db.lines, dx: 10, dy: 10) }
            try db.package.refreshContents(of: db.lines)
        }
        _ = try journal.undo()
        // The validator reads the file's header bytes, which WAL mode writes at a checkpoint
        // (when the last connection closes, in a real run).
        try db.package.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let result = try GeoPackageValidator.validate(db.path)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(result.output)")
    }
}
