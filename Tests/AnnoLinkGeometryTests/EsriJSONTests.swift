import AnnoLinkTestSupport
import Testing
@testable import AnnoLinkGeometry

@Suite("Esri JSON")
struct EsriJSONTests {
    static func ring(_ xy: [(Double, Double)]) -> LineString { LineString(xy.map { p($0.0, $0.1) }) }

    // Esri winding (y up): exteriors clockwise, holes counter-clockwise.
    static let big = ring([(0, 0), (0, 100), (100, 100), (100, 0), (0, 0)])
    static let hole = ring([(10, 10), (90, 10), (90, 90), (10, 90), (10, 10)])
    static let island = ring([(20, 20), (20, 80), (80, 80), (80, 20), (20, 20)])
    static let islandHole = ring([(30, 30), (70, 30), (70, 70), (30, 70), (30, 30)])
    static let separate = ring([(200, 0), (200, 10), (210, 10), (210, 0), (200, 0)])

    @Test(arguments: [
        (#"{"x":-118.15,"y":33.8,"spatialReference":{"wkid":4326}}"#, Geometry.point(p(-118.15, 33.8)), Int32?(4326), Int32?.none),
        (#"{"x":1,"y":2,"spatialReference":{"wkid":102100,"latestWkid":3857}}"#, .point(p(1, 2)), 102100, 3857),
        (#"{"x":1,"y":2}"#, .point(p(1, 2)), nil, nil),
        (#"{"points":[[1,2],[3,4]],"spatialReference":{"latestWkid":2924}}"#, .multiPoint(MultiPoint([p(1, 2), p(3, 4)])), nil, 2924),
        (#"{"hasZ":false,"hasM":false,"paths":[[[1,2],[3,4]]]}"#, .lineString(LineString([p(1, 2), p(3, 4)])), nil, nil),
        (#"{"paths":[[[1,2],[3,4]],[[5,6],[7,8]]]}"#,
         .multiLineString(MultiLineString([LineString([p(1, 2), p(3, 4)]), LineString([p(5, 6), p(7, 8)])])), nil, nil),
        (#"{"paths":[]}"#, .lineString(LineString([])), nil, nil),
        (#"{"rings":[],"spatialReference":{"wkt":"LOCAL_CS[]"}}"#, .polygon(Polygon(rings: [])), nil, nil),
        (#"{"points":[],"spatialReference":null}"#, .multiPoint(MultiPoint([])), nil, nil),
    ])
    func decodes(text: String, geometry: Geometry, wkid: Int32?, latestWkid: Int32?) throws {
        let decoded = try EsriJSONGeometry(esriJSON: text)
        #expect(decoded.geometry == geometry)
        #expect(decoded.wkid == wkid)
        #expect(decoded.latestWkid == latestWkid)
    }

    @Test(arguments: [#"{"x":null,"spatialReference":{"wkid":4326}}"#, #"{"x":"NaN","y":22.2}"#])
    func emptyPoints(text: String) throws {
        let decoded = try Geometry(esriJSON: text)
        #expect(decoded.kind == .point && decoded.isEmpty)
    }

    @Test func holesGoToTheSmallestExteriorContainingThem() throws {
        let rings = [Self.big, Self.island, Self.hole, Self.islandHole, Self.separate]
        var text = #"{"rings":"#
        JSONCoordinates.append(rings, to: &text)
        text += "}"
        let decoded = try Geometry(esriJSON: text)
        #expect(decoded == .multiPolygon(MultiPolygon([
            Polygon(exterior: Self.big, holes: [Self.hole]),
            Polygon(exterior: Self.island, holes: [Self.islandHole]),
            Polygon(exterior: Self.separate),
        ])))
    }

    @Test func aHoleOutsideEveryExteriorIsKeptAsAPolygon() throws {
        let decoded = try Geometry(esriJSON: #"{"rings":[[[0,0],[0,1],[1,1],[0,0]],[[5,5],[6,5],[6,6],[5,5]]]}"#)
        #expect(decoded == .multiPolygon(MultiPolygon([
            Polygon(exterior: Self.ring([(0, 0), (0, 1), (1, 1), (0, 0)])),
            Polygon(exterior: Self.ring([(5, 5), (6, 5), (6, 6), (5, 5)])),
        ])))
    }

    @Test func ringAreaSurvivesStatePlaneMagnitudes() {
        // A 1 ft square at Loudoun-sized coordinates, clockwise: twice its area is -2.
        let square = Self.ring([(11812345, 7012345), (11812345, 7012346), (11812346, 7012346), (11812346, 7012345), (11812345, 7012345)])
        #expect(EsriRings.signedDoubleArea(square) == -2)
        #expect(EsriRings.contains(square, p(11812345.5, 7012345.5)))
        #expect(!EsriRings.contains(square, p(11812346.5, 7012345.5)))
    }

    @Test func encodesWithEsriWinding() throws {
        // Counter-clockwise exterior and clockwise hole, as GeoJSON's right-hand rule has them.
        let polygon = Geometry.polygon(Polygon(
            exterior: Self.ring([(0, 0), (10, 0), (10, 10), (0, 10), (0, 0)]),
            holes: [Self.ring([(2, 2), (2, 4), (4, 4), (4, 2), (2, 2)])]))
        #expect(try polygon.esriJSON(wkid: 2924)
            == #"{"rings":[[[0,0],[0,10],[10,10],[10,0],[0,0]],[[2,2],[4,2],[4,4],[2,4],[2,2]]],"spatialReference":{"wkid":2924}}"#)
    }

    @Test(arguments: [
        (Samples.point, Int32?(102100), Int32?(3857), #"{"x":1,"y":2,"spatialReference":{"wkid":102100,"latestWkid":3857}}"#),
        (Samples.point, nil, 3857, #"{"x":1,"y":2,"spatialReference":{"latestWkid":3857}}"#),
        (Geometry.emptyPoint, 4326, nil, #"{"x":null,"spatialReference":{"wkid":4326}}"#),
        (Samples.multiPoint, nil, nil, #"{"points":[[1,2],[-3.25,40000000000]]}"#),
        (Geometry.lineString(LineString([p(1, 2), p(3, 4)])), nil, nil, #"{"paths":[[[1,2],[3,4]]]}"#),
        (Geometry.lineString(LineString([])), nil, nil, #"{"paths":[]}"#),
        (Samples.multiPolygon, nil, nil, #"{"rings":[[[0,0],[0,1],[1,1],[0,0]],[[5,5],[5,9],[9,9],[9,5],[5,5]],[[6,6],[7,6],[7,7],[6,6]]]}"#),
    ])
    func encodes(geometry: Geometry, wkid: Int32?, latestWkid: Int32?, text: String) throws {
        #expect(try geometry.esriJSON(wkid: wkid, latestWkid: latestWkid) == text)
    }

    static let esriSamples: [Geometry] = [
        Samples.point, Samples.lineString, Samples.polygonWithHole, Samples.multiPoint, Samples.multiLineString,
        Samples.multiPolygon, .emptyPoint,
        .multiPolygon(MultiPolygon([
            Polygon(exterior: big, holes: [hole]), Polygon(exterior: island, holes: [islandHole]), Polygon(exterior: separate),
        ])),
    ]

    @Test(arguments: esriSamples)
    func roundTrip(geometry: Geometry) throws {
        let decoded = try EsriJSONGeometry(esriJSON: try geometry.esriJSON(wkid: 2924))
        #expect(same(decoded.geometry, geometry))
        #expect(decoded.wkid == 2924)
    }

    @Test(arguments: esriSamples)
    func everyPrefixThrows(geometry: Geometry) throws {
        let text = try geometry.esriJSON(wkid: 2924)
        for length in 0..<text.count {
            codecError { _ = try Geometry(esriJSON: String(text.prefix(length))) }
        }
    }

    @Test(arguments: [
        (#"{"hasZ":true,"paths":[[[1,2,3],[3,4,5]]]}"#, 8, "Z and M coordinates are not supported (hasZ is true)"),
        (#"{"hasM":true,"x":1,"y":2,"m":3}"#, 8, "Z and M coordinates are not supported (hasM is true)"),
        (#"{"paths":[[[1,2,3]]]}"#, 16, "Z and M coordinates are not supported (a position with 3 numbers)"),
        (#"{"x":1,"y":2,"z":3}"#, 17, "Z and M coordinates are not supported (a point with \"z\")"),
        (#"{"hasZ":"yes","x":1,"y":2}"#, 8, "\"hasZ\" must be true or false, found a string"),
        (#"{"curveRings":[]}"#, 14, "Esri curves (\"curveRings\") are not supported"),
        (#"{"xmin":0,"ymin":0,"xmax":1,"ymax":1}"#, 8, "Esri envelopes (\"xmin\"…) are not supported: give a polygon"),
        (#"{"paths":[],"rings":[]}"#, 20, "the object has both \"paths\" and \"rings\": give one geometry"),
        (#"{"foo":1}"#, 0, "no Esri geometry member (\"x\", \"points\", \"paths\" or \"rings\") in the object"),
        (#"{"x":1}"#, 0, "the point has \"x\" but no \"y\""),
        (#"{"x":1,"y":"a"}"#, 11, "\"y\" must be a number, found a string"),
        (#"{"x":1,"y":2,"spatialReference":{"wkid":1.5}}"#, 40, "\"wkid\" must be a 32-bit integer, found '1.5'"),
        (#"{"x":1,"y":2,"spatialReference":4326}"#, 32, "\"spatialReference\" must be an object, found a number"),
        (#"{"rings":[[[0,0],[1,0]],5]}"#, 24, "a ring must be an array, found a number"),
        (#"{"points":[[1,NaN]]}"#, 14, "'NaN' is not a JSON value (JSON has no NaN or infinity)"),
        (#"{"x":1,"y":2"#, 12, "unexpected end of text, expected ',' or '}' (the object at offset 0 is not closed)"),
        (#"{"x":1,"y":2}}"#, 13, "unexpected '}' after the end of the JSON value"),
        (#"[]"#, 0, "an Esri JSON geometry must be an object, found an array"),
    ])
    func malformedInputThrowsWithOffset(text: String, offset: Int, message: String) {
        let error = codecError { _ = try EsriJSONGeometry(esriJSON: text) }
        #expect(error?.format == .esriJSON)
        #expect(error?.message == message)
        #expect(error?.offset == offset)
    }

    @Test func nonFiniteAndEmptyPartsCannotBeWritten() {
        #expect(codecError { _ = try Geometry.point(p(.nan, 1)).esriJSON() }?.offset == 0)
        #expect(codecError { _ = try Samples.emptyParts[0].esriJSON() }?.message
            == "Esri JSON cannot hold the empty point at index 0 of a multipoint")
    }
}
