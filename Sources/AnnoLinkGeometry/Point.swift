/// A position in a plane: x east (or longitude), y north (or latitude), in the units of the
/// coordinate reference system the geometry belongs to.
///
/// Geometry values carry no CRS of their own; the table or the caller knows it. Only XY is kept:
/// the codecs refuse input with Z or M (see `GeometryCodecError.unsupportedDimension`), because
/// annotation and the edit rules are planar and a silently dropped Z would lose data.
public struct Point: Hashable, Sendable {
    /// Easting or longitude, in CRS units.
    public var x: Double
    /// Northing or latitude, in CRS units.
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// Whether both coordinates are finite (no NaN or infinity).
    public var isFinite: Bool { x.isFinite && y.isFinite }

    /// Whether this is the empty point: both coordinates NaN, the way WKB and GeoPackage store
    /// `POINT EMPTY`. A point with only one NaN coordinate is not empty, just not finite.
    public var isEmpty: Bool { x.isNaN && y.isNaN }

    /// Moves the point in place by `dx`, `dy` (CRS units).
    public mutating func translate(dx: Double, dy: Double) {
        x += dx
        y += dy
    }

    /// The point moved by `dx`, `dy` (CRS units).
    public func translated(dx: Double, dy: Double) -> Point {
        Point(x: x + dx, y: y + dy)
    }

    /// Planar distance to `other`, in CRS units.
    public func distance(to other: Point) -> Double {
        ((other.x - x) * (other.x - x) + (other.y - y) * (other.y - y)).squareRoot()
    }
}

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
}

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

/// A collection of points.
public struct MultiPoint: Hashable, Sendable {
    public var points: [Point]
    public init(_ points: [Point]) { self.points = points }
}

/// A collection of lines.
public struct MultiLineString: Hashable, Sendable {
    public var lines: [LineString]
    public init(_ lines: [LineString]) { self.lines = lines }
}

/// A collection of polygons.
public struct MultiPolygon: Hashable, Sendable {
    public var polygons: [Polygon]
    public init(_ polygons: [Polygon]) { self.polygons = polygons }
}
