import AnnoLinkTestSupport
import Foundation
import Testing

/// Edits made in psql on a PostGIS data set are followed as on a GeoPackage (docs/follow.md): the
/// triggers record them, `annolink follow` and every edit catch up, `annolink serve` follows at
/// once on `LISTEN` — once, however many servers share the database — and undo brings every
/// row back. Needs the throw-away cluster (`scripts/test`).
@Suite("Following outside edits on PostGIS", .serialized)
struct FollowPostGISTests {
    static let points = "Loudoun_Address_Points_1"

    /// One outside edit with psql, the GeoPackage tests' GDAL edits in SQL; what psql printed.
    @discardableResult
    static func edit(_ data: EditedData, _ step: String) throws -> String {
        let sql: String
        switch step {
        case "set": sql = #"UPDATE "Loudoun_Address_Points_1" SET "AD_ADDRESS" = 45765 WHERE fid = 831"#
        case "move":
            sql = #"UPDATE "Loudoun_Address_Points_1" SET geom = ST_Translate(geom, 30, -12) WHERE fid = 834 RETURNING ST_X(geom) || ',' || ST_Y(geom)"#
        case "end":
            sql = #"""
                UPDATE "ParcelLines_1" SET geom = ST_SetPoint(geom, ST_NPoints(geom) - 1, ST_SetSRID(ST_MakePoint(11790500, 7056400), ST_SRID(geom)))
                WHERE fid = 131583
                """#
        case "delete": sql = #"DELETE FROM "Loudoun_Address_Points_1" WHERE fid = 16310"#
        case "add":
            sql = #"""
                INSERT INTO "Loudoun_Address_Points_1" (geom, "AD_ADDRESS", "ST_STR_NAM")
                SELECT geom, 45999, 'TESTING' FROM "Loudoun_Address_Points_1" WHERE fid = 831 RETURNING fid
                """#
        case "label": sql = #"UPDATE "Loudoun_Address_PointsAnno_1" SET geom = ST_Translate(geom, 20, 0) WHERE fid = 5"#
        default: fatalError(step)
        }
        return try data.query(sql).split(separator: "\n").first.map(String.init) ?? ""
    }

    /// Every column of every annotation row.
    static func annotation(_ data: EditedData) throws -> String {
        try data.query(#"SELECT a::text FROM "Loudoun_Address_PointsAnno_1" a ORDER BY fid"#) + "\n"
            + data.query(#"SELECT a::text FROM "ParcelLinesAnno_1" a ORDER BY fid"#)
    }

    /// Every row of the four tables, every column, exactly: what an undo must give back.
    static func userTables(_ data: EditedData) throws -> String {
        try ["Loudoun_Address_Points_1", "ParcelLines_1", "Loudoun_Address_PointsAnno_1", "ParcelLinesAnno_1"].map {
            try data.query("SELECT t::text FROM \"\($0)\" t ORDER BY fid")
        }.joined(separator: "\n")
    }

    static func pending(_ data: EditedData) throws -> String { try data.query("SELECT count(*) FROM annolink.changes") }

    @Test("psql's update, point move, line end move and delete give annolink's own annotation; check sees them first; undo reverts")
    func followsLikeOwnEdits() throws {
        guard let data = try EditedData(.postGIS), let mine = try EditedData(.postGIS) else { return }
        defer { data.drop(); mine.drop() }
        let install = try Harness.annolink("follow", "--install", data.target)
        #expect(install.status == 0, "\(install.stderr)")
        #expect(install.stdout.contains("recording outside edits of Loudoun_Address_Points_1"), "\(install.stdout)")
        let original = try Self.userTables(data)

        try Self.edit(data, "set")
        #expect(try Harness.annolink("set", mine.target, Self.points, "831", "AD_ADDRESS=45765").status == 0)
        let moved = try Self.edit(data, "move")
        #expect(try Harness.annolink("move", mine.target, Self.points, "834", "--to", moved).status == 0)
        try Self.edit(data, "end")
        #expect(try Harness.annolink("move-vertex", mine.target, "ParcelLines_1", "131583", "--to", "11790500,7056400").status == 0)
        try Self.edit(data, "delete")
        #expect(try Harness.annolink("delete", mine.target, Self.points, "16310").status == 0)

        #expect(try Self.annotation(data) != Self.annotation(mine))
        let check = try Harness.annolink("check", data.target)
        #expect(check.status == 1 && check.stdout.contains("not-followed") && check.stdout.contains("131583"), "\(check.stdout)")
        let followed = try Harness.annolink("follow", data.target)
        #expect(followed.status == 0, "\(followed.stderr)")
        #expect(followed.stdout.contains("followed 4 outside edits"), "\(followed.stdout)")
        #expect(try Self.annotation(data) == Self.annotation(mine))
        #expect(try Self.pending(data) == "0")
        let log = try Harness.annolink("log", data.target)
        #expect(log.stdout.contains("outside edit: Loudoun_Address_Points_1 fids 831, 834, 16310; ParcelLines_1 fid 131583"), "\(log.stdout)")
        let clean = try Harness.annolink("check", data.target)
        #expect(clean.status == 0, "\(clean.stdout)")

        // One entry holds psql's edits and the follow-up: undo brings every row back.
        let undo = try Harness.annolink("undo", data.target)
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(try Self.userTables(data) == original)
        #expect(try Harness.annolink("redo", data.target).status == 0)
        #expect(try Self.annotation(data) == Self.annotation(mine))
    }

    @Test("a feature psql adds gets a GlobalID and its label; annolink's own edits are not recorded; a label moved in psql is placed by hand")
    func addsOwnEditsAndLabels() throws {
        guard let data = try EditedData(.postGIS) else { return }
        defer { data.drop() }
        #expect(try Harness.annolink("follow", "--install", data.target).status == 0)
        #expect(try Harness.annolink("set", data.target, Self.points, "831", "AD_ADDRESS=45765").status == 0)
        #expect(try Self.pending(data) == "0")

        // By the column's default, and by the trigger when NULL is written.
        let fid = try Self.edit(data, "add")
        let explicit = try data.query(#"""
            INSERT INTO "Loudoun_Address_Points_1" (geom, "GlobalID", "AD_ADDRESS", "ST_STR_NAM")
            SELECT geom, NULL, 45998, 'TESTING' FROM "Loudoun_Address_Points_1" WHERE fid = 834 RETURNING fid
            """#).split(separator: "\n").first.map(String.init) ?? ""
        let pattern = #"^\{[0-9A-F]{8}-[0-9A-F]{4}-4[0-9A-F]{3}-[89AB][0-9A-F]{3}-[0-9A-F]{12}\}$"#
        for added in [fid, explicit] {
            let globalID = try data.query("SELECT \"GlobalID\" FROM \"\(Self.points)\" WHERE fid = \(added)")
            #expect(globalID.range(of: pattern, options: .regularExpression) != nil, "\(added): \(globalID)")
        }
        // The next edit of annolink's catches up first, as an entry of its own.
        #expect(try Harness.annolink("set", data.target, Self.points, "834", "AD_ADDRESS=45761").status == 0)
        #expect(try data.query("SELECT \"TextString\" FROM \"Loudoun_Address_PointsAnno_1\" WHERE \"FeatureID\" = \(fid)") == "45999 TESTING")
        #expect(try data.query("SELECT \"TextString\" FROM \"Loudoun_Address_PointsAnno_1\" WHERE \"FeatureID\" = \(explicit)") == "45998 TESTING")
        let log = try Harness.annolink("log", data.target, "--limit", "2")
        #expect(log.stdout.contains("outside edit: Loudoun_Address_Points_1 fids \(fid), \(explicit)"), "\(log.stdout)")

        let before = try data.query(#"SELECT "AnchorX" FROM "Loudoun_Address_PointsAnno_1" WHERE fid = 5"#)
        try Self.edit(data, "label")
        #expect(try Harness.annolink("follow", data.target).status == 0)
        let hand = try data.query(#"SELECT "AnchorX", "Override" & 1 FROM "Loudoun_Address_PointsAnno_1" WHERE fid = 5"#)
        let parts = hand.split(separator: "|")
        #expect(parts.count == 2 && parts[1] == "1" && abs((Double(parts[0]) ?? 0) - (Double(before) ?? 0) - 20) < 1e-6, "\(before) → \(hand)")
        #expect(try Harness.annolink("check", data.target, "--fix").status <= 1)
        #expect(try data.query(#"SELECT "AnchorX", "Override" & 1 FROM "Loudoun_Address_PointsAnno_1" WHERE fid = 5"#) == hand)
        #expect(try Harness.annolink("check", data.target).status == 0)
    }

    @Test("two servers on one database follow each psql commit once, at once; GET /journal's key moves")
    func serversFollowOnce() throws {
        guard let data = try EditedData(.postGIS) else { return }
        defer { data.drop() }
        #expect(try Harness.annolink("follow", "--install", data.target).status == 0)
        let server = try ServeProcess(file: data.target)
        defer { _ = server.stop() }
        let other = try ServeProcess(file: data.target)
        defer { _ = other.stop() }
        let key = try server.request("/journal").object?["key"] as? String
        try Self.edit(data, "set")
        #expect(try FollowTests.eventually {
            try data.query(#"SELECT "TextString" FROM "Loudoun_Address_PointsAnno_1" WHERE "FeatureID" = 831"#) == "45765 ELMWOOD"
        })
        let journal = try other.request("/journal").object
        #expect(journal?["key"] as? String != key, "\(journal ?? [:])")

        // Twenty commits of their own, one address each, as fast as psql makes them.
        let fids = try data.query("SELECT fid FROM \"\(Self.points)\" WHERE fid <> 831 ORDER BY fid LIMIT 20").split(separator: "\n").map(String.init)
        let updates = fids.map { "UPDATE \"\(Self.points)\" SET \"AD_ADDRESS\" = \"AD_ADDRESS\" + 1 WHERE fid = \($0);" }.joined(separator: "\n")
        let burst = try PostgresTestServer.psql.run(["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", data.target], stdin: updates)
        #expect(burst.status == 0, "\(burst.stderr)")
        #expect(try FollowTests.eventually { try Self.pending(data) == "0" })
        #expect(try FollowTests.eventually {
            try data.query("""
                SELECT count(*) FROM "Loudoun_Address_PointsAnno_1" a JOIN "\(Self.points)" p ON p.fid = a."FeatureID"
                WHERE p.fid IN (\(fids.joined(separator: ","))) AND a."TextString" = p."AD_ADDRESS" || ' ' || p."ST_STR_NAM"
                """) == "\(fids.count)"
        })
        // Each changed row is in exactly one follow-up, whichever server made it.
        let followUps = try data.query("""
            SELECT r.fid, count(*) FROM annolink.journal_rows r JOIN annolink.journal j ON j.id = r.entry_id
            WHERE j.summary LIKE 'outside edit:%' AND r.table_name = '\(Self.points)' GROUP BY r.fid ORDER BY r.fid
            """).split(separator: "\n").map(String.init)
        #expect(followUps.count == fids.count + 1 && followUps.allSatisfy { $0.hasSuffix("|1") }, "\(followUps)")
        #expect(try Harness.annolink("check", data.target).status == 0)
    }

    @Test("QGIS edits the PostGIS layers while two servers run: each commit followed once, as annolink's own edits; undo reverts them all")
    func serversFollowQGIS() throws {
        guard let data = try EditedData(.postGIS), let mine = try EditedData(.postGIS) else { return }
        defer { data.drop(); mine.drop() }
        #expect(try Harness.annolink("follow", "--install", data.target).status == 0)
        let original = try Self.userTables(data)
        let server = try ServeProcess(file: data.target)
        defer { _ = server.stop() }
        let other = try ServeProcess(file: data.target)
        defer { _ = other.stop() }
        func followed() throws -> Bool { try Self.pending(data) == "0" }

        _ = try FollowQGISTests.edit(data.target, "set")
        #expect(try Harness.annolink("set", mine.target, Self.points, "831", "AD_ADDRESS=45765").status == 0)
        #expect(try FollowTests.eventually(followed))
        let moved = try FollowQGISTests.edit(data.target, "move")
        #expect(try Harness.annolink("move", mine.target, Self.points, "834", "--to", moved).status == 0)
        #expect(try FollowTests.eventually(followed))
        _ = try FollowQGISTests.edit(data.target, "end")
        #expect(try Harness.annolink("move-vertex", mine.target, "ParcelLines_1", "131583", "--to", "11790500,7056400").status == 0)
        #expect(try FollowTests.eventually(followed))
        _ = try FollowQGISTests.edit(data.target, "delete")
        #expect(try Harness.annolink("delete", mine.target, Self.points, "16310").status == 0)
        #expect(try FollowTests.eventually(followed))
        #expect(try FollowTests.eventually { try Self.annotation(data) == Self.annotation(mine) })

        // A feature QGIS adds gets a GlobalID and its label.
        _ = try FollowQGISTests.edit(data.target, "add")
        #expect(try FollowTests.eventually(followed))
        let added = try data.query("SELECT fid, \"GlobalID\" FROM \"\(Self.points)\" WHERE \"ST_STR_NAM\" = 'TESTING'")
        #expect(added.contains("|{"), "\(added)")
        let fid = added.split(separator: "|").first.map(String.init) ?? "0"
        #expect(try FollowTests.eventually {
            try data.query("SELECT \"TextString\" FROM \"Loudoun_Address_PointsAnno_1\" WHERE \"FeatureID\" = \(fid)") == "45999 TESTING"
        })

        // A label QGIS moves is placed by hand, and check --fix keeps it.
        let anchor = try data.query(#"SELECT "AnchorX" FROM "Loudoun_Address_PointsAnno_1" WHERE fid = 5"#)
        _ = try FollowQGISTests.edit(data.target, "label")
        #expect(try FollowTests.eventually(followed))
        let hand = try data.query(#"SELECT "AnchorX", "Override" & 1 FROM "Loudoun_Address_PointsAnno_1" WHERE fid = 5"#)
        #expect(hand.hasSuffix("|1") && abs((Double(hand.split(separator: "|")[0]) ?? 0) - (Double(anchor) ?? 0) - 20) < 1e-6, "\(anchor) → \(hand)")
        _ = server.stop()
        _ = other.stop()
        #expect(try Harness.annolink("check", data.target).status == 0)
        #expect(try Harness.annolink("check", data.target, "--fix").status == 0)
        #expect(try data.query(#"SELECT "AnchorX", "Override" & 1 FROM "Loudoun_Address_PointsAnno_1" WHERE fid = 5"#) == hand)

        // Each commit is one follow-up of one server; undoing them all gives every row back.
        let log = try Harness.annolink("log", data.target, "--limit", "7")
        #expect(log.stdout.components(separatedBy: "outside edit:").count - 1 == 6, "\(log.stdout)")
        for _ in 0..<6 { #expect(try Harness.annolink("undo", data.target).status == 0) }
        #expect(try Self.userTables(data) == original)
    }
}
