import AnnoLinkGeometry

/// The vertex of a geometry nearest to a point: where it is in the geometry, where it is on the
/// map, and how far.
///
/// Parts are numbered from 0 in storage order, as in Esri's and shapefile geometries: a point,
/// a line or each point of a multipoint is one part; each ring of a polygon is a part (exterior
/// first); a multipolygon's rings are numbered on from one polygon to the next. Vertices are
/// numbered from 0 within their part; a ring's closing vertex repeats its first, and the first
/// is the one reported.
public struct NearestVertex: Hashable, Sendable {
    /// The part holding the vertex.
    public var part: Int
    /// The vertex's index in its part.
    public var vertex: Int
    /// The vertex, in CRS units.
    public var point: Point
    /// Planar distance from the point asked about to the vertex, in CRS units.
    public var distance: Double

    /// A result: vertex `vertex` of part `part`, at `point`, `distance` away.
    public init(part: Int, vertex: Int, point: Point, distance: Double) {
        self.part = part
        self.vertex = vertex
        self.point = point
        self.distance = distance
    }

    /// The vertex of `geometry` nearest to `point`; on a tie, the first in storage order.
    /// Linear in the number of vertices.
    /// - Throws: `EngineError.emptyGeometry`, `EngineError.invalidArgument` for a NaN or
    ///   infinite `point`.
    static func find(in geometry: Geometry, to point: Point) throws -> NearestVertex {
        guard point.isFinite else {
            throw EngineError.invalidArgument("the point \(format(point)) has a non-finite coordinate")
        }
        var best: NearestVertex?
        forEachPart(of: geometry) { part, points in
            for (index, vertex) in points.enumerated() {
                let distance = vertex.distance(to: point)
                if best == nil || distance < best!.distance {
                    best = NearestVertex(part: part, vertex: index, point: vertex, distance: distance)
                }
            }
        }
        guard let best else { throw EngineError.emptyGeometry(operation: "nearestVertex(to:)") }
        return best
    }
}

/// Calls `body` with each part of `geometry` and its vertices, numbered as in `NearestVertex`.
/// An empty point (NaN, NaN) has no part.
func forEachPart(of geometry: Geometry, _ body: (Int, [Point]) -> Void) {
    switch geometry {
    case .point(let point):
        if !(point.x.isNaN && point.y.isNaN) { body(0, [point]) }
    case .lineString(let line):
        body(0, line.points)
    case .polygon(let polygon):
        for (index, ring) in polygon.rings.enumerated() { body(index, ring.points) }
    case .multiPoint(let multi):
        for (index, point) in multi.points.enumerated() { body(index, [point]) }
    case .multiLineString(let multi):
        for (index, line) in multi.lines.enumerated() { body(index, line.points) }
    case .multiPolygon(let multi):
        var part = 0
        for polygon in multi.polygons {
            for ring in polygon.rings {
                body(part, ring.points)
                part += 1
            }
        }
    }
}
