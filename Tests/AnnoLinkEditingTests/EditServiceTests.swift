import AnnoLinkAnnotation
import AnnoLinkEditing
import AnnoLinkEngine
import AnnoLinkGeometry
import AnnoLinkImport
import AnnoLinkStore
import Foundation
import Testing

/// Every edit of `EditService` on the synthetic sample: the feature change, the annotation
/// change that comes with it (text and anchor), the journal entry, and the file left exactly as
/// it was when the edit fails.
@Suite("EditService")
struct EditServiceTests {
    @Test("the dump the rollback tests compare sees a change of one field, one journal entry and one R-tree box")
    func dumpSeesChanges() throws {
        let s = try EditScratch()
        let before = try s.dump()
        #expect(before.contains { $0.hasPrefix("address_points: ") })
        #expect(before.contains { $0.hasPrefix("rtree_address_points_geom: ") })
        #expect(before.contains { $0.hasPrefix("gpkg_contents: ") })
        _ = try s.service.setFields(table: "address_points", fid: 1, values: [("PARCEL_ID", "99")], command: "test")
        let afterSet = try s.dump()
        #expect(afterSet != before)
        let point = try s.point(1)
        _ = try s.service.movePoint(table: "address_points", fid: 1, to: Point(x: point.x + 100, y: point.y), crs: nil, command: "test")
        let afterMove = try s.dump()
        let changedIndexRows = Set(afterMove.filter { $0.hasPrefix("rtree_address_points_geom: ") }).subtracting(afterSet)
        #expect(changedIndexRows.count == 1)
    }

    // MARK: set

    @Test("set changes the fields and exactly that feature's annotation text; the anchor stays")
    func setFields() throws {
        let s = try EditScratch()
        let before = try s.annotation("address_points_anno", feature: 1)
        #expect(before.text == "20000 ELMWOOD")
        let othersBefore = try s.package.connection.rows("SELECT * FROM address_points_anno WHERE FeatureID != 1 ORDER BY fid")

        let result = try s.service.setFields(table: "address_points", fid: 1, values: [("AD_ADDRESS", "45999"), ("st_str_nam", "NEW MARKET")],
            command: "test set")

        #expect(result.kind == .set)
        #expect(result.fields.map(\.name) == ["AD_ADDRESS", "ST_STR_NAM"])
        #expect(result.fields.map(\.old) == [.integer(20000), .text("ELMWOOD")])
        #expect(result.fields.map(\.new) == [.integer(45999), .text("NEW MARKET")])
        #expect(result.journalEntry != nil)
        try #require(result.annotation.count == 1)
        let change = result.annotation[0]
        #expect(change.kind == .updated)
        #expect(change.annotationTable == "address_points_anno")
        #expect(change.annotationFid == before.fid)
        #expect(change.oldText == "20000 ELMWOOD")
        #expect(change.newText == "45999 NEW MARKET")
        #expect(change.oldAnchor == before.anchor && change.newAnchor == before.anchor)
        let after = try s.annotation("address_points_anno", feature: 1)
        #expect(after.text == "45999 NEW MARKET")
        #expect(after.anchor == before.anchor)
        // A longer text has a wider footprint.
        let widthBefore = try #require(before.footprint.flatMap { Geometry.polygon($0).envelope }).width
        let widthAfter = try #require(after.footprint.flatMap { Geometry.polygon($0).envelope }).width
        #expect(widthAfter > widthBefore)
        #expect(try s.feature("address_points", 1).attributes["ST_STR_NAM"] == .text("NEW MARKET"))
        #expect(try s.package.connection.rows("SELECT * FROM address_points_anno WHERE FeatureID != 1 ORDER BY fid") == othersBefore)
    }

    @Test("set of a field the label does not read leaves the annotation alone")
    func setFieldOutsideTheLabel() throws {
        let s = try EditScratch()
        let before = try s.annotation("address_points_anno", feature: 2)
        let result = try s.service.setFields(table: "address_points", fid: 2, values: [("ST_STR_TYP", "AVE")], command: "test set")
        #expect(result.annotation.isEmpty)
        #expect(try s.annotation("address_points_anno", feature: 2) == before)
        #expect(try s.feature("address_points", 2).attributes["ST_STR_TYP"] == .text("AVE"))
    }

