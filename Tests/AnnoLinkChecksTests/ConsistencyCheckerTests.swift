@testable import AnnoLinkChecks
import AnnoLinkEngine
import AnnoLinkGeometry
import AnnoLinkStore
import Testing

/// The checks on a synthetic sample, corrupted through the store one way at a time.
@Suite("consistency checks")
struct ConsistencyCheckerTests {
    typealias Key = CheckScratch.Key
    /// US survey feet per point of text at 1:1200 (the sample's classes).
    let feetPerPoint = 1200 * 0.0254 / 72 / (1200.0 / 3937.0)

    @Test("a fresh sample has no problems, and the summary counts what was read")
    func clean() throws {
        let s = try CheckScratch(parcels: 10)
        var problems: [Problem] = []
        let summary = try s.checker().check { problems.append($0) }
        #expect(problems.isEmpty)
        let points = Int(try s.package.connection.scalarInt("SELECT count(*) FROM address_points") ?? 0)
        let lines = Int(try s.package.connection.scalarInt("SELECT count(*) FROM parcel_lines") ?? 0)
        #expect(summary.annotationTables == ["address_points_anno", "parcel_lines_anno"])
        #expect(summary.originFeatures == points + lines)
        #expect(summary.annotationRows == points + lines)
        #expect(summary.indexEntries == 2 * (points + lines))
        #expect(summary.problemCount == 0)
    }

    @Test("of two annotations of one feature and class the better match stays, whatever its fid")
    func duplicateKeepsBestMatch() throws {
        let s = try CheckScratch()
        var original = try s.annotation("parcel_lines_anno", feature: 4)
        var copy = original
        copy.fid = nil
        let copyFid = try s.package.insertAnnotation(copy, into: s.table("parcel_lines_anno"))
        // The original's text goes wrong; the copy still matches, so the original is the duplicate.
        original.text = "999"
        try s.update(original, in: "parcel_lines_anno")
        #expect(try s.keys() == [Key(.duplicate, "parcel_lines_anno", original.fid, 4)])

        try s.repair()
        #expect(try s.keys() == [])
        #expect(try s.package.annotationRows(s.table("parcel_lines_anno"), featureID: 4).map(\.fid) == [copyFid])
    }

    @Test("a hand-placed anchor is not stale; its footprint must still match it")
    func overrideRespected() throws {
        let s = try CheckScratch()
        var row = try s.annotation("address_points_anno", feature: 2)
        row.override = [.position, .angle]
        row.anchor = row.anchor!.translated(dx: 30, dy: -12)
        row.footprint = row.footprint!.translated(dx: 30, dy: -12)
        row.angle = 15
        // The footprint is moved but not turned by the angle: only the footprint is wrong.
        try s.update(row, in: "address_points_anno")
        #expect(try s.keys() == [Key(.footprint, "address_points_anno", row.fid, 2)])
        try s.repair()
        #expect(try s.keys() == [])
        let repaired = try s.annotation("address_points_anno", feature: 2)
        #expect(repaired.anchor == row.anchor)
        #expect(repaired.angle == 15)
    }

    @Test("positions and angles within the tolerances pass; beyond them they are stale")
    func tolerances() throws {
        let s = try CheckScratch()
        var row = try s.annotation("address_points_anno", feature: 3)
        row.anchor = row.anchor!.translated(dx: 0.9 * feetPerPoint, dy: 0)
        row.footprint = row.footprint!.translated(dx: 0.9 * feetPerPoint, dy: 0)
        try s.update(row, in: "address_points_anno")
        #expect(try s.keys() == [])
        #expect(try s.keys(CheckTolerances(position: 0.8)) == [Key(.stalePlacement, "address_points_anno", row.fid, 3)])

        var line = try s.annotation("parcel_lines_anno", feature: 5)
        line.angle = (line.angle + 2).truncatingRemainder(dividingBy: 360)
        try s.update(line, in: "parcel_lines_anno")
        let stale = try s.problems(CheckTolerances(footprint: 100)).map { Key($0.code, $0.annotationTable, $0.annotationFid, $0.originFid) }
        #expect(stale == [Key(.stalePlacement, "parcel_lines_anno", line.fid, 5)])
        #expect(try s.keys(CheckTolerances(angle: 2.5, footprint: 100)) == [])
    }

    @Test("stale text and a stale placement of one row are one repair; the footprint follows")
    func staleTextAndPlacement() throws {
        let s = try CheckScratch()
        var row = try s.annotation("address_points_anno", feature: 1)
        let good = row
        row.text = "1 NOWHERE"
        row.anchor = row.anchor!.translated(dx: 10, dy: 10)
        try s.update(row, in: "address_points_anno")
        let problems = try s.problems()
        #expect(problems.map(\.code) == [.staleText, .stalePlacement])
        #expect(problems[0].message == "text is '1 NOWHERE'; the expression gives '\(good.text)'")
        #expect(problems[1].message.hasPrefix("the rules' anchor moved 10.18 pt (14.14 map units) since the label was placed"), "\(problems[1].message)")
        let result = try s.repair()
        #expect(result.updated == 1)
        #expect(result.repaired == [.staleText: 1, .stalePlacement: 1])
        #expect(try s.annotation("address_points_anno", feature: 1) == good)
    }

