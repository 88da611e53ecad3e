import Foundation
import Testing

/// `annolink check` for what a reviewer sees — overlapping and unplaced annotation — and
/// `--only`, end to end.
@Suite("check: overlapping and unplaced annotation, --only, end to end")
struct CheckReviewTests {
    /// Every code but the review pass's, as `--only` takes them.
    static let consistency = "orphan,missing,duplicate,stale-text,stale-placement,wrong-class,footprint,invalid-geometry,index,unknown-class"

    func sample(_ arguments: String...) throws -> String {
        let path = try Harness.temporaryDirectory().appendingPathComponent("sample.gpkg").path
        let made = try Harness.annolink(["sample", path] + arguments)
        #expect(made.status == 0, "\(made.stderr)")
        return path
    }

    /// `check --json` with `extra`: exit status and the whole object.
    func check(_ path: String, _ extra: String...) throws -> (status: Int32, object: [String: Any], problems: [[String: Any]]) {
        let result = try Harness.annolink(["check", path, "--json"] + extra)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout) \(result.stderr)")
        return (result.status, object, object["problems"] as? [[String: Any]] ?? [])
    }

    @Test("labels laid over others are found: every pair once, the other row named in the message and under \"overlaps\"")
    func sampleOverlaps() throws {
        guard Harness.hasGDAL else { return }
        let path = try sample()
        // The sample's labels have room; three address labels get parcel labels' footprints
        // and anchors (through GDAL, which keeps the R-trees), as another program might.
        #expect(try check(path, "--only", "overlapping-annotation").problems.isEmpty)
        try Harness.gdalSQL(path, """
            UPDATE address_points_anno SET geom = (SELECT geom FROM parcel_lines_anno p WHERE p.fid = address_points_anno.fid),
              AnchorX = (SELECT AnchorX FROM parcel_lines_anno p WHERE p.fid = address_points_anno.fid),
              AnchorY = (SELECT AnchorY FROM parcel_lines_anno p WHERE p.fid = address_points_anno.fid) WHERE fid IN (1, 2, 3)
            """)
        let found = try check(path)
        #expect(found.status == 1)
        let overlaps = found.problems.filter { $0["code"] as? String == "overlapping-annotation" }
        #expect(overlaps.count >= 3)
        #expect((found.object["counts"] as? [String: Int])?["overlapping-annotation"] == overlaps.count)
        var pairs = Set<String>()
        for p in overlaps {
            let other = try #require(p["overlaps"] as? [String: Any])
            let table = try #require(p["annotationTable"] as? String), fid = try #require(p["annotationFid"] as? Int)
            let otherTable = try #require(other["annotationTable"] as? String), otherFid = try #require(other["annotationFid"] as? Int)
            #expect((table, fid) < (otherTable, otherFid), "reported on the lower row: \(p)")
            #expect(pairs.insert("\(table) \(fid) \(otherTable) \(otherFid)").inserted, "reported twice: \(p)")
            #expect((p["message"] as? String)?.contains("overlaps \(otherTable) fid \(otherFid) '\(other["text"] as? String ?? "")'") == true)
        }
        #expect(found.problems.allSatisfy { $0["code"] as? String != "overlapping-annotation" || $0["overlaps"] != nil })
        // --only keeps the document's shape.
        let only = try check(path, "--only", "orphan")
        #expect(only.status == 0 && only.problems.isEmpty)
        #expect(Set(found.object.keys) == Set(only.object.keys), "--only keeps the document's shape")
        // --fix places the laid-over labels again: nothing overlaps, nothing is stale.
        let fixed = try check(path, "--fix")
        #expect((fixed.object["repaired"] as? [String: Int])?["overlapping-annotation"] == overlaps.count, "\(fixed.object)")
        let after = try check(path)
        #expect(after.status == 0, "\(after.problems)")
    }

    @Test("ArcGIS placed Loudoun's labels without conflict: no overlapping pair, and none unplaced")
    func loudounHasNoOverlaps() throws {
        let path = try #require(try Harness.importLoudoun())
        let found = try check(path, "--only", "overlapping-annotation,unplaced-annotation")
        #expect(found.status == 0)
        #expect(found.problems.isEmpty, "\(found.problems)")
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM ParcelLinesAnno_1 WHERE Status = 0") == "115")
    }

    @Test("--only with an unknown or empty code is a usage error listing the codes")
    func onlyUsage() throws {
        let path = try sample("--parcels", "2")
        for list in ["stale-text,bogus", "", "stale-text,"] {
            let result = try Harness.annolink("check", path, "--only", list)
            #expect(result.status == 64, "\(list): \(result.stderr)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.hasPrefix("error: --only: "), "\(result.stderr)")
            #expect(result.stderr.contains("the codes are orphan, missing, duplicate, stale-text, stale-placement, wrong-class, footprint, "
                + "invalid-geometry, index, unknown-class, overlapping-annotation, unplaced-annotation"), "\(result.stderr)")
        }
        #expect(try Harness.annolink("check", path, "--only", "bogus").stderr.contains("unknown problem code 'bogus'"))
        let help = try Harness.annolink("check", "--help")
        #expect(help.status == 0 && help.stdout.contains("--only CODE,...") && help.stdout.contains("overlapping-annotation"))
    }

    @Test("an unplaced row is reported; --fix --only repairs only the codes named and leaves the rest as they were")
    func fixOnly() throws {
        guard Harness.hasGDAL else { return }
        let path = try sample("--parcels", "6")
        try Harness.gdalSQL(path, "UPDATE address_points_anno SET TextString = 'X' WHERE fid IN (1, 2)")
        try Harness.gdalSQL(path, "UPDATE parcel_lines_anno SET Status = 1 WHERE fid = 4")

        let unplaced = try check(path, "--only", "unplaced-annotation")
        #expect(unplaced.status == 1)
        #expect(unplaced.problems.map { "\($0["annotationTable"]!) \($0["annotationFid"]!)" } == ["parcel_lines_anno 4"])
        #expect(unplaced.problems.first?["originTable"] as? String == "parcel_lines")

        let fixed = try check(path, "--fix", "--only", "stale-text")
        #expect(fixed.status == 0)
        #expect((fixed.object["repaired"] as? [String: Int]) == ["stale-text": 2])
        #expect(try check(path, "--only", "stale-text").problems.isEmpty)
        #expect(try check(path, "--only", "unplaced-annotation").problems.count == 1, "the stale-text fix left the unplaced row")
        #expect(try Harness.sqlite(path, "SELECT Status FROM parcel_lines_anno WHERE fid = 4") == "1")

        // The unplaced label is placed again: it has room.
        let placed = try check(path, "--fix", "--only", "unplaced-annotation")
        #expect((placed.object["repaired"] as? [String: Int]) == ["unplaced-annotation": 1], "\(placed.object)")
        #expect(try Harness.sqlite(path, "SELECT Status FROM parcel_lines_anno WHERE fid = 4") == "0")
        #expect(try check(path).status == 0)
    }

    @Test("check --render: an overlap's picture is named after both rows, an unplaced row's after its own")
    func render() throws {
        guard Harness.hasGDAL else { return }
        let path = try sample("--parcels", "3")
        try Harness.gdalSQL(path, "UPDATE parcel_lines_anno SET Status = 1 WHERE fid = 2")
        // Two address labels laid over parcel labels.
        try Harness.gdalSQL(path, """
            UPDATE address_points_anno SET geom = (SELECT geom FROM parcel_lines_anno p WHERE p.fid = address_points_anno.fid + 2) WHERE fid IN (1, 2)
            """)
        let found = try check(path, "--only", "overlapping-annotation,unplaced-annotation")
        let expected = found.problems.map { p -> String in
            let base = "\(p["code"] as! String)-\(p["annotationTable"] as! String)-\(p["annotationFid"] as! Int)"
            guard let other = p["overlaps"] as? [String: Any] else { return base + ".png" }
            return base + "-\(other["annotationTable"] as! String)-\(other["annotationFid"] as! Int).png"
        }
        #expect(expected.contains("unplaced-annotation-parcel_lines_anno-2.png"))
        #expect(expected.count > 1 && Set(expected).count == expected.count)
        let folder = try Harness.temporaryDirectory().appendingPathComponent("pictures")
        let result = try Harness.annolink("check", path, "--only", "overlapping-annotation,unplaced-annotation", "--render", folder.path)
        #expect(result.status == 1)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(files == (expected + ["index.html"]).sorted())
    }
}
