import AnnoLinkGeometry

/// Why a geometry may not be written: see `GeometryEngine.validateForWriting(_:allowEmpty:)`.
///
/// Parts and vertices are numbered as in `NearestVertex` (from 0, rings and parts in storage
/// order).
public enum GeometryValidationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A vertex has a NaN or infinite coordinate.
    case nonFiniteCoordinate(Point, part: Int, vertex: Int)
    /// The geometry has no vertex and the caller did not allow empty geometries.
    case empty(Geometry.Kind)
    /// GEOS finds the geometry invalid. `reason` is GEOS's text (`GEOSisValidReason_r`, e.g.
    /// `Self-intersection[5 5]`, or GEOS's message when it cannot even build the geometry, e.g.
    /// an unclosed ring); `location` is where, when GEOS says.
    case invalid(reason: String, location: Point?)

    /// The problem in one line, for the command line's `error:` message.
    public var description: String {
        switch self {
        case .nonFiniteCoordinate(let point, let part, let vertex):
            return "vertex \(vertex) of part \(part) has a non-finite coordinate \(format(point))"
        case .empty(let kind):
            return "the \(kind.rawValue) is empty"
        case .invalid(let reason, _):
            return "invalid geometry: \(reason)"
        }
    }
}
