import AnnoLinkTestSupport
import Foundation
import Testing

/// The map editor's reticle and vertex tools (docs/editor.md, "Sketching") in a real browser:
/// Debian's headless Chromium driven by Selenium against a real `annolink serve` on the Loudoun
/// import. The geometry the browser saves is compared, byte for byte, with what
/// `annolink sketch` saves for the same presses on a copy of the file.
@Suite("Map editor sketch tools in a browser", .serialized)
struct MapEditorSketchTests {
    /// The geometry-editor sample's reticle workflow, pressed in the page: a new polyline, three
    /// points inserted by dragging the map under the reticle, the middle one picked up and
    /// dropped, undo, redo, save. Prints what it saw as JSON. Arguments: the server's URL and
    /// the map point to start at.
    static let script = Browser.script("sketch_reticle.py")

    @Test("the reticle workflow: new line, three points by panning, pick up and drop the middle one, undo, redo, save — as annolink sketch saves it")
    func reticleWorkflow() throws {
        guard let path = try Harness.importLoudoun() else { return }
        // The same file for the command line, copied before the server opens it.
        let copy = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("cli.gpkg").path
        try Harness.copyDatabase(path, to: copy)
        let server = try ServeProcess(file: path, arguments: ["--quiet"])
        defer { _ = server.stop() }
        let linesBefore = try Harness.sqlite(path, "SELECT count(*) FROM ParcelLines_1")
        // Where SketchTests draws its building, north-west in the data.
        let shot = try Harness.temporaryDirectory().appendingPathComponent("editor-sketch.png").path
        let result = try Harness.run(try Harness.venvTool("python"), [Self.script, server.url, "11789200", "7057600", shot])
        try #require(result.status == 0, "\(result.stderr)")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])

        #expect(seen["severe"] as? [String] == [], "console errors")
        #expect(seen["errors"] as? String == "", "errors shown on the page")
        let presses = try #require(seen["presses"] as? [[String: Any]])
        try #require(presses.count == 5)
        // The button said what it would do, and the reticle showed the hover and the pick-up.
        #expect(presses.map { $0["label"] as? String } == ["Insert point", "Insert point", "Insert point", "Pick up point", "Drop point"])
        #expect(presses[3]["reticleClass"] as? String == "hovering")
        #expect(presses[4]["reticleClass"] as? String == "carrying")
        let hover = try #require(seen["hoverFeedback"] as? [String: Any])
        #expect((hover["hovered"] as? [String])?.first?.contains("sketch-vertex") == true, "the hovered vertex is drawn larger: \(hover)")
        let carrying = try #require(seen["carrying"] as? [String: Any])
        #expect((carrying["pickedUp"] as? [String: Any])?["description"] as? String == "vertex 1 of part 0")

        // The map moved under the reticle: each insert where the drags put it.
        let centres = presses.compactMap { $0["center"] as? [Double] }
        let feetPerPixel = 1200 * 0.0254 / 96 / (1200.0 / 3937.0)
        #expect(centres[1][0] - centres[0][0] > 50 * feetPerPixel, "\(centres)")
        #expect(centres[1][1] - centres[2][1] > 50 * feetPerPixel, "\(centres)")
        #expect(hypot(centres[3][0] - centres[1][0], centres[3][1] - centres[1][1]) < 5 * feetPerPixel, "back over the middle vertex")
        let dropped = try #require(seen["afterDrop"] as? [[[Double]]])
        #expect(dropped[0].count == 3 && dropped[0][1] == centres[4] && dropped[0][0] == centres[0] && dropped[0][2] == centres[2])
        let undone = try #require(seen["afterUndo"] as? [String: Any])
        #expect((undone["parts"] as? [[[Double]]])?[0][1] == centres[3], "undo put the middle vertex back")
        #expect(undone["redoEnabled"] as? Bool == true)
        #expect((seen["afterRedo"] as? [String: Any])?["parts"] as? [[[Double]]] == dropped)

        // Saved through the edit service: one feature, one journal entry, its length label made.
        let saved = try #require(seen["saved"] as? [String: Any])
        let fid = try #require(saved["fid"] as? Int)
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM ParcelLines_1") == String(Int(linesBefore)! + 1))
        #expect(try Harness.sqlite(path, "SELECT command FROM annolink_journal") == "serve sketch save")
        // The fields typed before the save: the refusal first, then the values in the file.
        let names = try #require(seen["fieldNames"] as? [String])
        #expect(names.contains("LEFT_FID") && names.contains("created_date") && !names.contains("GlobalID") && !names.contains("fid"), "\(names)")
        #expect((seen["fieldError"] as? String)?.contains("LEFT_FID: '12.5' is not a whole number") == true, "\(seen["fieldError"] ?? "")")
        #expect(seen["openAfterRefusal"] as? Bool == true)
        #expect(seen["fieldsFolded"] as? Bool == true, "the fields are folded away until opened")
        #expect(try Harness.sqlite(path, "SELECT LEFT_FID, created_date, RIGHT_FID IS NULL, GlobalID LIKE '{%}' FROM ParcelLines_1 WHERE fid = \(fid)")
            == "4242|2026-12-01T10:20:30.000Z|1|1")
        #expect(seen["fieldsAfterSave"] as? Int == 0)
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM ParcelLinesAnno_1 WHERE FeatureID = \(fid)") == "1")
        #expect((seen["message"] as? String)?.hasPrefix("saved: added ParcelLines_1 \(fid)") == true)

