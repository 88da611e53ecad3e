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
