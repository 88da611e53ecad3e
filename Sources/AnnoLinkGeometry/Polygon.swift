/// A polygon: an exterior ring and zero or more interior rings (holes), each a closed line.
public struct Polygon: Hashable, Sendable {
    /// Rings; the first is the exterior. Empty means an empty polygon.
    public var rings: [LineString]

    public init(rings: [LineString]) {
        self.rings = rings
    }

    /// A polygon with one exterior ring and the given holes.
    public init(exterior: LineString, holes: [LineString] = []) {
        self.rings = [exterior] + holes
    }

    public var isEmpty: Bool { rings.isEmpty }
    public var exterior: LineString? { rings.first }
    public var holes: ArraySlice<LineString> { rings.dropFirst() }
}
