import AnnoLinkGeometry

/// How far apart two footprints and two angles are, in plain Swift (no GEOS: it runs for every
/// annotation row of a check).
public enum FootprintComparison {
    /// The largest distance from a vertex of either polygon's exterior ring to the other's
    /// ring, in map units: 0 for the same ring whatever its start vertex and orientation; for
    /// two rectangles, how far the farther corner is off. Infinite when either ring is missing.
    ///
    /// - Complexity: O(n × m) for rings of n and m vertices (5 each for footprints).
    public static func distance(_ a: Polygon, _ b: Polygon) -> Double {
        guard let ringA = a.exterior?.points, let ringB = b.exterior?.points, !ringA.isEmpty, !ringB.isEmpty else { return .infinity }
        return max(farthest(ringA, from: ringB), farthest(ringB, from: ringA))
    }

    /// The largest distance from a point of `points` to the polyline `ring`.
    static func farthest(_ points: [Point], from ring: [Point]) -> Double {
        var result = 0.0
        for p in points {
            var nearest = Double.infinity
            if ring.count == 1 { nearest = p.distance(to: ring[0]) }
            for i in ring.indices.dropFirst() {
                nearest = min(nearest, distance(from: p, toSegment: ring[i - 1], ring[i]))
            }
            result = max(result, nearest)
        }
        return result
    }

    /// The distance from `p` to the segment `a`–`b`.
    static func distance(from p: Point, toSegment a: Point, _ b: Point) -> Double {
        let dx = b.x - a.x, dy = b.y - a.y
        let squared = dx * dx + dy * dy
        guard squared > 0 else { return p.distance(to: a) }
        let t = min(max(((p.x - a.x) * dx + (p.y - a.y) * dy) / squared, 0), 1)
        return p.distance(to: Point(x: a.x + t * dx, y: a.y + t * dy))
    }

    /// The difference between two angles in degrees, the short way round: in [0, 180].
    public static func angleDifference(_ a: Double, _ b: Double) -> Double {
        let d = abs(a - b).truncatingRemainder(dividingBy: 360)
        return min(d, 360 - d)
    }
}
