import AnnoLinkEngine
import AnnoLinkTestSupport
import Foundation
import Testing

/// `CoordinateTransformer.areaOfUse(_:)` (`proj_get_area_of_use`) against PROJ's own `projinfo`,
/// and `AreaOfUse.contains`, which the edit service's location check uses (docs/cli.md,
/// "Locations far from the data").
@Suite("Area of use")
struct AreaOfUseTests {
    @Test("the area of use of a CRS is the bounding box and name projinfo gives", arguments: ["EPSG:2924", "EPSG:3857", "EPSG:32618", "EPSG:4326"])
    func matchesProjinfo(code: String) throws {
        let text = try ExternalTool.require("projinfo", package: "proj-bin").run(["-o", "PROJJSON", "-q", code]).stdout
        let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let box = try #require(json["bbox"] as? [String: Double])
        let area = try #require(try CoordinateTransformer().areaOfUse(code))
        #expect(area.west == box["west_longitude"] && area.east == box["east_longitude"], "\(area) vs \(box)")
        #expect(area.south == box["south_latitude"] && area.north == box["north_latitude"], "\(area) vs \(box)")
        #expect(area.name == json["area"] as? String)
    }

    @Test("a PROJ string has no area of use")
    func none() throws {
        #expect(try CoordinateTransformer().areaOfUse("+proj=merc +datum=WGS84 +type=crs") == nil)
    }

    @Test("contains: the box, widened by a margin, across the antimeridian too")
    func contains() {
        let virginia = AreaOfUse(west: -80.06, south: 37.77, east: -76.51, north: 39.46, name: nil)
        #expect(virginia.contains(longitude: -77.41, latitude: 39.02))
        #expect(!virginia.contains(longitude: -120.3, latitude: 37.0))
        #expect(!virginia.contains(longitude: -76.0, latitude: 39.0))
        #expect(virginia.contains(longitude: -76.0, latitude: 39.0, margin: 1))
        #expect(!virginia.contains(longitude: .nan, latitude: 39.0))
        let fiji = AreaOfUse(west: 176, south: -20, east: -178, north: -12, name: nil)
        #expect(fiji.contains(longitude: 179.5, latitude: -17) && fiji.contains(longitude: -179, latitude: -17))
        #expect(!fiji.contains(longitude: 0, latitude: -17))
    }
}
