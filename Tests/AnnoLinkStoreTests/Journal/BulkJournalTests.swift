import AnnoLinkGeometry
import AnnoLinkStore
import Foundation
import Testing

@Suite struct BulkJournalTests {

    /// Records a bulk move of every line and its annotation by (dx, dy), with the R-trees
    /// suspended, as the bulk move does.
    func moveAll(_ db: JournalScratch, _ journal: Journal, dx: Double, dy: Double, where condition: String = "1") throws {
        try journal.record(command: "annolink translate test.gpkg parcel_lines --where '\(condition)' --by \(dx),\(dy)",
                           summary: "translate parcel_lines") { recorder in
            let c = db.package.connection
            try c.execute("DROP TABLE IF EXISTS temp.selection; CREATE TEMP TABLE selection (fid INTEGER PRIMARY KEY)")
            try c.run("INSERT INTO temp.selection SELECT fid FROM parcel_lines WHERE \(condition)")
            try recorder.captureImages(table: "parcel_lines", columns: ["geom"], rowsWhere: "fid IN (SELECT fid FROM temp.selection)")
            try recorder.captureImages(table: "parcel_lines_anno", columns: ["geom", "AnchorX", "AnchorY"],
                                       rowsWhere: "FeatureID IN (SELECT fid FROM temp.selection)")
            try db.package.withSpatialIndexSuspended(table: "parcel_lines") {
                try db.translate(db.lines, where: "fid IN (SELECT fid FROM temp.selection)", dx: dx, dy: dy)
            }
            try db.package.withSpatialIndexSuspended(table: "parcel_lines_anno") {
                try db.translate(db.annotation, where: "FeatureID IN (SELECT fid FROM temp.selection)", dx: dx, dy: dy)
                try c.run("UPDATE parcel_lines_anno SET AnchorX = AnchorX + ?, AnchorY = AnchorY + ? WHERE FeatureID IN (SELECT fid FROM temp.selection)",
                          [.real(dx), .real(dy)])
            }
            try db.package.refreshContents(of: db.lines)
            try db.package.refreshContents(of: db.annotation)
        }
    }

    @Test("a bulk move of 10,000 lines and their annotation: undo and redo exact, R-trees rebuilt")
    func bulkMove() throws {
        let db = try JournalScratch(features: 10_000)
        let journal = try Journal(package: db.package)
        let before = try db.dump()
        try moveAll(db, journal, dx: 1250.5, dy: -730.25)
        let after = try db.dump()
        #expect(after["parcel_lines"] != before["parcel_lines"])
        try db.expectIndexMatchesGeometries(db.lines)
        try db.expectIndexMatchesGeometries(db.annotation)

        let entry = try #require(try journal.entries().first)
        #expect(entry.kind == .bulk)
        #expect(entry.rowCount == 20_002, "10,000 lines, 10,000 annotations, 2 gpkg_contents rows")
        #expect(entry.tables == ["parcel_lines", "parcel_lines_anno", "gpkg_contents"])
        #expect(entry.summary == "translate parcel_lines")
        // The changeset holds only what was not imaged.
        #expect(try db.package.connection.scalarInt("SELECT length(changeset) < 1000 FROM annolink_journal WHERE id = 1") == 1)

        let (other, otherJournal) = try db.otherProcess()
        #expect(try otherJournal.undo().state == .undone)
        #expect(try db.dump(other.connection) == before)
        try db.expectIndexMatchesGeometries(db.lines)
        try db.expectIndexMatchesGeometries(db.annotation)
        #expect(try triggerCount(db) == 12, "the R-tree triggers are back")

        _ = try journal.redo()
        #expect(try db.dump() == after)
        try db.expectIndexMatchesGeometries(db.lines)
        try db.expectIndexMatchesGeometries(db.annotation)
        #expect(try db.package.connection.scalarText("PRAGMA integrity_check") == "ok")
    }

