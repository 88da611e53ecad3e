import AnnoLinkGeometry

/// A convex polygon that takes part in conflict tests: a label's footprint or an obstacle.
///
/// Stored footprints may come from other programs, so `init(_:)` takes the convex hull of the
/// polygon's exterior; a footprint built by `PlacementRules.footprint` is its own hull. The hull
/// is conservative for conflicts: it covers everything the polygon covers.
public struct LabelOutline: Hashable, Sendable {
    /// The hull's vertices, counter-clockwise, without the closing repeat. Empty for an empty
    /// polygon; one or two vertices for a degenerate one (a point, a segment).
    public let vertices: [Point]
    /// The bounding box of `vertices`. For an empty outline its minima are +∞ and its maxima −∞,
    /// so that it intersects no envelope.
    public let envelope: Envelope
    /// Unit normals of the hull's edges, one per direction (a rectangle has two): the axes of
    /// the separating-axis test. Degenerate hulls add the axes that a polygon's edges would give.
    let axes: [Point]

    /// The convex hull of `polygon`'s exterior ring (holes cannot make a footprint smaller).
    ///
    /// O(n log n) in the ring's vertex count (Andrew's monotone chain); collinear and repeated
    /// vertices are dropped.
    public init(_ polygon: Polygon) {
        self.init(hullOf: polygon.exterior?.points ?? [])
    }

    /// The convex hull of `points`.
    public init(hullOf points: [Point]) {
        let hull = Self.convexHull(points.filter(\.isFinite))
        vertices = hull
        if let first = hull.first {
            var box = Envelope(first)
            for p in hull.dropFirst() { box.expand(toInclude: p) }
            envelope = box
        } else {
            envelope = Envelope(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)
        }
        axes = Self.axes(of: hull)
    }

    /// Whether the two outlines come closer than `clearance` (map units) — or touch or overlap.
    ///
    /// The separating-axis test over both hulls' edge normals: the outlines are apart when on
    /// some axis their projections are separated by a gap that is positive and at least
    /// `clearance`. Exact for `clearance` 0 (touching counts as a conflict); for a positive
    /// clearance it is conservative — two outlines it calls apart are at least `clearance` apart,
    /// while two corners facing each other diagonally may be called in conflict somewhat
    /// farther apart than `clearance`. An empty outline conflicts with nothing. Allocates nothing.
    public func intersects(_ other: LabelOutline, clearance: Double) -> Bool {
        if vertices.isEmpty || other.vertices.isEmpty { return false }
        let clearance = max(clearance, 0)
        func apart(_ gap: Double) -> Bool { gap > 0 && gap >= clearance }
        // The envelopes are the x and y axes of the test, and the cheapest rejection.
        if apart(other.envelope.minX - envelope.maxX) || apart(envelope.minX - other.envelope.maxX)
            || apart(other.envelope.minY - envelope.maxY) || apart(envelope.minY - other.envelope.maxY) {
            return false
        }
        for axis in axes where Self.separated(self, other, along: axis, apart) { return false }
        for axis in other.axes where Self.separated(self, other, along: axis, apart) { return false }
        return true
    }

    /// The outline as a polygon: its hull's ring, closed.
    public var polygon: Polygon {
        guard let first = vertices.first else { return Polygon(rings: []) }
        return Polygon(exterior: LineString(vertices + [first]))
    }

    private static func separated(_ a: LabelOutline, _ b: LabelOutline, along axis: Point, _ apart: (Double) -> Bool) -> Bool {
        let (aMin, aMax) = a.projection(on: axis)
        let (bMin, bMax) = b.projection(on: axis)
        return apart(bMin - aMax) || apart(aMin - bMax)
    }

    private func projection(on axis: Point) -> (Double, Double) {
        var low = Double.infinity, high = -Double.infinity
        for p in vertices {
            let d = p.x * axis.x + p.y * axis.y
            low = min(low, d)
            high = max(high, d)
        }
        return (low, high)
    }

    /// Andrew's monotone chain: the hull counter-clockwise from the lowest-x (then lowest-y)
    /// vertex, without collinear vertices.
    static func convexHull(_ points: [Point]) -> [Point] {
        let sorted = points.sorted { ($0.x, $0.y) < ($1.x, $1.y) }
        var unique: [Point] = []
        unique.reserveCapacity(sorted.count)
        for p in sorted where unique.last != p { unique.append(p) }
        guard unique.count > 2 else { return unique }
        func cross(_ o: Point, _ a: Point, _ b: Point) -> Double {
            (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
        }
        var hull: [Point] = []
        hull.reserveCapacity(unique.count + 1)
        for p in unique {
            while hull.count >= 2 && cross(hull[hull.count - 2], hull[hull.count - 1], p) <= 0 { hull.removeLast() }
            hull.append(p)
        }
        let lowerCount = hull.count + 1
        for p in unique.reversed().dropFirst() {
            while hull.count >= lowerCount && cross(hull[hull.count - 2], hull[hull.count - 1], p) <= 0 { hull.removeLast() }
            hull.append(p)
        }
        hull.removeLast()
        // All points collinear: the chain collapses to the segment's two ends.
        return hull.count >= 2 ? hull : [unique.first!, unique.last!]
    }

    /// The distinct unit edge normals of a convex hull (an edge and its parallel opposite give
    /// one axis). A segment also needs its own direction, a point the two coordinate axes
    /// (which the envelope test covers).
    private static func axes(of hull: [Point]) -> [Point] {
        guard hull.count >= 2 else { return [] }
        var result: [Point] = []
        for i in hull.indices {
            let a = hull[i], b = hull[(i + 1) % hull.count]
            let dx = b.x - a.x, dy = b.y - a.y
            let length = (dx * dx + dy * dy).squareRoot()
            guard length > 0 else { continue }
            let normal = Point(x: -dy / length, y: dx / length)
            let parallel = result.contains { abs($0.x * normal.y - $0.y * normal.x) < 1e-12 }
            if !parallel { result.append(normal) }
        }
        if hull.count == 2, let n = result.first { result.append(Point(x: n.y, y: -n.x)) }
        return result
    }
}