        // The same presses through `annolink sketch`: each `button` in the view the page pressed in.
        let size = "\(Int(presses[0]["width"] as? Double ?? 0)),\(Int(presses[0]["height"] as? Double ?? 0))"
        var lines = ["new ParcelLines_1"]
        for press in presses { lines += [try #require(press["command"] as? String), "button"] }
        lines += ["undo", "redo", "save GlobalID={00000000-0000-0000-0000-0000000000AB}", "quit"]
        let scriptFile = URL(fileURLWithPath: copy).deletingLastPathComponent().appendingPathComponent("workflow.sketch").path
        try lines.joined(separator: "\n").write(toFile: scriptFile, atomically: true, encoding: .utf8)
        let cli = try Harness.annolink("sketch", copy, "--size", size, "--script", scriptFile)
        try #require(cli.status == 0, "\(cli.stderr)")
        let cliLabels = cli.stdout.split(separator: "\n").compactMap { line in
            ["Insert point", "Pick up point", "Drop point"].first { line.hasPrefix($0 + ":") }
        }
        #expect(cliLabels == presses.compactMap { $0["label"] as? String }, "the CLI's button said the same")
        let browserBytes = try Harness.sqlite(path, "SELECT hex(geom) FROM ParcelLines_1 WHERE fid = \(fid)")
        let cliBytes = try Harness.sqlite(copy, "SELECT hex(geom) FROM ParcelLines_1 WHERE fid = (SELECT max(fid) FROM ParcelLines_1)")
        #expect(!browserBytes.isEmpty && browserBytes == cliBytes, "browser \(browserBytes) vs CLI \(cliBytes)")
        #expect(try Harness.sqlite(path, "SELECT TextString FROM ParcelLinesAnno_1 WHERE FeatureID = \(fid)")
            == Harness.sqlite(copy, "SELECT TextString FROM ParcelLinesAnno_1 WHERE FeatureID = (SELECT max(fid) FROM ParcelLines_1)"))
        let png = try Data(contentsOf: URL(fileURLWithPath: shot))
        #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        if let keep = ProcessInfo.processInfo.environment["ANNOLINK_SKETCH_SCREENSHOT"] {
            try? FileManager.default.removeItem(atPath: keep)
            try FileManager.default.copyItem(atPath: shot, toPath: keep)
        }
    }

    /// The vertex tool in the page: Edit shape on a two-point parcel line, a tap on it, the
    /// Vertex tool, its end dragged, its mid-vertex dragged out, Delete vertex, Undo, Save.
    /// Argument: the server's URL.
    static let vertexScript = Browser.script("sketch_vertex.py")

    @Test("the vertex tool: edit a parcel line's shape by dragging its end and a mid-vertex; delete, undo, save; the length label follows")
    func vertexTool() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let server = try ServeProcess(file: path, arguments: ["--quiet"])
        defer { _ = server.stop() }
        let checkBefore = try Harness.annolink("check", path).stdout
        let result = try Harness.run(try Harness.venvTool("python"), [Self.vertexScript, server.url])
        try #require(result.status == 0, "\(result.stderr)")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(seen["severe"] as? [String] == [], "console errors")
        #expect(seen["errors"] as? String == "", "errors shown on the page")
        let fid = try #require(seen["fid"] as? Int)
        let line = try #require(seen["path"] as? [[Double]])
        let session = try #require(seen["session"] as? [String: Any])
        #expect(session["table"] as? String == "ParcelLines_1" && session["fid"] as? Int == fid, "the tap chose the line: \(session)")
        #expect(seen["tool"] as? String == "vertex" && seen["reticleHidden"] as? String == "true")
        let u = try #require(seen["unitsPerPixel"] as? Double)
        // The end went 40 px right; the mid-vertex became a vertex 30 px below the middle (within
        // the pixels Selenium rounds the press to).
        let end = try #require((seen["afterEndDrag"] as? [[[Double]]])?.first)
        #expect(end.count == 2 && end[0] == line[0])
        #expect(hypot(end[1][0] - (line[1][0] + 40 * u), end[1][1] - line[1][1]) < 2 * u, "\(end[1]) vs \(line[1])")
        let mid = try #require(seen["afterMidDrag"] as? [String: Any])
        let three = try #require((mid["parts"] as? [[[Double]]])?.first)
        try #require(three.count == 3)
        let middle = [(end[0][0] + end[1][0]) / 2, (end[0][1] + end[1][1]) / 2]
        #expect(hypot(three[1][0] - middle[0], three[1][1] - (middle[1] - 30 * u)) < 3 * u, "\(three[1]) vs \(middle)")
        #expect((mid["selected"] as? [String: Any])?["description"] as? String == "vertex 1 of part 0")
        #expect((seen["afterDelete"] as? [[[Double]]])?.first?.count == 2)
        #expect((seen["afterUndo"] as? [[[Double]]])?.first == three)

        // Saved as the feature's new shape: the file holds it, its label is regenerated and drawn.
        let saved = try #require(seen["saved"] as? [String: Any])
        #expect(saved["edit"] as? String == "reshape" && saved["fid"] as? Int == fid)
        let shown = try Harness.annolink("show", path, "ParcelLines_1", String(fid), "--json")
        let geometry = (try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])?["geometry"] as? [String: Any]
        #expect(geometry?["coordinates"] as? [[Double]] == three)
        let label = try Harness.sqlite(path, "SELECT TextString FROM ParcelLinesAnno_1 WHERE FeatureID = \(fid)")
        #expect(seen["label"] as? String == label)
        let old = ((saved["annotation"] as? [[String: Any]])?.first?["oldText"] as? String) ?? ""
        #expect(label != old && !label.isEmpty, "the length label follows: \(old) -> \(label)")
        #expect(try Harness.sqlite(path, "SELECT count(*) || command FROM annolink_journal") == "1serve sketch save")
        #expect(try Harness.annolink("check", path).stdout == checkBefore)
    }
}
