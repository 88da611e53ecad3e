/// Any of the simple-feature geometry kinds annolink stores, in XY.
public enum Geometry: Hashable, Sendable {
    case point(Point)
    case lineString(LineString)
    case polygon(Polygon)
    case multiPoint(MultiPoint)
    case multiLineString(MultiLineString)
    case multiPolygon(MultiPolygon)

    /// The kind of a geometry, with the names GeoPackage uses in `gpkg_geometry_columns`.
    public enum Kind: String, Sendable, CaseIterable {
        case point = "POINT"
        case lineString = "LINESTRING"
        case polygon = "POLYGON"
        case multiPoint = "MULTIPOINT"
        case multiLineString = "MULTILINESTRING"
        case multiPolygon = "MULTIPOLYGON"

        /// The ISO WKB type code for XY geometries (1–6).
        public var wkbCode: UInt32 {
            switch self {
            case .point: 1
            case .lineString: 2
            case .polygon: 3
            case .multiPoint: 4
            case .multiLineString: 5
            case .multiPolygon: 6
            }
        }

        /// The kind for an ISO WKB XY type code, or nil.
        public init?(wkbCode: UInt32) {
            guard let kind = Kind.allCases.first(where: { $0.wkbCode == wkbCode }) else { return nil }
            self = kind
        }
    }

    public var kind: Kind {
        switch self {
        case .point: .point
        case .lineString: .lineString
        case .polygon: .polygon
        case .multiPoint: .multiPoint
        case .multiLineString: .multiLineString
        case .multiPolygon: .multiPolygon
        }
    }

    /// Every vertex of the geometry, in storage order (rings and parts one after another).
    public var allPoints: [Point] {
        var result: [Point] = []
        forEachPoint { result.append($0) }
        return result
    }

    /// Calls `body` with every vertex in storage order, without building an array.
    public func forEachPoint(_ body: (Point) -> Void) {
        switch self {
        case .point(let p):
            if !p.x.isNaN || !p.y.isNaN { body(p) }
        case .lineString(let l): l.points.forEach(body)
        case .polygon(let p): p.rings.forEach { $0.points.forEach(body) }
        case .multiPoint(let m):
            // WKB and WKT can hold an empty point inside a multipoint; like a lone empty point it
            // has no vertex, so it must not reach envelopes (a NaN would poison min/max).
            for p in m.points where !p.x.isNaN || !p.y.isNaN { body(p) }
        case .multiLineString(let m): m.lines.forEach { $0.points.forEach(body) }
        case .multiPolygon(let m): m.polygons.forEach { $0.rings.forEach { $0.points.forEach(body) } }
        }
    }

    /// Whether the geometry has no vertex. An empty point is stored with NaN coordinates, as
    /// GeoPackage requires.
    public var isEmpty: Bool {
        var any = false
        forEachPoint { _ in any = true }
        return !any
    }

    /// The bounding box, or nil for an empty geometry.
    public var envelope: Envelope? {
        var result: Envelope?
        forEachPoint { p in
            if result == nil { result = Envelope(p) } else { result!.expand(toInclude: p) }
        }
        return result
    }

    /// Whether every coordinate is finite. An empty point (NaN, NaN) counts as finite: it has none.
    public var isFinite: Bool {
        var finite = true
        forEachPoint { if !$0.isFinite { finite = false } }
        return finite
    }

    /// Applies `transform` to every vertex, keeping the structure.
    public func mapPoints(_ transform: (Point) throws -> Point) rethrows -> Geometry {
        func line(_ l: LineString) throws -> LineString { LineString(try l.points.map(transform)) }
        func poly(_ p: Polygon) throws -> Polygon { Polygon(rings: try p.rings.map(line)) }
        switch self {
        case .point(let p):
            return p.x.isNaN && p.y.isNaN ? self : .point(try transform(p))
        case .lineString(let l): return .lineString(try line(l))
        case .polygon(let p): return .polygon(try poly(p))
        case .multiPoint(let m):
            // Empty parts have no vertex to move; keep their NaNs bit for bit, as forEachPoint skips them.
            return .multiPoint(MultiPoint(try m.points.map { $0.isEmpty ? $0 : try transform($0) }))
        case .multiLineString(let m): return .multiLineString(MultiLineString(try m.lines.map(line)))
        case .multiPolygon(let m): return .multiPolygon(MultiPolygon(try m.polygons.map(poly)))
        }
    }

    /// The geometry moved by `dx`, `dy` (CRS units).
    public func translated(dx: Double, dy: Double) -> Geometry {
        mapPoints { $0.translated(dx: dx, dy: dy) }
    }

    /// Moves the geometry in place by `dx`, `dy` (CRS units).
    public mutating func translate(dx: Double, dy: Double) {
        self = translated(dx: dx, dy: dy)
    }

    /// An empty point, encoded with NaN coordinates as GeoPackage requires.
    public static let emptyPoint = Geometry.point(Point(x: .nan, y: .nan))
}
