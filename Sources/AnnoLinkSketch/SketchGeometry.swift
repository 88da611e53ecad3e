import AnnoLinkGeometry

/// The four geometry types the editor creates and edits, with Esri's names.
public enum SketchGeometryType: String, Hashable, Sendable, CaseIterable {
    /// One vertex; placing another replaces it.
    case point
    /// Any number of vertices in one part, without segments.
    case multipoint
    /// Paths of two or more vertices each.
    case polyline
    /// Rings of three or more vertices each, closed implicitly.
    case polygon

    /// The type the editor uses for a GeoPackage geometry kind: lines and multi-lines are
    /// polylines, polygons and multipolygons polygons.
    public init(_ kind: Geometry.Kind) {
        switch kind {
        case .point: self = .point
        case .multiPoint: self = .multipoint
        case .lineString, .multiLineString: self = .polyline
        case .polygon, .multiPolygon: self = .polygon
        }
    }

    /// Whether the type has segments (and so mid-vertices and edges).
    public var hasSegments: Bool { self == .polyline || self == .polygon }
}

/// The geometry being edited, the way Esri's editor sees it: a type and a list of parts,
/// each a list of vertices.
///
/// A point has at most one part of one vertex; a multipoint one part holding every point;
/// a polyline one part per path; a polygon one part per ring (exteriors and holes alike,
/// Esri style). Rings are stored **without** their closing vertex: a ring of n vertices has
/// n segments, the last one closing it. Coordinates are in the map's CRS.
public struct SketchGeometry: Hashable, Sendable {
    /// What kind of geometry this is.
    public var type: SketchGeometryType
    /// The parts, each a list of vertices in order.
    public var parts: [[Point]]

    /// A geometry of `type` with `parts` (an empty list: an empty geometry).
    public init(type: SketchGeometryType, parts: [[Point]] = []) {
        self.type = type
        self.parts = parts
    }

    /// The sketch of a stored geometry. A ring whose last vertex repeats its first (as
    /// GeoPackage and Esri JSON store rings) loses that closing vertex, so Esri JSON's
    /// nine-coordinate ring is eight vertices. A multipolygon's rings become parts one after
    /// another; an empty point has no part.
    public init(_ geometry: Geometry) {
        func ring(_ line: LineString) -> [Point] {
            line.isClosed ? Array(line.points.dropLast()) : line.points
        }
        switch geometry {
        case .point(let p):
            self.init(type: .point, parts: p.isEmpty ? [] : [[p]])
        case .multiPoint(let m):
            let points = m.points.filter { !$0.isEmpty }
            self.init(type: .multipoint, parts: points.isEmpty ? [] : [points])
        case .lineString(let l):
            self.init(type: .polyline, parts: l.isEmpty ? [] : [l.points])
        case .multiLineString(let m):
            self.init(type: .polyline, parts: m.lines.filter { !$0.isEmpty }.map(\.points))
        case .polygon(let p):
            self.init(type: .polygon, parts: p.rings.map(ring).filter { !$0.isEmpty })
        case .multiPolygon(let m):
            self.init(type: .polygon, parts: m.polygons.flatMap { $0.rings.map(ring) }.filter { !$0.isEmpty })
        }
    }

    /// The number of vertices in all parts.
    public var vertexCount: Int { parts.reduce(0) { $0 + $1.count } }

    /// The number of segments (and mid-vertices) of part `index`: n − 1 for a path of n
    /// vertices, n for a ring of three or more (its closing segment included), none for
    /// points and multipoints.
    public func segmentCount(inPart index: Int) -> Int {
        guard type.hasSegments, parts.indices.contains(index) else { return 0 }
        let n = parts[index].count
        if type == .polygon, n >= 3 { return n }
        return max(n - 1, 0)
    }

    /// The end points of segment `segment` of part `part` (the closing segment of a ring
    /// ends at vertex 0). The caller checks the indices.
    public func segment(part: Int, segment: Int) -> (Point, Point) {
        let points = parts[part]
        return (points[segment], points[(segment + 1) % points.count])
    }

    /// Where the mid-vertex of a segment is drawn: the segment's midpoint.
    public func midVertex(part: Int, segment: Int) -> Point {
        let (a, b) = self.segment(part: part, segment: segment)
        return Point(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2)
    }

    /// Whether the geometry has no valid coordinates (Esri's `isEmpty`): no part holds a
    /// vertex with finite x and y.
    public var isEmpty: Bool {
        !parts.contains { $0.contains(where: \.isFinite) }
    }

