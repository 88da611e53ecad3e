import AnnoLinkTestSupport
import Foundation
import Testing

/// Values an edit writes and values a read finds (issue 25, item 7): annotation display values
/// outside their ranges are refused by every front end, and the file stays as it was.
@Suite("annotation values, GlobalIDs and unreadable rows, end to end")
struct DataValueTests {
    /// Before the fix each of these was written: `AnchorX=1e308` gave a footprint at 1.6e308 and
    /// an infinite index box, after which every OGC page of the table answered 400.
    @Test("set of an annotation value outside its range exits 65 with one error line and changes nothing")
    func cliSetRefused() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let before = try Harness.dump(path, excluding: [])
        for (assignment, allowed) in [
            ("AnchorX=1e308", "AnchorX takes a number from -"), ("FontSize=-5", "FontSize takes a size in points more than 0 and at most 1000"),
            ("FontSize=0", "FontSize takes a size in points more than 0 and at most 1000"),
            ("HorizontalAlignment=99", "HorizontalAlignment takes 0 (left), 1 (center), 2 (right) or 3 (full)"),
            ("XOffset=1e308", "XOffset takes a number from -1000 to 1000 (points)"),
        ] {
            let result = try Harness.annolink("set", path, "Loudoun_Address_PointsAnno_1", "1", assignment)
            #expect(result.status == 65, "\(assignment): \(result.stderr)")
            let value = String(assignment.split(separator: "=")[1]), field = String(assignment.split(separator: "=")[0])
            #expect(result.stderrLines.count == 1, "\(result.stderr)")
            #expect(result.stderrLines.first?.hasPrefix("error: invalid value '\(value)' for Loudoun_Address_PointsAnno_1.\(field): \(allowed)") == true,
                    "\(result.stderr)")
        }
        #expect(try Harness.dump(path, excluding: []) == before)
        // A value in range is still taken.
        #expect(try Harness.annolink("set", path, "Loudoun_Address_PointsAnno_1", "1", "FontSize=12").status == 0)
        #expect(try Harness.sqlite(path, "SELECT FontSize FROM Loudoun_Address_PointsAnno_1 WHERE fid = 1") == "12.0")
    }

    @Test("a served applyEdits with FontSize 0 is refused for that edit, an OGC PATCH with XOffset 1e308 is a 400, nothing is written")
    func servedRefused() throws {
        guard let (path, server) = try Harness.serveLoudoun() else { return }
        let before = try Harness.dump(path, excluding: [])
        let layer = "/arcgis/rest/services/loudoun/FeatureServer/6"
        #expect(try server.request(layer + "?f=json").object?["name"] as? String == "Loudoun_Address_PointsAnno_1")
        let edits = try server.request(layer + "/applyEdits", method: "POST", form: [
            ("f", "json"), ("updates", #"[{"attributes":{"fid":1,"FontSize":0}},{"attributes":{"fid":2,"TextString":"KEPT BACK"}}]"#),
            ("rollbackOnFailure", "true"),
        ])
        #expect(edits.status == 200)
        let results = try #require(edits.object?["updateResults"] as? [[String: Any]])
        try #require(results.count == 2)
        #expect(results[0]["success"] as? Bool == false)
        let error = try #require(results[0]["error"] as? [String: Any])
        #expect(error["code"] as? Int == 1000)
        #expect(error["description"] as? String ==
            "invalid value '0' for Loudoun_Address_PointsAnno_1.FontSize: FontSize takes a size in points more than 0 and at most 1000")
        #expect((results[1]["error"] as? [String: Any])?["code"] as? Int == 1003)

        let patch = try server.request("/ogc/collections/Loudoun_Address_PointsAnno_1/items/1", method: "PATCH",
                                       headers: ["Content-Type": "application/merge-patch+json"], body: Data(#"{"XOffset": 1e308}"#.utf8))
        #expect(patch.status == 400, "\(patch.text)")
        #expect(patch.object?["code"] as? String == "EditRefused")
        #expect((patch.object?["description"] as? String)?.contains("Loudoun_Address_PointsAnno_1.XOffset: XOffset takes a number from -1000 to 1000") == true,
                "\(patch.text)")
        #expect(try Harness.dump(path, excluding: []) == before)
        #expect(try server.request("/ogc/collections/Loudoun_Address_PointsAnno_1/items?limit=5").status == 200)
        server.stop()
    }
}
