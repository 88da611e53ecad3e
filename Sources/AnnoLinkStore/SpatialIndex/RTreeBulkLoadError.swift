/// What kept `RTreeBulkLoader.load` from replacing an R-tree's content. Nothing was written
/// when one of these is thrown.
public enum RTreeBulkLoadError: Error, Equatable, Sendable {
    /// No table of that name in the main database.
    case unknownTable(String)
    /// The table exists but is not what the loader can write: a two-dimensional `rtree`
    /// virtual table (32-bit float coordinates, no auxiliary columns) with its shadow tables.
    case unsupportedTable(String, reason: String)
    /// A coordinate of the entry is NaN or infinite.
    case nonFiniteCoordinate(id: Int64)
    /// The entry's minimum is above its maximum on one axis.
    case invertedBox(id: Int64)
    /// Two entries have the same id.
    case duplicateID(Int64)
}

extension RTreeBulkLoadError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .unknownTable(let name): "no table named '\(name)'"
        case .unsupportedTable(let name, let reason): "'\(name)' cannot be bulk-loaded: \(reason)"
        case .nonFiniteCoordinate(let id): "the box of entry \(id) has a coordinate that is not a finite number"
        case .invertedBox(let id): "the box of entry \(id) has a minimum greater than its maximum"
        case .duplicateID(let id): "more than one entry has id \(id)"
        }
    }
}