    @Test("set of an annotation row by hand marks position, angle and text in Override")
    func setAnnotationByHand() throws {
        let s = try EditScratch()
        let row = try s.annotation("address_points_anno", feature: 3)
        let anchor = try #require(row.anchor)
        let fid = try #require(row.fid)
        _ = try s.service.setFields(table: "address_points_anno", fid: fid, values: [("AnchorX", "\(anchor.x + 30)"), ("Angle", "375")], command: "test set")
        var stored = try s.package.annotationRow(s.table("address_points_anno"), fid: fid)
        #expect(stored.override == [.position, .angle])
        #expect(stored.angle == 15, "the angle is normalised into [0, 360)")
        #expect(stored.anchor == Point(x: anchor.x + 30, y: anchor.y))
        _ = try s.service.setFields(table: "address_points_anno", fid: fid, values: [("TextString", "HAND MADE")], command: "test set")
        stored = try s.package.annotationRow(s.table("address_points_anno"), fid: fid)
        #expect(stored.override == [.position, .angle, .text])
        #expect(stored.text == "HAND MADE")

        // The feature moves: the hand-placed label moves by the same vector, keeps its angle and text.
        let point = try s.point(3)
        let result = try s.service.movePoint(table: "address_points", fid: 3, to: Point(x: point.x + 10, y: point.y - 20), crs: nil, command: "test move")
        let moved = try s.package.annotationRow(s.table("address_points_anno"), fid: fid)
        #expect(close(moved.anchor, Point(x: anchor.x + 40, y: anchor.y - 20)))
        #expect(moved.angle == 15)
        #expect(moved.text == "HAND MADE")
        #expect(result.annotation.first?.newText == "HAND MADE")
    }

