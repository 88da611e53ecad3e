import AnnoLinkGeometry
import AnnoLinkTestSupport
import Foundation
import Testing

/// Conflict-aware placement under edits, on ArcGIS's Loudoun annotation (docs/placement.md):
/// every edit places only the labels it touches, among the others, and leaves every other label
/// exactly where it was; no edit makes two labels overlap. ArcGIS's labels have no overlapping
/// pair to start with (`check` is the oracle, GEOS intersects with touching counted).
@Suite("placement under edits on the Loudoun data, end to end")
struct PlacementEditTests {
    static let points = "Loudoun_Address_Points_1"
    static let labelTables = ["Loudoun_Address_PointsAnno_1", "ParcelLinesAnno_1"]

    /// Every label as stored: "table fid" → "FeatureID AnchorX AnchorY Angle TextString Status".
    func labels(_ path: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for table in Self.labelTables {
            let rows = try Harness.sqlite(path, """
                SELECT fid || ' ' || FeatureID || ' ' || printf('%.17g %.17g %.17g', AnchorX, AnchorY, Angle) || ' ' || TextString || ' ' || Status
                FROM \(table) ORDER BY fid
                """)
            for line in rows.split(separator: "\n") {
                let fid = line.prefix { $0 != " " }
                result["\(table) \(fid)"] = String(line.dropFirst(fid.count + 1))
            }
        }
        return result
    }

    /// The location of point `fid`.
    func point(_ path: String, _ fid: String) throws -> Point {
        let blob = try Harness.sqlite(path, "SELECT hex(geom) FROM \(Self.points) WHERE fid = \(fid)")
        guard case .point(let p) = try GeoPackageGeometry(blob: hex(blob)).geometry else { throw CocoaError(.coderInvalidValue) }
        return p
    }

    /// Runs `arguments`, then checks that no two labels overlap (a label with no room is left
    /// unplaced instead: `Status` 1) and that only the labels of `touched` ("table featureID",
    /// or new rows) changed.
    func edit(_ path: String, _ arguments: [String], touching touched: Set<String>) throws {
        let before = try labels(path)
        let result = try Harness.annolink(arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        let overlaps = try Harness.annolink("check", path, "--only", "overlapping-annotation")
        #expect(overlaps.status == 0, "\(arguments): \(overlaps.stdout)")
        let after = try labels(path)
        for (key, old) in before {
            let table = key.split(separator: " ")[0]
            let featureID = old.split(separator: " ")[0]
            if touched.contains("\(table) \(featureID)") { continue }
            #expect(after[key] == old, "\(arguments): \(key) moved from \(old) to \(after[key] ?? "nowhere")")
        }
    }

    @Test("attribute edits, point moves onto a neighbour's label, a last-vertex move and added features: no overlap, no untouched label moved")
    func scriptedEdits() throws {
        guard let path = try Harness.importLoudoun() else { return }
        #expect(try Harness.annolink("check", path).status == 0)
        let addressLabel = "Loudoun_Address_PointsAnno_1"

        // The issue's edit: a longer house number that ran onto the parcel label "213.65".
        try edit(path, ["set", path, Self.points, "20166", "AD_ADDRESS=21577"], touching: ["\(addressLabel) 20166"])
        try edit(path, ["set", path, Self.points, "20166", "ST_STR_NAM=STONETREE RIDGE"], touching: ["\(addressLabel) 20166"])

        // Two address points; the first moved to 3 ft below the second: carried rigidly, its
        // label would lie on the second's, so it is placed around its point instead.
        let fids = try Harness.sqlite(path, "SELECT fid FROM \(Self.points) ORDER BY fid LIMIT 2").split(separator: "\n").map(String.init)
        let target = try point(path, fids[1])
        try edit(path, ["move", path, Self.points, fids[0], "--to", "\(target.x),\(target.y - 3)"], touching: ["\(addressLabel) \(fids[0])"])

        // A feature added on top of another point: its label finds room around it.
        let other = try point(path, fids[1])
        let before = Set(try labels(path).keys)
        try edit(path, ["add", path, Self.points, "--geometry", "POINT (\(other.x + 2) \(other.y + 2))", "AD_ADDRESS=7", "ST_STR_NAM=NEW"], touching: [])
        #expect(try labels(path).keys.count == before.count + 1)

        // The last vertex of a two-point parcel line moved 20 ft: its length label is placed again.
        let line = try Harness.sqlite(path, """
            SELECT p.fid FROM ParcelLines_1 p JOIN ParcelLinesAnno_1 a ON a.FeatureID = p.fid
            WHERE length(p.geom) <= 81 ORDER BY p.fid LIMIT 1
            """)
        let vertex = try Harness.sqlite(path, "SELECT hex(geom) FROM ParcelLines_1 WHERE fid = \(line)")
        guard case .lineString(let l) = try GeoPackageGeometry(blob: hex(vertex)).geometry, let end = l.points.last else {
            Issue.record("ParcelLines_1 \(line) is not a line")
            return
        }
        try edit(path, ["move-vertex", path, "ParcelLines_1", line, "--to", "\(end.x + 20),\(end.y)"], touching: ["ParcelLinesAnno_1 \(line)"])

        // And the whole file is still consistent: nothing stale, nothing overlapping.
        let check = try Harness.annolink("check", path, "--only", "stale-text,stale-placement,footprint,overlapping-annotation")
        #expect(check.status == 0, "\(check.stdout)")
    }
}

@Suite("placement of the Helsinki addresses, end to end")
struct HelsinkiPlacementTests {
    @Test("every entrance of an address has a point: one label per address, none over another, the duplicates unplaced and reported")
    func duplicatesRemoved() throws {
        let path = try Harness.temporaryDirectory().appendingPathComponent("helsinki.gpkg").path
        #expect(try Harness.annolink("import", Harness.packageRoot.appendingPathComponent("Fixtures/helsinki_address_points.gpkg").path, path).status == 0)
        let made = try Harness.annolink("annotate", path, "--origin", "address_points", "--into", "address_anno",
                                        "--expression", "$feature.street + \" \" + $feature.house_number", "--placement", "point",
                                        "--remove-duplicates", "100")
        #expect(made.status == 0, "\(made.stderr)")
        for run in [[], ["--regenerate", "--replace"]] {
            if !run.isEmpty { #expect(try Harness.annolink(["annotate", path] + run).status == 0) }
            let overlaps = try Harness.annolink("check", path, "--only", "overlapping-annotation")
            #expect(overlaps.status == 0, "\(run): \(overlaps.stdout)")
            // Every address's text is on the map at least once; each placed text at most once
            // within 100 pt (139 ft at 1:1200) of another of its kind.
            #expect(try Harness.sqlite(path, """
                SELECT count(*) FROM (SELECT TextString FROM address_anno GROUP BY TextString HAVING sum(Status = 0) = 0)
                """) == "0", "\(run)")
            let distinct = try #require(Int(try Harness.sqlite(path, "SELECT count(DISTINCT street || ' ' || house_number) FROM address_points")))
            let placed = try #require(Int(try Harness.sqlite(path, "SELECT count(*) FROM address_anno WHERE Status = 0")))
            #expect(placed >= distinct && placed < distinct + distinct / 10, "\(run): \(placed) placed for \(distinct) addresses")
            // The others are unplaced, as ArcGIS stores them, and check lists each.
            let unplaced = try Harness.sqlite(path, "SELECT count(*) FROM address_anno WHERE Status = 1")
            let listed = try Harness.annolink("check", path, "--only", "unplaced-annotation", "--json")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])
            #expect((object["problems"] as? [Any])?.count == Int(unplaced), "\(run)")
        }
    }
}
