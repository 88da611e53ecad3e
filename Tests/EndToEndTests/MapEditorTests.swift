import AnnoLinkTestSupport
import Foundation
import Testing

/// The map editor page of `annolink serve` (docs/editor.md) in a real browser: Debian's
/// headless Chromium driven by Selenium (PyPI, in the venv of scripts/test-venv) against a real
/// server on the Loudoun import. What the page shows is compared with what the file holds.
@Suite("Map editor in a browser", .serialized)
struct MapEditorTests {
    /// Drives the page through Esri's feature-linked annotation workflow and prints what it saw
    /// as JSON. Arguments: the server's URL, the screenshot's path.
    static let script = Browser.script("editor_workflow.py")

    @Test("Esri's workflow on Loudoun: labels drawn, tap 831, change AD_ADDRESS, refused value shown, move")
    func esriWorkflow() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let server = try ServeProcess(file: path, arguments: ["--quiet"])
        defer { _ = server.stop() }
        let anno = "Loudoun_Address_PointsAnno_1"
        let before = try Harness.sqlite(path, "SELECT TextString, AnchorX, AnchorY FROM \(anno) WHERE FeatureID = 831").split(separator: "|")
        // A creation date to show (Loudoun's are empty).
        try Harness.gdalSQL(path, "UPDATE Loudoun_Address_Points_1 SET created_date = '2019-06-14T13:45:10.250Z' WHERE fid = 831")
        // Loudoun as imported has findings (stale placements of Esri's own labels); the edits add none.
        let checkBefore = try Harness.annolink("check", path).stdout
        let shot = try Harness.temporaryDirectory().appendingPathComponent("editor.png").path
        let result = try Harness.run(try Harness.venvTool("python"), [Self.script, server.url, shot])
        try #require(result.status == 0, "\(result.stderr)")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])

        #expect(seen["severe"] as? [String] == [], "console errors")
        #expect(seen["addressLabels"] as? Int == 33)
        #expect(seen["labelsInside"] as? Bool == true)
        #expect(seen["scale"] as? String == "1200")
        #expect(seen["typedScale"] as? String == "1200")
        let extentScales = seen["fullExtentScale"] as? [String] ?? []
        #expect(extentScales.count == 2 && extentScales[0] == extentScales[1] && extentScales[0] != "1200", "\(extentScales)")
        #expect(seen["popupAnnotation"] as? String == String(before[0]))
        #expect(seen["popupAddress"] as? String == "45763")

        // The file holds the edit and the regenerated label; the page draws what the file says.
        #expect(try Harness.sqlite(path, "SELECT AD_ADDRESS FROM Loudoun_Address_Points_1 WHERE fid = 831") == "45999")
        #expect(try Harness.sqlite(path, "SELECT TextString FROM \(anno) WHERE FeatureID = 831") == "45999 ELMWOOD")
        #expect(seen["labelAfterUpdate"] as? String == "45999 ELMWOOD")
        #expect(seen["popupAfterUpdate"] as? String == "45999 ELMWOOD")
        let centre = try #require(seen["labelCentre"] as? [Double])
        let anchorX = try #require(Double(before[1]))
        // Centred text (HorizontalAlignment 1, Angle 0): the middle of its box is over AnchorX.
        #expect(abs(centre[0] - anchorX) <= 2 * centre[2], "label centre \(centre[0]) vs AnchorX \(anchorX)")

        #expect((seen["error"] as? String)?.contains("AD_ADDRESS: '12.5' is not a whole number") == true, "\(seen["error"] ?? "")")

        // Dates as ISO 8601 in UTC both ways; the file holds the typed instant as GeoPackage writes one.
        #expect(seen["createdShown"] as? String == "2019-06-14T13:45:10.250Z")
        #expect(seen["editedServed"] as? Int == 1_796_120_430_000)
        #expect(try Harness.sqlite(path, "SELECT last_edited_date FROM Loudoun_Address_Points_1 WHERE fid = 831") == "2026-12-01T10:20:30.000Z")
        #expect((seen["dateError"] as? String)?.contains("last_edited_date: '2026-02-30' is not a date") == true, "\(seen["dateError"] ?? "")")

        // The point went where the tap was, and its label with it: carried by the step, or, where
        // that lands on another label, placed around the point (within a label's width of it).
        let point = try #require(seen["point"] as? [Double]), target = try #require(seen["target"] as? [Double])
        let after = try Harness.sqlite(path, "SELECT AnchorX, AnchorY FROM \(anno) WHERE FeatureID = 831").split(separator: "|").compactMap { Double($0) }
        let anchorY = try #require(Double(before[2]))
        #expect(seen["message"] as? String == "moved Loudoun_Address_Points_1 831")
        #expect(abs(after[0] - (anchorX + target[0] - point[0])) < 120)
        #expect(abs(after[1] - (anchorY + target[1] - point[1])) < 30)
        #expect(abs(target[0] - point[0]) > 10)
        let drawn = try #require(seen["anchorAfterMove"] as? [Double])
        #expect(abs(drawn[0] - after[0]) < 1e-6 && abs(drawn[1] - after[1]) < 1e-6, "page anchor \(drawn) vs file \(after)")
        // The two-point parcel line ends at the tap, and its length label says its new length.
        let line = try #require(seen["line"] as? [String: Any])
        let fid = try #require(line["fid"] as? Int), first = try #require(line["first"] as? [Double])
        let lineTarget = try #require(line["target"] as? [Double])
        let stored = try #require(line["stored"] as? [[[Double]]])
        try #require(stored.count == 1 && stored[0].count == 2)
        #expect(stored[0][0] == first)
        // Within the pixel Selenium rounds the tap to (about 1 ft at 1:1200).
        #expect(hypot(stored[0][1][0] - lineTarget[0], stored[0][1][1] - lineTarget[1]) < 1.5)
        let lengthText = try Harness.sqlite(path, "SELECT TextString FROM ParcelLinesAnno_1 WHERE FeatureID = \(fid)")
        // Esri's expression gives the length in international feet; the CRS is in US survey feet.
        let length = hypot(stored[0][1][0] - first[0], stored[0][1][1] - first[1]) * (1200.0 / 3937.0) / 0.3048
        #expect(abs((Double(lengthText) ?? 0) - length) < 0.006, "label \(lengthText) for a line of \(length)")
        #expect(line["label"] as? String == lengthText)
        #expect(line["popupAnnotation"] as? String != lengthText)
        let multi = try #require(seen["multi"] as? [String: Any])
        #expect(multi["moveButtons"] as? [String] == [], "Move end offered on a line of more segments: \(multi)")
        #expect((multi["buttons"] as? [String])?.contains("Update") == true, "\(multi)")

        #expect(try Harness.annolink("check", path).stdout == checkBefore)
        let png = try Data(contentsOf: URL(fileURLWithPath: shot))
        #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        if let keep = ProcessInfo.processInfo.environment["ANNOLINK_EDITOR_SCREENSHOT"] {
            try? FileManager.default.removeItem(atPath: keep)
            try FileManager.default.copyItem(atPath: shot, toPath: keep)
        }
    }
}
