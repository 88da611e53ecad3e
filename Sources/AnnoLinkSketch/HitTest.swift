import AnnoLinkGeometry

/// Planar distances for hit tests: how far a tap or the reticle is from a vertex, a segment,
/// a ring or a whole feature. All in map units.
public enum HitTest {
    /// The distance from `point` to the segment from `a` to `b` (to `a` when they coincide).
    public static func distance(from point: Point, toSegment a: Point, _ b: Point) -> Double {
        let dx = b.x - a.x, dy = b.y - a.y
        let lengthSquared = dx * dx + dy * dy
        guard lengthSquared > 0 else { return point.distance(to: a) }
        let t = max(0, min(1, ((point.x - a.x) * dx + (point.y - a.y) * dy) / lengthSquared))
        return point.distance(to: Point(x: a.x + t * dx, y: a.y + t * dy))
    }

    /// Whether `point` lies inside the ring `ring` (vertices without the closing one; the
    /// closing segment is implied). Even-odd rule; a point on the boundary may go either way.
    public static func ringContains(_ ring: [Point], _ point: Point) -> Bool {
        guard ring.count >= 3 else { return false }
        var inside = false
        var j = ring.count - 1
        for i in ring.indices {
            let a = ring[i], b = ring[j]
            if (a.y > point.y) != (b.y > point.y) {
                let crossX = a.x + (point.y - a.y) / (b.y - a.y) * (b.x - a.x)
                if point.x < crossX { inside.toggle() }
            }
            j = i
        }
        return inside
    }

    /// The distance from `point` to the line through `points` (a ring when `closed`).
    public static func distance(from point: Point, toPath points: [Point], closed: Bool) -> Double {
        guard let first = points.first else { return .infinity }
        if points.count == 1 { return point.distance(to: first) }
        var best = Double.infinity
        for i in 1..<points.count { best = min(best, distance(from: point, toSegment: points[i - 1], points[i])) }
        if closed, points.count > 2 { best = min(best, distance(from: point, toSegment: points[points.count - 1], first)) }
        return best
    }

    /// The distance from `point` to a stored geometry: 0 inside a polygon's area (holes
    /// excluded), otherwise the distance to the nearest vertex, segment or ring.
    public static func distance(from point: Point, to geometry: Geometry) -> Double {
        func polygonDistance(_ polygon: Polygon) -> Double {
            let rings = polygon.rings.map { $0.isClosed ? Array($0.points.dropLast()) : $0.points }
            guard let exterior = rings.first else { return .infinity }
            if ringContains(exterior, point), !rings.dropFirst().contains(where: { ringContains($0, point) }) { return 0 }
            return rings.map { distance(from: point, toPath: $0, closed: true) }.min() ?? .infinity
        }
        switch geometry {
        case .point(let p): return p.isEmpty ? .infinity : point.distance(to: p)
        case .multiPoint(let m): return m.points.filter { !$0.isEmpty }.map { point.distance(to: $0) }.min() ?? .infinity
        case .lineString(let l): return distance(from: point, toPath: l.points, closed: false)
        case .multiLineString(let m): return m.lines.map { distance(from: point, toPath: $0.points, closed: false) }.min() ?? .infinity
        case .polygon(let p): return polygonDistance(p)
        case .multiPolygon(let m): return m.polygons.map(polygonDistance).min() ?? .infinity
        }
    }
}
