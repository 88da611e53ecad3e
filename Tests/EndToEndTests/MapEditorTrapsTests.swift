import AnnoLinkTestSupport
import Foundation
import Testing

/// The map editor's traps a new user found (issue 27, items 2, 3 and the editor's): the layer
/// list and what a tap identifies, tools offered by the layer's geometry, one undo in view at a
/// time while a sketch is open, the journal Undo naming what it undoes, and the idle sketch
/// toolbar clear of Full extent and the scale box on a phone. Debian's headless Chromium driven
/// by Selenium against a real `annolink serve` on the Loudoun import (docs/editor.md).
@Suite("Map editor traps in a browser", .serialized)
struct MapEditorTrapsTests {
    static let script = #"""
    import json, math, sys, time, urllib.request
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select, WebDriverWait
    \#(Browser.chromium)
    \#(Browser.page)
    \#(Browser.sketch)

    base = sys.argv[1]
    service = base + "/arcgis/rest/services/loudoun/FeatureServer"
    d = chromium(1280, 800)
    out = {}
    # When each step ended, seconds from the start: where a slow run spent its time.
    began = time.time()
    marks = out["marks"] = []
    def shown(element_id):
        found = d.find_elements(By.ID, element_id)
        return bool(found) and found[0].is_displayed()
    def offered():
        return [t for t in ("point", "polyline", "polygon") if shown("sketch-new-" + t)]
    def journal_undo():
        b = d.find_element(By.CSS_SELECTOR, '#journal-tools button[name="undo"]')
        return {"shown": b.is_displayed(), "title": b.get_attribute("title"), "enabled": b.is_enabled()}
    def undo_buttons():
        return [b.get_attribute("id") or b.get_attribute("name") for b in d.find_elements(By.TAG_NAME, "button") if b.is_displayed() and b.text == "Undo"]
    try:
        wait = WebDriverWait(d, 30)
        d.get(base + "/")
        wait.until(lambda d: "in view" in d.find_element(By.ID, "status").text)
        wait.until(lambda d: d.find_elements(By.ID, "layers"))
        layers = get(service + "?f=json")["layers"]
        ids = {l["name"]: l["id"] for l in layers}
        p = get(service + "/%d/query?objectIds=831&returnGeometry=true&f=json" % ids["Loudoun_Address_Points_1"])["features"][0]["geometry"]
        zoom = -math.log2(1200 * 0.0254 / 96 / (1200 / 3937))
        drawn_after(lambda: d.execute_script("annolinkMap.setView([%r,%r], %r, {animate: false})" % (p["y"], p["x"], zoom)))
        mapElement = d.find_element(By.ID, "map")
        def tap(x, y, dx, dy):
            c = d.execute_script("const p = annolinkMap.latLngToContainerPoint([arguments[1], arguments[0]]); return [p.x, p.y];", x, y)
            size = mapElement.size
            ActionChains(d).move_to_element_with_offset(mapElement, c[0] + dx - size["width"] / 2, c[1] + dy - size["height"] / 2).click().perform()

