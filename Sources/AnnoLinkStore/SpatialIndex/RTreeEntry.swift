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
