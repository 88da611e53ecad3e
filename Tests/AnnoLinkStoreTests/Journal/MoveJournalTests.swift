import AnnoLinkGeometry
@testable import AnnoLinkStore
import Foundation
import Testing

/// Bulk entries that record a move by its vector (`JournalRecorder.captureMove`).
@Suite struct MoveJournalTests {

    /// Moves every selected line and its annotation by (dx, dy), one row at a time, reporting
    /// each row to the journal as the bulk move does; `skip` rows of the annotation are left
    /// alone and not reported (so they are not part of the move).
    func move(_ db: JournalScratch, _ journal: Journal, dx: Double, dy: Double, where condition: String = "1",
              skip: Set<Int64> = []) throws {
        try journal.record(command: "annolink translate test.gpkg parcel_lines --by \(dx),\(dy)", summary: "translate parcel_lines") { recorder in
            let c = db.package.connection
            try c.execute("DROP TABLE IF EXISTS temp.selection; CREATE TEMP TABLE selection (fid INTEGER PRIMARY KEY)")
            try c.run("INSERT INTO temp.selection SELECT fid FROM parcel_lines WHERE \(condition)")
            let lines = try recorder.captureMove(table: "parcel_lines", columns: [.geometry("geom")], dx: dx, dy: dy)
            let labels = try recorder.captureMove(table: "parcel_lines_anno", columns: [.geometry("geom"), .x("AnchorX"), .y("AnchorY"), .kept("TextString")],
                                                  dx: dx, dy: dy)
            try db.package.withSpatialIndexSuspended(table: "parcel_lines") {
                for row in try c.rows("SELECT fid, geom FROM parcel_lines WHERE fid IN (SELECT fid FROM temp.selection) ORDER BY fid") {
                    var blob = try #require(row[1].blobValue)
                    try GeoPackageGeometry.translate(blob: &blob, dx: dx, dy: dy)
                    try c.run("UPDATE parcel_lines SET geom = ? WHERE fid = ?", [.blob(blob), row[0]])
                    try lines.changed(key: try #require(row[0].integerValue), before: [row[1]], after: [.blob(blob)])
                }
            }
            try db.package.withSpatialIndexSuspended(table: "parcel_lines_anno") {
                for row in try c.rows("""
                    SELECT fid, geom, AnchorX, AnchorY, TextString FROM parcel_lines_anno
                    WHERE FeatureID IN (SELECT fid FROM temp.selection) ORDER BY FeatureID DESC
                    """) {
                    let fid = try #require(row[0].integerValue)
                    if skip.contains(fid) { continue }
                    var blob = try #require(row[1].blobValue)
                    try GeoPackageGeometry.translate(blob: &blob, dx: dx, dy: dy)
                    let after: [SQLValue] = [.blob(blob), .real((row[2].doubleValue ?? 0) + dx), .real((row[3].doubleValue ?? 0) + dy), row[4]]
                    try c.run("UPDATE parcel_lines_anno SET geom = ?, AnchorX = ?, AnchorY = ?, TextString = ? WHERE fid = ?", after + [row[0]])
                    try labels.changed(key: fid, before: Array(row.dropFirst()), after: after)
                }
            }
            try db.package.refreshContents(of: db.lines)
            try db.package.refreshContents(of: db.annotation)
        }
    }

    func scalar(_ db: JournalScratch, _ sql: String) throws -> Int64? { try db.package.connection.scalarInt(sql) }

    @Test("a move of 5,000 lines and their annotation keeps the vector, not the rows; undo and redo exact")
    func exactMove() throws {
        let db = try JournalScratch(features: 5_000)
        let journal = try Journal(package: db.package)
        let before = try db.dump()
        try move(db, journal, dx: 10, dy: 20)
        let after = try db.dump()
        #expect(after["parcel_lines"] != before["parcel_lines"])

        let entry = try #require(try journal.entries().first)
        #expect(entry.kind == .bulk)
        #expect(entry.rowCount == 10_002, "5,000 lines, 5,000 annotations, 2 gpkg_contents rows")
        #expect(entry.tables == ["parcel_lines", "parcel_lines_anno", "gpkg_contents"])
        #expect(try scalar(db, "SELECT count(*) FROM annolink_journal_moves") == 2)
        #expect(try scalar(db, "SELECT sum(exception_count) FROM annolink_journal_moves") == 0, "moving by (10, 20) is exact both ways here")
        #expect(try scalar(db, "SELECT max(length(keys)) FROM annolink_journal_moves") == 16, "one run of fids")

        let (other, otherJournal) = try db.otherProcess()
        #expect(try otherJournal.undo().state == .undone)
        #expect(try db.dump(other.connection) == before)
        try db.expectIndexMatchesGeometries(db.lines)
        try db.expectIndexMatchesGeometries(db.annotation)

        _ = try journal.redo()
        #expect(try db.dump() == after)
        try db.expectIndexMatchesGeometries(db.lines)
        try db.expectIndexMatchesGeometries(db.annotation)
        #expect(try db.package.connection.scalarText("PRAGMA integrity_check") == "ok")
    }

    @Test("rows that moving back would not restore bit for bit are copied, and undo is still exact")
    func inexactMove() throws {
        let db = try JournalScratch(features: 400)
        let journal = try Journal(package: db.package)
        let before = try db.dump()
        // Into the next binade (coordinates near 1.2e7 and 7e6 reach 2.2e7 and 1.7e7): the
        // way there rounds to a coarser step than the way back.
        try move(db, journal, dx: 10_000_000.1, dy: 9_999_999.3, where: "fid % 3 = 0")
        let after = try db.dump()
        let exceptions = try #require(try scalar(db, "SELECT sum(exception_count) FROM annolink_journal_moves"))
        #expect(exceptions > 0)
        #expect(try scalar(db, "SELECT max(length(keys)) FROM annolink_journal_moves WHERE table_name = 'parcel_lines'") == 133 * 16,
                "every third fid: one run each")
        _ = try journal.undo()
        #expect(try db.dump() == before)
        try db.expectIndexMatchesGeometries(db.lines)
        _ = try journal.redo()
        #expect(try db.dump() == after)
        try db.expectIndexMatchesGeometries(db.annotation)
    }

