import AnnoLinkTestSupport
import Foundation
import Testing

/// Edits made with another program (GDAL's own editing API, as QGIS edits through it) are
/// followed: the annotation ends up as annolink's own edits leave it, the journal holds the
/// outside edits with their follow-ups, and undo brings the file back (docs/follow.md).
@Suite("Following outside edits")
struct FollowTests {
    /// Runs one edit with GDAL's Python API on Loudoun's address points or parcel lines.
    static let gdalEdit = """
        import sys
        from osgeo import ogr
        path, step = sys.argv[1], sys.argv[2]
        ds = ogr.Open(path, 1)
        points = ds.GetLayerByName('Loudoun_Address_Points_1')
        if step == 'set':
            f = points.GetFeature(831); f.SetField('AD_ADDRESS', 45765); points.SetFeature(f)
        elif step == 'move':
            f = points.GetFeature(834); g = f.GetGeometryRef(); g.SetPoint_2D(0, g.GetX() + 30, g.GetY() - 12); points.SetFeature(f)
            print('%.17g,%.17g' % (g.GetX(), g.GetY()))
        elif step == 'end':
            lines = ds.GetLayerByName('ParcelLines_1')
            f = lines.GetFeature(131583); g = f.GetGeometryRef(); g.SetPoint_2D(g.GetPointCount() - 1, 11790500, 7056400); lines.SetFeature(f)
        elif step == 'add':
            f = ogr.Feature(points.GetLayerDefn()); f.SetField('AD_ADDRESS', 45999); f.SetField('ST_STR_NAM', 'TESTING')
            source = points.GetFeature(831)  # held: a geometry dies with its feature
            f.SetGeometry(source.GetGeometryRef().Clone()); points.CreateFeature(f); print(f.GetFID())
        elif step == 'delete':
            points.DeleteFeature(16310)
        elif step == 'label':
            labels = ds.GetLayerByName('Loudoun_Address_PointsAnno_1')
            f = labels.GetFeature(5); g = f.GetGeometryRef()
            ring = g.GetGeometryRef(0)
            for i in range(ring.GetPointCount()): ring.SetPoint_2D(i, ring.GetX(i) + 20, ring.GetY(i))
            labels.SetFeature(f)
        ds = None
        """

    static func edit(_ path: String, _ step: String) throws -> String {
        let result = try ExternalTool.run("/usr/bin/python3", ["-c", gdalEdit, path, step])
        #expect(result.status == 0 && !result.stderr.contains("ERROR"), "\(step): status \(result.status), \(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// What the tests compare: every column of every annotation row, and the features.
    static func annotation(_ path: String) throws -> String {
        try Harness.sqlite(path, "SELECT * FROM Loudoun_Address_PointsAnno_1 ORDER BY fid; SELECT * FROM ParcelLinesAnno_1 ORDER BY fid")
    }

    static func userTables(_ path: String) throws -> String {
        try Harness.sqlite(path, """
            SELECT * FROM Loudoun_Address_Points_1 ORDER BY fid; SELECT * FROM ParcelLines_1 ORDER BY fid;
            SELECT * FROM Loudoun_Address_PointsAnno_1 ORDER BY fid; SELECT * FROM ParcelLinesAnno_1 ORDER BY fid;
            SELECT * FROM rtree_Loudoun_Address_Points_1_geom ORDER BY id; SELECT * FROM rtree_ParcelLines_1_geom ORDER BY id
            """)
    }

    @Test("GDAL's edits of a field, a point, a line's end, an add and a delete give annolink's own annotation; undo reverts them")
    func followsLikeOwnEdits() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let install = try Harness.annolink("follow", "--install", path)
        #expect(install.status == 0, "\(install.stderr)")
        #expect(install.stdout.contains("recording outside edits of Loudoun_Address_Points_1"))
        let mine = path.replacingOccurrences(of: "loudoun.gpkg", with: "mine.gpkg")
        try Harness.copyDatabase(path, to: mine)
        let original = try Self.userTables(path)

        _ = try Self.edit(path, "set")
        #expect(try Harness.annolink("set", mine, "Loudoun_Address_Points_1", "831", "AD_ADDRESS=45765").status == 0)
        let moved = try Self.edit(path, "move")
        #expect(try Harness.annolink("move", mine, "Loudoun_Address_Points_1", "834", "--to", moved).status == 0)
        _ = try Self.edit(path, "end")
        #expect(try Harness.annolink("move-vertex", mine, "ParcelLines_1", "131583", "--to", "11790500,7056400").status == 0)
        _ = try Self.edit(path, "delete")
        #expect(try Harness.annolink("delete", mine, "Loudoun_Address_Points_1", "16310").status == 0)

        // Before following, the labels are stale; annolink's own edits left the copy's true.
        #expect(try Self.annotation(path) != Self.annotation(mine))
        let followed = try Harness.annolink("follow", path)
        #expect(followed.status == 0, "\(followed.stderr)")
        #expect(followed.stdout.contains("followed 4 outside edits"), "\(followed.stdout)")
        #expect(try Self.annotation(path) == Self.annotation(mine))
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM annolink_changes") == "0")
        let log = try Harness.annolink("log", path)
        #expect(log.stdout.contains("outside edit: Loudoun_Address_Points_1 fids 831, 834, 16310; ParcelLines_1 fid 131583"), "\(log.stdout)")
        #expect(try Harness.annolink("check", path).status == 0)

        // One entry holds the outside edits and the follow-up: undo brings the file back.
        let undo = try Harness.annolink("undo", path)
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(try Self.userTables(path) == original)
        #expect(try Harness.annolink("redo", path).status == 0)
        #expect(try Self.annotation(path) == Self.annotation(mine))
        #expect(try Harness.validate(path) == "")
    }

