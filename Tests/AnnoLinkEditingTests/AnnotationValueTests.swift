import AnnoLinkEditing
import AnnoLinkGeometry
import AnnoLinkStore
import Foundation
import Testing

/// The display fields of an annotation row are held to what they can mean (issue 25, item 7):
/// before, `AnchorX=1e308` or `FontSize=0` was written, and the footprint got coordinates of
/// 1.6e308 and an infinite index box.
@Suite("EditService: annotation values")
struct AnnotationValueTests {
    /// The largest |coordinate| of the sample's CRS (EPSG:2924, US survey feet of 1200/3937 m):
    /// 100,000 km in its unit, as `annolink move` holds points to.
    static let anchorLimit = String(format: "%.0f", 1e8 / (1200.0 / 3937.0))

    static let refused: [(field: String, text: String, allowed: String)] = [
        ("AnchorX", "1e308", "a number from -\(anchorLimit) to \(anchorLimit) (units of the CRS)"),
        ("AnchorY", "-4e8", "a number from -\(anchorLimit) to \(anchorLimit) (units of the CRS)"),
        ("FontSize", "-5", "a size in points more than 0 and at most 1000"),
        ("FontSize", "0", "a size in points more than 0 and at most 1000"),
        ("FontSize", "1000.5", "a size in points more than 0 and at most 1000"),
        ("FontSize", "NULL", "a size in points more than 0 and at most 1000"),
        ("HorizontalAlignment", "99", "0 (left), 1 (center), 2 (right) or 3 (full)"),
        ("HorizontalAlignment", "-1", "0 (left), 1 (center), 2 (right) or 3 (full)"),
        ("VerticalAlignment", "4", "0 (top), 1 (center), 2 (baseline) or 3 (bottom)"),
        ("XOffset", "1e308", "a number from -1000 to 1000 (points)"),
        ("YOffset", "-1000.01", "a number from -1000 to 1000 (points)"),
        ("Angle", "1e308", "a number from -720 to 720 (degrees)"),
        ("Angle", "-720.5", "a number from -720 to 720 (degrees)"),
        ("Status", "2", "0 (placed) or 1 (unplaced)"),
    ]

    @Test("set refuses a display value outside its range, naming the field and the range, and changes nothing", arguments: refused)
    func refusedValue(field: String, text: String, allowed: String) throws {
        let s = try EditScratch()
        let fid = try #require(try s.annotation("address_points_anno", feature: 3).fid)
        let error = try s.expectUnchanged(by: {
            _ = try s.service.setFields(table: "address_points_anno", fid: fid, values: [(field, text)], command: "test")
        }, throws: EditError.self)
        #expect(error?.description == "invalid value '\(text)' for address_points_anno.\(field): \(field) takes \(allowed)")
    }

    @Test("the bounds themselves are taken: the row holds them and a footprint that fits")
    func boundsTaken() throws {
        let s = try EditScratch()
        let row = try s.annotation("address_points_anno", feature: 3)
        let fid = try #require(row.fid)
        _ = try s.service.setFields(table: "address_points_anno", fid: fid, values: [
            ("FontSize", "1000"), ("HorizontalAlignment", "3"), ("VerticalAlignment", "0"), ("XOffset", "-1000"), ("YOffset", "1000"),
            ("Angle", "-720"), ("Status", "1"),
        ], command: "test")
        let stored = try s.package.annotationRow(s.table("address_points_anno"), fid: fid)
        #expect(stored.fontSize == 1000)
        #expect(stored.horizontalAlignment == 3 && stored.verticalAlignment == 0)
        #expect(stored.xOffset == -1000 && stored.yOffset == 1000)
        #expect(stored.angle == 0, "-720° is normalised into [0, 360)")
        #expect(stored.status == 1)
        let box = try #require(stored.footprint.flatMap { Geometry.polygon($0).envelope })
        // 1000 pt at 1:1200 is about 1389 ft: the box is that tall, and near where it was.
        #expect(box.height > 1000 && box.height < 3000)
        #expect(abs(box.minX - (row.anchor?.x ?? 0)) < 10_000)
    }

    @Test("values that each fit but together put the footprint beyond the CRS are refused")
    func footprintBeyondTheCRS() throws {
        let s = try EditScratch()
        let fid = try #require(try s.annotation("address_points_anno", feature: 3).fid)
        let nearTheEdge = String(Int(Self.anchorLimit)! - 100)
        let error = try s.expectUnchanged(by: {
            _ = try s.service.setFields(table: "address_points_anno", fid: fid, values: [("AnchorX", nearTheEdge), ("XOffset", "1000")], command: "test")
        }, throws: EditError.self)
        guard case .coordinateOutOfRange(let table, let value, _, let unit)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(table == "address_points_anno" && unit == "units of the CRS")
        #expect(value > Double(Self.anchorLimit)!)
    }

    @Test("a bulk set and an add on an annotation table are held to the same ranges")
    func bulkAndAdd() throws {
        let s = try EditScratch()
        let bulk = try s.expectUnchanged(by: {
            _ = try s.service.setFields(table: "address_points_anno", selection: .fids([1, 2]), values: [("FontSize", "0")], command: "test")
        }, throws: EditError.self)
        #expect(bulk?.description == "invalid value '0' for address_points_anno.FontSize: FontSize takes a size in points more than 0 and at most 1000")
        let square = Polygon(exterior: LineString([Point(x: 11_880_000, y: 7_020_000), Point(x: 11_880_010, y: 7_020_000),
                                                   Point(x: 11_880_010, y: 7_020_010), Point(x: 11_880_000, y: 7_020_010),
                                                   Point(x: 11_880_000, y: 7_020_000)]))
        let add = try s.expectUnchanged(by: {
            _ = try s.service.addFeature(table: "address_points_anno", geometry: .polygon(square), crs: nil,
                                         values: [("TextString", "LOOSE"), ("HorizontalAlignment", "7")], command: "test")
        }, throws: EditError.self)
        #expect(add?.description == "invalid value '7' for address_points_anno.HorizontalAlignment: HorizontalAlignment takes 0 (left), 1 (center), 2 (right) or 3 (full)")
    }

    @Test("a feature table's own fields of the same names are not annotation fields: their values are the table's business")
    func featureTableFieldsOfTheSameName() throws {
        let s = try EditScratch { package in
            try package.connection.execute("ALTER TABLE address_points ADD COLUMN Status INTEGER")
            try package.connection.execute("ALTER TABLE address_points ADD COLUMN Angle REAL")
            package.invalidateTableCache()
        }
        _ = try s.service.setFields(table: "address_points", fid: 1, values: [("Status", "7"), ("Angle", "1000")], command: "test")
        let feature = try s.feature("address_points", 1)
        #expect(feature.attributes["Status"] == .integer(7))
        #expect(feature.attributes["Angle"] == .real(1000))
    }
}
