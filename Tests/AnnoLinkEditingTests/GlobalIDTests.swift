import AnnoLinkEditing
import AnnoLinkGeometry
import AnnoLinkImport
import AnnoLinkStore
import Foundation
import Testing

/// A new feature of a table with an Esri GlobalID gets one from the edit service (issue 25):
/// before, an add to any table imported from ArcGIS (`GlobalID TEXT(38) NOT NULL`, no default)
/// failed unless the user typed a GUID.
@Suite("EditService: GlobalID")
struct GlobalIDTests {
    /// Esri's form, as the Loudoun data spell it: `{98F02132-9AE4-40F4-8056-8F35C9CA96CF}`.
    static let esriForm = #"^\{[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}\}$"#

    /// The sample with a `sites` point table whose GlobalID is NOT NULL without a default, as
    /// an import from ArcGIS makes it.
    static func scratch() throws -> EditScratch {
        try EditScratch { package in
            _ = try package.createFeatureTable(FeatureTableDefinition(name: "sites", geometryTypeName: "POINT", srsID: SampleGenerator.srsID, columns: [
                Column(name: "NAME", type: "TEXT(20)"), Column(name: "GlobalID", type: "TEXT(38)", isNotNull: true),
            ]))
        }
    }

    static let location = Geometry.point(Point(x: 11_880_500, y: 7_020_700))

    @Test("an add without a GlobalID gets a new GUID in Esri's form, listed in the result; each add its own")
    func generated() throws {
        let s = try Self.scratch()
        let first = try s.service.addFeature(table: "sites", geometry: Self.location, crs: nil, values: [("NAME", "A")], command: "test")
        let second = try s.service.addFeature(table: "sites", geometry: Self.location, crs: nil, values: [("NAME", "B"), ("GlobalID", "NULL")],
                                              command: "test")
        var stored: [String] = []
        for result in [first, second] {
            let value = try #require(try s.feature("sites", result.fid).attributes["GlobalID"]?.textValue)
            #expect(value.range(of: Self.esriForm, options: .regularExpression) != nil, "\(value)")
            #expect(result.fields.first { $0.name == "GlobalID" }?.new == .text(value))
            stored.append(value)
        }
        #expect(stored[0] != stored[1])
    }

    @Test("a GlobalID given is kept as it is")
    func given() throws {
        let s = try Self.scratch()
        let guid = "{0a1b2c3d-4E5F-6789-ABCD-ef0123456789}"
        let result = try s.service.addFeature(table: "sites", geometry: Self.location, crs: nil, values: [("GlobalID", guid)], command: "test")
        #expect(try s.feature("sites", result.fid).attributes["GlobalID"] == .text(guid))
    }

    @Test("a GlobalID that is not a GUID in braces is refused, on add and set, and nothing is written", arguments: [
        "abc", "0A1B2C3D-4E5F-6789-ABCD-EF0123456789", "{0A1B2C3D-4E5F-6789-ABCD-EF012345678}", "{0A1B2C3D-4E5F-6789-ABCD-EF012345678G}",
    ])
    func refused(text: String) throws {
        let s = try Self.scratch()
        let reason = "a GlobalID is a GUID in braces, {XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX} (hexadecimal digits)"
        let add = try s.expectUnchanged(by: {
            _ = try s.service.addFeature(table: "sites", geometry: Self.location, crs: nil, values: [("GlobalID", text)], command: "test")
        }, throws: EditError.self)
        #expect(add == .invalidValue(table: "sites", field: "GlobalID", value: text, reason: reason))
        let made = try s.service.addFeature(table: "sites", geometry: Self.location, crs: nil, values: [], command: "test")
        let set = try s.expectUnchanged(by: {
            _ = try s.service.setFields(table: "sites", fid: made.fid, values: [("GlobalID", text)], command: "test")
        }, throws: EditError.self)
        #expect(set == .invalidValue(table: "sites", field: "GlobalID", value: text, reason: reason))
    }

    @Test("a table without a GlobalID gets none")
    func noColumn() throws {
        let s = try Self.scratch()
        let result = try s.service.addFeature(table: "address_points", geometry: Self.location, crs: nil,
                                              values: [("AD_ADDRESS", "1"), ("ST_STR_NAM", "ANY")], command: "test")
        #expect(result.fields.map(\.name) == ["AD_ADDRESS", "ST_STR_NAM"])
    }
}