    @Test("rows the body did not report are not part of the move and stay where they are through undo and redo")
    func unreportedRow() throws {
        let db = try JournalScratch(features: 100)
        let journal = try Journal(package: db.package)
        let before = try db.dump()
        try move(db, journal, dx: 5, dy: 5, skip: [7, 42])
        let after = try db.dump()
        #expect(try scalar(db, "SELECT row_count FROM annolink_journal_moves WHERE table_name = 'parcel_lines_anno'") == 98)
        #expect(try scalar(db, "SELECT exception_count FROM annolink_journal_moves WHERE table_name = 'parcel_lines_anno'") == 0)
        _ = try journal.undo()
        #expect(try db.dump() == before)
        _ = try journal.redo()
        #expect(try db.dump() == after)
    }

    @Test("undo refuses when a moved row was changed or deleted since, naming the rows; nothing changes")
    func conflicts() throws {
        let db = try JournalScratch(features: 300)
        let journal = try Journal(package: db.package)
        try move(db, journal, dx: 10, dy: 10)
        try db.package.connection.run("UPDATE parcel_lines_anno SET AnchorX = 1 WHERE fid = 117")
        let changed = try db.dump()
        let error = #expect(throws: JournalError.self) { try journal.undo() }
        #expect(error?.description == "undo refused: parcel_lines_anno has a row among fids 65–128 that was changed after edit #1")
        #expect(try db.dump() == changed)

        try db.package.connection.run("DELETE FROM parcel_lines_anno WHERE fid = 117")
        let deleted = #expect(throws: JournalError.self) { try journal.undo() }
        #expect(deleted?.description == "undo refused: parcel_lines_anno fid 117 was deleted after edit #1")
    }

