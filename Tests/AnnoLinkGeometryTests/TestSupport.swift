import AnnoLinkTestSupport
import Testing
@testable import AnnoLinkGeometry

/// Geometries covering every kind, empties, holes, state-plane-sized and fractional values.
enum Samples {

    static let point = Geometry.point(p(1, 2))
    static let lineString = Geometry.lineString(LineString([p(11812345.67, 7012345.125), p(-0.5, 1e-7), p(3, 4)]))
    /// Exterior clockwise and hole counter-clockwise: already in Esri's winding.
    static let polygonWithHole = Geometry.polygon(Polygon(
        exterior: LineString([p(0, 0), p(0, 10), p(10, 10), p(10, 0), p(0, 0)]),
        holes: [LineString([p(2, 2), p(4, 2), p(4, 4), p(2, 4), p(2, 2)])]))
    static let multiPoint = Geometry.multiPoint(MultiPoint([p(1, 2), p(-3.25, 4e10)]))
    static let multiLineString = Geometry.multiLineString(MultiLineString([
        LineString([p(0, 0), p(1, 1)]), LineString([p(2, 2), p(3, 3), p(4, 2.5)]),
    ]))
    static let multiPolygon = Geometry.multiPolygon(MultiPolygon([
        Polygon(exterior: LineString([p(0, 0), p(0, 1), p(1, 1), p(0, 0)])),
        Polygon(exterior: LineString([p(5, 5), p(5, 9), p(9, 9), p(9, 5), p(5, 5)]),
                holes: [LineString([p(6, 6), p(7, 6), p(7, 7), p(6, 6)])]),
    ]))

    static let nonEmpty: [Geometry] = [point, lineString, polygonWithHole, multiPoint, multiLineString, multiPolygon]
    static let empty: [Geometry] = [
        .emptyPoint, .lineString(LineString([])), .polygon(Polygon(rings: [])),
        .multiPoint(MultiPoint([])), .multiLineString(MultiLineString([])), .multiPolygon(MultiPolygon([])),
    ]
    /// Multi-geometries with empty parts, which WKB and WKT can hold but the JSON formats cannot.
    static let emptyParts: [Geometry] = [
        .multiPoint(MultiPoint([p(.nan, .nan), p(1, 2)])),
        .multiLineString(MultiLineString([LineString([]), LineString([p(1, 2), p(3, 4)])])),
        .multiPolygon(MultiPolygon([Polygon(rings: []), Polygon(exterior: LineString([p(0, 0), p(1, 0), p(0, 1), p(0, 0)]))])),
    ]
    static let all = nonEmpty + empty + emptyParts
}

/// Whether two geometries are the same bit for bit. `==` cannot say so for empty points,
/// whose NaN coordinates compare unequal to themselves.
func same(_ a: Geometry, _ b: Geometry) -> Bool {
    a.wkb() == b.wkb()
}

/// Runs `body`, expects it to throw a `GeometryCodecError`, and returns the error.
@discardableResult
func codecError(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> GeometryCodecError? {
    #expect(throws: GeometryCodecError.self, sourceLocation: sourceLocation) { try body() }
}