    @Test("a bulk move of a few rows of a large table restores them through the triggers")
    func smallBulkMove() throws {
        let db = try JournalScratch(features: 300)
        let journal = try Journal(package: db.package)
        let before = try db.dump()
        try moveAll(db, journal, dx: 3, dy: 4, where: "fid <= 10")
        let after = try db.dump()
        _ = try journal.undo()
        #expect(try db.dump() == before)
        try db.expectIndexMatchesGeometries(db.lines)
        _ = try journal.redo()
        #expect(try db.dump() == after)
        try db.expectIndexMatchesGeometries(db.annotation)
    }

    @Test("bulk undo refuses, naming table and fid, when a moved row was changed since")
    func bulkConflict() throws {
        let db = try JournalScratch(features: 200)
        let journal = try Journal(package: db.package)
        try moveAll(db, journal, dx: 10, dy: 10)
        try db.package.connection.run("UPDATE parcel_lines_anno SET AnchorX = 1 WHERE fid = 117")
        try db.package.connection.run("UPDATE parcel_lines SET geom = ? WHERE fid = 150", [.blob(db.package.encode(JournalScratch.line(150), for: db.lines))])
        let before = try db.dump()
        let error = #expect(throws: JournalError.self) { try journal.undo() }
        // Images are checked newest first: the annotation table's before the lines'.
        guard case .conflict(.undo, 1, "parcel_lines_anno", 117, let reason) = error else {
            Issue.record("expected a conflict on parcel_lines_anno fid 117, got \(String(describing: error))")
            return
        }
        #expect(reason.hasPrefix("was changed after edit #1 (AnchorX is 1.0 now; edit #1 left "))
        #expect(try db.dump() == before)
        try db.package.connection.run("DELETE FROM parcel_lines_anno WHERE fid = 117")
        let geometry = #expect(throws: JournalError.self) { try journal.undo() }
        #expect(geometry?.description.hasPrefix("undo refused: parcel_lines_anno fid 117 was deleted after edit #1") == true)
    }

    @Test("bulk redo refuses when a row was changed after the undo; the geometry difference is named")
    func bulkRedoConflict() throws {
        let db = try JournalScratch(features: 50)
        let journal = try Journal(package: db.package)
        try moveAll(db, journal, dx: 10, dy: 10)
        _ = try journal.undo()
        try db.package.connection.run("UPDATE parcel_lines SET geom = ? WHERE fid = 33",
            [.blob(db.package.encode(JournalScratch.line(33, dx: 1), for: db.lines))])
        let error = #expect(throws: JournalError.self) { try journal.redo() }
        #expect(error?.description == "redo refused: parcel_lines fid 33 was changed after edit #1 was undone (its geom is not the one its undo left)")
    }