    @Test("a footprint that is not a polygon is reported and made again")
    func unusableFootprint() throws {
        let s = try CheckScratch()
        let row = try s.annotation("address_points_anno", feature: 6)
        let point = s.package.encode(.point(row.anchor!), for: try s.table("address_points_anno"))
        try s.package.connection.run("UPDATE address_points_anno SET geom = ? WHERE fid = ?", [.blob(point), .integer(row.fid!)])
        let problems = try s.problems()
        #expect(problems.map { Key($0.code, $0.annotationTable, $0.annotationFid, $0.originFid) } == [Key(.footprint, "address_points_anno", row.fid, 6)])
        #expect(problems.first?.message == "its footprint is unusable: table 'address_points_anno' holds POLYGON geometries, not POINT")
        try s.repair()
        #expect(try s.keys() == [])
        #expect(try s.annotation("address_points_anno", feature: 6) == row)
    }

    @Test("a missing annotation is created by the class's rules")
    func missing() throws {
        let s = try CheckScratch()
        let row = try s.annotation("parcel_lines_anno", feature: 7)
        try s.package.deleteAnnotation(fid: row.fid!, from: s.table("parcel_lines_anno"))
        let problems = try s.problems()
        #expect(problems.map { Key($0.code, $0.annotationTable, $0.annotationFid, $0.originFid) } == [Key(.missing, "parcel_lines_anno", nil, 7)])
        #expect(problems.first?.classID == 0)
        #expect(try s.repair().created == 1)
        var made = try s.annotation("parcel_lines_anno", feature: 7)
        made.fid = row.fid
        #expect(made == row)
    }

    @Test("an annotation of an unregistered class is reported and left; its feature still needs one")
    func unknownClass() throws {
        let s = try CheckScratch()
        let row = try s.annotation("address_points_anno", feature: 5)
        try s.package.connection.run("UPDATE address_points_anno SET AnnotationClassID = 7 WHERE fid = ?", [.integer(row.fid!)])
        #expect(try s.keys() == [Key(.missing, "address_points_anno", nil, 5), Key(.unknownClass, "address_points_anno", row.fid, 5)])
        let result = try s.repair()
        #expect(result.left == [.unknownClass: 1])
        #expect(try s.keys() == [Key(.unknownClass, "address_points_anno", row.fid, 5)])
    }

    @Test("a line of one distinct point is invalid, and its annotation is not judged")
    func zeroLengthLine() throws {
        let s = try CheckScratch()
        let lines = try s.table("parcel_lines")
        let point = Point(x: 11_880_000, y: 7_020_000)
        let blob = s.package.encode(.lineString(LineString([point, point])), for: lines)
        try s.package.connection.run("UPDATE parcel_lines SET geom = ? WHERE fid = 6", [.blob(blob)])
        let problems = try s.problems()
        #expect(problems.map { Key($0.code, $0.annotationTable, $0.annotationFid, $0.originFid) } == [Key(.invalidGeometry, nil, nil, 6)])
        #expect(problems.first?.message == "invalid geometry: Too few points in geometry component[11880000 7020000]")
        let result = try s.repair()
        #expect(result.left == [.invalidGeometry: 1])
        #expect(result.journalEntry == nil)
    }

