/// Why a feature cannot be placed.
public enum PlacementError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The feature has no geometry, or an empty one.
    case emptyGeometry
    /// A line of zero length has no direction to lay text along.
    case zeroLengthLine
    /// The placement style does not fit the geometry (e.g. line placement on a point).
    case wrongGeometryKind(expected: String, got: String)

    public var description: String {
        switch self {
        case .emptyGeometry: "the feature has no geometry to place its label at"
        case .zeroLengthLine: "the line has zero length, so its label has no direction"
        case .wrongGeometryKind(let expected, let got): "\(expected) placement needs a \(expected) feature, not \(got)"
        }
    }
}
