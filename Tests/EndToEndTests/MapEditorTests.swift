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
    static let script = #"""
    import json, math, sys, time, urllib.request
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    \#(Browser.chromium)
    \#(Browser.page)

    base, shot = sys.argv[1], sys.argv[2]
    service = base + "/arcgis/rest/services/loudoun/FeatureServer"

    d = chromium(1280, 800)
    # A viewport of exactly 1280 × 800 CSS pixels (the window's size includes the browser's own parts).
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
    out = {}
    LABELS = 'text[data-layer="Loudoun_Address_PointsAnno_1"]'
    def choose(layer, oid):
        # A tap with several features under it lists them (identify): the feature is chosen there.
        form = '.feature-form[data-layer="%s"][data-oid="%d"]' % (layer, oid)
        entry = '.identify-list button[data-layer="%s"][data-oid="%d"]' % (layer, oid)
        found = WebDriverWait(d, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, form) or d.find_elements(By.CSS_SELECTOR, entry))
        if not d.find_elements(By.CSS_SELECTOR, form):
            found[0].click()
        return WebDriverWait(d, 20).until(lambda d: d.find_element(By.CSS_SELECTOR, form))
    try:
        wait = WebDriverWait(d, 20)
        d.get(base + "/")
        wait.until(lambda d: "in view" in d.find_element(By.ID, "status").text)
        first = d.find_element(By.ID, "scale").get_attribute("value")   # the full extent's

        # The address labels' extent (layer 6; some labels reach beyond their points'): every
        # one of the 33 drawn, inside the map.
        e = get(service + "/6?f=json")["extent"]
        drawn_after(lambda: d.execute_script("annolinkMap.fitBounds([[%r,%r],[%r,%r]], {animate: false})" % (e["ymin"], e["xmin"], e["ymax"], e["xmax"])))
        out["addressLabels"] = len(d.find_elements(By.CSS_SELECTOR, LABELS))
        out["labelsInside"] = d.execute_script("""
            const box = document.getElementById('map').getBoundingClientRect();
            return [...document.querySelectorAll(arguments[0])].every(t => {
              const r = t.getBoundingClientRect();
              return r.width > 0 && r.left >= box.left && r.right <= box.right && r.top >= box.top && r.bottom <= box.bottom; });""", LABELS)

        # A typed scale, then the full extent again.
        scale = d.find_element(By.ID, "scale")
        def typed():
            scale.clear(); scale.send_keys("1:1200\n")
        drawn_after(typed)
        out["typedScale"] = d.find_element(By.ID, "status").text.split("1:")[-1]
        drawn_after(lambda: d.find_element(By.ID, "full-extent").click())
        out["fullExtentScale"] = [first, scale.get_attribute("value")]

        # Address point 831 at 1:1200 (a CSS pixel is 1/96 inch; US survey feet).
        p = get(service + "/0/query?objectIds=831&returnGeometry=true&f=json")["features"][0]["geometry"]
        out["point"] = [p["x"], p["y"]]
        zoom = -math.log2(1200 * 0.0254 / 96 / (1200 / 3937))
        drawn_after(lambda: d.execute_script("annolinkMap.setView([%r,%r], %r, {animate: false})" % (p["y"], p["x"], zoom)))
        out["scale"] = d.find_element(By.ID, "status").text.split("1:")[-1]
        mapElement = d.find_element(By.ID, "map")
        def tap(x, y, dx, dy):
            # Taps (dx, dy) pixels from the map point (x, y); Selenium's offsets are from the centre.
            c = d.execute_script("const p = annolinkMap.latLngToContainerPoint([arguments[1], arguments[0]]); return [p.x, p.y];", x, y)
            size = mapElement.size
            ActionChains(d).move_to_element_with_offset(mapElement, c[0] + dx - size["width"] / 2, c[1] + dy - size["height"] / 2).click().perform()
            return d.execute_script("const l = annolinkMap.containerPointToLatLng([arguments[0], arguments[1]]); return [l.lng, l.lat];", c[0] + dx, c[1] + dy)

        tap(p["x"], p["y"], 6, -5)
        form = choose("Loudoun_Address_Points_1", 831)
        wait.until(lambda d: settled())
        out["popupAnnotation"] = form.find_element(By.CSS_SELECTOR, ".annotation").text
        field = form.find_element(By.NAME, "AD_ADDRESS")
        out["popupAddress"] = field.get_attribute("value")
        field.clear(); field.send_keys("45999")
        drawn_after(lambda: form.find_element(By.NAME, "update").click())
        label = LABELS + '[data-feature-id="831"]'
        out["labelAfterUpdate"] = d.find_element(By.CSS_SELECTOR, label).text
        out["popupAfterUpdate"] = form.find_element(By.CSS_SELECTOR, ".annotation").text
        # Where the label sits: the middle of its box in map units, and map units per pixel.
        out["labelCentre"] = d.execute_script("""
            const r = document.querySelector(arguments[0]).getBoundingClientRect(), m = document.getElementById('map').getBoundingClientRect();
            const l = annolinkMap.containerPointToLatLng([(r.left + r.right) / 2 - m.left, (r.top + r.bottom) / 2 - m.top]);
            return [l.lng, l.lat, Math.pow(2, -annolinkMap.getZoom())];""", label)
        d.save_screenshot(shot)

        # Dates: shown as ISO 8601 in UTC, typed the same way; a day the calendar has not is
        # refused on the page, and the field put back before the next step.
        out["createdShown"] = form.find_element(By.NAME, "created_date").get_attribute("value")
        edited = form.find_element(By.NAME, "last_edited_date")
        edited.clear(); edited.send_keys("2026-12-01T10:20:30Z")
        drawn_after(lambda: form.find_element(By.NAME, "update").click())
        out["editedServed"] = get(service + "/0/query?objectIds=831&outFields=last_edited_date&returnGeometry=false&f=json")["features"][0]["attributes"]["last_edited_date"]
        edited.clear(); edited.send_keys("2026-02-30")
        form.find_element(By.NAME, "update").click()
        wait.until(lambda d: d.find_element(By.ID, "errors").text.strip())
        out["dateError"] = d.find_element(By.ID, "errors").text
        d.find_element(By.CSS_SELECTOR, "#errors button").click()
        edited.clear(); edited.send_keys("2026-12-01T10:20:30Z")

        # A value that is not a whole number is refused, and the refusal is shown.
        field.clear(); field.send_keys("12.5")
        form.find_element(By.NAME, "update").click()
        wait.until(lambda d: d.find_element(By.ID, "errors").text.strip())
        out["error"] = d.find_element(By.ID, "errors").text

        # Move: then a tap puts the point there; the label follows.
        form.find_element(By.NAME, "move").click()
        target = []
        drawn_after(lambda: target.extend(tap(p["x"], p["y"], 60, 30)))
        out["target"] = target
        out["message"] = d.find_element(By.ID, "message").text
        out["anchorAfterMove"] = [float(v) for v in d.find_element(By.CSS_SELECTOR, label).get_attribute("data-anchor").split()]
        # Parcel lines: a two-point line's end moved by "Move end" (its length label follows); a
        # line of more segments has no "Move end" (the service would refuse it). Each is
        # chosen where no other point or line lies within 15 ft of the tap.
        d.find_element(By.CSS_SELECTOR, "#errors button").click()
        kinds = {l["id"]: l["geometryType"] for l in get(service + "?f=json")["layers"]}
        def alone(x, y):
            return sum(get(service + "/%d/query?geometry=%r,%r&geometryType=esriGeometryPoint&distance=15&returnCountOnly=true&f=json" % (i, x, y))["count"]
                       for i, k in kinds.items() if k in ("esriGeometryPoint", "esriGeometryPolyline") and i < 6) == 1
        labelled = {f["attributes"]["FeatureID"] for f in get(service + "/7/query?where=1%3D1&outFields=FeatureID&returnGeometry=false&f=json")["features"]}
        lines = get(service + "/5/query?where=1%3D1&outFields=fid&orderByFields=fid&returnGeometry=true&f=json")["features"]
        def pick(test):
            for f in lines:
                path = f["geometry"]["paths"][0]
                a, b = path[0], path[1]
                m = [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2]
                if len(f["geometry"]["paths"]) == 1 and test(len(path)) and f["attributes"]["fid"] in labelled and alone(*m):
                    return f["attributes"]["fid"], path, m
        def open_line(fid, m):
            drawn_after(lambda: d.execute_script("annolinkMap.setView([%r,%r], %r, {animate: false})" % (m[1], m[0], zoom)))
            tap(m[0], m[1], 0, 0)
            form = choose("ParcelLines_1", fid)
            wait.until(lambda d: settled())
            return form
        fid, path, m = pick(lambda n: n == 2)
        out["line"] = {"fid": fid, "first": path[0]}
        form = open_line(fid, m)
        out["line"]["popupAnnotation"] = form.find_element(By.CSS_SELECTOR, ".annotation").text
        form.find_element(By.NAME, "move").click()
        target = []
        drawn_after(lambda: target.extend(tap(path[1][0], path[1][1], 40, 0)))
        out["line"]["target"] = target
        # Selenium taps whole pixels: where the end went, as the server now reads the file.
        out["line"]["stored"] = get(service + "/5/query?objectIds=%d&returnGeometry=true&f=json" % fid)["features"][0]["geometry"]["paths"]
        out["line"]["label"] = d.find_element(By.CSS_SELECTOR, 'text[data-layer="ParcelLinesAnno_1"][data-feature-id="%d"]' % fid).text
        fid, path, m = pick(lambda n: n > 2)
        out["multi"] = {"fid": fid}
        form = open_line(fid, m)
        # Not offered: the edit service moves an end of a single-segment line only.
        out["multi"]["moveButtons"] = [b.text for b in form.find_elements(By.NAME, "move") if b.is_displayed()]
        out["multi"]["buttons"] = [b.text for b in form.find_elements(By.CSS_SELECTOR, ".buttons button") if b.is_displayed()]
        out["severe"] = [entry["message"] for entry in d.get_log("browser") if entry["level"] == "SEVERE"]
    finally:
        d.quit()
    print(json.dumps(out))
    """#

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
        let result = try Harness.run(try Harness.venvTool("python"), ["-c", Self.script, server.url, shot])
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
