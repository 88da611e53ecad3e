import AnnoLinkTestSupport
import Testing
@testable import AnnoLinkGeometry

@Suite("GeoJSON")
struct GeoJSONTests {

    @Test(arguments: [
        (#"{"type":"Point","coordinates":[10,20.5]}"#, Geometry.point(p(10, 20.5))),
        (#" { "coordinates" : [ -1.5e3 , 0 ] , "type" : "Point" , "bbox" : [0,0,1,1] } "#, .point(p(-1500, 0))),
        (#"{"type":"LineString","coordinates":[[1,2],[3,4]]}"#, .lineString(LineString([p(1, 2), p(3, 4)]))),
        (#"{"type":"Polygon","coordinates":[[[0,0],[1,0],[0,1],[0,0]]]}"#,
         .polygon(Polygon(exterior: LineString([p(0, 0), p(1, 0), p(0, 1), p(0, 0)])))),
        (#"{"type":"MultiPoint","coordinates":[[1,2],[3,4]]}"#, .multiPoint(MultiPoint([p(1, 2), p(3, 4)]))),
        (#"{"type":"MultiLineString","coordinates":[[[1,2],[3,4]],[]]}"#,
         .multiLineString(MultiLineString([LineString([p(1, 2), p(3, 4)]), LineString([])]))),
        (#"{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[0,1],[0,0]]]]}"#,
         .multiPolygon(MultiPolygon([Polygon(exterior: LineString([p(0, 0), p(1, 0), p(0, 1), p(0, 0)]))]))),
        (#"{"type":"Polygon","coordinates":[]}"#, .polygon(Polygon(rings: []))),
    ])
    func decodes(text: String, expected: Geometry) throws {
        #expect(try Geometry(geoJSON: text) == expected)
    }

    @Test func emptyPoint() throws {
        let decoded = try Geometry(geoJSON: #"{"type":"Point","coordinates":[]}"#)
        #expect(decoded.kind == .point && decoded.isEmpty)
        #expect(try Geometry.emptyPoint.geoJSON() == #"{"type":"Point","coordinates":[]}"#)
    }

    @Test func encodesCompactText() throws {
        #expect(try Geometry.point(p(10, 20.5)).geoJSON() == #"{"type":"Point","coordinates":[10,20.5]}"#)
        #expect(try Samples.lineString.geoJSON()
            == #"{"type":"LineString","coordinates":[[11812345.67,7012345.125],[-0.5,1e-07],[3,4]]}"#)
        #expect(try Samples.polygonWithHole.geoJSON()
            == #"{"type":"Polygon","coordinates":[[[0,0],[0,10],[10,10],[10,0],[0,0]],[[2,2],[4,2],[4,4],[2,4],[2,2]]]}"#)
        #expect(try Samples.multiPolygon.geoJSON() == #"{"type":"MultiPolygon","coordinates":[[[[0,0],[0,1],[1,1],[0,0]]],"#
            + #"[[[5,5],[5,9],[9,9],[9,5],[5,5]],[[6,6],[7,6],[7,7],[6,6]]]]}"#)
        #expect(try Geometry.multiLineString(MultiLineString([])).geoJSON() == #"{"type":"MultiLineString","coordinates":[]}"#)
    }

    @Test(arguments: [
        (10.0, "10"), (-0.0, "-0"), (0.1, "0.1"), (0.1 + 0.2, "0.30000000000000004"), (1e16, "1e+16"),
        (123456789012.5, "123456789012.5"), (Double.leastNonzeroMagnitude, "5e-324"), (1.7976931348623157e308, "1.7976931348623157e+308"),
        (-2924.0, "-2924"),
    ])
    func coordinateFormatting(value: Double, text: String) throws {
        let json = try Geometry.point(p(value, 0)).geoJSON()
        #expect(json == #"{"type":"Point","coordinates":["# + text + ",0]}")
        guard case .point(let back) = try Geometry(geoJSON: json) else { Issue.record("not a point"); return }
        #expect(back.x.bitPattern == value.bitPattern)
    }

    static let jsonSamples = Samples.all.filter { (try? $0.geoJSON()) != nil }

    @Test func jsonSamplesCoverEveryKind() {
        #expect(Set(Self.jsonSamples.map(\.kind)) == Set(Geometry.Kind.allCases))
        #expect(Self.jsonSamples.count == Samples.all.count - 1)
    }

    @Test(arguments: jsonSamples)
    func roundTrip(geometry: Geometry) throws {
        #expect(same(try Geometry(geoJSON: try geometry.geoJSON()), geometry))
    }

    @Test(arguments: jsonSamples)
    func everyPrefixThrows(geometry: Geometry) throws {
        let text = try geometry.geoJSON()
        for length in 0..<text.count {
            let error = codecError { _ = try Geometry(geoJSON: String(text.prefix(length))) }
            #expect(error.map { $0.offset <= length } == true)
        }
    }

    @Test(arguments: [
        (#"{"type":"Point","coordinates":[1,2}"#, 34, "expected ',' or ']' in an array, found '}'"),
        (#"{"type":"Point","coordinates":[1,2]"#, 35, "unexpected end of text, expected ',' or '}' (the object at offset 0 is not closed)"),
        (#"{"type":"LineString","coordinates":[[1,2],[3,4]"#, 47,
         "unexpected end of text, expected ',' or ']' (the array at offset 35 is not closed)"),
        (#"{"type":"Point","coordinates":[NaN,2]}"#, 31, "'NaN' is not a JSON value (JSON has no NaN or infinity)"),
        (#"{"type":"Point"}"#, 0, "the Point has no \"coordinates\" member"),
        (#"{"coordinates":[1,2]}"#, 0, "the object has no \"type\" member"),
        (#"{"type":"Point","coordinates":[1]}"#, 30, "a position needs 2 numbers, found 1"),
        (#"{"type":"LineString","coordinates":[[1,2],[]]}"#, 42, "a position needs 2 numbers, found 0"),
        (#"{"type":"Point","coordinates":["1",2]}"#, 31, "a coordinate must be a number, found a string"),
        (#"{"type":"Point","coordinates":[1,2]} x"#, 37, "unexpected 'x' after the end of the JSON value"),
        (#"{"type":"Point","coordinates":[1,2]}{}"#, 36, "unexpected '{' after the end of the JSON value"),
        (#"{"type":"Point","coordinates":[1,2,3]}"#, 35, "Z and M coordinates are not supported (a position with 3 numbers)"),
        (#"{"type":"GeometryCollection","geometries":[]}"#, 8, "GeometryCollection is not supported: give a single geometry"),
        (#"{"type":"Feature","geometry":null}"#, 8, "expected a geometry object, found a Feature (give its \"geometry\")"),
        (#"{"type":"point","coordinates":[1,2]}"#, 8, "unknown geometry type \"point\" (type names are case-sensitive: \"Point\")"),
        (#"{"type":3,"coordinates":[1,2]}"#, 8, "\"type\" must be a string, found a number"),
        (#"{"type":"Point","type":"Point","coordinates":[1,2]}"#, 16, "duplicate member \"type\""),
        (#"{"type":"Point","coordinates":[01,2]}"#, 31, "a JSON number cannot have a leading zero"),
        (#"{"type":"Point","coordinates":[1.,2]}"#, 33, "expected a digit after the decimal point"),
        (#"{"type":"Point","coordinates":[1e999,2]}"#, 31, "a coordinate is out of range"),
        (#"{"type":"Point","coordinates":[1,2],}"#, 36, "expected a member name in double quotes, found '}'"),
        (#"{'type':'Point'}"#, 1, "expected a member name in double quotes, found ''type''"),
        (#"[1,2]"#, 0, "a GeoJSON geometry must be an object, found an array"),
        ("", 0, "unexpected end of text, expected a value"),
    ])
    func malformedInputThrowsWithOffset(text: String, offset: Int, message: String) {
        let error = codecError { _ = try Geometry(geoJSON: text) }
        #expect(error?.format == .geoJSON)
        #expect(error?.message == message)
        #expect(error?.offset == offset)
    }

    @Test func offsetsCountCharactersNotBytes() {
        // "ß" is two bytes in UTF-8 but one character: NaN starts at character 49, byte 50.
        let error = codecError { _ = try Geometry(geoJSON: #"{"name":"Straße","type":"Point","coordinates":[1,NaN]}"#) }
        #expect(error?.offset == 49)
    }

    @Test func stringEscapesAreDecoded() throws {
        #expect(try Geometry(geoJSON: #"{"t\u0079pe":"Po\u0069nt","coordinates":[1,2]}"#) == .point(p(1, 2)))
        #expect(try Geometry(geoJSON: #"{"n\ud83d\ude00":1,"type":"Point","coordinates":[1,2]}"#) == .point(p(1, 2)))
        codecError { _ = try Geometry(geoJSON: #"{"n\ud83d":1,"type":"Point","coordinates":[1,2]}"#) }
        codecError { _ = try Geometry(geoJSON: "{\"n\u{01}\":1}") }
    }

    @Test func deepNestingThrowsInsteadOfOverflowingTheStack() {
        let text = #"{"type":"Point","coordinates":"# + String(repeating: "[", count: 100_000)
        #expect(codecError { _ = try Geometry(geoJSON: text) }?.message == "JSON nested deeper than 64 levels")
    }

    @Test func nonFiniteCoordinatesCannotBeWritten() {
        let error = codecError { _ = try Geometry.lineString(LineString([p(0, 0), p(1, .infinity)])).geoJSON() }
        #expect(error?.offset == 1)
        #expect(error?.message == "vertex 1 (1.0 inf) is not finite and cannot be written as GeoJSON")
        let empty = codecError { _ = try Samples.emptyParts[0].geoJSON() }
        #expect(empty?.message == "GeoJSON cannot hold the empty point at index 0 of a MultiPoint")
    }
}
