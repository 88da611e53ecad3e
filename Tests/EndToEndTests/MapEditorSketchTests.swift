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
    static let script = #"""
    import json, math, sys, time
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    \#(Browser.chromium)
    \#(Browser.page)
    \#(Browser.sketch)

    base, x0, y0, shot = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    d = chromium(1280, 800)
    out = {"presses": [], "labels": [], "feedback": []}
    def press():
        # The reticle button: what its label said, and the view the press was made in.
        label = d.find_element(By.ID, "sketch-button").text
        reticle = d.find_element(By.ID, "sketch-reticle").get_attribute("class")
        answered(lambda: d.find_element(By.ID, "sketch-button").click())
        s = state()
        out["presses"].append({"label": label, "reticleClass": reticle, "center": s["view"]["center"], "scale": s["view"]["scale"],
                               "width": s["view"]["width"], "height": s["view"]["height"],
                               # The view as `annolink sketch` takes it, each number in Python's shortest exact form.
                               "command": "view %r,%r %r" % (float(s["view"]["center"][0]), float(s["view"]["center"][1]), float(s["view"]["scale"]))})
        out["labels"].append(d.find_element(By.ID, "sketch-button").text)
    mapElement = None
    def pan(dx, dy):
        # Drags the map so that the reticle goes dx pixels right and dy down over it.
        # In steps with pauses, as a hand moves: Leaflet draws a drag's moves on animation frames.
        def drag():
            chain = ActionChains(d).move_to_element(mapElement).click_and_hold().pause(0.1)
            for _ in range(4):
                chain = chain.move_by_offset(-dx / 4, -dy / 4).pause(0.1)
            chain.pause(0.2).release().perform()
        answered(drag)
    try:
        wait = WebDriverWait(d, 30)
        d.get(base + "/")
        wait.until(lambda d: "in view" in d.find_element(By.ID, "status").text)
        mapElement = d.find_element(By.ID, "map")
        zoom = -math.log2(1200 * 0.0254 / 96 / (1200 / 3937))
        seen = int(body("data-views") or 0)
        d.execute_script("annolinkMap.setView([%r,%r], %r, {animate: false})" % (y0, x0, zoom))
        wait.until(lambda d: int(body("data-views") or 0) > seen and idle())
        from selenium.webdriver.support.ui import Select
        Select(d.find_element(By.ID, "sketch-layer")).select_by_value("ParcelLines_1")
        answered(lambda: d.find_element(By.ID, "sketch-new-polyline").click())
        out["start"] = state()
        press()            # Insert point
        pan(100, 0)
        press()            # Insert point
        pan(0, 100)
        press()            # Insert point
        pan(0, -100)       # back over the middle vertex
        out["hoverFeedback"] = {"label": d.find_element(By.ID, "sketch-button").text,
                                "reticle": d.find_element(By.ID, "sketch-reticle").get_attribute("class"),
                                "hovered": d.execute_script("return [...document.querySelectorAll('path.sketch-hovered')].map(p => p.getAttribute('class'))")}
        press()            # Pick up point
        out["carrying"] = {"reticle": d.find_element(By.ID, "sketch-reticle").get_attribute("class"), "pickedUp": state()["pickedUp"]}
        pan(30, 30)
        out["preview"] = state()["preview"]
        d.save_screenshot(shot)
        press()            # Drop point
        out["afterDrop"] = state()["parts"]
        answered(lambda: d.find_element(By.ID, "sketch-undo").click())
        out["afterUndo"] = {"parts": state()["parts"], "canRedo": state()["canRedo"], "redoEnabled": d.find_element(By.ID, "sketch-redo").is_enabled()}
        answered(lambda: d.find_element(By.ID, "sketch-redo").click())
        out["afterRedo"] = {"parts": state()["parts"], "canRedo": state()["canRedo"]}
        # The new feature's fields: a value that does not fit is refused on the page and nothing
        # is saved; then a whole number and a date go with the save.
        out["fieldNames"] = [i.get_attribute("name") for i in d.find_elements(By.CSS_SELECTOR, "#sketch-fields input")]
        out["fieldsFolded"] = not d.find_element(By.ID, "sketch-field-LEFT_FID").is_displayed()
        d.find_element(By.ID, "sketch-fields-open").click()
        left = d.find_element(By.ID, "sketch-field-LEFT_FID")
        left.send_keys("12.5")
        d.find_element(By.ID, "sketch-save").click()
        wait.until(lambda d: d.find_element(By.ID, "errors").text.strip())
        out["fieldError"] = d.find_element(By.ID, "errors").text
        out["openAfterRefusal"] = state() is not None and not body("data-sketch-saved")
        d.find_element(By.CSS_SELECTOR, "#errors button").click()
        left.clear(); left.send_keys("4242")
        d.find_element(By.ID, "sketch-field-created_date").send_keys("2026-12-01T10:20:30Z")
        d.find_element(By.ID, "sketch-save").click()
        wait.until(lambda d: body("data-sketch-saved"))
        wait.until(lambda d: idle())
        out["saved"] = json.loads(body("data-sketch-saved"))
        out["fieldsAfterSave"] = len(d.find_elements(By.CSS_SELECTOR, "#sketch-fields input"))
        out["message"] = d.find_element(By.ID, "message").text
        out["errors"] = d.find_element(By.ID, "errors").text
        out["severe"] = [entry["message"] for entry in d.get_log("browser") if entry["level"] == "SEVERE"]
    finally:
        d.quit()
    print(json.dumps(out))
    """#

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
        let result = try Harness.run(try Harness.venvTool("python"), ["-c", Self.script, server.url, "11789200", "7057600", shot])
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
    static let vertexScript = #"""
    import json, math, sys, time, urllib.request
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    \#(Browser.chromium)
    \#(Browser.page)
    \#(Browser.sketch)

    base = sys.argv[1]
    service = base + "/arcgis/rest/services/loudoun/FeatureServer"
    d = chromium(1280, 800)
    out = {}
    def drag(selector, dx, dy):
        # Presses on a drawn vertex and moves in steps with pauses, as a hand does.
        target = d.find_element(By.CSS_SELECTOR, selector)
        def act():
            chain = ActionChains(d).move_to_element(target).click_and_hold().pause(0.1)
            for _ in range(4):
                chain = chain.move_by_offset(dx / 4, dy / 4).pause(0.1)
            chain.pause(0.2).release().perform()
        answered(act)
    try:
        wait = WebDriverWait(d, 30)
        d.get(base + "/")
        wait.until(lambda d: "in view" in d.find_element(By.ID, "status").text)
        # A two-point parcel line with a length label, with no other point or line within 15 ft of its middle.
        kinds = {l["id"]: l["geometryType"] for l in get(service + "?f=json")["layers"]}
        def alone(x, y):
            return sum(get(service + "/%d/query?geometry=%r,%r&geometryType=esriGeometryPoint&distance=15&returnCountOnly=true&f=json" % (i, x, y))["count"]
                       for i, k in kinds.items() if k in ("esriGeometryPoint", "esriGeometryPolyline") and i < 6) == 1
        labelled = {f["attributes"]["FeatureID"] for f in get(service + "/7/query?where=1%3D1&outFields=FeatureID&returnGeometry=false&f=json")["features"]}
        for f in get(service + "/5/query?where=1%3D1&outFields=fid&orderByFields=fid&returnGeometry=true&f=json")["features"]:
            path = f["geometry"]["paths"][0]
            m = [(path[0][0] + path[1][0]) / 2, (path[0][1] + path[1][1]) / 2]
            if len(f["geometry"]["paths"]) == 1 and len(path) == 2 and f["attributes"]["fid"] in labelled and alone(*m):
                out["fid"], out["path"] = f["attributes"]["fid"], path
                break
        zoom = -math.log2(1200 * 0.0254 / 96 / (1200 / 3937))
        seen = int(body("data-views") or 0)
        d.execute_script("annolinkMap.setView([%r,%r], %r, {animate: false})" % (m[1], m[0], zoom))
        wait.until(lambda d: int(body("data-views") or 0) > seen and idle())
        # Edit shape, then a tap on the line: a session on that feature.
        d.find_element(By.ID, "sketch-edit").click()
        answered(lambda: ActionChains(d).move_to_element(d.find_element(By.ID, "map")).click().perform())
        s = state()
        out["session"] = {"table": s["table"], "fid": s["fid"], "parts": s["parts"], "tool": s["tool"]}
        answered(lambda: d.find_element(By.ID, "sketch-tool-vertex").click())
        out["tool"] = state()["tool"]
        out["reticleHidden"] = d.find_element(By.ID, "sketch-reticle").get_attribute("hidden")
        # Drag the line's end 40 px right, then its mid-vertex 30 px down.
        drag('path.sketch-vertex[data-vertex="1"]', 40, 0)
        out["afterEndDrag"] = state()["parts"]
        out["unitsPerPixel"] = d.execute_script("return Math.pow(2, -annolinkMap.getZoom())")
        drag('path.sketch-midVertex[data-segment="0"]', 0, 30)
        out["afterMidDrag"] = {"parts": state()["parts"], "selected": state()["selected"]}
        answered(lambda: d.find_element(By.ID, "sketch-delete").click())
        out["afterDelete"] = state()["parts"]
        answered(lambda: d.find_element(By.ID, "sketch-undo").click())
        out["afterUndo"] = state()["parts"]
        d.find_element(By.ID, "sketch-save").click()
        wait.until(lambda d: body("data-sketch-saved"))
        wait.until(lambda d: idle())
        out["saved"] = json.loads(body("data-sketch-saved"))
        def shown():
            found = d.find_elements(By.CSS_SELECTOR, 'text[data-layer="ParcelLinesAnno_1"][data-feature-id="%d"]' % out["fid"])
            return found[0].text if found else None
        # The view is drawn again after the save; on a busy machine that can come after idle().
        expected = ((out["saved"].get("annotation") or [{}])[0]).get("newText")
        try:
            wait.until(lambda d: shown() == expected)
        except Exception:
            pass
        out["label"] = shown()
        out["errors"] = d.find_element(By.ID, "errors").text
        out["severe"] = [entry["message"] for entry in d.get_log("browser") if entry["level"] == "SEVERE"]
    finally:
        d.quit()
    print(json.dumps(out))
    """#

    @Test("the vertex tool: edit a parcel line's shape by dragging its end and a mid-vertex; delete, undo, save; the length label follows")
    func vertexTool() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let server = try ServeProcess(file: path, arguments: ["--quiet"])
        defer { _ = server.stop() }
        let checkBefore = try Harness.annolink("check", path).stdout
        let result = try Harness.run(try Harness.venvTool("python"), ["-c", Self.vertexScript, server.url])
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
