import AnnoLinkTestSupport
import Foundation
import Testing

/// The map editor's sketch tools on a phone (docs/editor.md, "On a phone, by touch and by keyboard"): Debian's
/// headless Chromium at 390 × 844 CSS pixels with touch emulation (the DevTools protocol's
/// `Emulation.setDeviceMetricsOverride` and `Emulation.setTouchEmulationEnabled`), every
/// gesture a real touch sequence (`Input.dispatchTouchEvent`: start, moves, end), against a
/// real `annolink serve`. The layout is measured, the keyboard path is walked, and the saved
/// geometry is read back from the file.
@Suite("Map editor sketch tools on a phone, by touch and keyboard", .serialized)
struct MapEditorSketchPhoneTests {
    /// A new parcel line by touch and keyboard: New line and the reticle button tapped, the map
    /// dragged by a finger under the reticle, the third point inserted with Enter on the map
    /// (reached with Tab), the button then pressed with Space (Pick up point), the vertex
    /// carried by a finger and dropped with a tap; then the Vertex tool, a vertex and a
    /// mid-vertex dragged by a finger, Delete on the map, Undo tapped, Save tapped. Prints what it saw as JSON. Arguments: the
    /// server's URL, the map point to start at, the screenshot's path.
    static let script = Browser.script("sketch_phone.py")

    @Test("at 390 × 844 with touch: a line by taps, finger pans and the keyboard; a vertex and a mid-vertex dragged by a finger; saved as drawn")
    func phoneWorkflow() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let server = try ServeProcess(file: path, arguments: ["--quiet"])
        defer { _ = server.stop() }
        let linesBefore = try Harness.sqlite(path, "SELECT count(*) FROM ParcelLines_1")
        let shot = try Harness.temporaryDirectory().appendingPathComponent("editor-sketch-phone.png").path
        let result = try Harness.run(try Harness.venvTool("python"), [Self.script, server.url, "11789200", "7057600", shot])
        try #require(result.status == 0, "\(result.stderr)")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(seen["severe"] as? [String] == [], "console errors")
        #expect(seen["errors"] as? String == "", "errors shown on the page")
        // The page believed it was on a touch screen.
        let touchScreen = try #require(seen["touchScreen"] as? [Any])
        #expect((touchScreen[0] as? Int ?? 0) > 0 && touchScreen[1] as? Bool == true && touchScreen[2] as? Bool == true, "\(touchScreen)")

        // The toolbar fits: every control inside 390 × 844, none covered, at least 40 px high, and
        // the crosshair clear of it, in each state the workflow passed through.
        let layouts = try #require(seen["layout"] as? [String: [String: Any]])
        for name in ["start", "reticle", "carrying", "vertex"] {
            let layout = try #require(layouts[name], "no layout \(name)")
            #expect(layout["viewport"] as? [Double] == [390, 844], "\(name): \(layout)")
            #expect(layout["problems"] as? [String] == [], "\(name): \(layout)")
            #expect(layout["reticleCovered"] as? Bool == false, "\(name): \(layout)")
        }
        #expect((layouts["reticle"]?["controls"] as? [String])?.contains("sketch-button") == true)
        #expect(layouts["reticle"]?["reticle"] is [Double], "the crosshair is shown in the reticle tool")

        // The button said what each press would do; taps, Enter and Space pressed it.
        #expect(seen["labels"] as? [String] == ["Insert point", "Insert point", "Insert point", "Pick up point", "Drop point"])
        #expect(seen["tabsToMap"] is Int && seen["tabsToButton"] is Int, "Tab reaches the map and the reticle button")
        #expect(seen["focusOutline"] as? [String] == ["solid", "3px"], "the focused button is outlined")
        #expect(seen["mapFocusOutline"] as? [String] == ["solid", "3px"], "the focused map is outlined in the reticle tool")
        #expect(seen["reticleClass"] as? String == "carrying")
        #expect((seen["pickedUp"] as? [String: Any])?["description"] as? String == "vertex 2 of part 0")