    @Test("bulk rules: declared rows may not be inserted or deleted, tables declared once and before they change")
    func bulkRules() throws {
        let db = try JournalScratch(features: 20)
        let journal = try Journal(package: db.package)
        let before = try db.dump()
        let inserted = #expect(throws: JournalError.self) {
            try journal.record(command: "x", summary: "x") { recorder in
                try recorder.captureImages(table: "parcel_lines", columns: ["geom"], rowsWhere: "1")
                try db.insertLine(fid: 500)
            }
        }
        #expect(inserted == .unsupportedBulkChange(table: "parcel_lines", reason: "rows were inserted or deleted, which a bulk edit cannot record"))
        let deleted = #expect(throws: JournalError.self) {
            try journal.record(command: "x", summary: "x") { recorder in
                try recorder.captureImages(table: "parcel_lines", columns: ["Name"], rowsWhere: "fid < 5")
                try db.package.connection.run("DELETE FROM parcel_lines WHERE fid = 2")
            }
        }
        #expect(deleted == .unsupportedBulkChange(table: "parcel_lines", reason: "1 of the declared rows were deleted, which a bulk edit cannot record"))
        let late = #expect(throws: JournalError.self) {
            try journal.record(command: "x", summary: "x") { recorder in
                try db.package.connection.run("UPDATE parcel_lines SET Name = 'early' WHERE fid = 2")
                try recorder.captureImages(table: "parcel_lines", columns: ["Name"], rowsWhere: "1")
            }
        }
        #expect(late == .unsupportedBulkChange(table: "parcel_lines", reason: "it was changed in this edit before it was declared"))
        let cases: [(String, [String], String)] = [
            ("nowhere", ["geom"], "there is no such table"),
            ("parcel_lines", ["height"], "it has no column 'height'"),
            ("parcel_lines", ["fid"], "its key 'fid' cannot be changed by a bulk edit"),
            ("gpkg_contents", ["min_x"], "it has no INTEGER PRIMARY KEY"),
            ("rtree_parcel_lines_geom_node", ["data"], "it is a table of the journal or of a spatial index"),
        ]
        for (table, columns, reason) in cases {
            let error = #expect(throws: JournalError.self) {
                try journal.record(command: "x", summary: "x") { recorder in
                    try recorder.captureImages(table: table, columns: columns, rowsWhere: "1")
                }
            }
            #expect(error == .unsupportedBulkChange(table: table, reason: reason))
        }
        #expect(try db.dump() == before)
        #expect(try journal.entries().isEmpty)
        #expect(try db.package.connection.scalarInt("SELECT count(*) FROM sqlite_master WHERE name LIKE 'annolink_journal%'") == 0)
    }

    @Test("a new edit discards undone bulk entries with their image tables")
    func discardImages() throws {
        let db = try JournalScratch(features: 30)
        let journal = try Journal(package: db.package)
        try moveAll(db, journal, dx: 1, dy: 1)
        let imageTables = "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name GLOB 'annolink_journal_[0-9]*'"
        #expect(try db.package.connection.scalarInt(imageTables) == 4)
        #expect(try db.package.connection.scalarInt("SELECT count(*) FROM gpkg_extensions WHERE table_name GLOB 'annolink_journal*'") == 8,
                "the journal, its images, moves and checksums tables, four image tables")
        _ = try journal.undo()
        try journal.record(command: "set", summary: "set") { _ in
            try db.package.connection.run("UPDATE parcel_lines SET Name = 'n' WHERE fid = 1")
        }
        #expect(try db.package.connection.scalarInt(imageTables) == 0)
        #expect(try db.package.connection.scalarInt("SELECT count(*) FROM annolink_journal_images") == 0)
        #expect(try db.package.connection.scalarInt("SELECT count(*) FROM gpkg_extensions WHERE table_name GLOB 'annolink_journal*'") == 4)
        #expect(try journal.entries().map(\.id) == [2])
    }

    @Test("spatial index suspension: triggers back as they were, index rebuilt, all undone on failure")
    func suspension() throws {
        struct Injected: Error {}
        let db = try JournalScratch(features: 100)
        let triggersBefore = try db.package.connection.rows("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
        try db.package.withSpatialIndexSuspended(table: "parcel_lines") {
            #expect(try triggerCount(db) == 6, "only the annotation table's triggers are left")
            try db.translate(db.lines, dx: 100, dy: 0)
            // Nested: runs the body; the outer call rebuilds.
            try db.package.withSpatialIndexSuspended(table: "parcel_lines") { try db.translate(db.lines, where: "fid < 10", dx: 0, dy: 7) }
        }
        #expect(try db.package.connection.rows("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name") == triggersBefore)
        try db.expectIndexMatchesGeometries(db.lines)

        let before = try db.dump()
        #expect(throws: Injected.self) {
            try db.package.withSpatialIndexSuspended(table: "parcel_lines") {
                try db.translate(db.lines, dx: 5, dy: 5)
                throw Injected()
            }
        }
        #expect(try db.dump() == before)
        #expect(try triggerCount(db) == 12)
        #expect(!db.package.connection.isInTransaction)
    }

    func triggerCount(_ db: JournalScratch) throws -> Int64? {
        try db.package.connection.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'rtree%'")
    }
}
