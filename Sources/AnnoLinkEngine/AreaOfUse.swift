/// Where on Earth a coordinate reference system is meant to be used, as PROJ's database records
/// it (EPSG's "area of use"): a box in degrees of longitude and latitude, and its name.
///
/// Made by `CoordinateTransformer.areaOfUse(_:)`. A box whose `west` is greater than its `east`
/// crosses the antimeridian.
public struct AreaOfUse: Hashable, Sendable {
    /// The western and eastern edges, degrees of longitude in [-180, 180].
    public var west: Double
    public var east: Double
    /// The southern and northern edges, degrees of latitude.
    public var south: Double
    public var north: Double
    /// The area's name, e.g. `United States (USA) - Virginia - counties of Arlington; …`.
    public var name: String?

    public init(west: Double, south: Double, east: Double, north: Double, name: String?) {
        self.west = west
        self.south = south
        self.east = east
        self.north = north
        self.name = name
    }

    /// Whether the point at `longitude`, `latitude` (degrees) lies within the box widened by
    /// `margin` degrees on every side (longitude taken modulo 360).
    public func contains(longitude: Double, latitude: Double, margin: Double = 0) -> Bool {
        guard longitude.isFinite, latitude.isFinite else { return false }
        guard latitude >= south - margin, latitude <= north + margin else { return false }
        let width = west <= east ? east - west : east + 360 - west
        if width + 2 * margin >= 360 { return true }
        // Degrees east of the widened western edge, in [0, 360).
        var offset = (longitude - (west - margin)).truncatingRemainder(dividingBy: 360)
        if offset < 0 { offset += 360 }
        return offset <= width + 2 * margin
    }
}
