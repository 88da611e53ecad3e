import AnnoLinkGeometry

/// The integer grid an Esri geodatabase stores coordinates on: a stored integer `v` is the map
/// coordinate `v / xyScale + origin`.
///
/// Read it from a table's definition (`XOrigin`, `YOrigin`, `XYScale` in `GDB_Items.Definition`,
/// see `GeodatabaseItemDefinition.grid`). Units are the units of the table's coordinate
/// reference system (US survey feet for the Loudoun data); `xyScale` is grid steps per CRS unit.
public struct CoordinateGrid: Hashable, Sendable {
    /// The map x (CRS units) of grid x = 0.
    public var xOrigin: Double
    /// The map y (CRS units) of grid y = 0.
    public var yOrigin: Double
    /// Grid steps per CRS unit (3048.0060960121928 for the Loudoun data: 1/3048 ft ≈ 0.1 mm).
    public var xyScale: Double

    /// Creates a grid from the three values of a geodatabase spatial reference.
    public init(xOrigin: Double, yOrigin: Double, xyScale: Double) {
        self.xOrigin = xOrigin
        self.yOrigin = yOrigin
        self.xyScale = xyScale
    }

    /// Whether the values can map coordinates: finite origins and a finite, positive scale.
    public var isValid: Bool {
        xOrigin.isFinite && yOrigin.isFinite && xyScale.isFinite && xyScale > 0
    }

    /// The map point (CRS units) of the grid position `x`, `y`.
    public func point(gridX x: Int64, gridY y: Int64) -> Point {
        Point(x: Double(x) / xyScale + xOrigin, y: Double(y) / xyScale + yOrigin)
    }
}