    /// Whether the geometry has enough points to make a valid sketch (Esri's
    /// `sketchIsValid`, the rule since v100.8): a point with finite coordinates; a multipoint
    /// with at least one; a polyline of at least one part in which **every** part has two or
    /// more; a polygon of at least one part in which every part has three or more.
    ///
    /// Only counts are checked: a self-intersecting polygon or a path of two equal points is
    /// still a valid sketch. Simplicity is the GEOS validation's job when the sketch is saved.
    public var sketchIsValid: Bool {
        let valid = parts.map { $0.filter(\.isFinite).count }
        switch type {
        case .point: return valid.count == 1 && valid[0] == 1
        case .multipoint: return valid.contains { $0 >= 1 }
        case .polyline: return !valid.isEmpty && valid.allSatisfy { $0 >= 2 }
        case .polygon: return !valid.isEmpty && valid.allSatisfy { $0 >= 3 }
        }
    }

    /// The bounding box of every vertex, nil when there is none.
    public var extent: Envelope? { Self.envelope(of: parts.flatMap { $0 }) }

    /// The bounding box of `points`, nil for none.
    static func envelope(of points: [Point]) -> Envelope? {
        guard let first = points.first else { return nil }
        var envelope = Envelope(first)
        for p in points.dropFirst() { envelope.expand(toInclude: p) }
        return envelope
    }

    /// The sketch as a simple-feature geometry.
    ///
    /// A point is a point (the empty point when it has no vertex); a multipoint a
    /// multipoint; a polyline a line string when it has one part and a multi-line string
    /// otherwise (an empty line string when it has none). A polygon's rings are closed
    /// (the first vertex repeated at the end) and grouped by nesting, whatever their winding:
    /// a ring inside an even number of other rings is an exterior, one inside an odd number
    /// a hole of the innermost ring around it. One exterior makes a polygon, several a
    /// multipolygon. Incomplete sketches convert too (a one-vertex path, a two-vertex
    /// ring); whether they may be written is for the store's validation to say.
    public var geometry: Geometry {
        switch type {
        case .point:
            return parts.first?.first.map { .point($0) } ?? .emptyPoint
        case .multipoint:
            return .multiPoint(MultiPoint(parts.flatMap { $0 }))
        case .polyline:
            if parts.count == 1 { return .lineString(LineString(parts[0])) }
            if parts.isEmpty { return .lineString(LineString([])) }
            return .multiLineString(MultiLineString(parts.map(LineString.init)))
        case .polygon:
            let polygons = Self.polygons(fromRings: parts)
            if polygons.count == 1 { return .polygon(polygons[0]) }
            if polygons.isEmpty { return .polygon(Polygon(rings: [])) }
            return .multiPolygon(MultiPolygon(polygons))
        }
    }

    /// The sketch as a geometry of `kind` where the difference is only one of wrapping:
    /// a polygon as a one-polygon multipolygon, a line string as a one-line multi-line
    /// string, a point as a one-point multipoint; otherwise `geometry` unchanged (so a
    /// store that checks kinds can say what does not fit).
    public func geometry(as kind: Geometry.Kind?) -> Geometry {
        let plain = geometry
        switch (plain, kind) {
        case (.polygon(let p), .multiPolygon?): return .multiPolygon(MultiPolygon(p.rings.isEmpty ? [] : [p]))
        case (.lineString(let l), .multiLineString?): return .multiLineString(MultiLineString(l.isEmpty ? [] : [l]))
        case (.point(let p), .multiPoint?): return .multiPoint(MultiPoint(p.isEmpty ? [] : [p]))
        default: return plain
        }
    }

    /// Closes each ring and groups rings into polygons by how deeply they nest.
    static func polygons(fromRings rings: [[Point]]) -> [Polygon] {
        let closed = rings.map { ring -> LineString in
            guard let first = ring.first else { return LineString([]) }
            return LineString(ring + [first])
        }
        // The rings around each ring: those of three or more vertices holding its first vertex.
        var containers: [[Int]] = []
        for (i, ring) in rings.enumerated() {
            guard let probe = ring.first else { containers.append([]); continue }
            containers.append(rings.indices.filter { j in
                j != i && rings[j].count >= 3 && HitTest.ringContains(rings[j], probe)
            })
        }
        var exteriors: [Int] = []
        var holes: [Int: [Int]] = [:]
        for i in rings.indices {
            let depth = containers[i].count
            if depth % 2 == 0 {
                exteriors.append(i)
            } else {
                // The innermost container is the one that is itself the most deeply nested.
                let parent = containers[i].max { containers[$0].count < containers[$1].count }!
                holes[parent, default: []].append(i)
            }
        }
        return exteriors.map { e in Polygon(exterior: closed[e], holes: (holes[e] ?? []).map { closed[$0] }) }
    }
}

extension Geometry {
    /// Whether the geometry has enough points for a valid sketch; see
    /// `SketchGeometry.sketchIsValid`. A ring's closing vertex is not counted.
    public var sketchIsValid: Bool { SketchGeometry(self).sketchIsValid }
}
