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

    /// Whether `distance(a, b) / unit <= tolerance`, decided without computing the distance: a
    /// vertex is done at the first segment of the other ring within the tolerance, and the
    /// answer is no at the first vertex that has none. The same answer as the comparison of the
    /// whole distance (division is monotonic); for two footprints that match, as nearly all in a
    /// check do, about half the segment distances.
    public static func isWithin(_ a: Polygon, _ b: Polygon, tolerance: Double, unit: Double = 1) -> Bool {
        guard let ringA = a.exterior?.points, let ringB = b.exterior?.points, !ringA.isEmpty, !ringB.isEmpty else { return false }
        return allNear(ringA, ringB, tolerance: tolerance, unit: unit) && allNear(ringB, ringA, tolerance: tolerance, unit: unit)
    }

    /// Whether every point of `points` is within `tolerance` (in `unit`s) of the polyline `ring`.
    static func allNear(_ points: [Point], _ ring: [Point], tolerance: Double, unit: Double) -> Bool {
        for p in points {
            var near = ring.count == 1 && p.distance(to: ring[0]) / unit <= tolerance
            var i = 1
            while !near, i < ring.count {
                near = distance(from: p, toSegment: ring[i - 1], ring[i]) / unit <= tolerance
                i += 1
            }
            if !near { return false }
        }
        return true
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
