import AnnoLinkTestSupport
import Foundation
import Testing

/// Which store a test edits: the same commands on a GeoPackage file and on a PostGIS database
/// (issue 17). The PostGIS runs need the throw-away cluster `scripts/test` starts
/// (`ANNOLINK_TEST_POSTGRES`); without it they fail, saying how to start one.
enum EditedStore: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case geoPackage = "GeoPackage"
    case postGIS = "PostGIS"

    var testDescription: String { rawValue }
}

/// Loudoun, annotated by annolink's rules, in one store: what the commands take as FILE, and
/// SQL on it in the store's own dialect (identifiers double-quoted, which both accept).
struct EditedData {
    let store: EditedStore
    /// The GeoPackage file, or the database's connection string.
    let target: String
    let database: PostgresTestDatabase?

    init?(_ store: EditedStore) throws {
        guard let path = try Harness.importLoudoun() else { return nil }
        #expect(try Harness.annolink("annotate", path, "--regenerate").status == 0)
        self.store = store
        switch store {
        case .geoPackage:
            target = path
            database = nil
        case .postGIS:
            let database = try PostgresTestDatabase()
            try PostGISLoad.load(path, into: database.connectionString)
            self.database = database
            target = database.connectionString
        }
    }

    /// Drops the PostGIS database, unless `ANNOLINK_TEST_KEEP_DATABASES` is set (to look at it
    /// after a failure, or to time commands on it by hand).
    func drop() {
        guard ProcessInfo.processInfo.environment["ANNOLINK_TEST_KEEP_DATABASES"] == nil else { return }
        try? database?.drop()
    }

    /// The rows `sql` returns, one line each, columns joined by `|`.
    func query(_ sql: String) throws -> String {
        switch store {
        case .geoPackage: return try Harness.sqlite(target, sql)
        case .postGIS: return try database!.psql(sql).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// Writes with one SQL statement as another program would (GDAL on a GeoPackage, whose
    /// functions serve the R-tree triggers; psql on PostGIS), past the change capture: damage
    /// for `check` to find, not an outside edit to follow.
    func writeBehindAnnolink(_ sql: String) throws {
        switch store {
        case .geoPackage: try Harness.gdalSQL(target, sql)
        case .postGIS: try database!.psqlBehindCapture(sql)
        }
    }

    /// A geometry column as hex text, exact.
    func hex(_ column: String) -> String {
        store == .geoPackage ? "hex(\(column))" : "encode(ST_AsEWKB(\(column)), 'hex')"
    }

    /// Every row of the address points, the parcel lines and their annotation, exactly: what an
    /// undo must give back.
    func snapshot() throws -> String {
        var text = ""
        for table in ["Loudoun_Address_Points_1", "ParcelLines_1"] {
            text += try query("SELECT \"fid\", \(hex("\"geom\"")) FROM \"\(table)\" ORDER BY \"fid\"") + "\n"
        }
        for table in ["Loudoun_Address_PointsAnno_1", "ParcelLinesAnno_1"] {
            text += try query("""
                SELECT "fid", "FeatureID", "AnnotationClassID", "TextString", "AnchorX", "AnchorY", "Angle", "Override", \(hex("\"geom\""))
                FROM "\(table)" ORDER BY "fid"
                """) + "\n"
        }
        text += try query("SELECT \"fid\", \"AD_ADDRESS\", \"ST_STR_NAM\" FROM \"Loudoun_Address_Points_1\" ORDER BY \"fid\"")
        return text
    }

    func firstPoint() throws -> String { try query("SELECT min(\"fid\") FROM \"Loudoun_Address_Points_1\"") }

    /// The fid of the parcel line after `offset` others, in fid order.
    func parcelLine(after offset: Int) throws -> String {
        try query("SELECT \"fid\" FROM \"ParcelLines_1\" ORDER BY \"fid\" LIMIT 1 OFFSET \(offset)")
    }
}