    @Test("set refuses values that do not fit their column, naming table, field and value")
    func setRefusals() throws {
        let s = try EditScratch()
        let notNumber = try s.expectUnchanged(by: {
            _ = try s.service.setFields(table: "address_points", fid: 1, values: [("AD_ADDRESS", "12a")], command: "test")
        }, throws: EditError.self)
        #expect(notNumber?.description == "invalid value '12a' for address_points.AD_ADDRESS: INTEGER expects a whole number")
        let tooLong = String(repeating: "X", count: 11)
        let long = try s.expectUnchanged(by: {
            _ = try s.service.setFields(table: "address_points", fid: 1, values: [("ST_STR_TYP", tooLong)], command: "test")
        }, throws: EditError.self)
        #expect(long == .invalidValue(table: "address_points", field: "ST_STR_TYP", value: tooLong,
            reason: "TEXT(10) holds at most 10 characters, this has 11"))
        // NOT NULL holds even where an empty label value is allowed (a label reads AD_ADDRESS).
        let null = try s.expectUnchanged(by: {
            _ = try s.service.setFields(table: "address_points", fid: 1, values: [("AD_ADDRESS", "NULL")], allowEmpty: true, command: "test")
        }, throws: EditError.self)
        #expect(null == .invalidValue(table: "address_points", field: "AD_ADDRESS", value: "NULL", reason: "the column is NOT NULL"))
        let fid = try s.expectUnchanged(by: {
            _ = try s.service.setFields(table: "address_points", fid: 1, values: [("fid", "7")], command: "test")
        }, throws: EditError.self)
        #expect(fid == .fieldNotEditable(table: "address_points", field: "fid", reason: "it is the feature id, which the table chooses"))
        let geometry = try s.expectUnchanged(by: {
            _ = try s.service.setFields(table: "address_points", fid: 1, values: [("geom", "00")], command: "test")
        }, throws: EditError.self)
        #expect(geometry == .fieldNotEditable(table: "address_points", field: "geom", reason: "it is the geometry; use move, move-vertex or translate"))
    }

    @Test("set on an unknown table, fid or column fails with the store's error and changes nothing")
    func setUnknowns() throws {
        let s = try EditScratch()
        #expect(try s.expectUnchanged(by: {
            _ = try s.service.setFields(table: "nowhere", fid: 1, values: [("A", "1")], command: "test")
        }, throws: StoreError.self) == .unknownTable("nowhere"))
        #expect(try s.expectUnchanged(by: {
            _ = try s.service.setFields(table: "address_points", fid: 999, values: [("AD_ADDRESS", "1")], command: "test")
        }, throws: StoreError.self) == .unknownFeature(table: "address_points", fid: 999))
        #expect(try s.expectUnchanged(by: {
            _ = try s.service.setFields(table: "address_points", fid: 1, values: [("NOPE", "1")], command: "test")
        }, throws: StoreError.self) == .unknownColumn(table: "address_points", column: "NOPE"))
    }

    @Test("set is rolled back whole when the annotation write fails after the feature changed")
    func setRollback() throws {
        let s = try EditScratch()
        try s.refuseWrites(to: "address_points_anno", on: "UPDATE")
        let error = try s.expectUnchanged(by: {
            _ = try s.service.setFields(table: "address_points", fid: 1, values: [("AD_ADDRESS", "45999")], command: "test")
        }, throws: SQLiteError.self)
        #expect(error?.message == "refused by the test")
        #expect(try s.feature("address_points", 1).attributes["AD_ADDRESS"] == .integer(20000))
    }

    // MARK: move

    @Test("move puts the point where asked and moves its label's anchor by the same vector")
    func movePoint() throws {
        let s = try EditScratch()
        let point = try s.point(5)
        let before = try s.annotation("address_points_anno", feature: 5)
        #expect(close(before.anchor, Point(x: point.x, y: point.y + EditScratch.addressOffset)))
        let target = Point(x: point.x + 12.5, y: point.y - 7.25)

        let result = try s.service.movePoint(table: "address_points", fid: 5, to: target, crs: nil, command: "test move")

        #expect(result.kind == .move)
        #expect(result.oldGeometry == .point(point))
        #expect(result.newGeometry == .point(target))
        #expect(try s.point(5) == target)
        try #require(result.annotation.count == 1)
        #expect(result.annotation[0].kind == .updated)
        #expect(result.annotation[0].oldText == before.text && result.annotation[0].newText == before.text)
        let after = try s.annotation("address_points_anno", feature: 5)
        #expect(close(after.anchor, Point(x: target.x, y: target.y + EditScratch.addressOffset)))
        #expect(close(after.anchor, before.anchor.map { Point(x: $0.x + 12.5, y: $0.y - 7.25) }))
        #expect(close(result.annotation[0].newAnchor, after.anchor))
        // The R-tree holds the new box of the point, rounded outward to 32-bit floats as the rtree module does.
        #expect(try s.package.connection.rows("SELECT minx, maxx, miny, maxy FROM rtree_address_points_geom WHERE id = 5") == [rtreeBox(target)])
        #expect(try s.count("SELECT count(*) FROM rtree_address_points_geom") == 24)
    }

    @Test("move with --crs EPSG:4326 lands where cs2cs puts the longitude and latitude in EPSG:2924")
    func movePointWithCRS() throws {
        let s = try EditScratch()
        // cs2cs EPSG:4326 EPSG:2924 of latitude 39.0, longitude -77.4 (PROJ 9, US survey feet).
        let expected = Point(x: 11_795_528.155108, y: 7_049_104.096804)
        let result = try s.service.movePoint(table: "address_points", fid: 1, to: Point(x: -77.4, y: 39.0), crs: "EPSG:4326", command: "test move")
        let stored = try s.point(1)
        #expect(close(stored, expected, within: 0.001), "\(stored)")
        #expect(result.newGeometry == .point(stored))
        let anchor = try s.annotation("address_points_anno", feature: 1).anchor
        #expect(close(anchor, Point(x: stored.x, y: stored.y + EditScratch.addressOffset)))
        // The extent in gpkg_contents (read from the R-tree) now reaches the moved point, 84 000 ft west of the grid.
        let minX = try #require(try s.package.connection.rows("SELECT min_x FROM gpkg_contents WHERE table_name = 'address_points'").first?.first?.doubleValue)
        #expect(minX == rtreeBox(stored)[0].doubleValue)
    }

    @Test("move refuses a line table, a non-finite point and an unknown CRS, changing nothing")
    func moveRefusals() throws {
        let s = try EditScratch()
        let lineTable = try s.expectUnchanged(by: {
            _ = try s.service.movePoint(table: "parcel_lines", fid: 1, to: Point(x: 0, y: 0), crs: nil, command: "test")
        }, throws: EditError.self)
        #expect(lineTable?.description == "move changes point features, but parcel_lines holds LINESTRING geometries (use move-vertex or translate)")
        #expect(try s.expectUnchanged(by: {
            _ = try s.service.movePoint(table: "address_points", fid: 1, to: Point(x: .nan, y: 1), crs: nil, command: "test")
        }, throws: EditError.self) == .nonFiniteCoordinate("nan, 1.0"))
        try s.expectUnchanged(by: {
            _ = try s.service.movePoint(table: "address_points", fid: 1, to: Point(x: 1, y: 1), crs: "EPSG:999999", command: "test")
        }, throws: (any Error).self)
        #expect(try s.expectUnchanged(by: {
            _ = try s.service.movePoint(table: "address_points", fid: 1000, to: Point(x: 11_880_000, y: 7_020_000), crs: nil, command: "test")
        }, throws: StoreError.self) == .unknownFeature(table: "address_points", fid: 1000))
    }

    @Test("move is rolled back whole when the annotation cannot be written")
    func moveRollback() throws {
        let s = try EditScratch()
        try s.refuseWrites(to: "address_points_anno", on: "UPDATE")
        let point = try s.point(1)
        try s.expectUnchanged(by: {
            _ = try s.service.movePoint(table: "address_points", fid: 1, to: Point(x: point.x + 5, y: point.y), crs: nil, command: "test")
        }, throws: SQLiteError.self)
        #expect(try s.point(1) == point)
    }

    // MARK: move-vertex

    @Test("move-vertex moves the last vertex; the length label is remeasured and re-placed at the new middle")
    func moveLastVertex() throws {
        let s = try EditScratch()
        let line = try s.line(1)
        let a = line.points[0]
        // A 3-4-5 triangle: the new line is 50 US survey feet long, at atan2(40, 30).
        let target = Point(x: a.x + 30, y: a.y + 40)
        let before = try s.annotation("parcel_lines_anno", feature: 1)

        let result = try s.service.moveVertex(table: "parcel_lines", fid: 1, to: target, crs: nil, vertex: .last, command: "test")

        #expect(result.kind == .moveVertex)
        #expect(try s.line(1).points == [a, target])
        try #require(result.annotation.count == 1)
        let change = result.annotation[0]
        #expect(change.kind == .updated)
        #expect(change.oldText == before.text)
        // Length(…, 'feet') is in international feet: 50 US ft × 1200/3937 / 0.3048.
        let feet: Double = 50 * 1200 / 3937 / 0.3048
        let text = try #require(change.newText)
        let value = try #require(Double(text))
        #expect(abs(value - feet) < 0.0051, "\(text)")
        let after = try s.annotation("parcel_lines_anno", feature: 1)
        #expect(after.text == text)
        let middle = Point(x: a.x + 15, y: a.y + 20)
        // The anchor is 1.5 pt to the text's upper (left) side of the middle, the text along the line.
        #expect(close(after.anchor, Point(x: middle.x - 0.8 * EditScratch.lineOffset, y: middle.y + 0.6 * EditScratch.lineOffset)))
        #expect(abs(after.angle - atan2(40, 30) * 180 / .pi) < 1e-9)
        #expect(close(change.newAnchor, after.anchor))
    }

    @Test("move-vertex nearest moves whichever end is nearer and keeps the line's direction")
    func moveNearestVertex() throws {
        let s = try EditScratch()
        let line = try s.line(2)
        let (a, b) = (line.points[0], line.points[1])
        let nearFirst = Point(x: a.x + 0.5, y: a.y - 0.25)
        _ = try s.service.moveVertex(table: "parcel_lines", fid: 2, to: nearFirst, crs: nil, vertex: .nearest, command: "test")
        #expect(try s.line(2).points == [nearFirst, b])
        let nearLast = Point(x: b.x - 0.75, y: b.y + 1)
        _ = try s.service.moveVertex(table: "parcel_lines", fid: 2, to: nearLast, crs: nil, vertex: .nearest, command: "test")
        #expect(try s.line(2).points == [nearFirst, nearLast])
    }

    @Test("move-vertex refuses a line of three points, naming its parts and points, and changes nothing")
    func moveVertexRefusesLongLine() throws {
        let s = try EditScratch()
        let line = try s.line(3)
        let bent = LineString([line.points[0], Point(x: line.points[0].x + 5, y: line.points[0].y + 5), line.points[1]])
        _ = try s.service.replaceGeometry(table: "parcel_lines", fid: 3, geometry: .lineString(bent), command: "test")
        let error = try s.expectUnchanged(by: {
            _ = try s.service.moveVertex(table: "parcel_lines", fid: 3, to: line.points[1], crs: nil, vertex: .last, command: "test")
        }, throws: EditError.self)
        #expect(error == .notSingleSegment(table: "parcel_lines", fid: 3, parts: 1, points: 3))
        #expect(error?.description == "parcel_lines fid 3 is not a single-segment line: it has 1 part and 3 points " +
            "(move-vertex moves an end of a line of one part and two points)")
    }

    @Test("move-vertex refuses a multi-part line with its parts and points, and takes a one-part multi-line")
    func moveVertexMultiLine() throws {
        let s = try EditScratch { package in
            let table = try package.createFeatureTable(FeatureTableDefinition(
                name: "mains", geometryTypeName: "MULTILINESTRING", srsID: SampleGenerator.srsID, columns: [Column(name: "Name", type: "TEXT")]))
            let p = { (x: Double, y: Double) in Point(x: 11_880_000 + x, y: 7_020_000 + y) }
            try package.insertFeature(
                table, geometry: .multiLineString(MultiLineString([LineString([p(0, 0), p(10, 0)]), LineString([p(20, 0), p(30, 0)])])),
                attributes: ["Name": "two parts"])
            try package.insertFeature(table, geometry: .multiLineString(MultiLineString([LineString([p(0, 50), p(10, 50)])])), attributes: ["Name": "one part"])
        }
        let error = try s.expectUnchanged(by: {
            _ = try s.service.moveVertex(table: "mains", fid: 1, to: Point(x: 11_880_000, y: 7_020_005), crs: nil, vertex: .last, command: "test")
        }, throws: EditError.self)
        #expect(error?.description == "mains fid 1 is not a single-segment line: it has 2 parts and 4 points " +
            "(move-vertex moves an end of a line of one part and two points)")
        let target = Point(x: 11_880_012, y: 7_020_055)
        let result = try s.service.moveVertex(table: "mains", fid: 2, to: target, crs: nil, vertex: .last, command: "test")
        #expect(result.newGeometry == .multiLineString(MultiLineString([LineString([Point(x: 11_880_000, y: 7_020_050), target])])))
        #expect(try s.feature("mains", 2).geometry == result.newGeometry)
        #expect(result.annotation.isEmpty, "no class labels the table")
    }

    @Test("move-vertex refuses a point table")
    func moveVertexRefusesPoints() throws {
        let s = try EditScratch()
        let error = try s.expectUnchanged(by: {
            _ = try s.service.moveVertex(table: "address_points", fid: 1, to: Point(x: 1, y: 1), crs: nil, vertex: .last, command: "test")
        }, throws: EditError.self)
        #expect(error?.description == "move-vertex changes line features, but address_points holds POINT geometries")
    }

    @Test("move-vertex is rolled back whole when the annotation cannot be written")
    func moveVertexRollback() throws {
        let s = try EditScratch()
        try s.refuseWrites(to: "parcel_lines_anno", on: "UPDATE")
        let line = try s.line(1)
        try s.expectUnchanged(by: {
            _ = try s.service.moveVertex(table: "parcel_lines", fid: 1, to: Point(x: line.points[1].x + 3, y: line.points[1].y), crs: nil,
                vertex: .last, command: "test")
        }, throws: SQLiteError.self)
    }

    // MARK: reshape

    @Test("replaceGeometry writes the new shape and remeasures and re-places its label")
    func replaceGeometry() throws {
        let s = try EditScratch()
        let a = try s.line(4).points[0]
        // Two legs of 30 and 40 ft: 70 ft long, its middle 5 ft up the second leg.
        let shape = LineString([a, Point(x: a.x + 30, y: a.y), Point(x: a.x + 30, y: a.y + 40)])
        let before = try s.annotation("parcel_lines_anno", feature: 4)
        let result = try s.service.replaceGeometry(table: "parcel_lines", fid: 4, geometry: .lineString(shape), command: "test")
        #expect(result.kind == .reshape)
        #expect(try s.line(4) == shape)
        try #require(result.annotation.count == 1)
        #expect(result.annotation[0].oldText == before.text)
        let text = try #require(result.annotation[0].newText)
        let feet: Double = 70 * 1200 / 3937 / 0.3048
        let value = try #require(Double(text))
        #expect(abs(value - feet) < 0.0051, "\(text)")
        let after = try s.annotation("parcel_lines_anno", feature: 4)
        // Upward along the second leg: the upper side is to the west.
        #expect(close(after.anchor, Point(x: a.x + 30 - EditScratch.lineOffset, y: a.y + 5)))
        #expect(abs(after.angle - 90) < 1e-9)
    }

    @Test("replaceGeometry refuses the wrong kind and an invalid geometry, changing nothing")
    func replaceGeometryRefusals() throws {
        let s = try EditScratch()
        #expect(try s.expectUnchanged(by: {
            _ = try s.service.replaceGeometry(table: "parcel_lines", fid: 1, geometry: .point(Point(x: 11_880_000, y: 7_020_000)), command: "test")
        }, throws: StoreError.self) == .wrongGeometryKind(table: "parcel_lines", expected: "LINESTRING", got: "POINT"))
        try s.expectUnchanged(by: {
            _ = try s.service.replaceGeometry(table: "parcel_lines", fid: 1,
                geometry: .lineString(LineString([Point(x: 11_880_000, y: .infinity), Point(x: 1, y: 1)])), command: "test")
        }, throws: GeometryValidationError.self)
        try s.expectUnchanged(by: {
            _ = try s.service.replaceGeometry(table: "parcel_lines", fid: 1, geometry: .lineString(LineString([])), command: "test")
        }, throws: GeometryValidationError.self)
    }

    @Test("replaceGeometry is rolled back whole when the annotation cannot be written")
    func replaceGeometryRollback() throws {
        let s = try EditScratch()
        try s.refuseWrites(to: "parcel_lines_anno", on: "UPDATE")
        let line = try s.line(1)
        try s.expectUnchanged(by: {
            _ = try s.service.replaceGeometry(table: "parcel_lines", fid: 1,
                geometry: .lineString(LineString([line.points[0], Point(x: line.points[0].x, y: line.points[0].y + 9)])), command: "test")
        }, throws: SQLiteError.self)
    }

    // MARK: add and delete

    @Test("add inserts the feature and, the class saying AutoCreate, creates its label above it")
    func addFeature() throws {
        let s = try EditScratch()
        let location = Point(x: 11_880_500.5, y: 7_020_700.25)
        let annotationRows = try s.count("SELECT count(*) FROM address_points_anno")
        let result = try s.service.addFeature(table: "address_points", geometry: .point(location), crs: nil,
                                              values: [("AD_ADDRESS", "50001"), ("ST_STR_NAM", "NEW ROAD"), ("PARCEL_ID", "NULL")], command: "test add")
        #expect(result.kind == .add)
        #expect(result.fid == 25)
        #expect(result.fields.map(\.name) == ["AD_ADDRESS", "PARCEL_ID", "ST_STR_NAM"])
        #expect(result.fields.allSatisfy { $0.old == .null })
        let feature = try s.feature("address_points", 25)
        #expect(feature.geometry == .point(location))
        #expect(feature.attributes["AD_ADDRESS"] == .integer(50001))
        try #require(result.annotation.count == 1)
        let change = result.annotation[0]
        #expect(change.kind == .created)
        #expect(change.oldText == nil && change.oldAnchor == nil)
        #expect(change.newText == "50001 NEW ROAD")
        #expect(close(change.newAnchor, Point(x: location.x, y: location.y + EditScratch.addressOffset)))
        #expect(try s.count("SELECT count(*) FROM address_points_anno") == annotationRows + 1)
        let row = try s.annotation("address_points_anno", feature: 25)
        #expect(row.fid == change.annotationFid)
        #expect(row.text == "50001 NEW ROAD")
        #expect(try s.count("SELECT count(*) FROM rtree_address_points_anno_geom WHERE id = \(change.annotationFid)") == 1)
    }

    @Test("add with a CRS transforms the geometry into the table's")
    func addFeatureWithCRS() throws {
        let s = try EditScratch()
        let result = try s.service.addFeature(table: "address_points", geometry: .point(Point(x: -77.4, y: 39.0)), crs: "EPSG:4326",
                                              values: [("AD_ADDRESS", "1"), ("ST_STR_NAM", "FAR")], command: "test add")
        guard case .point(let stored)? = try s.feature("address_points", result.fid).geometry else { Issue.record("no point"); return }
        #expect(close(stored, Point(x: 11_795_528.155108, y: 7_049_104.096804), within: 0.001))
        #expect(result.annotation.map(\.newText) == ["1 FAR"])
    }

    @Test("add creates no label when the class does not say AutoCreate")
    func addFeatureWithoutAutoCreate() throws {
        let s = try EditScratch { package in
            var manual = SampleWriter.addressClass
            manual.autoCreate = false
            try package.saveAnnotationClass(manual)
        }
        let annotationRows = try s.count("SELECT count(*) FROM address_points_anno")
        let result = try s.service.addFeature(table: "address_points", geometry: .point(Point(x: 11_880_100, y: 7_020_100)), crs: nil,
                                              values: [("AD_ADDRESS", "7"), ("ST_STR_NAM", "QUIET")], command: "test add")
        #expect(result.annotation.isEmpty)
        #expect(try s.annotations("address_points_anno", feature: result.fid).isEmpty)
        #expect(try s.count("SELECT count(*) FROM address_points_anno") == annotationRows)
    }

    @Test("add is rolled back whole: no feature, no label, no journal entry")
    func addFeatureRollback() throws {
        let s = try EditScratch()
        try s.refuseWrites(to: "address_points_anno", on: "INSERT")
        try s.expectUnchanged(by: {
            _ = try s.service.addFeature(table: "address_points", geometry: .point(Point(x: 11_880_100, y: 7_020_100)), crs: nil,
                                         values: [("AD_ADDRESS", "7"), ("ST_STR_NAM", "QUIET")], command: "test add")
        }, throws: SQLiteError.self)
        // A NOT NULL column left out fails in SQLite, and nothing is left behind either.
        try s.expectUnchanged(by: {
            _ = try s.service.addFeature(table: "address_points", geometry: .point(Point(x: 11_880_100, y: 7_020_100)), crs: nil,
                                         values: [("ST_STR_NAM", "NO NUMBER")], command: "test add")
        }, throws: SQLiteError.self)
    }

    @Test("delete removes the feature and its label")
    func deleteFeature() throws {
        let s = try EditScratch()
        let label = try s.annotation("address_points_anno", feature: 6)
        let annotationRows = try s.count("SELECT count(*) FROM address_points_anno")
        let result = try s.service.deleteFeature(table: "address_points", fid: 6, command: "test delete")
        #expect(result.kind == .delete)
        #expect(result.newGeometry == nil && result.oldGeometry != nil)
        try #require(result.annotation.count == 1)
        #expect(result.annotation[0].kind == .deleted)
        #expect(result.annotation[0].annotationFid == label.fid)
        #expect(result.annotation[0].oldText == label.text)
        #expect(result.annotation[0].newText == nil)
        #expect(throws: StoreError.unknownFeature(table: "address_points", fid: 6)) { try s.feature("address_points", 6) }
        #expect(try s.annotations("address_points_anno", feature: 6).isEmpty)
        #expect(try s.count("SELECT count(*) FROM address_points_anno") == annotationRows - 1)
        #expect(try s.count("SELECT count(*) FROM rtree_address_points_geom WHERE id = 6") == 0)
        #expect(try s.count("SELECT count(*) FROM rtree_address_points_anno_geom WHERE id = \(label.fid!)") == 0)
    }

    @Test("delete of an unknown fid, and a delete whose label cannot go, change nothing")
    func deleteRefusalsAndRollback() throws {
        let s = try EditScratch()
        #expect(try s.expectUnchanged(by: {
            _ = try s.service.deleteFeature(table: "address_points", fid: 77, command: "test")
        }, throws: StoreError.self) == .unknownFeature(table: "address_points", fid: 77))
        try s.refuseWrites(to: "address_points_anno", on: "DELETE")
        try s.expectUnchanged(by: {
            _ = try s.service.deleteFeature(table: "address_points", fid: 6, command: "test")
        }, throws: SQLiteError.self)
    }

    // MARK: translate

    /// The anchors of the labels of `fids`, by feature.
    func anchors(_ s: EditScratch, _ fids: ClosedRange<Int64>) throws -> [Int64: Point] {
        var result: [Int64: Point] = [:]
        for fid in fids { result[fid] = try s.annotation("address_points_anno", feature: fid).anchor }
        return result
    }

    @Test("translate by fids moves those features and their labels by the vector, and no others")
    func translateFids() throws {
        let s = try EditScratch()
        let points = try (1...24).map { try s.point(Int64($0)) }
        let anchors = try anchors(s, 1...24)
        let result = try s.service.translate(table: "address_points", selection: .fids([2, 4]), dx: 100, dy: -50, dryRun: false, command: "test")
        #expect(result.features == 2)
        #expect(result.annotationRows == 2)
        #expect(!result.dryRun)
        #expect(result.journalEntry != nil)
        for fid in Int64(1)...24 {
            let moved = fid == 2 || fid == 4
            let (dx, dy) = moved ? (100.0, -50.0) : (0, 0)
            #expect(try s.point(fid) == points[Int(fid) - 1].translated(dx: dx, dy: dy), "fid \(fid)")
            #expect(close(try s.annotation("address_points_anno", feature: fid).anchor, anchors[fid]?.translated(dx: dx, dy: dy)), "fid \(fid)")
        }
        #expect(try s.package.connection.rows("SELECT minx, maxx, miny, maxy FROM rtree_address_points_geom WHERE id = 2")
            == [rtreeBox(points[1].translated(dx: 100, dy: -50))])
    }

    @Test("translate by bounding box takes the features whose envelope lies inside it")
    func translateBoundingBox() throws {
        let s = try EditScratch()
        let points = try (1...24).map { try s.point(Int64($0)) }
        // A box around the first three points of the south row.
        let xs = points[0...2].map(\.x), ys = points[0...2].map(\.y)
        let box = Envelope(minX: xs.min()! - 0.5, minY: ys.min()! - 0.5, maxX: xs.max()! + 0.5, maxY: ys.max()! + 0.5)
        let inside = (1...24).filter { (i: Int) -> Bool in
            let p = points[i - 1]
            let inX = p.x >= box.minX && p.x <= box.maxX
            return inX && p.y >= box.minY && p.y <= box.maxY
        }
        #expect(inside == [1, 2, 3])
        let result = try s.service.translate(table: "address_points", selection: .boundingBox(box), dx: -3.5, dy: 2, dryRun: false, command: "test")
        #expect(result.features == 3)
        #expect(result.annotationRows == 3)
        #expect(try s.point(3) == points[2].translated(dx: -3.5, dy: 2))
        #expect(try s.point(4) == points[3])
    }

    @Test("translate by where clause; a dry run counts and writes nothing")
    func translateWhere() throws {
        let s = try EditScratch()
        let condition = "ST_STR_NAM = 'WOODLAND'"
        let expected = try s.count("SELECT count(*) FROM address_points WHERE \(condition)")
        #expect(expected == 12)
        let before = try s.dump()
        let dry = try s.service.translate(table: "address_points", selection: .condition(condition), dx: 10, dy: 10, dryRun: true, command: "test")
        #expect(dry.dryRun)
        #expect(dry.features == 12 && dry.annotationRows == 12)
        #expect(dry.journalEntry == nil)
        #expect(try s.dump() == before)

        let point = try s.point(13)
        let anchor = try s.annotation("address_points_anno", feature: 13).anchor
        let result = try s.service.translate(table: "address_points", selection: .condition(condition), dx: 10, dy: 10, dryRun: false, command: "test")
        #expect(result.features == 12 && result.annotationRows == 12)
        #expect(try s.point(13) == point.translated(dx: 10, dy: 10))
        #expect(close(try s.annotation("address_points_anno", feature: 13).anchor, anchor?.translated(dx: 10, dy: 10)))
    }

    @Test("translate of lines re-places their labels with the lines; the lengths stay")
    func translateLines() throws {
        let s = try EditScratch()
        let before = try s.annotation("parcel_lines_anno", feature: 1)
        let line = try s.line(1)
        let result = try s.service.translate(table: "parcel_lines", selection: .fids([1]), dx: 0.25, dy: 1000, dryRun: false, command: "test")
        #expect(result.features == 1 && result.annotationRows == 1)
        #expect(try s.line(1).points == line.points.map { $0.translated(dx: 0.25, dy: 1000) })
        let after = try s.annotation("parcel_lines_anno", feature: 1)
        #expect(after.text == before.text)
        #expect(close(after.anchor, before.anchor?.translated(dx: 0.25, dy: 1000)))
        #expect(abs(after.angle - before.angle) < 1e-9)
    }

    @Test("translate refuses unknown fids, bad where clauses and non-finite vectors, changing nothing")
    func translateRefusals() throws {
        let s = try EditScratch()
        #expect(try s.expectUnchanged(by: {
            _ = try s.service.translate(table: "address_points", selection: .fids([1, 99]), dx: 1, dy: 1, dryRun: false, command: "test")
        }, throws: StoreError.self) == .unknownFeature(table: "address_points", fid: 99))
        let bad = try s.expectUnchanged(by: {
            _ = try s.service.translate(table: "address_points", selection: .condition("NO_SUCH_COLUMN = 1"), dx: 1, dy: 1, dryRun: false, command: "test")
        }, throws: EditError.self)
        #expect(bad?.description == "invalid selection: the where clause does not compile: no such column: NO_SUCH_COLUMN")
        try s.expectUnchanged(by: {
            _ = try s.service.translate(table: "address_points", selection: .condition("1); DELETE FROM address_points; SELECT (1"), dx: 1, dy: 1,
                dryRun: false, command: "test")
        }, throws: EditError.self)
        #expect(try s.expectUnchanged(by: {
            _ = try s.service.translate(table: "address_points", selection: .fids([1]), dx: .infinity, dy: 1, dryRun: false, command: "test")
        }, throws: EditError.self) == .nonFiniteCoordinate("inf, 1.0"))
        #expect(try s.expectUnchanged(by: {
            _ = try s.service.translate(table: "streets", selection: .fids([1]), dx: 1, dy: 1, dryRun: false, command: "test")
        }, throws: StoreError.self) == .unknownTable("streets"))
    }

    @Test("translate with nothing selected moves nothing and records no entry")
    func translateNothing() throws {
        let s = try EditScratch()
        let before = try s.dump()
        let result = try s.service.translate(table: "address_points", selection: .condition("AD_ADDRESS < 0"), dx: 1, dy: 1, dryRun: false, command: "test")
        #expect(result.features == 0 && result.annotationRows == 0)
        #expect(result.journalEntry == nil)
        #expect(try s.dump() == before)
    }

    @Test("translate is rolled back whole when a label cannot be written")
    func translateRollback() throws {
        let s = try EditScratch()
        try s.refuseWrites(to: "address_points_anno", on: "UPDATE")
        let error = try s.expectUnchanged(by: {
            _ = try s.service.translate(table: "address_points", selection: .fids([1, 2, 3]), dx: 5, dy: 5, dryRun: false, command: "test")
        }, throws: SQLiteError.self)
        #expect(error?.message == "refused by the test")
    }

    @Test("after a failed edit the service works on: the same edit succeeds once the cause is gone")
    func recoversAfterFailure() throws {
        let s = try EditScratch()
        try s.refuseWrites(to: "address_points_anno", on: "UPDATE")
        #expect(throws: SQLiteError.self) {
            try s.service.translate(table: "address_points", selection: .fids([1, 2]), dx: 5, dy: 5, dryRun: false, command: "test")
        }
        #expect(throws: SQLiteError.self) {
            try s.service.setFields(table: "address_points", fid: 1, values: [("AD_ADDRESS", "1")], command: "test")
        }
        try s.package.connection.execute("DROP TRIGGER refuse_address_points_anno_update")
        let point = try s.point(1)
        let result = try s.service.translate(table: "address_points", selection: .fids([1, 2]), dx: 5, dy: 5, dryRun: false, command: "test translate")
        #expect(result.features == 2 && result.annotationRows == 2)
        #expect(try s.point(1) == point.translated(dx: 5, dy: 5))
        _ = try s.service.setFields(table: "address_points", fid: 1, values: [("AD_ADDRESS", "1")], command: "test set")
        #expect(try s.annotation("address_points_anno", feature: 1).text == "1 ELMWOOD")
        #expect(try s.service.journal().entries(limit: 10).map(\.command) == ["test set", "test translate"], "the failed edits left no entry")
    }

    // MARK: journal

    @Test("each edit is one journal entry, newest first, with its command and summary")
    func journalEntries() throws {
        let s = try EditScratch()
        let set = try s.service.setFields(table: "address_points", fid: 1, values: [("AD_ADDRESS", "1")], command: "annolink set one")
        let move = try s.service.movePoint(table: "address_points", fid: 1, to: try s.point(2), crs: nil, command: "annolink move two")
        let entries = try s.service.journal().entries(limit: 10)
        #expect(entries.map(\.command) == ["annolink move two", "annolink set one"])
        #expect(entries.map(\.summary) == ["move address_points fid 1", "set AD_ADDRESS of address_points fid 1"])
        #expect(entries.map(\.id) == [move.journalEntry, set.journalEntry].compactMap { $0 })
    }
}
