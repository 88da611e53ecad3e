import AnnoLinkTestSupport
import Testing
@testable import AnnoLinkGeometry

@Suite("WKT")
struct WKTTests {

    @Test(arguments: [
        ("POINT (1 2)", Geometry.point(p(1, 2))),
        ("point(1 2)", .point(p(1, 2))),
        ("\tPoint\n(  1\r\n 2 )  ", .point(p(1, 2))),
        ("POINT(-1.5e3 +.5)", .point(p(-1500, 0.5))),
        ("POINT (1. 2E+2)", .point(p(1, 200))),
        ("LINESTRING (1 2, 3 4)", .lineString(LineString([p(1, 2), p(3, 4)]))),
        ("linestring empty", .lineString(LineString([]))),
        ("POLYGON ((0 0, 1 0, 0 1, 0 0), (0.1 0.1, 0.2 0.1, 0.1 0.2, 0.1 0.1))", .polygon(Polygon(
            exterior: LineString([p(0, 0), p(1, 0), p(0, 1), p(0, 0)]),
            holes: [LineString([p(0.1, 0.1), p(0.2, 0.1), p(0.1, 0.2), p(0.1, 0.1)])]))),
        ("MULTIPOINT ((1 2), (3 4))", .multiPoint(MultiPoint([p(1, 2), p(3, 4)]))),
        ("MultiPoint (1 2, 3 4)", .multiPoint(MultiPoint([p(1, 2), p(3, 4)]))),
        ("MULTILINESTRING ((1 2, 3 4), EMPTY)", .multiLineString(MultiLineString([LineString([p(1, 2), p(3, 4)]), LineString([])]))),
        ("MULTIPOLYGON (((0 0, 1 0, 0 1, 0 0)), EMPTY)", .multiPolygon(MultiPolygon([
            Polygon(exterior: LineString([p(0, 0), p(1, 0), p(0, 1), p(0, 0)])), Polygon(rings: []),
        ]))),
        ("MULTIPOLYGON EMPTY", .multiPolygon(MultiPolygon([]))),
    ])
    func decodes(text: String, expected: Geometry) throws {
        #expect(try Geometry(wkt: text) == expected)
    }

    @Test func emptyPoints() throws {
        #expect(try Geometry(wkt: "POINT EMPTY").isEmpty)
        #expect(try Geometry(wkt: "point Empty").kind == .point)
        #expect(same(try Geometry(wkt: "MULTIPOINT (EMPTY, (1 2))"), Samples.emptyParts[0]))
    }

    @Test(arguments: zip(Samples.all, [
        "POINT (1 2)",
        "LINESTRING (11812345.67 7012345.125, -0.5 1e-07, 3 4)",
        "POLYGON ((0 0, 0 10, 10 10, 10 0, 0 0), (2 2, 4 2, 4 4, 2 4, 2 2))",
        "MULTIPOINT ((1 2), (-3.25 40000000000))",
        "MULTILINESTRING ((0 0, 1 1), (2 2, 3 3, 4 2.5))",
        "MULTIPOLYGON (((0 0, 0 1, 1 1, 0 0)), ((5 5, 5 9, 9 9, 9 5, 5 5), (6 6, 7 6, 7 7, 6 6)))",
        "POINT EMPTY", "LINESTRING EMPTY", "POLYGON EMPTY", "MULTIPOINT EMPTY", "MULTILINESTRING EMPTY", "MULTIPOLYGON EMPTY",
        "MULTIPOINT (EMPTY, (1 2))",
        "MULTILINESTRING (EMPTY, (1 2, 3 4))",
        "MULTIPOLYGON (EMPTY, ((0 0, 1 0, 0 1, 0 0)))",
    ]))
    func encodesAndReadsBack(geometry: Geometry, text: String) throws {
        #expect(try geometry.wkt() == text)
        #expect(same(try Geometry(wkt: text), geometry))
    }

    @Test func samplesAreAllCovered() {
        #expect(Samples.all.count == 15)
    }