    @Test("redo refuses when a row was changed after the undo")
    func redoConflict() throws {
        let db = try JournalScratch(features: 50)
        let journal = try Journal(package: db.package)
        try move(db, journal, dx: 10, dy: 10)
        _ = try journal.undo()
        try db.package.connection.run("DELETE FROM parcel_lines_anno WHERE fid = 33")
        let error = #expect(throws: JournalError.self) { try journal.redo() }
        #expect(error?.description.hasPrefix("redo refused: parcel_lines_anno fid 33 was deleted after edit #1 was undone") == true)
    }

    @Test("a journal made before move images gets its moves table with the first move")
    func olderJournal() throws {
        let db = try JournalScratch(features: 20)
        let journal = try Journal(package: db.package)
        try journal.record(command: "set", summary: "set") { _ in
            try db.package.connection.run("UPDATE parcel_lines SET Name = 'n' WHERE fid = 1")
        }
        try db.package.connection.execute("DROP TABLE annolink_journal_moves")
        try db.package.connection.run("DELETE FROM gpkg_extensions WHERE table_name = 'annolink_journal_moves'")
        let before = try db.dump()
        _ = try journal.undo()
        _ = try journal.redo()
        try move(db, journal, dx: 1, dy: 2)
        #expect(try scalar(db, "SELECT count(*) FROM annolink_journal_moves") == 2)
        #expect(try scalar(db, "SELECT count(*) FROM gpkg_extensions WHERE table_name = 'annolink_journal_moves'") == 1)
        _ = try journal.undo()
        #expect(try db.dump().filter { !$0.key.hasPrefix("annolink_journal") } == before.filter { !$0.key.hasPrefix("annolink_journal") })
    }

