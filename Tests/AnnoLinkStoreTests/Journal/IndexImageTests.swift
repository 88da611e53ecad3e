import AnnoLinkGeometry
import AnnoLinkStore
import Foundation
import Testing

/// An edit that rebuilds a broken spatial index: undo brings the broken entries back exactly,
/// redo the rebuilt ones (JournalRecorder.captureSpatialIndex).
@Suite struct IndexImageTests {
    /// Breaks three entries of the lines' index: a wrong box (fid 2), a missing entry
    /// (fid 3), an entry without a row (fid 99).
    func breakIndex(_ db: JournalScratch) throws {
        try db.package.connection.execute("""
            UPDATE rtree_parcel_lines_geom SET minx = minx - 100 WHERE id = 2;
            DELETE FROM rtree_parcel_lines_geom WHERE id = 3;
            INSERT INTO rtree_parcel_lines_geom VALUES (99, 1, 2, 3, 4);
            """)
    }

    func entries(_ db: JournalScratch) throws -> [[SQLValue]] {
        try db.package.connection.rows("SELECT id, minx, maxx, miny, maxy FROM rtree_parcel_lines_geom ORDER BY id")
    }

    /// Records the repair: the broken ids declared, a row moved (fid 2, whose triggers rewrite
    /// its entry), and the index rebuilt.
    func repair(_ db: JournalScratch, _ journal: Journal) throws {
        try journal.record(command: "annolink check test.gpkg --fix", summary: "rebuild the index of parcel_lines") { recorder in
            try recorder.captureSpatialIndex(table: "parcel_lines", ids: [2, 3, 99])
            try db.package.updateFeature(db.lines, fid: 2, geometry: JournalScratch.line(2, dx: 5))
            try db.package.fillSpatialIndex(table: "parcel_lines", column: "geom")
        }
    }

    @Test("undo puts the broken entries back, redo the rebuilt ones; the entry is a bulk one")
    func undoRedo() throws {
        let db = try JournalScratch(features: 6)
        try breakIndex(db)
        let broken = try entries(db)
        let before = try db.dump()
        let journal = try Journal(package: db.package)
        try repair(db, journal)
        try db.expectIndexMatchesGeometries(db.lines)
        let repaired = try entries(db)
        let after = try db.dump()
        #expect(repaired.count == 6)

        let entry = try #require(try journal.entries().first)
        #expect(entry.kind == .bulk)
        #expect(entry.tables == ["parcel_lines", "rtree_parcel_lines_geom"])
        #expect(entry.rowCount == 4, "one row moved, three index entries")

        let (other, otherJournal) = try db.otherProcess()
        _ = try otherJournal.undo()
        #expect(try entries(db) == broken)
        #expect(try db.dump(other.connection) == before)
        #expect(try db.package.connection.scalarText("SELECT rtreecheck('rtree_parcel_lines_geom')") == "ok")

        _ = try journal.redo()
        #expect(try entries(db) == repaired)
        #expect(try db.dump() == after)
    }

    @Test("an undo refuses when a declared entry was changed since, and changes nothing")
    func conflict() throws {
        let db = try JournalScratch(features: 6)
        try breakIndex(db)
        let journal = try Journal(package: db.package)
        try repair(db, journal)
        try db.package.connection.execute("DELETE FROM rtree_parcel_lines_geom WHERE id = 2")
        let changed = try db.dump()
        #expect(throws: JournalError.self) { try journal.undo() }
        do {
            _ = try journal.undo()
        } catch let error as JournalError {
            #expect(error.description == "undo refused: parcel_lines fid 2 has a spatial index entry (rtree_parcel_lines_geom) that was changed after edit #1")
        }
        #expect(try db.dump() == changed)
    }

    @Test("a new edit after the undo drops the index image with the undone entry")
    func discarded() throws {
        let db = try JournalScratch(features: 6)
        try breakIndex(db)
        let journal = try Journal(package: db.package)
        try repair(db, journal)
        let c = db.package.connection
        #expect(try c.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'annolink_journal_1_1_index'") == 1)
        _ = try journal.undo()
        try journal.record(command: "annolink set", summary: "set") { _ in try c.run("UPDATE parcel_lines SET Name = 'x' WHERE fid = 1") }
        #expect(try c.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'annolink_journal_1_1_index'") == 0)
        #expect(try c.scalarInt("SELECT count(*) FROM annolink_journal_indexes") == 0)
        #expect(try c.scalarInt("SELECT count(*) FROM gpkg_extensions WHERE table_name = 'annolink_journal_1_1_index'") == 0)
    }

    @Test("a table without a spatial index cannot be declared")
    func noIndex() throws {
        let db = try JournalScratch(features: 2)
        _ = try db.package.createFeatureTable(FeatureTableDefinition(name: "plain", geometryTypeName: "POINT", srsID: -1, columns: []), spatialIndex: false)
        let journal = try Journal(package: db.package)
        #expect(throws: JournalError.unsupportedBulkChange(table: "plain", reason: "it has no spatial index")) {
            try journal.record(command: "x", summary: "x") { recorder in try recorder.captureSpatialIndex(table: "plain", ids: [1]) }
        }
    }
}
