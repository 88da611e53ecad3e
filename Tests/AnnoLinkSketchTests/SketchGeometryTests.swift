import AnnoLinkGeometry
import AnnoLinkSketch
import AnnoLinkTestSupport
import Testing

@Suite("sketch geometry: parts, sketchIsValid and isEmpty")
struct SketchGeometryTests {
    @Test("the sample geometries load with the Esri JSON codec, in Web Mercator", arguments: SampleGeometries.names)
    func fixturesLoad(name: String) throws {
        let fixture = try SampleGeometries.load(name)
        #expect(fixture.wkid == 102100)
        #expect(fixture.latestWkid == 3857)
        #expect(fixture.geometry.sketchIsValid)
    }

    @Test("a closed Esri ring's closing coordinate is not a vertex: Pinkney's Green has 8, Inis Meáin's boundary 23")
    func closedRingsLoseTheirClosingVertex() throws {
        let green = SketchGeometry(try SampleGeometries.load("pinkneys-green").geometry)
        #expect(green.type == .polygon)
        #expect(green.parts.count == 1)
        #expect(green.parts[0].count == 8)
        #expect(green.segmentCount(inPart: 0) == 8)
        let boundary = SketchGeometry(try SampleGeometries.load("inis-meain-boundary").geometry)
        #expect(boundary.parts[0].count == 23)
        // Back as a simple-feature polygon, the ring is closed again with all 24 coordinates.
        guard case .polygon(let polygon) = boundary.geometry else { Issue.record("not a polygon"); return }
        #expect(polygon.rings[0].points.count == 24)
        #expect(polygon.rings[0].isClosed)
    }

    @Test("the sample's types and counts: a line of 6, 7 tree markers, 10 outbuildings, a house")
    func sampleTypes() throws {
        let lodge = SketchGeometry(try SampleGeometries.load("beech-lodge-boundary").geometry)
        #expect(lodge.type == .polyline && lodge.parts.map(\.count) == [6] && lodge.segmentCount(inPart: 0) == 5)
        let trees = SketchGeometry(try SampleGeometries.load("tree-markers").geometry)
        #expect(trees.type == .multipoint && trees.vertexCount == 7 && trees.segmentCount(inPart: 0) == 0)
        let outbuildings = SketchGeometry(try SampleGeometries.load("inis-meain-outbuildings").geometry)
        #expect(outbuildings.type == .multipoint && outbuildings.vertexCount == 10)
        let house = SketchGeometry(try SampleGeometries.load("inis-meain-house").geometry)
        #expect(house.type == .point && house.parts == [[p(-1_067_898.59, 6_998_366.62)]])
        let road = SketchGeometry(try SampleGeometries.load("inis-meain-road1").geometry)
        #expect(road.type == .polyline && road.vertexCount == 12)
    }

    @Test("point: valid with one finite vertex; empty without")
    func pointValidity() {
        #expect(!SketchGeometry(type: .point).sketchIsValid)
        #expect(SketchGeometry(type: .point).isEmpty)
        #expect(SketchGeometry(type: .point, parts: [[p(1, 2)]]).sketchIsValid)
        #expect(!SketchGeometry(type: .point, parts: [[p(.nan, 2)]]).sketchIsValid)
        #expect(SketchGeometry(type: .point, parts: [[p(.nan, .nan)]]).isEmpty)
        #expect(!Geometry.emptyPoint.sketchIsValid)
    }

    @Test("multipoint: valid with at least one point")
    func multipointValidity() {
        #expect(!SketchGeometry(type: .multipoint).sketchIsValid)
        #expect(SketchGeometry(type: .multipoint, parts: [[p(0, 0)]]).sketchIsValid)
    }

    @Test("polyline: every part needs two points")
    func polylineValidity() {
        #expect(!SketchGeometry(type: .polyline).sketchIsValid)
        #expect(!SketchGeometry(type: .polyline, parts: [[p(0, 0)]]).sketchIsValid)
        #expect(SketchGeometry(type: .polyline, parts: [[p(0, 0), p(1, 1)]]).sketchIsValid)
        #expect(!SketchGeometry(type: .polyline, parts: [[p(0, 0), p(1, 1)], [p(5, 5)]]).sketchIsValid)
        // Two equal points still count: validity is a count, not simplicity (6.1 #21).
        #expect(SketchGeometry(type: .polyline, parts: [[p(3, 3), p(3, 3)]]).sketchIsValid)
    }

