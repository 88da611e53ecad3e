import AnnoLinkGeometry
import AnnoLinkTestSupport
import Foundation
import Testing

/// Rigid moves on ArcGIS's own Loudoun annotation (docs/placement.md, "Rigid moves"):
/// `translate` and `move` carry each label by exactly its feature's vector, ArcGIS's placements
/// off the rules included, `check` finds what it found before, and `undo` gives the file back.
@Suite("rigid moves on the Loudoun data, end to end")
struct RigidMoveEndToEndTests {
    struct Unexpected: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static let addressLabels = "Loudoun_Address_PointsAnno_1"
    static let parcelLabels = "ParcelLinesAnno_1"

    /// One annotation row as stored: its feature, anchor, footprint vertices, text and angle.
    struct Label: Equatable {
        var featureID: Int64
        var anchor: Point
        var footprint: [Point]
        var text: String
        var angle: Double
    }

    /// Every row of annotation table `table`, by fid, read with Debian's `sqlite3` (reals
    /// printed with 17 digits, so they read back exactly) and our own blob decoder.
    func labels(_ path: String, _ table: String) throws -> [Int64: Label] {
        let text = try Harness.sqlite(path, """
            SELECT fid, FeatureID, printf('%.17g', AnchorX), printf('%.17g', AnchorY), hex(geom), printf('%.17g', Angle), TextString
            FROM "\(table)" ORDER BY fid
            """)
        var result: [Int64: Label] = [:]
        for line in text.split(separator: "\n") {
            let f = line.split(separator: "|", maxSplits: 6, omittingEmptySubsequences: false).map(String.init)
            let footprint = try GeoPackageGeometry(blob: hex(f[4])).geometry
            guard case .polygon(let polygon) = footprint, let ring = polygon.exterior?.points else {
                throw Unexpected("\(table) fid \(f[0]): the footprint is not a polygon")
            }
            result[Int64(f[0])!] = Label(featureID: Int64(f[1])!, anchor: Point(x: Double(f[2])!, y: Double(f[3])!), footprint: ring,
                                         text: f[6], angle: Double(f[5])!)
        }
        return result
    }