    @Test(arguments: [0.1 + 0.2, .leastNonzeroMagnitude, 1e16, -0.0, 1.7976931348623157e308, 11812345.678901234])
    func coordinatesRoundTripExactly(value: Double) throws {
        guard case .point(let back) = try Geometry(wkt: try Geometry.point(p(value, -value)).wkt()) else {
            Issue.record("not a point")
            return
        }
        #expect(back.x.bitPattern == value.bitPattern)
        #expect(back.y.bitPattern == (-value).bitPattern)
    }

    @Test(arguments: Samples.all)
    func everyPrefixThrows(geometry: Geometry) throws {
        let text = try geometry.wkt()
        for length in 0..<text.count {
            let error = codecError { _ = try Geometry(wkt: String(text.prefix(length))) }
            #expect(error.map { $0.offset <= length } == true)
        }
    }

    @Test(arguments: [
        ("POINT (1 2", 10, "unexpected end of text, expected ')'"),
        ("POINT (1)", 8, "expected a number, found ')'"),
        ("POINT (NaN 2)", 7, "expected a number, found 'NaN'"),
        ("POINT (1 2) x", 12, "unexpected 'x' after the geometry"),
        ("POINT (1 2))", 11, "unexpected ')' after the geometry"),
        ("POINT Z (1 2 3)", 6, "Z and M coordinates are not supported (POINT Z)"),
        ("LINESTRING ZM (1 2 3 4, 5 6 7 8)", 11, "Z and M coordinates are not supported (LINESTRING ZM)"),
        ("POINTZ (1 2 3)", 0, "Z and M coordinates are not supported (POINTZ)"),
        ("pointm(1 2 3)", 0, "Z and M coordinates are not supported (POINTM)"),
        ("POINT (1 2 3)", 11, "Z and M coordinates are not supported (a coordinate with more than 2 numbers)"),
        ("GEOMETRYCOLLECTION (POINT (1 2))", 0, "GEOMETRYCOLLECTION is not supported: give a single geometry"),
        ("SRID=4326;POINT(1 2)", 0, "the EWKT prefix SRID=…; is not supported: give the CRS separately"),
        ("LINESTRING (1 2, )", 17, "expected a number, found ')'"),
        ("POLYGON ((0 0, 1 0, 0 1, 0 0)", 29, "unexpected end of text, expected ',' or ')'"),
        ("MULTIPOINT ((1 2) (3 4))", 18, "expected ',' or ')', found '('"),
        ("FOO (1 2)", 0, "unknown geometry type 'FOO'"),
        ("", 0, "empty text: expected a geometry keyword such as POINT"),
        ("(1 2)", 0, "expected a geometry keyword such as POINT, found '('"),
        ("POINT 1 2", 6, "expected '(', found '1'"),
        ("POINT FOO", 6, "expected '(' or EMPTY after POINT, found 'FOO'"),
        ("POINT (1e999 2)", 7, "number out of range"),
        ("POINT (1x 2)", 7, "expected a number, found '1x'"),
        ("POINT (1 2e)", 11, "expected a digit in the exponent"),
        ("POINT (- 2)", 7, "expected a number, found '-'"),
        ("Straße (1 2)", 0, "unknown geometry type 'Straße'"),
        ("POINT (1 ß)", 9, "expected a number, found 'ß'"),
    ])
    func malformedInputThrowsWithOffset(text: String, offset: Int, message: String) {
        let error = codecError { _ = try Geometry(wkt: text) }
        #expect(error?.format == .wkt)
        #expect(error?.message == message)
        #expect(error?.offset == offset)
    }

    @Test func nonFiniteCoordinatesCannotBeWritten() {
        let error = codecError { _ = try Geometry.multiPoint(MultiPoint([p(.nan, .nan), p(1, 2), p(3, -.infinity)])).wkt() }
        // The empty part is written as EMPTY; the infinite one is the second vertex.
        #expect(error?.offset == 1)
        #expect(error?.format == .wkt)
    }
}
