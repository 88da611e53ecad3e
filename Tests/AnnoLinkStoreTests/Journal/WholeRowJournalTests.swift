import AnnoLinkGeometry
import AnnoLinkStore
import Foundation
import Testing

/// Whole-row images (`JournalRecorder.captureRows`): a bulk edit that updates, inserts and
/// deletes the declared rows, undone and redone exactly from images on disk.
@Suite struct WholeRowJournalTests {
    /// Deletes the lines `condition` selects, renames the rest of the declared ones, and adds a
    /// line the condition selects at the end, recorded as one bulk entry.
    func edit(_ db: JournalScratch, _ journal: Journal) throws -> Int64? {
        try journal.record(command: "x", summary: "whole rows") { recorder in
            try recorder.captureRows(table: "parcel_lines", rowsWhere: "fid <= 10 OR fid = 500")
            let c = db.package.connection
            try c.run("DELETE FROM parcel_lines WHERE fid IN (2, 3)")
            try c.run("UPDATE parcel_lines SET Name = 'renamed' WHERE fid <= 10")
            try db.insertLine(fid: 500, name: "new")
        }.entry
    }

    @Test("rows updated, deleted and inserted are restored by undo and made again by redo, with their spatial index")
    func undoRedo() throws {
        let db = try JournalScratch(features: 40)
        let journal = try Journal(package: db.package)
        let before = try db.dump()
        let entry = try #require(try edit(db, journal))
        let after = try db.dump()
        #expect(after["parcel_lines"]?.count == 39)
        #expect(try db.package.connection.scalarInt("SELECT count(*) FROM parcel_lines WHERE Name = 'renamed'") == 8)
        let recorded = try #require(try journal.entries().first)
        // The lines are in the images; the new line's annotation (not declared) in the changeset.
        #expect(recorded.id == entry && recorded.kind == .bulk && recorded.tables == ["parcel_lines", "parcel_lines_anno"])
        #expect(recorded.rowCount == 11, "the 10 lines declared (the images count the rows they held before) and 1 annotation row in the changeset")

        let (other, otherJournal) = try db.otherProcess()
        #expect(try otherJournal.undo().state == .undone)
        #expect(try db.dump(other.connection) == before)
        try db.expectIndexMatchesGeometries(db.lines)
        _ = try journal.redo()
        #expect(try db.dump() == after)
        try db.expectIndexMatchesGeometries(db.lines)
        _ = try journal.undo()
        #expect(try db.dump() == before)
    }

    @Test("undo refuses when a deleted row was made again or an inserted one changed since, and changes nothing")
    func conflicts() throws {
        let db = try JournalScratch(features: 20)
        let journal = try Journal(package: db.package)
        _ = try edit(db, journal)
        try db.insertLine(fid: 2, name: "again")
        let snapshot = try db.dump()
        let recreated = #expect(throws: JournalError.self) { try journal.undo() }
        #expect(recreated?.description.contains("parcel_lines fid 2") == true, "\(String(describing: recreated))")
        #expect(try db.dump() == snapshot)
        try db.package.connection.run("DELETE FROM parcel_lines WHERE fid = 2")
        try db.package.connection.run("UPDATE parcel_lines SET Name = 'later' WHERE fid = 500")
        let changed = #expect(throws: JournalError.self) { try journal.undo() }
        #expect(changed?.description.contains("parcel_lines fid 500") == true, "\(String(describing: changed))")
        try db.package.connection.run("UPDATE parcel_lines SET Name = 'new' WHERE fid = 500")
        #expect(try journal.undo().state == .undone)
    }

    @Test("a row inserted or deleted outside the declared ones is refused, and nothing is kept")
    func strayRows() throws {
        let db = try JournalScratch(features: 20)
        let journal = try Journal(package: db.package)
        let before = try db.dump()
        let inserted = #expect(throws: JournalError.self) {
            try journal.record(command: "x", summary: "x") { recorder in
                try recorder.captureRows(table: "parcel_lines", rowsWhere: "fid <= 5")
                try db.insertLine(fid: 600)
            }
        }
        #expect(inserted == .unsupportedBulkChange(table: "parcel_lines",
                                                   reason: "rows outside the declared ones were inserted or deleted, which a bulk edit cannot record"))
        let deleted = #expect(throws: JournalError.self) {
            try journal.record(command: "x", summary: "x") { recorder in
                try recorder.captureRows(table: "parcel_lines", rowsWhere: "fid <= 5")
                try db.package.connection.run("DELETE FROM parcel_lines WHERE fid = 9")
            }
        }
        #expect(deleted == inserted)
        #expect(try db.dump() == before)
    }
}