        # The layer list: every table, each with its checkbox.
        d.find_element(By.CSS_SELECTOR, "#layers summary").click()
        boxes = d.find_elements(By.CSS_SELECTOR, "#layers input[type=checkbox]")
        out["listed"] = sorted(b.get_attribute("data-layer") for b in boxes)
        out["tables"] = sorted(l["name"] for l in layers if l["type"] != "Annotation SubLayer")
        out["allChecked"] = all(b.is_selected() for b in boxes)
        # With every table on, a tap 6 px from 831 lists several features.
        tap(p["x"], p["y"], 6, -5)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".identify-list button") or d.find_elements(By.CSS_SELECTOR, ".leaflet-popup .feature-form"))
        out["listBefore"] = len(d.find_elements(By.CSS_SELECTOR, ".identify-list button"))
        marks.append(['listBefore', round(time.time() - began, 1)])
        d.execute_script("annolinkMap.closePopup()")
        # Only the address points left on: the others are not drawn, and the same tap opens 831's popup at once.
        for b in boxes:
            if b.get_attribute("data-layer") != "Loudoun_Address_Points_1" and b.is_selected():
                drawn_after(lambda: b.click())
        out["storedHidden"] = sorted(json.loads(d.execute_script("return localStorage.getItem('annolink.hidden.loudoun')")))
        out["drawnLabels"] = sorted(set(t.get_attribute("data-layer") for t in d.find_elements(By.CSS_SELECTOR, "#annotation text")))
        tap(p["x"], p["y"], 6, -5)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".leaflet-popup .feature-form") or d.find_elements(By.CSS_SELECTOR, ".identify-list button"))
        out["listAfter"] = len(d.find_elements(By.CSS_SELECTOR, ".identify-list button"))
        form = d.find_element(By.CSS_SELECTOR, ".leaflet-popup .feature-form")
        out["popupOf"] = [form.get_attribute("data-layer"), form.get_attribute("data-oid")]
        out["message"] = d.find_element(By.ID, "message").text
        # An edit of 831's AD_ADDRESS: the journal's Undo names the table, the fid and the field.
        wait.until(lambda d: settled())
        field = form.find_element(By.NAME, "AD_ADDRESS")
        field.clear(); field.send_keys("45999")
        drawn_after(lambda: form.find_element(By.NAME, "update").click())
        wait.until(lambda d: "AD_ADDRESS" in journal_undo()["title"])
        out["undoAfterUpdate"] = journal_undo()
        marks.append(['undoAfterUpdate', round(time.time() - began, 1)])
        # The hidden layers are remembered across a reload.
        d.get(base + "/")
        wait.until(lambda d: "in view" in d.find_element(By.ID, "status").text)
        wait.until(lambda d: d.find_elements(By.ID, "layers"))
        out["checkedAfterReload"] = sorted(b.get_attribute("data-layer") for b in d.find_elements(By.CSS_SELECTOR, "#layers input[type=checkbox]") if b.is_selected())
        d.execute_script("localStorage.removeItem('annolink.hidden.loudoun')")
        d.get(base + "/")
        wait.until(lambda d: "in view" in d.find_element(By.ID, "status").text)
        drawn_after(lambda: d.execute_script("annolinkMap.setView([%r,%r], %r, {animate: false})" % (p["y"] + 150, p["x"] + 150, zoom)))

        # Tools by geometry: a point layer offers New point only; a line layer New line only.
        layer = Select(d.find_element(By.ID, "sketch-layer"))
        layer.select_by_value("Loudoun_Address_Points_1")
        out["offeredPoints"] = offered()
        marks.append(['offeredPoints', round(time.time() - began, 1)])
        layer.select_by_value("ParcelLines_1")
        out["offeredLines"] = offered()
        layer.select_by_value("Loudoun_Buildings_1")
        out["offeredPolygons"] = offered()

        # The trap: add a point and Save; then New line in ParcelLines_1, Insert point, Ctrl+Z on the map.
        layer.select_by_value("Loudoun_Address_Points_1")
        answered(lambda: d.find_element(By.ID, "sketch-new-point").click())
        answered(lambda: d.find_element(By.ID, "sketch-button").click())
        d.find_element(By.ID, "sketch-save").click()
        wait.until(lambda d: body("data-sketch-saved"))
        wait.until(lambda d: idle() and settled())
        out["saved"] = json.loads(body("data-sketch-saved"))
        wait.until(lambda d: journal_undo()["enabled"] and "add" in journal_undo()["title"])
        out["journalUndoIdle"] = journal_undo()
        marks.append(['journalUndoIdle', round(time.time() - began, 1)])
        layer.select_by_value("ParcelLines_1")
        answered(lambda: d.find_element(By.ID, "sketch-new-polyline").click())
        answered(lambda: d.find_element(By.ID, "sketch-button").click())
        out["sketchBefore"] = state()["parts"]
        out["journalBefore"] = get(base + "/journal")
        out["undoButtonsSketching"] = undo_buttons()
        out["journalUndoSketching"] = journal_undo()
        d.execute_script("document.getElementById('map').focus()")
        answered(lambda: ActionChains(d).key_down(Keys.CONTROL).send_keys("z").key_up(Keys.CONTROL).perform())
        out["sketchAfterUndo"] = state()["parts"]
        time.sleep(1.5)   # a journal undo, had one been sent, would have answered by now
        wait.until(lambda d: body("data-journal-pending") in (None, "0") and settled())
        out["journalAfterUndo"] = get(base + "/journal")
        answered(lambda: ActionChains(d).key_down(Keys.CONTROL).key_down(Keys.SHIFT).send_keys("z").key_up(Keys.SHIFT).key_up(Keys.CONTROL).perform())
        out["sketchAfterRedo"] = state()["parts"]
        marks.append(['sketchAfterRedo', round(time.time() - began, 1)])
        out["journalAfterRedo"] = get(base + "/journal")
        d.find_element(By.ID, "sketch-cancel").click()
        wait.until(lambda d: state() is None and idle())
        out["journalUndoAfterCancel"] = journal_undo()
        out["undoButtonsAfterCancel"] = undo_buttons()
        marks.append(['undoButtonsAfterCancel', round(time.time() - began, 1)])
        out["errors"] = d.find_element(By.ID, "errors").text
        out["severe"] = [entry["message"] for entry in d.get_log("browser") if entry["level"] == "SEVERE"]
    finally:
        d.quit()
    print(json.dumps(out))
    """#

    @Test("layer list, tools by geometry, one undo in view while sketching (Ctrl+Z undoes the sketch, not the journal), the journal Undo naming table, fid and field")
    func traps() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let server = try ServeProcess(file: path, arguments: ["--quiet"])
        defer { _ = server.stop() }
        let pointsBefore = try Harness.sqlite(path, "SELECT count(*) FROM Loudoun_Address_Points_1")
        let result = try Harness.run(try Harness.venvTool("python"), ["-c", Self.script, server.url])
        try #require(result.status == 0, "\(result.stderr)")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(seen["severe"] as? [String] == [], "console errors")
        #expect(seen["errors"] as? String == "", "errors shown on the page")

        // Every table listed, all on at first; a tap near 831 then lists several features.
        #expect(seen["listed"] as? [String] == seen["tables"] as? [String], "\(seen["listed"] ?? "") vs \(seen["tables"] ?? "")")
        #expect(seen["allChecked"] as? Bool == true)
        #expect((seen["listBefore"] as? Int ?? 0) >= 2, "\(seen["listBefore"] ?? "")")
        // With the address points alone: no other table drawn, and 831 chosen with no list.
        let hidden = try #require(seen["storedHidden"] as? [String])
        #expect(!hidden.contains("Loudoun_Address_Points_1") && hidden.count == (seen["tables"] as? [String] ?? []).count - 1, "\(hidden)")
        #expect(seen["drawnLabels"] as? [String] == [], "hidden annotation is not drawn: \(seen["drawnLabels"] ?? "")")
        #expect(seen["listAfter"] as? Int == 0)
        #expect(seen["popupOf"] as? [String] == ["Loudoun_Address_Points_1", "831"])
        #expect(seen["message"] as? String == "Loudoun_Address_Points_1 831")
        #expect(seen["checkedAfterReload"] as? [String] == ["Loudoun_Address_Points_1"], "remembered in localStorage")

        // The journal's Undo names the table, the fid and the field, as annolink log does.
        let update = try #require(seen["undoAfterUpdate"] as? [String: Any])
        #expect(update["title"] as? String == "Undo #1: applyEdits: set AD_ADDRESS of Loudoun_Address_Points_1 fid 831", "\(update)")
        let log = try Harness.annolink("log", path)
        #expect(log.stdout.contains("applyEdits: set AD_ADDRESS of Loudoun_Address_Points_1 fid 831"), "\(log.stdout)")

        // Tools by geometry.
        #expect(seen["offeredPoints"] as? [String] == ["point"])
        #expect(seen["offeredLines"] as? [String] == ["polyline"])
        #expect(seen["offeredPolygons"] as? [String] == ["polygon"])

        // The trap: while the line sketch is open, one Undo is in view (the sketch's), Ctrl+Z
        // undoes the sketch's vertex and the journal is unchanged; Ctrl+Shift+Z redoes it.
        #expect((seen["saved"] as? [String: Any])?["edit"] as? String == "add")
        let idle = try #require(seen["journalUndoIdle"] as? [String: Any])
        #expect(idle["shown"] as? Bool == true && (idle["title"] as? String)?.contains("add a feature to Loudoun_Address_Points_1") == true, "\(idle)")
        #expect((seen["sketchBefore"] as? [[[Double]]])?.first?.count == 1)
        #expect(seen["undoButtonsSketching"] as? [String] == ["sketch-undo"], "\(seen["undoButtonsSketching"] ?? "")")
        #expect((seen["journalUndoSketching"] as? [String: Any])?["shown"] as? Bool == false)
        #expect((seen["sketchAfterUndo"] as? [[[Double]]])?.first?.count ?? 0 == 0, "\(seen["sketchAfterUndo"] ?? "")")
        let before = try #require(seen["journalBefore"] as? [String: Any])
        let afterUndo = try #require(seen["journalAfterUndo"] as? [String: Any])
        let afterRedo = try #require(seen["journalAfterRedo"] as? [String: Any])
        #expect(afterUndo["key"] as? String == before["key"] as? String && afterRedo["key"] as? String == before["key"] as? String)
        #expect((afterUndo["undo"] as? [String: Any])?["id"] as? Int == 2 && afterUndo["redo"] is NSNull, "\(afterUndo)")
        #expect((seen["sketchAfterRedo"] as? [[[Double]]])?.first?.count == 1)
        // The file: both edits journalled and none undone; the added point is there.
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM annolink_journal") == "2")
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM Loudoun_Address_Points_1") == String(Int(pointsBefore)! + 1))
        #expect(try Harness.sqlite(path, "SELECT AD_ADDRESS FROM Loudoun_Address_Points_1 WHERE fid = 831") == "45999")
        // The sketch closed: the journal's Undo is offered again.
        #expect((seen["journalUndoAfterCancel"] as? [String: Any])?["shown"] as? Bool == true)
        #expect(seen["undoButtonsAfterCancel"] as? [String] == ["undo"])
    }

    /// The idle sketch toolbar at 390 × 844 with touch: its rectangles and those of Full
    /// extent and the scale box. Arguments: the server's URL, the screenshot's path.
    static let phoneScript = #"""
    import json, sys, time
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    \#(Browser.chromium)

    base, shot = sys.argv[1], sys.argv[2]
    d = chromium(390, 844)
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True})
    d.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    try:
        d.get(base + "/")
        WebDriverWait(d, 30).until(lambda d: "in view" in d.find_element(By.ID, "status").text and d.find_elements(By.ID, "layers"))
        time.sleep(0.5)   # the bar's ResizeObserver and a layout
        out = d.execute_script("""
          const rect = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
          const rows = [...document.querySelectorAll('#sketch .sketch-row')].filter(e => e.offsetParent !== null);
          const controls = [...document.querySelectorAll('#sketch button, #sketch select')].filter(e => e.offsetParent !== null);
          return { coarse: window.matchMedia('(pointer: coarse)').matches, viewport: [innerWidth, innerHeight],
                   toolbar: rows.map(rect), controls: controls.map(c => [c.id].concat(rect(c))),
                   fullExtent: rect(document.getElementById('full-extent')), scale: rect(document.getElementById('scale')),
                   bar: rect(document.getElementById('bar')), layers: rect(document.querySelector('#layers summary')) };
        """)
        d.save_screenshot(shot)
        out["severe"] = [entry["message"] for entry in d.get_log("browser") if entry["level"] == "SEVERE"]
    finally:
        d.quit()
    print(json.dumps(out))
    """#

    @Test("at 390 × 844 with touch, the idle sketch toolbar covers neither Full extent nor the scale box")
    func phoneToolbar() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let server = try ServeProcess(file: path, arguments: ["--quiet"])
        defer { _ = server.stop() }
        let shot = try Harness.temporaryDirectory().appendingPathComponent("editor-traps-phone.png").path
        let result = try Harness.run(try Harness.venvTool("python"), ["-c", Self.phoneScript, server.url, shot])
        try #require(result.status == 0, "\(result.stderr)")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(seen["severe"] as? [String] == [], "console errors")
        #expect(seen["coarse"] as? Bool == true && seen["viewport"] as? [Double] == [390, 844], "\(seen)")
        func meet(_ a: [Double], _ b: [Double]) -> Bool { a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3] }
        let toolbar = try #require(seen["toolbar"] as? [[Double]])
        try #require(!toolbar.isEmpty, "the idle toolbar is shown")
        let controls = try #require(seen["controls"] as? [[Any]])
        #expect(controls.compactMap { $0.first as? String }.contains("sketch-new-point"), "\(controls)")
        let fullExtent = try #require(seen["fullExtent"] as? [Double]), scale = try #require(seen["scale"] as? [Double])
        let layers = try #require(seen["layers"] as? [Double])
        for row in toolbar {
            #expect(!meet(row, fullExtent), "toolbar \(row) over Full extent \(fullExtent)")
            #expect(!meet(row, scale), "toolbar \(row) over the scale box \(scale)")
            #expect(!meet(row, layers), "toolbar \(row) over Layers \(layers)")
        }
        // The toolbar sits on the bar, not above the screen's bottom by a guess.
        let bar = try #require(seen["bar"] as? [Double])
        #expect(abs((toolbar.last?[3] ?? 0) - bar[1]) < 1.5, "toolbar bottom \(toolbar.last ?? []) vs bar top \(bar)")
        if let keep = ProcessInfo.processInfo.environment["ANNOLINK_TRAPS_PHONE_SCREENSHOT"] {
            try? FileManager.default.removeItem(atPath: keep)
            try FileManager.default.copyItem(atPath: shot, toPath: keep)
        }
    }
}