    @Test("polygon origins: an invalid one gets GEOS's reason, a valid one that point placement cannot place says so")
    func polygonOrigins() throws {
        let s = try CheckScratch()
        let parcels = try s.package.createFeatureTable(FeatureTableDefinition(
            name: "parcels", geometryTypeName: "POLYGON", srsID: 2924, columns: [Column(name: "name", type: "TEXT")]))
        try s.package.createAnnotationTable(name: "parcel_names", srsID: 2924)
        try s.package.saveAnnotationClass(AnnotationClass(
            annotationTable: "parcel_names", classID: 0, name: "Names", originTable: "parcels", expression: "$feature.name",
            referenceScale: 1200, placement: .point, placementOffset: 3.35))
        func square(_ points: [(Double, Double)]) -> [UInt8] {
            s.package.encode(.polygon(Polygon(exterior: LineString(points.map { Point(x: 11_880_000 + $0.0, y: 7_020_000 + $0.1) }))), for: parcels)
        }
        let bowTie = square([(0, 0), (10, 10), (10, 0), (0, 10), (0, 0)])
        let valid = square([(0, 0), (10, 0), (10, 10), (0, 10), (0, 0)])
        try s.package.connection.run("INSERT INTO parcels (fid, geom, name) VALUES (1, ?, 'bow tie'), (2, ?, 'square')", [.blob(bowTie), .blob(valid)])
        let problems = try s.problems()
        #expect(problems.map { Key($0.code, $0.annotationTable, $0.annotationFid, $0.originFid) } == [
            Key(.invalidGeometry, nil, nil, 1), Key(.invalidGeometry, "parcel_names", nil, 2),
        ])
        #expect(problems.first?.message == "invalid geometry: Self-intersection[11880005 7020005]")
        #expect(problems.last?.message == "class 0 'Names' cannot place it: point placement needs a point feature, not polygon")
    }

    @Test("GEOS's rules in Swift: repeated points are valid, too few distinct points and non-finite coordinates are not")
    func lineValidity() throws {
        let engine = try GeometryEngine()
        let p = Point(x: 1, y: 2), q = Point(x: 3, y: 4)
        #expect(try ConsistencyChecker.invalidityReason(.lineString(LineString([p, p, q])), engine: engine) == nil)
        #expect(try ConsistencyChecker.invalidityReason(.lineString(LineString([p, p])), engine: engine)
            == "invalid geometry: Too few points in geometry component[1 2]")
        #expect(try ConsistencyChecker.invalidityReason(.point(Point(x: .infinity, y: 2)),
            engine: engine)?.hasPrefix("vertex 0 of part 0 has a non-finite coordinate") == true)
        #expect(try ConsistencyChecker.invalidityReason(.multiLineString(MultiLineString([LineString([p, q]), LineString([q, q])])), engine: engine) != nil)
    }

    @Test("--table limits the check to one annotation table, or to the annotation of one origin table")
    func tableScope() throws {
        let s = try CheckScratch()
        var row = try s.annotation("address_points_anno", feature: 1)
        row.text = "x"
        try s.update(row, in: "address_points_anno")
        #expect(try s.problems(table: "parcel_lines_anno").isEmpty)
        #expect(try s.problems(table: "PARCEL_LINES").isEmpty)
        #expect(try s.problems(table: "address_points").map(\.code) == [.staleText])
        #expect(throws: StoreError.unknownTable("nope")) { try s.problems(table: "nope") }
        _ = try s.package.createFeatureTable(FeatureTableDefinition(name: "plain", geometryTypeName: "POINT", srsID: 2924, columns: []))
        #expect(throws: CheckError.notAnnotated(table: "plain")) { try s.problems(table: "Plain") }
    }

    @Test("index entries: a wrong box, a missing entry, an entry without a row, reported in fid order and rebuilt")
    func index() throws {
        let s = try CheckScratch()
        try s.package.connection.execute("""
            UPDATE rtree_parcel_lines_geom SET maxy = maxy + 1 WHERE id = 3;
            DELETE FROM rtree_parcel_lines_geom WHERE id = 2;
            INSERT INTO rtree_parcel_lines_geom VALUES (1000, 0, 1, 0, 1);
            """)
        let problems = try s.problems()
        #expect(problems.map { Key($0.code, $0.annotationTable, $0.annotationFid, $0.originFid) } == [
            Key(.index, nil, nil, 2), Key(.index, nil, nil, 3), Key(.index, nil, nil, 1000),
        ])
        #expect(problems.allSatisfy { $0.originTable == "parcel_lines" })
        #expect(problems[0].message == "it has no spatial index entry")
        #expect(problems[1].message.hasPrefix("its index box ("))
        #expect(problems[1].message.contains(") is not its envelope ("))
        #expect(problems[2].message == "the spatial index has an entry for fid 1000, which is not a row of parcel_lines")
        let result = try s.repair()
        #expect(result.rebuiltIndexes == ["parcel_lines"])
        #expect(result.journalEntry == 1)
        #expect(try s.keys() == [])
        #expect(try s.package.connection.scalarText("SELECT rtreecheck('rtree_parcel_lines_geom')") == "ok")
    }

    @Test("annotation tables without classes are an error; no annotation at all is an empty check")
    func nothingToCheckAgainst() throws {
        let s = try CheckScratch()
        try s.package.connection.execute("DELETE FROM annolink_annotation_classes")
        #expect(throws: CheckError.noAnnotationClasses(annotationTables: ["address_points_anno", "parcel_lines_anno"])) { try s.problems() }
        try s.package.connection.execute("DELETE FROM gpkg_extensions WHERE extension_name = 'annolink_feature_linked_annotation'")
        var problems: [Problem] = []
        let summary = try s.checker().check { problems.append($0) }
        #expect(!summary.hasAnnotation)
        #expect(problems.isEmpty)
    }
}
