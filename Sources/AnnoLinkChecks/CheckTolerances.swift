/// How far stored annotation may be from what the rules give before `check` calls it stale.
///
/// Distances are in points of text at the class's reference scale (at 1:1200 in US survey feet,
/// 1 pt = 1.3889 ft), so that one tolerance means the same on the map whatever the CRS.
/// Regeneration itself is exact: annotation annolink wrote differs from the rules by rounding
/// only (below 10⁻⁶ pt). The defaults are the smallest differences a reader sees at the
/// reference scale; docs/checks.md says how they were chosen on ArcGIS's Loudoun annotation.
public struct CheckTolerances: Hashable, Sendable {
    /// The largest distance, in points, between the stored anchor and the rules' anchor.
    public var position: Double
    /// The largest difference, in degrees, between the stored angle and the rules' angle.
    public var angle: Double
    /// The largest distance, in points, between the stored footprint and the one the text,
    /// font and stored placement give (see `FootprintComparison.distance`).
    public var footprint: Double

    /// The default position tolerance: 1 pt.
    public static let defaultPosition = 1.0
    /// The default angle tolerance: 1°.
    public static let defaultAngle = 1.0
    /// The default footprint tolerance: 1 pt.
    public static let defaultFootprint = 1.0

    /// Tolerances with the given values; the defaults when left out.
    public init(position: Double = defaultPosition, angle: Double = defaultAngle, footprint: Double = defaultFootprint) {
        self.position = position
        self.angle = angle
        self.footprint = footprint
    }
}