    @Test("the store moves rows and reports them: inexact rows kept as they are read, undo and redo exact; a corrupt blob moves nothing")
    func journalMovesRows() throws {
        let db = try JournalScratch(features: 300)
        let journal = try Journal(package: db.package)
        let before = try db.dump()
        try journal.record(command: "translate", summary: "translate") { recorder in
            let lines = try recorder.captureMove(table: "parcel_lines", columns: [.geometry("geom")], dx: 10_000_000.1, dy: 9_999_999.3)
            let moved = try db.package.withSpatialIndexSuspended(table: "parcel_lines") {
                try db.package.translate(db.lines, columns: [.geometry("geom")], rowsWhere: "fid > 100", dx: 10_000_000.1, dy: 9_999_999.3, move: lines)
            }
            #expect(moved == 200)
            let columns: [MovedColumn] = [.geometry("geom"), .x("AnchorX"), .y("AnchorY")]
            let labels = try recorder.captureMove(table: "parcel_lines_anno", columns: columns, dx: 10_000_000.1, dy: 9_999_999.3)
            try db.package.translate(db.annotation, columns: columns, rowsWhere: "FeatureID > 100", dx: 10_000_000.1, dy: 9_999_999.3, move: labels)
        }
        let after = try db.dump()
        let exceptions = try scalar(db, "SELECT min(exception_count) FROM annolink_journal_moves") ?? 0
        #expect(exceptions > 0)
        try db.expectIndexMatchesGeometries(db.lines)
        try db.expectIndexMatchesGeometries(db.annotation)
        _ = try journal.undo()
        #expect(try db.dump() == before)
        _ = try journal.redo()
        #expect(try db.dump() == after)

        try db.package.connection.run(
            "UPDATE parcel_lines SET geom = x'47500003AA0B0000000000000000F03F000000000000F03F000000000000F03F000000000000F03F0163000000' WHERE fid = 250")
        let corrupt = try db.dump()
        let error = #expect(throws: StoreError.self) {
            try journal.record(command: "translate", summary: "translate") { recorder in
                let move = try recorder.captureMove(table: "parcel_lines", columns: [.geometry("geom")], dx: 1, dy: 1)
                try db.package.translate(db.lines, columns: [.geometry("geom")], rowsWhere: "1", dx: 1, dy: 1, move: move)
            }
        }
        #expect(error.map { "\($0)" }?.contains("parcel_lines fid 250") == true)
        #expect(try db.dump() == corrupt)
    }

    @Test("record returns the id of the entry it wrote: ordinary and bulk; nil when nothing changed or when joined to an outer entry")
    func recordReturnsEntry() throws {
        let db = try JournalScratch(features: 20)
        let journal = try Journal(package: db.package)
        let set = try journal.record(command: "set", summary: "set") { _ in
            try db.package.connection.run("UPDATE parcel_lines SET Name = 'x' WHERE fid = 1")
        }
        #expect(set.entry == 1)
        let (moved, entry) = try journal.record(command: "translate", summary: "translate") { recorder in
            let move = try recorder.captureMove(table: "parcel_lines", columns: [.geometry("geom")], dx: 5, dy: 5)
            let inner = try journal.record(command: "inner", summary: "inner") { _ in 7 }
            #expect(inner.value == 7 && inner.entry == nil)
            return try db.package.translate(db.lines, columns: [.geometry("geom")], rowsWhere: "fid <= ?", bindings: [.integer(10)], dx: 5, dy: 5, move: move)
        }
        #expect(moved == 10)
        let newest = try journal.entries().first?.id
        #expect(entry == 2 && entry == newest)
        let nothing = try journal.record(command: "nothing", summary: "nothing") { _ in }
        #expect(nothing.entry == nil)
    }

    @Test("translate without a journal moves the selected rows as GeoPackageGeometry.translate does, the R-tree following")
    func translateWithoutJournal() throws {
        let db = try JournalScratch(features: 30)
        let expected = try db.package.connection.rows("SELECT fid, geom FROM parcel_lines ORDER BY fid").map { row -> [SQLValue] in
            guard case .blob(var blob) = row[1], let fid = row[0].integerValue else { return row }
            if fid % 3 == 0 { try GeoPackageGeometry.translate(blob: &blob, dx: -2.5, dy: 4) }
            return [row[0], .blob(blob)]
        }
        let moved = try db.package.translate(db.lines, columns: [.geometry("geom")], rowsWhere: "fid % 3 = 0", dx: -2.5, dy: 4, move: nil)
        #expect(moved == 10)
        #expect(try db.package.connection.rows("SELECT fid, geom FROM parcel_lines ORDER BY fid") == expected)
        try db.expectIndexMatchesGeometries(db.lines)
    }

    @Test("the R-tree triggers are suspended when a sixteenth of the table or more is written")
    func suspensionRule() {
        #expect(GeoPackage.suspendsSpatialIndex(writing: 62_500, of: 1_000_000))
        #expect(!GeoPackage.suspendsSpatialIndex(writing: 62_499, of: 1_000_000))
        #expect(GeoPackage.suspendsSpatialIndex(writing: 1, of: 16))
        #expect(!GeoPackage.suspendsSpatialIndex(writing: 0, of: 1))
    }

    @Test("a row's digest from its values is the digest of the row read back, for every storage class")
    func digestOfValues() throws {
        let db = try ScratchDatabase()
        try db.connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, a, b, c, d, e)")
        let values: [SQLValue] = [.integer(-7), .real(-0.0), .text("Fünf Straße 12.5"), .blob([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]), .null]
        try db.connection.run("INSERT INTO t VALUES (42, ?, ?, ?, ?, ?)", values)
        let read = try db.connection.prepareUncached("SELECT id, a, b, c, d, e FROM t")
        #expect(try read.step())
        #expect(BlockDigests.digest(row: read, key: 42, columns: 5) == BlockDigests.digest(key: 42, values: values))
        #expect(BlockDigests.digest(key: 42, values: values) != BlockDigests.digest(key: 42, values: [.integer(-7), .real(0.0)] + values.dropFirst(2)))
    }

    @Test("a value keeps its storage class only where the column's affinity leaves it alone")
    func affinities() {
        #expect(StorageAffinity(declaredType: "DOUBLE") == .real)
        #expect(StorageAffinity(declaredType: "SMALLINT") == .integer)
        #expect(StorageAffinity(declaredType: "TEXT(20)") == .text)
        #expect(StorageAffinity(declaredType: "POLYGON") == .numeric)
        #expect(StorageAffinity(declaredType: "") == .blob)
        #expect(StorageAffinity.real.keeps(.real(5)) && !StorageAffinity.real.keeps(.integer(5)) && !StorageAffinity.real.keeps(.real(.nan)))
        #expect(!StorageAffinity.numeric.keeps(.real(5)) && StorageAffinity.numeric.keeps(.blob([1])) && !StorageAffinity.numeric.keeps(.text("12.5")))
        #expect(StorageAffinity.text.keeps(.text("12.5")) && !StorageAffinity.text.keeps(.integer(1)))
    }

    @Test("a value the column stores otherwise is read back for the after digests; undo and redo stay exact")
    func storedOtherwise() throws {
        let db = try JournalScratch(features: 10)
        let journal = try Journal(package: db.package)
        try db.package.connection.execute("CREATE TABLE marks (fid INTEGER PRIMARY KEY, x INTEGER, y REAL)")
        try db.package.connection.execute("INSERT INTO marks VALUES (1, 10, 0.5), (2, 20, 1.5)")
        let before = try db.package.connection.rows("SELECT fid, x, typeof(x), y FROM marks ORDER BY fid")
        try journal.record(command: "move marks", summary: "move marks") { recorder in
            let move = try recorder.captureMove(table: "marks", columns: [.x("x"), .y("y")], dx: 5, dy: 1)
            for row in try db.package.connection.rows("SELECT fid, x, y FROM marks") {
                // A real written to an INTEGER column comes back as an integer.
                let after: [SQLValue] = [.real(Double(row[1].integerValue ?? 0) + 5), .real((row[2].doubleValue ?? 0) + 1)]
                try db.package.connection.run("UPDATE marks SET x = ?, y = ? WHERE fid = ?", after + [row[0]])
                try move.changed(key: row[0].integerValue ?? 0, before: [row[1], row[2]], after: after)
            }
        }
        let after = try db.package.connection.rows("SELECT fid, x, typeof(x), y FROM marks ORDER BY fid")
        #expect(after.map { $0[2] } == [.text("integer"), .text("integer")])
        _ = try journal.undo()
        #expect(try db.package.connection.rows("SELECT fid, x, typeof(x), y FROM marks ORDER BY fid") == before)
        _ = try journal.redo()
        #expect(try db.package.connection.rows("SELECT fid, x, typeof(x), y FROM marks ORDER BY fid") == after)
    }

    @Test("a row reported twice is refused and nothing is kept")
    func reportedTwice() throws {
        let db = try JournalScratch(features: 10)
        let journal = try Journal(package: db.package)
        let before = try db.dump()
        let error = #expect(throws: JournalError.self) {
            try journal.record(command: "move", summary: "move") { recorder in
                let move = try recorder.captureMove(table: "parcel_lines", columns: [.kept("Name")], dx: 1, dy: 1)
                try move.changed(key: 3, before: [.null], after: [.null])
                try move.changed(key: 3, before: [.null], after: [.null])
            }
        }
        #expect(error?.description.contains("its row 3 was reported twice") == true)
        #expect(try db.dump() == before)
    }

    @Test("key ranges: runs of consecutive keys, positions, stored and read back")
    func keyRanges() throws {
        var keys = KeyRanges()
        for key: Int64 in [-3, -2, 5, 6, 7, 100, Int64.max] { keys.append(key) }
        #expect(keys.count == 7)
        #expect(keys.ranges.count == 4)
        #expect((0..<7).map(keys.key(at:)) == [-3, -2, 5, 6, 7, 100, Int64.max])
        let read = try #require(KeyRanges(encoded: keys.encoded))
        #expect((0..<7).map(read.key(at:)) == (0..<7).map(keys.key(at:)))
        #expect(KeyRanges(encoded: [1, 2, 3]) == nil)
        #expect(KeyRanges(encoded: MoveImage.encode([5, 4])) == nil, "a run that ends before it starts")
        #expect(KeyRanges(encoded: MoveImage.encode([1, 4, 4, 6])) == nil, "runs that overlap")
    }
}