    @Test("a feature GDAL adds without a GlobalID gets one and its label; annolink's own edits are not recorded")
    func addAndOwnEdits() throws {
        guard let path = try Harness.importLoudoun() else { return }
        #expect(try Harness.annolink("follow", "--install", path).status == 0)
        #expect(try Harness.annolink("set", path, "Loudoun_Address_Points_1", "831", "AD_ADDRESS=45765").status == 0)
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM annolink_changes") == "0")

        let fid = try Self.edit(path, "add")
        let globalID = try Harness.sqlite(path, "SELECT GlobalID FROM Loudoun_Address_Points_1 WHERE fid = \(fid)")
        #expect(globalID.range(of: #"^\{[0-9A-F]{8}-[0-9A-F]{4}-4[0-9A-F]{3}-[89AB][0-9A-F]{3}-[0-9A-F]{12}\}$"#, options: .regularExpression) != nil,
                "\(globalID)")
        // The next edit of annolink's catches up first, as an entry of its own.
        #expect(try Harness.annolink("set", path, "Loudoun_Address_Points_1", "834", "AD_ADDRESS=45761").status == 0)
        #expect(try Harness.sqlite(path, "SELECT TextString FROM Loudoun_Address_PointsAnno_1 WHERE FeatureID = \(fid)") == "45999 TESTING")
        let log = try Harness.annolink("log", path, "--limit", "2")
        #expect(log.stdout.contains("outside edit: Loudoun_Address_Points_1 fid \(fid)"), "\(log.stdout)")
        #expect(try Harness.annolink("check", path).status == 0)
        #expect(try Harness.validate(path) == "")
    }

    @Test("a label moved in another program is marked as placed by hand and keeps its place through check --fix")
    func labelMovedOutside() throws {
        guard let path = try Harness.importLoudoun() else { return }
        #expect(try Harness.annolink("follow", "--install", path).status == 0)
        let before = try Harness.sqlite(path, "SELECT AnchorX, AnchorY FROM Loudoun_Address_PointsAnno_1 WHERE fid = 5").split(separator: "|").compactMap { Double($0) }
        _ = try Self.edit(path, "label")
        #expect(try Harness.annolink("follow", path).status == 0)
        let after = try Harness.sqlite(path, "SELECT AnchorX, AnchorY, Override & 1 FROM Loudoun_Address_PointsAnno_1 WHERE fid = 5")
            .split(separator: "|").compactMap { Double($0) }
        #expect(after.count == 3 && before.count == 2)
        if after.count == 3, before.count == 2 {
            #expect(abs(after[0] - before[0] - 20) < 1e-6 && abs(after[1] - before[1]) < 1e-6, "\(before) → \(after)")
            #expect(after[2] == 1, "the position is set by hand")
        }
        #expect(try Harness.annolink("check", path, "--fix").status <= 1)
        #expect(try Harness.sqlite(path, "SELECT AnchorX FROM Loudoun_Address_PointsAnno_1 WHERE fid = 5") == String(after.first ?? 0))
    }

    /// Polls `condition` every 50 ms until it holds or `limit` seconds passed (a limit far above
    /// any honest run: the server follows within a second on a quiet machine, docs/benchmarks.md).
    static func eventually(limit: Double = 60, _ condition: () throws -> Bool) rethrows -> Bool {
        let end = Date().addingTimeInterval(limit)
        while Date() < end {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return try condition()
    }

    @Test("annolink serve follows GDAL's edit by itself: the label, the journal and GET /journal's key change")
    func serveFollows() throws {
        guard let path = try Harness.importLoudoun() else { return }
        #expect(try Harness.annolink("follow", "--install", path).status == 0)
        // Two servers on one file: each outside change is followed once.
        let server = try ServeProcess(file: path)
        defer { _ = server.stop() }
        let other = try ServeProcess(file: path)
        defer { _ = other.stop() }
        let key = try server.request("/journal").text
        _ = try Self.edit(path, "set")
        #expect(try Self.eventually {
            try Harness.sqlite(path, "SELECT TextString FROM Loudoun_Address_PointsAnno_1 WHERE FeatureID = 831") == "45765 ELMWOOD"
        })
        let journal = try server.request("/journal").text
        #expect(journal != key && journal.contains("outside edit: Loudoun_Address_Points_1 fid 831"), "\(journal)")
        // A second outside edit is followed as well.
        _ = try Self.edit(path, "move")
        #expect(try Self.eventually { try Harness.sqlite(path, "SELECT count(*) FROM annolink_changes") == "0" })
        #expect(try Harness.annolink("check", path).status == 0)
        let log = try Harness.annolink("log", path)
        #expect(log.stdout.components(separatedBy: "outside edit:").count - 1 == 2, "\(log.stdout)")
    }

    @Test("check reports an outside edit not followed as its own code, not as stale annotation; check --fix follows it")
    func checkSeesUnfollowed() throws {
        guard let path = try Harness.importLoudoun() else { return }
        _ = try Self.edit(path, "set")
        let check = try Harness.annolink("check", path)
        #expect(check.status == 1)
        #expect(check.stdout.contains("not-followed") && check.stdout.contains("831"), "\(check.stdout)")
        #expect(!check.stdout.contains("stale-text"), "\(check.stdout)")
        let fix = try Harness.annolink("check", path, "--fix")
        #expect(fix.status <= 1, "\(fix.stderr)")
        #expect(try Harness.sqlite(path, "SELECT TextString FROM Loudoun_Address_PointsAnno_1 WHERE FeatureID = 831") == "45765 ELMWOOD")
        #expect(try Harness.annolink("log", path, "--limit", "1").stdout.contains("outside edit"))
        #expect(try Harness.annolink("check", path).status == 0)
    }

    @Test("a row that cannot be labelled or read is followed with a warning and holds no later edit up")
    func unlabelledRowsDoNotBlock() throws {
        guard let path = try Harness.importLoudoun() else { return }
        // A geometry that is no GeoPackage geometry, through the sqlite3 shell-free path GDAL offers.
        let bad = try ExternalTool.ogrinfo.run(["-q", path, "-dialect", "SQLite", "-sql",
                                                "UPDATE Loudoun_Address_Points_1 SET geom = CAST(X'5858' || substr(geom, 3) AS BLOB) WHERE fid = 834"])
        #expect(bad.status == 0, "\(bad.stderr)")
        let followed = try Harness.annolink("follow", path)
        #expect(followed.status == 0 && followed.stderr.contains("warning: Loudoun_Address_Points_1 fid 834 followed without its annotation"),
                "\(followed.stderr)")
        #expect(try Harness.annolink("set", path, "Loudoun_Address_Points_1", "831", "AD_ADDRESS=45765").status == 0)
        #expect(try Harness.sqlite(path, "SELECT TextString FROM Loudoun_Address_PointsAnno_1 WHERE FeatureID = 831") == "45765 ELMWOOD")
        #expect(followed.stdout.contains("1 not journaled (fid 834)"), "\(followed.stdout)")
        #expect(try Harness.annolink("undo", path).status == 0)
        #expect(try Harness.annolink("check", path, "--only", "invalid-geometry").stdout.contains("834"))
    }

    @Test("follow without the triggers, --remove, and bad usage say what to do")
    func usage() throws {
        guard let path = try Harness.importLoudoun() else { return }
        // An import records outside edits from the start.
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM annolink_changes_tables") == "4")
        #expect(try Harness.annolink("follow", "--remove", path).status == 0)
        let bare = try Harness.annolink("follow", path)
        #expect(bare.status == 65 && bare.stderr.contains("follow --install"), "\(bare.stderr)")
        #expect(try Harness.annolink("follow", "--install", "--remove", path).status == 64)
        #expect(try Harness.annolink("follow", "--install", path).status == 0)
        let removed = try Harness.annolink("follow", "--remove", path)
        #expect(removed.status == 0 && removed.stdout.contains("no longer recording outside edits of 4 tables"), "\(removed.stdout)")
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM sqlite_master WHERE name LIKE 'annolink_changes%'") == "0")
        #expect(try Harness.annolink("follow", "--install", path).status == 0)
        let nothing = try Harness.annolink("follow", "--json", path)
        let object = try JSONSerialization.jsonObject(with: Data(nothing.stdout.utf8)) as? [String: Any]
        #expect(nothing.status == 0 && (object?["edits"] as? [Any])?.isEmpty == true && object?["journalEntry"] == nil, "\(nothing.stdout)")
        #expect(try Harness.validate(path) == "")
    }
}
