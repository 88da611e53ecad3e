/// A collection of polygons.
public struct MultiPolygon: Hashable, Sendable {
    public var polygons: [Polygon]
    public init(_ polygons: [Polygon]) { self.polygons = polygons }
}
