import AnnoLinkEngine
import AnnoLinkGeometry
import AnnoLinkStore

/// Locations far from where a table's data can be (issue 27, item 6; docs/cli.md, "Locations
/// far from the data"): `-77.41,39.02` given without `--crs` to a table in EPSG:2924 is a point
/// in feet near the CRS's false origin, some 3,500 km from Virginia. Every edit that takes a
/// location from outside — a point's move, a line end's move, a new feature, a new shape, a
/// `--at` selection — is held to two bounds before it is written, in every front end:
///
/// - the CRS's **area of use** as PROJ's database records it (`proj_get_area_of_use`), widened
///   by `areaOfUseMargin` degrees on every side, so that data just over a zone's edge passes;
/// - the table's **recorded extent**: no farther from it than `extentDistanceFactor` times its
///   size (its larger side, at least `minimumExtentSize` metres), so that a small table does not
///   make every place a few miles off "far".
extension EditService {
    /// Degrees the area of use is widened by on every side (about 110 km of latitude).
    public static let areaOfUseMargin = 1.0
    /// How many times its own size a location may be from a table's extent.
    public static let extentDistanceFactor = 10.0
    /// The smallest size, in metres, an extent counts as having (10 km: a location is "far" from
    /// a small layer only beyond 100 km, so a move across a county is never refused).
    public static let minimumExtentSize = 10_000.0

    /// Refuses `geometry`, given in `crs` (nil: the table's own), when it lies outside the
    /// area of use of `table`'s CRS or far outside the table's extent (above), unless
    /// `allowsDistantLocations`. A table with no recorded extent is held to the area of use
    /// alone; a CRS PROJ records no area for, to the extent alone.
    ///
    /// - Throws: `EditError.distantLocation` saying which bound the location is beyond and
    ///   whether its numbers look like longitude and latitude; PROJ's errors for a `crs` PROJ
    ///   does not know.
    func checkNearData(_ geometry: Geometry, crs: String?, in table: FeatureTable) throws {
        guard !allowsDistantLocations, geometry.isFinite, let given = geometry.envelope else { return }
        let tableCRS = try crsName(of: table)
        let transformer = try coordinateTransformer()
        let inTable = try crs.map { try transformer.transform(geometry, from: $0, to: tableCRS) } ?? geometry
        guard let box = inTable.envelope else { return }
        var reasons: [String] = []
        if let area = try? transformer.areaOfUse(tableCRS), !within(area, box: box, crs: tableCRS, transformer: transformer) {
            reasons.append("outside the area of use of \(Self.shortName(tableCRS)) (\(Self.describe(area)))")
        }
        if let extent = try store.recordedExtent(of: table), extent.minX.isFinite, extent.maxX.isFinite {
            let metresPerUnit = try unitSize(of: table)
            let size = max(extent.maxX - extent.minX, extent.maxY - extent.minY, Self.minimumExtentSize / metresPerUnit)
            let dx = max(0, extent.minX - box.maxX, box.minX - extent.maxX)
            let dy = max(0, extent.minY - box.maxY, box.minY - extent.maxY)
            let distance = (dx * dx + dy * dy).squareRoot()
            if distance > Self.extentDistanceFactor * size {
                reasons.append("\(Self.number(distance)) map units from the extent of \(table.name), more than \(Self.number(Self.extentDistanceFactor)) " +
                    "times its size (\(Self.number(size)))")
            }
        }
        guard !reasons.isEmpty else { return }
        let geographicTable = (try? transformer.referenceSystem(tableCRS).isGeographic) ?? false
        let geographicGiven = try crs.map { try transformer.referenceSystem($0).isGeographic } ?? geographicTable
        let looksLikeDegrees = !geographicGiven && abs(given.minX) <= 180 && abs(given.maxX) <= 180 && abs(given.minY) <= 90 && abs(given.maxY) <= 90
        let place: String
        if case .point(let p) = geometry { place = "\(PickFeature.format(p.x)),\(PickFeature.format(p.y))" }
        else { place = "the geometry (\(PickFeature.format(given.minX)),\(PickFeature.format(given.minY)) to \(PickFeature.format(given.maxX)),\(PickFeature.format(given.maxY)))" }
        throw EditError.distantLocation(table: table.name, location: place + (crs.map { " (\($0))" } ?? " (\(Self.shortName(tableCRS)))"),
                                        reasons: reasons, looksLikeDegrees: looksLikeDegrees)
    }

    /// Whether every corner and the centre of `box` (in `crs`) lie in `area`, widened by
    /// `areaOfUseMargin`; a corner PROJ cannot take to longitude and latitude does not.
    private func within(_ area: AreaOfUse, box: Envelope, crs: String, transformer: CoordinateTransformer) -> Bool {
        let points = [Point(x: box.minX, y: box.minY), Point(x: box.minX, y: box.maxY), Point(x: box.maxX, y: box.minY),
                      Point(x: box.maxX, y: box.maxY), Point(x: (box.minX + box.maxX) / 2, y: (box.minY + box.maxY) / 2)]
        for point in points {
            guard let lonLat = try? transformer.transform(point, from: crs, to: "EPSG:4326"),
                  area.contains(longitude: lonLat.x, latitude: lonLat.y, margin: Self.areaOfUseMargin) else { return false }
        }
        return true
    }

    /// Metres per unit of `table`'s CRS; a degree counts as 111,320 m.
    private func unitSize(of table: FeatureTable) throws -> Double {
        let limits = try coordinateLimits(of: table)
        if limits.unit == "degrees" { return 111_320 }
        return try store.spatialReferenceSystem(table.srsID)?.metresPerUnitFromDefinition ?? 1
    }

    /// A CRS as messages name it: its code, or "the table's CRS" for WKT.
    static func shortName(_ definition: String) -> String {
        definition.count <= 40 && !definition.contains("[") ? definition : "the table's CRS"
    }

    static func describe(_ area: AreaOfUse) -> String {
        func degrees(_ value: Double) -> String { String(format: "%.2f", value) }
        return "longitude \(degrees(area.west)) to \(degrees(area.east)), latitude \(degrees(area.south)) to \(degrees(area.north))"
    }

    static func number(_ value: Double) -> String {
        String(format: "%.0f", value)
    }
}
