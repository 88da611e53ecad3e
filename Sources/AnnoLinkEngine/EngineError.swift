import AnnoLinkGeometry

/// Why the engine refused a request, in a user's words: an unknown CRS, a coordinate that cannot
/// be transformed, a geometry of the wrong kind for an operation.
///
/// Coordinates in the cases are in the CRS named next to them, axis order x east (longitude),
/// y north (latitude).
public enum EngineError: Error, Hashable, Sendable, CustomStringConvertible {
    /// PROJ does not know the CRS given (as `EPSG:n`, authority code, WKT or PROJ string), or
    /// what it names is not a coordinate reference system.
    case unknownCRS(String, cause: PROJError)
    /// The CRS definition was not given to PROJ: it refers to a file or grid, is too long or too
    /// deeply nested, or is a form not accepted where it came from (`CRSDefinitionGate`).
    case refusedCRS(String, reason: String)
    /// PROJ found no coordinate operation from the first CRS to the second.
    case noTransformation(from: String, to: String, cause: PROJError)
    /// A coordinate to transform is NaN or infinite.
    case nonFiniteCoordinate(Point, crs: String)
    /// The coordinate lies outside the domain of the transformation between the two CRSs (PROJ
    /// refused it, or transforming it and back does not return to it).
    case outsideDomain(Point, from: String, to: String, reason: String)
    /// Transforming the coordinate gave NaN or infinity.
    case nonFiniteResult(Point, from: String, to: String)
    /// The operation needs a geometry with at least one vertex.
    case emptyGeometry(operation: String)
    /// The operation needs a line (LINESTRING or MULTILINESTRING), not this kind.
    case notLineal(Geometry.Kind, operation: String)
    /// GEOS returned a geometry that annolink's geometry values cannot hold, e.g. a
    /// GEOMETRYCOLLECTION mixing points and lines.
    case unsupportedGeometry(String)
    /// An argument is out of range (a negative tolerance, a NaN distance…).
    case invalidArgument(String)

    /// The error in one line, naming the CRS and coordinate concerned.
    public var description: String {
        switch self {
        case .unknownCRS(let crs, let cause):
            return "unknown coordinate reference system '\(abbreviated(crs))': \(cause.reason)"
        case .refusedCRS(let crs, let reason):
            return "coordinate reference system '\(abbreviated(crs))' refused: \(reason)"
        case .noTransformation(let source, let target, let cause):
            return "no transformation from '\(abbreviated(source))' to '\(abbreviated(target))': \(cause.reason)"
        case .nonFiniteCoordinate(let point, let crs):
            return "the coordinate \(format(point)) in '\(crs)' is not finite"
        case .outsideDomain(let point, let source, let target, let reason):
            return "cannot transform \(format(point)) from '\(source)' to '\(target)': \(reason)"
        case .nonFiniteResult(let point, let source, let target):
            return "transforming \(format(point)) from '\(source)' to '\(target)' gave a non-finite result"
        case .emptyGeometry(let operation):
            return "\(operation) needs a non-empty geometry"
        case .notLineal(let kind, let operation):
            return "\(operation) needs a LINESTRING or MULTILINESTRING, not a \(kind.rawValue)"
        case .unsupportedGeometry(let what):
            return "GEOS returned \(what), which annolink cannot store"
        case .invalidArgument(let what):
            return what
        }
    }
}

/// A coordinate as users read it: `(x, y)` with Swift's shortest exact rendering of each number.
func format(_ point: Point) -> String {
    "(\(point.x), \(point.y))"
}

/// A CRS definition as messages name it: whole up to 200 characters, else its first 60 and its
/// length, so that a refused 5 MB definition is not echoed back.
func abbreviated(_ definition: String) -> String {
    guard definition.count > 200 else { return definition }
    return "\(definition.prefix(60))… (\(definition.utf8.count) bytes)"
}