    /// Checks that every label of a feature in `moved` moved by (dx, dy) to 1e-6 ft, anchor and
    /// every footprint vertex, and every other label not at all; text and angle are kept.
    func expectMoved(_ before: [Int64: Label], _ after: [Int64: Label], features moved: Set<Int64>, dx: Double, dy: Double,
                     sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(before.count == after.count, sourceLocation: sourceLocation)
        for (fid, old) in before {
            guard let new = after[fid] else {
                Issue.record("label \(fid) is gone", sourceLocation: sourceLocation)
                continue
            }
            let (ex, ey) = moved.contains(old.featureID) ? (dx, dy) : (0, 0)
            func by(_ a: Point, _ b: Point) -> Bool { abs(b.x - a.x - ex) < 1e-6 && abs(b.y - a.y - ey) < 1e-6 }
            #expect(by(old.anchor, new.anchor), "label \(fid): anchor moved by (\(new.anchor.x - old.anchor.x), \(new.anchor.y - old.anchor.y))",
                    sourceLocation: sourceLocation)
            #expect(old.footprint.count == new.footprint.count && zip(old.footprint, new.footprint).allSatisfy(by),
                    "label \(fid): footprint", sourceLocation: sourceLocation)
            #expect(old.text == new.text && old.angle == new.angle, "label \(fid): text or angle changed", sourceLocation: sourceLocation)
        }
    }

    /// `check --json --all` of the consistency codes (a rigid move may lay labels over others:
    /// PlacementEditTests): each problem's code, table and row with its message.
    func problems(_ path: String) throws -> [String: String] {
        let result = try Harness.annolink("check", path, "--json", "--all", "--only", CheckReviewTests.consistency)
        #expect(result.status == 1 && result.stderr.isEmpty, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        var found: [String: String] = [:]
        for p in object["problems"] as? [[String: Any]] ?? [] {
            found["\(p["code"] ?? "") \(p["annotationTable"] ?? "") \(p["annotationFid"] ?? "")"] = p["message"] as? String
        }
        return found
    }

    /// The address point `fid`'s location, decoded from its blob.
    func point(_ path: String, _ fid: Int64) throws -> Point {
        let blob = try Harness.sqlite(path, "SELECT hex(geom) FROM Loudoun_Address_Points_1 WHERE fid = \(fid)")
        guard case .point(let p) = try GeoPackageGeometry(blob: hex(blob)).geometry else { throw Unexpected("fid \(fid) is not a point") }
        return p
    }

    @Test("translate --by 100,-50 moves the selected labels, ArcGIS's off-rule ones too, by exactly (100, -50); check as before; undo exact")
    func translate() throws {
        guard let path = try Harness.importLoudoun() else { return }
        // Without their placement records (as annolink wrote them before it kept them), the 21
        // labels ArcGIS's engine placed off the rules' position read as stale placements.
        guard Harness.hasGDAL else { return }
        try Harness.gdalSQL(path, "UPDATE ParcelLinesAnno_1 SET PlacedFrom = NULL")
        try Harness.gdalSQL(path, "UPDATE Loudoun_Address_PointsAnno_1 SET PlacedFrom = NULL")
        let original = try Harness.dump(path)
        let problems = try problems(path)
        // ArcGIS's placements the rules do not give (docs/checks.md): 21 of them, address labels 10 and 24 among them.
        #expect(problems.count == 21)
        #expect(problems["stale-placement \(Self.addressLabels) 24"]?.contains("3.28 pt (4.55 map units)") == true)
        let addresses = try labels(path, Self.addressLabels), parcels = try labels(path, Self.parcelLabels)

        let condition = "ST_STR_NAM IN ('ELMWOOD', 'STONETREE')"
        let selected = Set(try Harness.sqlite(path, "SELECT fid FROM Loudoun_Address_Points_1 WHERE \(condition)").split(separator: "\n").map { Int64($0)! })
        #expect(selected.count == 13)
        let result = try Harness.annolink("translate", path, "Loudoun_Address_Points_1", "--where", condition, "--by", "100,-50")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("moved 13 features of Loudoun_Address_Points_1 and 13 annotation rows"), "\(result.stdout)")
        expectMoved(addresses, try labels(path, Self.addressLabels), features: selected, dx: 100, dy: -50)
        #expect(try labels(path, Self.parcelLabels) == parcels)
        // Label 24 stays 4.55 ft from the rule position, where ArcGIS put it: the same problems, word for word.
        #expect(try self.problems(path) == problems)

        // Parcel lines, straight and curved, by a box.
        let box = "11789000,7055000,11790500,7057000"
        let inside = Set(try Harness.sqlite(path, """
            SELECT id FROM rtree_ParcelLines_1_geom WHERE minx >= 11789000 AND maxx <= 11790500 AND miny >= 7055000 AND maxy <= 7057000
            """).split(separator: "\n").map { Int64($0)! })
        #expect(inside.count > 10)
        let movedAddresses = try labels(path, Self.addressLabels)
        let lines = try Harness.annolink("translate", path, "ParcelLines_1", "--bbox", box, "--by", "100,-50")
        #expect(lines.status == 0, "\(lines.stderr)")
        expectMoved(parcels, try labels(path, Self.parcelLabels), features: inside, dx: 100, dy: -50)
        #expect(try labels(path, Self.addressLabels) == movedAddresses)
        #expect(try self.problems(path) == problems)
        #expect(try Harness.validate(path) == "")

        for _ in 0..<2 { #expect(try Harness.annolink("undo", path).status == 0) }
        #expect(try Harness.dump(path) == original)
    }

    @Test("move of an address point carries its label by the point's vector; check finds what it found; undo is exact")
    func move() throws {
        guard let path = try Harness.importLoudoun() else { return }
        guard Harness.hasGDAL else { return }
        try Harness.gdalSQL(path, "UPDATE ParcelLinesAnno_1 SET PlacedFrom = NULL")
        try Harness.gdalSQL(path, "UPDATE Loudoun_Address_PointsAnno_1 SET PlacedFrom = NULL")
        let original = try Harness.dump(path)
        let problems = try problems(path)
        let before = try labels(path, Self.addressLabels)
        // Address label 10, 29.25 ft from where the rules put it.
        let fid = try #require(before[10]?.featureID)
        let from = try point(path, fid)
        // (Moved 12.5 ft east and 7.25 ft south instead, it would land on a parcel label it was
        // clear of, and would be placed again: PlacementEditTests.)
        let to = Point(x: from.x - 12.5, y: from.y + 7.25)
        let result = try Harness.annolink("move", path, "Loudoun_Address_Points_1", String(fid), "--to", "\(to.x),\(to.y)")
        #expect(result.status == 0, "\(result.stderr)")
        let reached = try point(path, fid)
        expectMoved(before, try labels(path, Self.addressLabels), features: [fid], dx: reached.x - from.x, dy: reached.y - from.y)
        #expect(abs(reached.x - to.x) < 1e-6 && abs(reached.y - to.y) < 1e-6)
        #expect(try self.problems(path) == problems)
        #expect(try Harness.annolink("undo", path).status == 0)
        #expect(try Harness.dump(path) == original)
    }
}
