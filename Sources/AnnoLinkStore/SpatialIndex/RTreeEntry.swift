import AnnoLinkGeometry

/// One entry of a two-dimensional SQLite R-tree: a row id and its bounding box, in CRS units.
///
/// The box is kept in double precision here; the R-tree stores it as 32-bit floats rounded
/// outward (see `RTreeRounding`), so the stored box always contains this one.
public struct RTreeEntry: Hashable, Sendable {
    /// The id of the entry: for a GeoPackage spatial index, the feature's `fid`.
    public var id: Int64
    /// The box, in the units of the table's CRS; a point has `minX == maxX`, `minY == maxY`.
    public var minX: Double
    public var maxX: Double
    public var minY: Double
    public var maxY: Double

    /// An entry with the given id and box. Nothing is checked here; `RTreeBulkLoader.load`
    /// refuses non-finite coordinates and boxes with a minimum above the maximum.
    public init(id: Int64, minX: Double, maxX: Double, minY: Double, maxY: Double) {
        self.id = id
        self.minX = minX
        self.maxX = maxX
        self.minY = minY
        self.maxY = maxY
    }

    /// An entry for `envelope`, the usual way to index a feature.
    public init(id: Int64, envelope: Envelope) {
        self.init(id: id, minX: envelope.minX, maxX: envelope.maxX, minY: envelope.minY, maxY: envelope.maxY)
    }
}

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
