/// A sequence of two or more points joined by straight segments (or none: empty).
public struct LineString: Hashable, Sendable {
    /// The vertices in order; the first is the start of the line.
    public var points: [Point]

    public init(_ points: [Point]) {
        self.points = points
    }

    public var isEmpty: Bool { points.isEmpty }

    /// Planar length: the sum of the segments' lengths, in CRS units.
    public var length: Double {
        guard points.count > 1 else { return 0 }
        var total = 0.0
        for i in 1..<points.count { total += points[i - 1].distance(to: points[i]) }
        return total
    }

    /// Whether the first and last points are the same (a ring).
    public var isClosed: Bool { points.count > 1 && points.first == points.last }

    /// The ring's signed area (shoelace formula, an unclosed ring closed implicitly), in square
    /// CRS units: positive when its vertices run counter-clockwise with y pointing up (the
    /// Simple Features winding of an exterior), negative clockwise (Esri's), 0 for a
    /// degenerate ring. Taken relative to the first vertex, so that state plane coordinates
    /// keep the area's digits.
    public var signedArea: Double { EsriRings.signedDoubleArea(self) / 2 }
}