        // Each press at the reticle, which the finger pans moved over the map (80 px right, 80 px
        // down, 20 px right and down: the map starts to follow a finger once it has moved a few
        // pixels, so the distances are at least most of that).
        let u = try #require(seen["unitsPerPixel"] as? Double)
        let start = try #require((seen["start"] as? [String: Any])?["center"] as? [Double])
        let centres = try #require(seen["centres"] as? [[Double]])
        try #require(centres.count == 5, "\(centres)")
        let inserted = try #require((seen["afterInserts"] as? [[[Double]]])?.first)
        #expect(inserted == Array(centres[0...2]), "each vertex inserted at the reticle: \(inserted) vs \(centres)")
        #expect(centres[0] == start, "the first where the view started")
        #expect(centres[1][0] - centres[0][0] > 60 * u && abs(centres[1][1] - centres[0][1]) < 2 * u, "\(centres)")
        #expect(centres[1][1] - centres[2][1] > 60 * u && abs(centres[2][0] - centres[1][0]) < 2 * u, "\(centres)")
        #expect(centres[3] == centres[2], "picked up where it was inserted")
        #expect(centres[4][0] - centres[3][0] > 10 * u && centres[3][1] - centres[4][1] > 10 * u, "\(centres)")
        let dropped = try #require((seen["afterDrop"] as? [[[Double]]])?.first)
        #expect(dropped == [inserted[0], inserted[1], centres[4]], "dropped at the reticle: \(dropped)")
        func near(_ p: [Double], _ x: Double, _ y: Double, _ pixels: Double = 3) -> Bool { hypot(p[0] - x, p[1] - y) < pixels * u }
        // The pinch zoomed in (the fingers went three times as far apart), the pinch back out
        // again, each keeping the point under the crosshair where it was.
        let views = try #require(seen["pinch"] as? [[String: Any]])
        try #require(views.count == 3)
        let scales = views.compactMap { $0["scale"] as? Double }
        #expect(scales.count == 3 && scales[1] < scales[0] / 2 && scales[2] > scales[1] * 2, "\(scales)")
        let pinchCentres = views.compactMap { $0["center"] as? [Double] }
        #expect(pinchCentres.count == 3 && pinchCentres.allSatisfy { hypot($0[0] - pinchCentres[0][0], $0[1] - pinchCentres[0][1]) < u },
                "\(pinchCentres)")
        // The finger drags in the vertex tool: the first vertex 40 px left, then the first
        // segment's mid-vertex a new vertex 30 px above the segment's middle.
        let dragged = try #require((seen["afterVertexDrag"] as? [[[Double]]])?.first)
        #expect(dragged.count == 3 && near(dragged[0], dropped[0][0] - 40 * u, dropped[0][1]), "\(dragged[0]) vs \(dropped[0])")
        #expect(Array(dragged[1...]) == Array(dropped[1...]))
        let mid = try #require(seen["afterMidDrag"] as? [String: Any])
        let four = try #require((mid["parts"] as? [[[Double]]])?.first)
        try #require(four.count == 4, "\(four)")
        let middle = [(dragged[0][0] + dragged[1][0]) / 2, (dragged[0][1] + dragged[1][1]) / 2]
        #expect(near(four[1], middle[0], middle[1] + 30 * u, 4), "\(four[1]) vs \(middle)")
        #expect((mid["selected"] as? [String: Any])?["description"] as? String == "vertex 1 of part 0")
        #expect((seen["afterDelete"] as? [[[Double]]])?.first == [four[0]] + Array(four[2...]), "Delete on the map deleted vertex 1")
        #expect((seen["beforeSave"] as? [[[Double]]])?.first == four, "Undo put it back")

        // Saved by a tap: the file holds the line the page showed, one feature, one journal entry.
        let saved = try #require(seen["saved"] as? [String: Any])
        let fid = try #require(saved["fid"] as? Int)
        #expect(saved["edit"] as? String == "add")
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM ParcelLines_1") == String(Int(linesBefore)! + 1))
        #expect(try Harness.sqlite(path, "SELECT count(*) || command FROM annolink_journal") == "1serve sketch save")
        let shown = try Harness.annolink("show", path, "ParcelLines_1", String(fid), "--json")
        let geometry = (try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])?["geometry"] as? [String: Any]
        #expect(geometry?["coordinates"] as? [[Double]] == (seen["beforeSave"] as? [[[Double]]])?.first, "the file holds what the page drew")
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM ParcelLinesAnno_1 WHERE FeatureID = \(fid)") == "1")

        let png = try Data(contentsOf: URL(fileURLWithPath: shot))
        #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        if let keep = ProcessInfo.processInfo.environment["ANNOLINK_SKETCH_PHONE_SCREENSHOT"] {
            try? FileManager.default.removeItem(atPath: keep)
            try FileManager.default.copyItem(atPath: shot, toPath: keep)
        }
    }
}