/// The edit commands, undo and redo, on both stores: one suite, each test run once per store.
@Suite("edits on both stores, end to end", .serialized)
struct StoreEditTests {
    @Test("set regenerates the label; undo gives every row back exactly, redo the edit", arguments: EditedStore.allCases)
    func setUndoRedo(store: EditedStore) throws {
        guard let data = try EditedData(store) else { return }
        defer { data.drop() }
        let fid = try data.firstPoint()
        let before = try data.snapshot()
        let result = try Harness.annolink("set", data.target, "Loudoun_Address_Points_1", fid, "AD_ADDRESS=45999", "ST_STR_NAM=NEW MARKET", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let annotation = try #require(object["annotation"] as? [[String: Any]])
        #expect(annotation.first?["newText"] as? String == "45999 NEW MARKET")
        #expect(try data.query("SELECT \"TextString\" FROM \"Loudoun_Address_PointsAnno_1\" WHERE \"FeatureID\" = \(fid)") == "45999 NEW MARKET")
        let edited = try data.snapshot()
        #expect(edited != before)
        #expect(try Harness.annolink("undo", data.target).status == 0)
        #expect(try data.snapshot() == before)
        #expect(try Harness.annolink("redo", data.target).status == 0)
        #expect(try data.snapshot() == edited)
        let log = try Harness.annolink("log", data.target, "--json")
        #expect(log.status == 0, "\(log.stderr)")
        #expect(log.stdout.contains("\"done\""))
    }

    @Test("a point move carries its label by the vector; undo puts both back", arguments: EditedStore.allCases)
    func movePoint(store: EditedStore) throws {
        guard let data = try EditedData(store) else { return }
        defer { data.drop() }
        let fid = try data.firstPoint()
        let before = try data.snapshot()
        let anchor = { try data.query("SELECT \"AnchorX\" || ',' || \"AnchorY\" FROM \"Loudoun_Address_PointsAnno_1\" WHERE \"FeatureID\" = \(fid)")
            .split(separator: ",").compactMap { Double($0) } }
        let old = try anchor()
        let shown = try Harness.annolink("show", data.target, "Loudoun_Address_Points_1", fid, "--json")
        #expect(shown.status == 0, "\(shown.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        let coordinates = try #require((object["geometry"] as? [String: Any])?["coordinates"] as? [Double])
        let result = try Harness.annolink("move", data.target, "Loudoun_Address_Points_1", fid, "--to", "\(coordinates[0] + 12.5),\(coordinates[1] - 7.25)")
        #expect(result.status == 0, "\(result.stderr)")
        let new = try anchor()
        #expect(abs(new[0] - old[0] - 12.5) < 1e-6 && abs(new[1] - old[1] + 7.25) < 1e-6, "\(old) → \(new)")
        #expect(try Harness.annolink("undo", data.target).status == 0)
        #expect(try data.snapshot() == before)
    }

    @Test("move-vertex of a two-point parcel line updates its length label; a longer line is refused", arguments: EditedStore.allCases)
    func moveVertex(store: EditedStore) throws {
        guard let data = try EditedData(store) else { return }
        defer { data.drop() }
        // The same fids on both stores: the data was copied row for row.
        let (two, longer) = try Self.parcelLines()
        let label = { try data.query("SELECT \"TextString\" FROM \"ParcelLinesAnno_1\" WHERE \"FeatureID\" = \(two)") }
        let old = try label()
        let result = try Harness.annolink("move-vertex", data.target, "ParcelLines_1", two, "--to", "11790100,7056100", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try label() != old)
        let refused = try Harness.annolink("move-vertex", data.target, "ParcelLines_1", longer, "--to", "11790100,7056100")
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(refused.stderr.contains("single-segment") || refused.stderr.contains("segment"), "\(refused.stderr)")
    }

    /// A two-point and a longer parcel line of Loudoun (GDAL counts the points).
    static func parcelLines() throws -> (String, String) {
        let path = try #require(try Harness.importLoudoun())
        let two = try Harness.ogrSQL(path, "SELECT min(fid) * 1 AS f FROM ParcelLines_1 WHERE ST_NPoints(geom) = 2")["f"]!
        let longer = try Harness.ogrSQL(path, "SELECT min(fid) * 1 AS f FROM ParcelLines_1 WHERE ST_NPoints(geom) > 2")["f"]!
        return (two, longer)
    }

    @Test("add creates the new feature's label, delete removes feature and label; undo and redo", arguments: EditedStore.allCases)
    func addAndDelete(store: EditedStore) throws {
        guard let data = try EditedData(store) else { return }
        defer { data.drop() }
        let before = try data.snapshot()
        let added = try Harness.annolink("add", data.target, "Loudoun_Address_Points_1", "--geometry", "POINT (11790000 7056000)",
                                         "AD_ADDRESS=777", "ST_STR_NAM=ELM", "GlobalID={00000000-0000-0000-0000-000000000002}", "--json")
        #expect(added.status == 0, "\(added.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [String: Any])
        let fid = try #require(object["fid"] as? Int)
        #expect(try data.query("SELECT \"TextString\" FROM \"Loudoun_Address_PointsAnno_1\" WHERE \"FeatureID\" = \(fid)") == "777 ELM")
        let deleted = try Harness.annolink("delete", data.target, "Loudoun_Address_Points_1", String(fid))
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(try data.query("SELECT count(*) FROM \"Loudoun_Address_PointsAnno_1\" WHERE \"FeatureID\" = \(fid)") == "0")
        #expect(try Harness.annolink("undo", data.target).status == 0)
        #expect(try data.query("SELECT \"TextString\" FROM \"Loudoun_Address_PointsAnno_1\" WHERE \"FeatureID\" = \(fid)") == "777 ELM")
        #expect(try Harness.annolink("undo", data.target).status == 0)
        #expect(try data.snapshot() == before)
        #expect(try Harness.annolink("redo", data.target).status == 0)
        #expect(try data.query("SELECT count(*) FROM \"Loudoun_Address_Points_1\" WHERE \"fid\" = \(fid)") == "1")
    }

    @Test("undo refuses, changing nothing, when a row of the edit was changed since", arguments: EditedStore.allCases)
    func undoRefusesAfterLaterChange(store: EditedStore) throws {
        guard let data = try EditedData(store) else { return }
        defer { data.drop() }
        let fid = try data.firstPoint()
        #expect(try Harness.annolink("set", data.target, "Loudoun_Address_Points_1", fid, "ST_STR_NAM=PINE").status == 0)
        try data.writeBehindAnnolink("UPDATE \"Loudoun_Address_PointsAnno_1\" SET \"TextString\" = 'hand-edited' WHERE \"FeatureID\" = \(fid)")
        let snapshot = try data.snapshot()
        let undo = try Harness.annolink("undo", data.target)
        #expect(undo.status != 0)
        #expect(undo.stderr.contains("undo refused"), "\(undo.stderr)")
        #expect(undo.stderr.contains("Loudoun_Address_PointsAnno_1"), "\(undo.stderr)")
        #expect(try data.snapshot() == snapshot)
    }

    @Test("translate moves the selected lines and their labels; undo gives every row back exactly", arguments: EditedStore.allCases)
    func translateUndo(store: EditedStore) throws {
        guard let data = try EditedData(store) else { return }
        defer { data.drop() }
        let before = try data.snapshot()
        let limit = try data.parcelLine(after: 20)
        let result = try Harness.annolink("translate", data.target, "ParcelLines_1", "--where", "FID <= \(limit)", "--by", "10.1,-20.3", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["features"] as? Int == 21)
        #expect(object["annotationRows"] as? Int == Int(try data.query("""
            SELECT count(*) FROM "ParcelLinesAnno_1" WHERE "FeatureID" <= \(limit)
            """)))
        let boxed = try Harness.annolink("translate", data.target, "ParcelLines_1", "--bbox", "11789000,7055000,11790500,7057000", "--by", "0.3,0.7")
        #expect(boxed.status == 0, "\(boxed.stderr)")
        #expect(try Harness.annolink("undo", data.target).status == 0)
        let moved = try data.snapshot()
        #expect(moved != before)
        #expect(try Harness.annolink("undo", data.target).status == 0)
        #expect(try data.snapshot() == before)
        #expect(try Harness.annolink("redo", data.target).status == 0)
        #expect(try data.snapshot() == moved)
    }

    @Test("translate by a whole vector: the move back is known exact for all rows at once; a coordinate near zero keeps its image; undo exact", arguments: EditedStore.allCases)
    func translateExactness(store: EditedStore) throws {
        guard let data = try EditedData(store) else { return }
        defer { data.drop() }
        let limit = try data.parcelLine(after: 20)
        /// Rows of the newest entry kept with their image (PostGIS's journal; "-" on a GeoPackage).
        func images() throws -> String {
            store == .postGIS ? try data.query("""
                SELECT count(*) FROM annolink.journal_move_rows WHERE before IS NOT NULL AND entry_id = (SELECT max(id) FROM annolink.journal)
                """) : "-"
        }
        let pristine = try data.snapshot()
        let first = try Harness.annolink("translate", data.target, "ParcelLines_1", "--where", "FID <= \(limit)", "--by", "10,20")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try images() == (store == .postGIS ? "0" : "-"))
        #expect(try Harness.annolink("undo", data.target).status == 0)
        #expect(try data.snapshot() == pristine)
        // A label anchor and a vertex near the origin: 0.1 + 10 − 10 is not 0.1.
        let label = try data.query("SELECT min(\"fid\") FROM \"ParcelLinesAnno_1\" WHERE \"FeatureID\" <= \(limit)")
        try data.writeBehindAnnolink("UPDATE \"ParcelLinesAnno_1\" SET \"AnchorX\" = 0.1 WHERE \"fid\" = \(label)")
        if store == .postGIS {
            try data.writeBehindAnnolink("""
                UPDATE "ParcelLines_1" SET "geom" = ST_AddPoint("geom", ST_SetSRID(ST_MakePoint(0.1, 0.1), ST_SRID("geom"))) WHERE "fid" = \(limit)
                """)
        }
        // A NaN anchor (min/max pass it on, so the table gets no promise) comes back as NaN: no image.
        let nanLabel = try data.query("SELECT max(\"fid\") FROM \"ParcelLinesAnno_1\" WHERE \"FeatureID\" <= \(limit)")
        if store == .postGIS {
            try data.writeBehindAnnolink("UPDATE \"ParcelLinesAnno_1\" SET \"AnchorY\" = 'NaN' WHERE \"fid\" = \(nanLabel)")
        }
        let before = try data.snapshot()
        let second = try Harness.annolink("translate", data.target, "ParcelLines_1", "--where", "FID <= \(limit)", "--by", "10,20")
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try images() == (store == .postGIS ? "2" : "-"))
        let moved = try data.snapshot()
        #expect(try data.query("SELECT \"AnchorX\" FROM \"ParcelLinesAnno_1\" WHERE \"fid\" = \(label)") == "10.1")
        #expect(try Harness.annolink("undo", data.target).status == 0)
        #expect(try data.snapshot() == before)
        #expect(try data.query("SELECT \"AnchorX\" FROM \"ParcelLinesAnno_1\" WHERE \"fid\" = \(label)") == "0.1")
        #expect(try Harness.annolink("redo", data.target).status == 0)
        #expect(try data.snapshot() == moved)
    }

    @Test("undo of a bulk move refuses, naming table and fid, changing nothing, after another program wrote a moved line or label",
          arguments: EditedStore.allCases)
    func translateUndoSeesOutsideWrites(store: EditedStore) throws {
        guard let data = try EditedData(store) else { return }
        defer { data.drop() }
        let limit = try data.parcelLine(after: 20)
        // PostGIS notices a write of any column (by the row's xmin); a GeoPackage's move digests
        // cover the columns the move wrote (geometry, anchor), so its lines are written there.
        let lineWrite = store == .postGIS ? "\"LEFT_FID\" = 4242" : "\"LEFT_FID\" = 4242, \"geom\" = \"geom\" || X'00'"
        // A whole vector (the move keeps no row image) and one that is not (some rows keep theirs).
        for (vector, line) in [("10,20", "FID <= \(limit)"), ("10.1,-20.3", "FID > \(limit)")] {
            let moved = try Harness.annolink("translate", data.target, "ParcelLines_1", "--where", line, "--by", vector)
            #expect(moved.status == 0, "\(moved.stderr)")
            let fid = try data.query("SELECT max(\"fid\") FROM \"ParcelLines_1\" WHERE \(line.replacingOccurrences(of: "FID", with: "\"fid\""))")
            try data.writeBehindAnnolink("UPDATE \"ParcelLines_1\" SET \(lineWrite) WHERE \"fid\" = \(fid)")
            let snapshot = try data.snapshot()
            let undo = try Harness.annolink("undo", data.target)
            #expect(undo.status != 0)
            // A GeoPackage names the block of rows its digest covers.
            #expect(undo.stderr.contains(store == .postGIS ? "undo refused: ParcelLines_1 fid \(fid) " : "undo refused: ParcelLines_1 "), "\(undo.stderr)")
            #expect(try data.snapshot() == snapshot)
        }
        // A label of a moved line, written by another program after the move: its anchor, and on
        // PostGIS its text.
        for labelWrite in store == .postGIS ? ["\"AnchorX\" = \"AnchorX\" + 1", "\"TextString\" = 'hand-edited'"] : ["\"AnchorX\" = \"AnchorX\" + 1"] {
            let third = try Harness.annolink("translate", data.target, "ParcelLines_1", "--where", "FID < \(limit)", "--by", "-10,-20")
            #expect(third.status == 0, "\(third.stderr)")
            let label = try data.query("SELECT min(\"fid\") FROM \"ParcelLinesAnno_1\" WHERE \"FeatureID\" < \(limit)")
            try data.writeBehindAnnolink("UPDATE \"ParcelLinesAnno_1\" SET \(labelWrite) WHERE \"fid\" = \(label)")
            let snapshot = try data.snapshot()
            let undo = try Harness.annolink("undo", data.target)
            #expect(undo.status != 0)
            #expect(undo.stderr.contains(store == .postGIS ? "undo refused: ParcelLinesAnno_1 fid \(label) " : "undo refused: ParcelLinesAnno_1 "),
                    "\(undo.stderr)")
            #expect(try data.snapshot() == snapshot)
        }
        // Another program writes a moved line, then annolink edits it and that edit is undone: the
        // line is back as the other program left it, not as the move did, and the move's undo
        // still refuses (PostGIS; a GeoPackage's digests cover the moved columns only).
        guard store == .postGIS else { return }
        let fourth = try Harness.annolink("translate", data.target, "ParcelLines_1", "--where", "FID < \(limit)", "--by", "1,1")
        #expect(fourth.status == 0, "\(fourth.stderr)")
        let line = try data.query("SELECT min(\"fid\") FROM \"ParcelLines_1\"")
        try data.writeBehindAnnolink("UPDATE \"ParcelLines_1\" SET \"LEFT_FID\" = 4243 WHERE \"fid\" = \(line)")
        #expect(try Harness.annolink("set", data.target, "ParcelLines_1", line, "LEFT_FID=7").status == 0)
        #expect(try Harness.annolink("undo", data.target).status == 0)
        let snapshot = try data.snapshot()
        let undo = try Harness.annolink("undo", data.target)
        #expect(undo.status != 0)
        #expect(undo.stderr.contains("undo refused: ParcelLines_1 fid \(line) "), "\(undo.stderr)")
        #expect(try data.snapshot() == snapshot)
    }

    @Test("overlapping bulk moves and a set in between: undone and redone in turn, every row exact, nothing refused", arguments: EditedStore.allCases)
    func overlappingMovesUndoRedo(store: EditedStore) throws {
        guard let data = try EditedData(store) else { return }
        defer { data.drop() }
        let pristine = try data.snapshot()
        let (ten, twenty, thirty) = (try data.parcelLine(after: 10), try data.parcelLine(after: 20), try data.parcelLine(after: 30))
        var states = [pristine]
        let edits = [
            ["translate", "--where", "FID <= \(twenty)", "--by", "10,20"], ["translate", "--where", "FID >= \(ten) AND FID <= \(thirty)", "--by", "-0.5,4"],
            ["set", twenty, "LEFT_FID=4242"], ["translate", "--where", "FID <= \(thirty)", "--by", "2,2"],
        ]
        for arguments in edits {
            let result = try Harness.annolink([arguments[0], data.target, "ParcelLines_1"] + arguments.dropFirst())
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            states.append(try data.snapshot())
        }
        for state in states.dropLast().reversed() {
            let undo = try Harness.annolink("undo", data.target)
            #expect(undo.status == 0, "\(undo.stderr)")
            #expect(try data.snapshot() == state)
        }
        for state in states.dropFirst() {
            let redo = try Harness.annolink("redo", data.target)
            #expect(redo.status == 0, "\(redo.stderr)")
            #expect(try data.snapshot() == state)
        }
        // Undo twice and redo once: the redo of the earlier move precedes the undone later one's redo.
        #expect(try Harness.annolink("undo", data.target).status == 0)
        #expect(try Harness.annolink("undo", data.target).status == 0)
        #expect(try Harness.annolink("redo", data.target).status == 0)
        let redo = try Harness.annolink("redo", data.target)
        #expect(redo.status == 0, "\(redo.stderr)")
        #expect(try data.snapshot() == states.last)
    }

    /// A row put back by the undo of an edit that a new edit then discarded carries that undo's
    /// transaction id on PostGIS: the undo of the move before them must still know it as the
    /// journal's own write (it once refused, "changed … outside the journal").
    @Test("undo of a bulk move after an edit of a moved row was undone and then discarded by a new edit: not refused, every row exact",
          arguments: EditedStore.allCases)
    func moveUndoAfterADiscardedEdit(store: EditedStore) throws {
        guard let data = try EditedData(store) else { return }
        defer { data.drop() }
        let pristine = try data.snapshot()
        let (ten, twenty, thirty) = (try data.parcelLine(after: 10), try data.parcelLine(after: 20), try data.parcelLine(after: 30))
        func run(_ arguments: String...) throws {
            let result = try Harness.annolink(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
        try run("translate", data.target, "ParcelLines_1", "--where", "FID <= \(twenty)", "--by", "10,20")
        let moved = try data.snapshot()
        // A moved line and its label written, the write undone, then a new edit elsewhere.
        try run("set", data.target, "ParcelLines_1", ten, "LEFT_FID=4242")
        try run("undo", data.target)
        #expect(try data.snapshot() == moved)
        try run("set", data.target, "ParcelLines_1", thirty, "LEFT_FID=4343")
        try run("undo", data.target)
        #expect(try data.snapshot() == moved)
        try run("undo", data.target)
        #expect(try data.snapshot() == pristine)
        try run("redo", data.target)
        #expect(try data.snapshot() == moved)
        // The discarded edit is gone from the log and cannot be redone: the set of fid 30 is next.
        let log = try Harness.annolink("log", data.target)
        #expect(log.stdout.contains("LEFT_FID=4343") && !log.stdout.contains("LEFT_FID=4242"), "\(log.stdout)")
        try run("redo", data.target)
        #expect(try data.query("SELECT \"LEFT_FID\" FROM \"ParcelLines_1\" WHERE \"fid\" = \(thirty)") == "4343")
        #expect(try data.query("SELECT \"LEFT_FID\" FROM \"ParcelLines_1\" WHERE \"fid\" = \(ten)") != "4242")
    }

    /// The recorded extent of `table` and the extent of its rows (GeoPackage: the R-tree's).
    static func extents(_ data: EditedData, _ table: String) throws -> (recorded: [Double], rows: [Double]) {
        let recorded = data.store == .geoPackage
            ? "SELECT min_x || ',' || min_y || ',' || max_x || ',' || max_y FROM gpkg_contents WHERE table_name = '\(table)'"
            : "SELECT min_x || ',' || min_y || ',' || max_x || ',' || max_y FROM annolink.contents WHERE table_name = '\(table)'"
        let rows = data.store == .geoPackage
            ? "SELECT min(minx) || ',' || min(miny) || ',' || max(maxx) || ',' || max(maxy) FROM \"rtree_\(table)_geom\""
            : "SELECT ST_XMin(e) || ',' || ST_YMin(e) || ',' || ST_XMax(e) || ',' || ST_YMax(e) FROM (SELECT ST_Extent(\"geom\")::box2d e FROM \"\(table)\") x"
        func numbers(_ text: String) -> [Double] { text.split(separator: ",").compactMap { Double($0) } }
        return (numbers(try data.query(recorded)), numbers(try data.query(rows)))
    }

    @Test("the recorded extent stays a bound of every feature and label after moves far outside it, and after their undo", arguments: EditedStore.allCases)
    func extentBoundsEdits(store: EditedStore) throws {
        guard let data = try EditedData(store) else { return }
        defer { data.drop() }
        func expectBound(_ when: String) throws {
            for table in ["ParcelLines_1", "ParcelLinesAnno_1", "Loudoun_Address_Points_1", "Loudoun_Address_PointsAnno_1"] {
                let (recorded, rows) = try Self.extents(data, table)
                #expect(recorded.count == 4 && rows.count == 4, "\(when) \(table): \(recorded) \(rows)")
                guard recorded.count == 4, rows.count == 4 else { continue }
                // A GeoPackage's R-tree boxes are 32-bit floats rounded outwards (1 unit apart here).
                let slack = store == .geoPackage ? 3.0 : 0
                #expect(recorded[0] <= rows[0] + slack && recorded[1] <= rows[1] + slack && recorded[2] >= rows[2] - slack && recorded[3] >= rows[3] - slack,
                        "\(when) \(table): recorded \(recorded) does not hold \(rows)")
            }
        }
        try expectBound("as copied")
        let limit = try data.parcelLine(after: 20)
        let moved = try Harness.annolink("translate", data.target, "ParcelLines_1", "--where", "FID <= \(limit)", "--by", "100000.5,-80000")
        #expect(moved.status == 0, "\(moved.stderr)")
        try expectBound("after the bulk move")
        let fid = try data.firstPoint()
        let shown = try Harness.annolink("show", data.target, "Loudoun_Address_Points_1", fid, "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        let coordinates = try #require((object["geometry"] as? [String: Any])?["coordinates"] as? [Double])
        let point = try Harness.annolink("move", data.target, "Loudoun_Address_Points_1", fid, "--to", "\(coordinates[0] - 50000),\(coordinates[1] + 60000)")
        #expect(point.status == 0, "\(point.stderr)")
        try expectBound("after the point move")
        #expect(try Harness.annolink("undo", data.target).status == 0)
        #expect(try Harness.annolink("undo", data.target).status == 0)
        try expectBound("after the undos")
        #expect(try Harness.annolink("redo", data.target).status == 0)
        try expectBound("after a redo")
    }

    @Test("a bulk set by where clause and a bulk delete by box: labels follow, one entry each, undo gives every row back", arguments: EditedStore.allCases)
    func bulkSetAndDelete(store: EditedStore) throws {
        guard let data = try EditedData(store) else { return }
        defer { data.drop() }
        let before = try data.snapshot()
        let street = try data.query("SELECT \"ST_STR_NAM\" FROM \"Loudoun_Address_Points_1\" ORDER BY \"fid\" LIMIT 1")
        let count = try data.query("SELECT count(*) FROM \"Loudoun_Address_Points_1\" WHERE \"ST_STR_NAM\" = '\(street)'")
        let set = try Harness.annolink("set", data.target, "Loudoun_Address_Points_1", "--where", "ST_STR_NAM = '\(street)'", "ST_STR_NAM=RENAMED WAY", "--json")
        #expect(set.status == 0, "\(set.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(set.stdout.utf8)) as? [String: Any])
        #expect(String(object["features"] as? Int ?? -1) == count)
        #expect(try data.query("""
            SELECT count(*) FROM "Loudoun_Address_PointsAnno_1" a JOIN "Loudoun_Address_Points_1" p ON p."fid" = a."FeatureID"
            WHERE p."ST_STR_NAM" = 'RENAMED WAY' AND a."TextString" LIKE '% RENAMED WAY'
            """) == count)
        let deleted = try Harness.annolink("delete", data.target, "ParcelLines_1", "--bbox", "11789000,7055000,11790500,7057000", "--json")
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(try data.query("""
            SELECT count(*) FROM "ParcelLinesAnno_1" a WHERE NOT EXISTS (SELECT 1 FROM "ParcelLines_1" l WHERE l."fid" = a."FeatureID")
            """) == "0")
        let after = try data.snapshot()
        #expect(try Harness.annolink("undo", data.target).status == 0)
        #expect(try Harness.annolink("undo", data.target).status == 0)
        #expect(try data.snapshot() == before)
        #expect(try Harness.annolink("redo", data.target).status == 0)
        #expect(try Harness.annolink("redo", data.target).status == 0)
        #expect(try data.snapshot() == after)
        // A label the bulk set wrote, changed since by another program: its undo refuses.
        #expect(try Harness.annolink("undo", data.target).status == 0)
        let label = try data.query("""
            SELECT min(a."fid") FROM "Loudoun_Address_PointsAnno_1" a JOIN "Loudoun_Address_Points_1" p ON p."fid" = a."FeatureID"
            WHERE p."ST_STR_NAM" = 'RENAMED WAY'
            """)
        try data.writeBehindAnnolink("UPDATE \"Loudoun_Address_PointsAnno_1\" SET \"TextString\" = 'hand-edited' WHERE \"fid\" = \(label)")
        let undo = try Harness.annolink("undo", data.target)
        #expect(undo.status != 0)
        #expect(undo.stderr.contains("undo refused: Loudoun_Address_PointsAnno_1 fid \(label) "), "\(undo.stderr)")
    }

    @Test("set on an annotation row marks it as set by hand (Override), and regeneration keeps it", arguments: EditedStore.allCases)
    func setAnnotationByHand(store: EditedStore) throws {
        guard let data = try EditedData(store) else { return }
        defer { data.drop() }
        let row = try data.query("SELECT min(\"fid\") FROM \"Loudoun_Address_PointsAnno_1\"")
        let feature = try data.query("SELECT \"FeatureID\" FROM \"Loudoun_Address_PointsAnno_1\" WHERE \"fid\" = \(row)")
        let result = try Harness.annolink("set", data.target, "Loudoun_Address_PointsAnno_1", row, "TextString=BY HAND")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try data.query("SELECT \"TextString\" || '|' || (\"Override\" & 4) FROM \"Loudoun_Address_PointsAnno_1\" WHERE \"fid\" = \(row)") == "BY HAND|4")
        // An edit of the feature regenerates the label but keeps the text set by hand.
        #expect(try Harness.annolink("set", data.target, "Loudoun_Address_Points_1", feature, "AD_ADDRESS=4242").status == 0)
        #expect(try data.query("SELECT \"TextString\" FROM \"Loudoun_Address_PointsAnno_1\" WHERE \"fid\" = \(row)") == "BY HAND")
    }

    @Test("identify finds the same features and annotation rows near a point in both stores, through each store's spatial index")
    func identifySame() throws {
        var found: [EditedStore: String] = [:]
        for store in EditedStore.allCases {
            guard let data = try EditedData(store) else { return }
            defer { data.drop() }
            // Near the first address point: that point, its label, and the parcels and lines around it.
            let fid = try data.query("SELECT min(\"fid\") FROM \"Loudoun_Address_Points_1\"")
            let xy = try data.query("SELECT \"AnchorX\" || ',' || \"AnchorY\" FROM \"Loudoun_Address_PointsAnno_1\" WHERE \"FeatureID\" = \(fid)")
            let run = try Harness.annolink("identify", data.target, xy, "--tolerance", "60", "--json")
            #expect(run.status == 0, "\(store): \(run.stdout) \(run.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(store): \(run.stderr)")
            let features = try #require(object["features"] as? [[String: Any]])
            let annotation = try #require(object["annotation"] as? [[String: Any]])
            #expect(annotation.contains { "\($0["featureID"] ?? "")" == fid && $0["annotationTable"] as? String == "Loudoun_Address_PointsAnno_1" },
                    "\(store): the point's label is found: \(run.stdout)")
            found[store] = features.map { "\($0["table"] ?? "") \($0["fid"] ?? "") \(String(format: "%.6f", $0["distance"] as? Double ?? -1))" }.joined(separator: "\n")
                + "\n" + annotation.map { "\($0["annotationTable"] ?? "") \($0["featureID"] ?? "") \(String(format: "%.6f", $0["distance"] as? Double ?? -1))" }.joined(separator: "\n")
            // show TABLE --at picks through the same search.
            let shown = try Harness.annolink("show", data.target, "Loudoun_Address_Points_1", "--at", xy)
            #expect(shown.status == 0, "\(store): \(shown.stdout) \(shown.stderr)")
        }
        let geoPackage = try #require(found[.geoPackage]), postGIS = try #require(found[.postGIS])
        #expect(geoPackage.split(separator: "\n").count >= 2, "\(geoPackage)")
        #expect(postGIS == geoPackage)
    }

    @Test("info reports the same tables, counts, extents and classes of a GeoPackage and of its PostGIS copy (annolink copy)")
    func infoSame() throws {
        guard let data = try EditedData(.geoPackage) else { return }
        let database = try PostgresTestDatabase()
        defer { if ProcessInfo.processInfo.environment["ANNOLINK_TEST_KEEP_DATABASES"] == nil { try? database.drop() } }
        let copied = try Harness.annolink("copy", data.target, database.connectionString)
        try #require(copied.status == 0, "\(copied.stdout) \(copied.stderr)")
        var found: [String] = [], extents: [[String: [Double]]] = []
        for target in [data.target, database.connectionString] {
            let run = try Harness.annolink("info", target, "--json")
            #expect(run.status == 0, "\(target): \(run.stdout) \(run.stderr)")
            var object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(target): \(run.stderr)")
            object["path"] = nil
            // Extents as recorded: the GeoPackage's annotation extents are rounded outward to
            // whole units (the R-tree's), the copy records them exactly; compared below.
            var tables = try #require(object["tables"] as? [[String: Any]])
            var extent: [String: [Double]] = [:]
            for i in tables.indices {
                extent[tables[i]["name"] as? String ?? ""] = tables[i]["extent"] as? [Double]
                tables[i]["extent"] = nil
            }
            extents.append(extent)
            object["tables"] = tables
            found.append(String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self))
            let one = try Harness.annolink("info", target, "--table", "ParcelLinesAnno_1")
            #expect(one.status == 0 && one.stdout.contains("AnnotationClassID"), "\(target): \(one.stdout) \(one.stderr)")
        }
        #expect(found[0].contains("\"count\":115"), "\(found[0])")
        #expect(found[1] == found[0])
        #expect(extents[0].count >= 7 && extents[1].keys == extents[0].keys, "\(extents)")
        for (name, box) in extents[0] {
            let copy = try #require(extents[1][name], "\(name) has no recorded extent on PostGIS")
            #expect(box.count == 4 && copy.count == 4 && zip(box, copy).allSatisfy { abs($0 - $1) < 2 }, "\(name): \(box) vs \(copy)")
        }
    }

    @Test("check finds the same problems on the same planted corruption in both stores")
    func checkSameProblems() throws {
        var found: [EditedStore: [String]] = [:]
        for store in EditedStore.allCases {
            guard let data = try EditedData(store) else { return }
            defer { data.drop() }
            let clean = try Harness.annolink("check", data.target, "--json", "--all")
            #expect(clean.status == 0, "\(store): \(clean.stdout) \(clean.stderr)")
            let points = try data.query("SELECT \"fid\" FROM \"Loudoun_Address_Points_1\" ORDER BY \"fid\" LIMIT 5").split(separator: "\n").map(String.init)
            let line = try data.query("SELECT min(\"FeatureID\") FROM \"ParcelLinesAnno_1\"")
            for sql in [
                "UPDATE \"Loudoun_Address_PointsAnno_1\" SET \"TextString\" = 'WRONG' WHERE \"FeatureID\" = \(points[0])",
                "UPDATE \"Loudoun_Address_PointsAnno_1\" SET \"AnchorX\" = \"AnchorX\" + 100 WHERE \"FeatureID\" = \(points[1])",
                "UPDATE \"Loudoun_Address_PointsAnno_1\" SET \"AnnotationClassID\" = 99 WHERE \"FeatureID\" = \(points[2])",
                "DELETE FROM \"Loudoun_Address_Points_1\" WHERE \"fid\" = \(points[3])",
                "DELETE FROM \"ParcelLinesAnno_1\" WHERE \"FeatureID\" = \(line)",
            ] { try data.writeBehindAnnolink(sql) }
            let checked = try Harness.annolink("check", data.target, "--json", "--all")
            #expect(checked.status == 1, "\(store): \(checked.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(checked.stdout.utf8)) as? [String: Any])
            let problems = try #require(object["problems"] as? [[String: Any]])
            found[store] = problems.map { p in
                ["code", "annotationTable", "annotationFid", "classID", "originTable", "originFid"].map { "\(p[$0] ?? "-")" }.joined(separator: " ")
            }.sorted()
            // --fix repairs what can be repaired as one journal entry; what is left is the unknown class.
            let fixed = try Harness.annolink("check", data.target, "--fix", "--json")
            #expect(fixed.status == 1, "\(store): \(fixed.stdout) \(fixed.stderr)")
            let after = try Harness.annolink("check", data.target, "--json", "--all")
            let left = try #require(try JSONSerialization.jsonObject(with: Data(after.stdout.utf8)) as? [String: Any])
            #expect((left["problems"] as? [[String: Any]])?.compactMap { $0["code"] as? String } == ["unknown-class"], "\(store): \(after.stdout)")
            #expect(try Harness.annolink("undo", data.target).status == 0)
            let undone = try Harness.annolink("check", data.target, "--json", "--all")
            #expect(undone.stdout == checked.stdout, "\(store): undo gives the problems back")
        }
        let geoPackage = try #require(found[.geoPackage]), postGIS = try #require(found[.postGIS])
        #expect(geoPackage.count >= 5, "\(geoPackage)")
        #expect(postGIS == geoPackage)
        for code in ["stale-text", "stale-placement", "unknown-class", "orphan", "missing"] {
            #expect(geoPackage.contains { $0.hasPrefix(code + " ") }, "\(code) not found: \(geoPackage)")
        }
    }

    @Test("editors of the same feature at once serialize: every edit is kept, the label matches, the journal has every entry")
    func concurrentEditors() throws {
        guard let data = try EditedData(.postGIS) else { return }
        defer { data.drop() }
        let fid = try data.firstPoint()
        let count = 8
        let results = ResultBox(count)
        DispatchQueue.concurrentPerform(iterations: count) { i in
            // Alternate the two fields the label reads, so that a lost update would show.
            let assignment = i % 2 == 0 ? "AD_ADDRESS=\(1000 + i)" : "ST_STR_NAM=STREET \(i)"
            results.set(i, try? Harness.annolink("set", data.target, "Loudoun_Address_Points_1", fid, assignment))
        }
        for i in 0..<count { #expect(results.get(i)?.status == 0, "\(results.get(i)?.stderr ?? "no result")") }
        let fields = try data.query("SELECT \"AD_ADDRESS\" || ' ' || \"ST_STR_NAM\" FROM \"Loudoun_Address_Points_1\" WHERE \"fid\" = \(fid)")
        #expect(try data.query("SELECT \"TextString\" FROM \"Loudoun_Address_PointsAnno_1\" WHERE \"FeatureID\" = \(fid)") == fields)
        #expect(try data.query("SELECT count(*) FROM annolink.journal WHERE state = 'done'") == String(count))
        // Each entry's before-image is the previous entry's after-image: no edit read a stale row.
        #expect(try data.query("""
            SELECT count(*) FROM annolink.journal_rows a JOIN annolink.journal_rows b
              ON b.table_name = a.table_name AND b.fid = a.fid AND b.entry_id = (SELECT min(entry_id) FROM annolink.journal_rows c
                 WHERE c.table_name = a.table_name AND c.fid = a.fid AND c.entry_id > a.entry_id)
            WHERE a.table_name = 'Loudoun_Address_Points_1' AND b.before IS DISTINCT FROM a.after
            """) == "0")
        // Undo goes back one edit at a time, each refusing nothing.
        for _ in 0..<count { #expect(try Harness.annolink("undo", data.target).status == 0) }
    }
}

/// Results written from concurrent iterations.
final class ResultBox: @unchecked Sendable {
    private var values: [Harness.Result?]
    private let lock = NSLock()

    init(_ count: Int) { values = Array(repeating: nil, count: count) }

    func set(_ i: Int, _ value: Harness.Result?) { lock.withLock { values[i] = value } }
    func get(_ i: Int) -> Harness.Result? { lock.withLock { values[i] } }
}