    @Test("polygon: every part needs three points; a multipart polygon whose part 1 has two is invalid (6.1 #14)")
    func polygonValidity() {
        let square = [p(0, 0), p(0, 10), p(10, 10), p(10, 0)]
        #expect(SketchGeometry(type: .polygon, parts: [square]).sketchIsValid)
        #expect(!SketchGeometry(type: .polygon, parts: [Array(square.prefix(2))]).sketchIsValid)
        #expect(!SketchGeometry(type: .polygon, parts: [square, [p(20, 20), p(30, 30)]]).sketchIsValid)
        #expect(SketchGeometry(type: .polygon, parts: [square, [p(20, 20), p(30, 30), p(20, 30)]]).sketchIsValid)
    }

    @Test("a self-intersecting polygon (a bow-tie) is still a valid sketch (6.1 #23)")
    func bowTieIsSketchValid() throws {
        let bowTie = try Geometry(wkt: "POLYGON ((0 0, 10 10, 10 0, 0 10, 0 0))")
        #expect(bowTie.sketchIsValid)
        #expect(SketchGeometry(bowTie).parts[0].count == 4)
    }

    @Test("isEmpty: no valid coordinates, whatever the type")
    func emptiness() {
        #expect(SketchGeometry(type: .polygon, parts: []).isEmpty)
        #expect(!SketchGeometry(type: .polygon, parts: [[p(0, 0)]]).isEmpty)
    }

    @Test("rings group into polygons by nesting, whatever their winding")
    func ringsGroupByNesting() throws {
        let outer = [p(0, 0), p(100, 0), p(100, 100), p(0, 100)]      // counter-clockwise
        let hole = [p(10, 10), p(10, 90), p(90, 90), p(90, 10)]        // clockwise
        let island = [p(40, 40), p(60, 40), p(60, 60), p(40, 60)]
        let apart = [p(200, 0), p(210, 0), p(210, 10)]
        let sketch = SketchGeometry(type: .polygon, parts: [outer, hole, island, apart])
        guard case .multiPolygon(let multi) = sketch.geometry else { Issue.record("expected a multipolygon"); return }
        #expect(multi.polygons.count == 3)
        #expect(multi.polygons[0].rings.count == 2)
        #expect(multi.polygons[0].rings[1].points == hole + [hole[0]])
        #expect(multi.polygons[1].rings.map(\.points) == [island + [island[0]]])
        #expect(multi.polygons[2].rings.map(\.points) == [apart + [apart[0]]])
        // And back: every ring is a part again, in storage order.
        #expect(SketchGeometry(sketch.geometry).parts == [outer, hole, island, apart])
    }

    @Test("conversions to the stored kinds: one-part lines and polygons wrap into multis when asked")
    func storedKinds() throws {
        let ring = SketchGeometry(type: .polygon, parts: [[p(0, 0), p(0, 1), p(1, 1)]])
        #expect(ring.geometry(as: .multiPolygon).kind == .multiPolygon)
        #expect(ring.geometry(as: .polygon).kind == .polygon)
        let line = SketchGeometry(type: .polyline, parts: [[p(0, 0), p(1, 1)]])
        #expect(line.geometry(as: .multiLineString).kind == .multiLineString)
        #expect(line.geometry(as: nil).kind == .lineString)
        let two = SketchGeometry(type: .polyline, parts: [[p(0, 0), p(1, 1)], [p(2, 2), p(3, 3)]])
        #expect(two.geometry(as: .lineString).kind == .multiLineString)
        #expect(SketchGeometry(type: .point).geometry(as: .point).isEmpty)
        #expect(SketchGeometryType(.multiPolygon) == .polygon)
        #expect(SketchGeometryType(.multiLineString) == .polyline)
    }
}
