import AnnoLinkTestSupport
import Foundation
import Testing

/// Labels edited by hand in the map editor (issue 27 item 1; docs/editor.md, "Labels"), in
/// Debian's headless Chromium driven by Selenium against a real `annolink serve` on the Loudoun
/// import: "45763 ELMWOOD" tapped, dragged 20 ft, turned 15° and retyped; the file (read with
/// Python's `sqlite3`, not through the server) after each step; the same steps with `annolink
/// place` on a copy give the same row; `annotate --regenerate` and `check --fix` keep it; the
/// page's Undo reverts each step exactly.
@Suite("Map editor label tools in a browser", .serialized)
struct MapEditorLabelTests {
    /// Arguments: the server's URL, the served file, the CLI's copy, a path for a snapshot of the
    /// served file after the three edits, the screenshot folder.
    static let script = #"""
    import json, math, os, sqlite3, struct, sys, time, urllib.request
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait
    \#(Browser.chromium)
    \#(Browser.page)

    base, served, cli, snapshot, shot = sys.argv[1:6]
    service = base + "/arcgis/rest/services/loudoun/FeatureServer"
    TABLE = "Loudoun_Address_PointsAnno_1"

    def footprint(blob):
        # A GeoPackage polygon: the header (magic, version, flags, srs id, envelope), then WKB.
        flags = blob[3]
        envelope = {0: 0, 1: 32, 2: 48, 3: 48, 4: 64}[(flags >> 1) & 7]
        wkb = blob[8 + envelope:]
        order = "<" if wkb[0] == 1 else ">"
        kind, rings = struct.unpack(order + "II", wkb[1:9])
        at, out = 9, []
        for _ in range(rings):
            (n,) = struct.unpack(order + "I", wkb[at:at + 4]); at += 4
            out.append([list(struct.unpack(order + "dd", wkb[at + 16 * i:at + 16 * i + 16])) for i in range(n)])
            at += 16 * n
        return {"kind": kind, "rings": out}

    def row(path, fid=1):
        # Every column of the label, as the file holds it (the footprint decoded).
        c = sqlite3.connect("file:" + path + "?mode=ro", uri=True)
        try:
            cur = c.execute('SELECT * FROM "%s" WHERE fid = ?' % TABLE, (fid,))
            names = [x[0] for x in cur.description]
            values = cur.fetchone()
        finally:
            c.close()
        return {n: (footprint(v) if n == "geom" else v.hex() if isinstance(v, bytes) else v) for n, v in zip(names, values)}

    d = chromium(1280, 800)
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
    out = {}
    def container():
        return d.execute_script("const r = annolinkMap.getContainer().getBoundingClientRect(); return [r.left, r.top];")
    def client_of(x, y):
        r = container()
        p = d.execute_script("const p = annolinkMap.latLngToContainerPoint([arguments[1], arguments[0]]); return [p.x, p.y];", x, y)
        return [r[0] + p[0], r[1] + p[1]]
    def gesture(points):
        # Press at the first point, move through the others, let go at the last (page pixels).
        a = ActionBuilder(d)
        a.pointer_action.move_to_location(points[0][0], points[0][1])
        a.pointer_action.pointer_down()
        for p in points[1:]:
            a.pointer_action.move_to_location(p[0], p[1])
        a.pointer_action.pointer_up()
        a.perform()
    def edits():
        return int(body("data-label-edits") or 0)
    def after_edit(action):
        seen = edits()
        action()
        WebDriverWait(d, 20).until(lambda d: edits() > seen and settled())
    try:
        wait = WebDriverWait(d, 20)
        d.get(base + "/")
        wait.until(lambda d: "in view" in d.find_element(By.ID, "status").text)
        wait.until(lambda d: settled())
        out["original"] = row(served)
        layer = [l for l in get(service + "?f=json")["layers"] if l["name"] == TABLE][0]["id"]
        ring = get(service + "/%d/query?objectIds=1&outFields=*&returnGeometry=true&f=json" % layer)["features"][0]["geometry"]["rings"][0]
        cx = sum(p[0] for p in ring[:-1]) / (len(ring) - 1)
        cy = sum(p[1] for p in ring[:-1]) / (len(ring) - 1)
        # Zoom 0: one CSS pixel is one foot, so a 20 px drag is 20 ft.
        drawn_after(lambda: d.execute_script("annolinkMap.setView([%r,%r], 0, {animate: false})" % (cy, cx)))

        # Tap the text: the label is listed with the address point under the finger (or selected at once).
        c = client_of(cx, cy)
        tap = [round(c[0]), round(c[1])]
        a = ActionBuilder(d); a.pointer_action.move_to_location(tap[0], tap[1]); a.perform()
        ActionChains(d).click().perform()
        wait.until(lambda d: body("data-label-selected") or d.find_elements(By.CSS_SELECTOR, ".identify-list button"))
        listed = [[b.get_attribute("data-layer"), b.get_attribute("data-oid"), b.text] for b in d.find_elements(By.CSS_SELECTOR, ".identify-list button")]
        out["identifyList"] = listed
        if not body("data-label-selected"):
            d.find_element(By.CSS_SELECTOR, '.identify-list button[data-layer="%s"][data-oid="1"]' % TABLE).click()
        wait.until(lambda d: body("data-label-selected") == TABLE + "/1")
        wait.until(lambda d: settled())
        # The handles sit on the true text box: the footprint's vertices, in layer pixels.
        out["box"] = d.execute_script("""
            const box = document.querySelector('#label-edit .label-box');
            const drawn = Array.from(box.points).map(p => [p.x, p.y]);
            const ring = arguments[0].map(p => { const q = annolinkMap.latLngToLayerPoint([p[1], p[0]]); return [q.x, q.y]; });
            return {drawn: drawn, ring: ring, panel: !document.getElementById('label-panel').hidden,
                    text: document.querySelector('#label-panel input[name="TextString"]').value};""", ring)

        # Drag the box 20 px east: 20 ft (from where the text is now: the list's popup may have panned the map).
        c = client_of(cx, cy)
        start = [round(c[0]), round(c[1])]
        after_edit(lambda: gesture([start, [start[0] + 7, start[1]], [start[0] + 14, start[1]], [start[0] + 20, start[1]]]))
        out["drag"] = row(served)
        out["dragMessage"] = d.find_element(By.ID, "message").text

        # Turn 15° with the handle: the pointer moved about the anchor, to the whole pixel that
        # makes the angle about the anchor nearest 15° (the page rounds to whole degrees).
        h = d.execute_script("const r = document.querySelector('#label-edit .label-rotate').getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2];")
        now = row(served)
        anchor = client_of(now["AnchorX"], now["AnchorY"])
        press = [round(h[0]), round(h[1])]
        def turn_of(p):
            # Degrees counter-clockwise on the map (screen y is down).
            a0 = math.atan2(-(press[1] - anchor[1]), press[0] - anchor[0])
            a1 = math.atan2(-(p[1] - anchor[1]), p[0] - anchor[0])
            return math.degrees(a1 - a0)
        r0 = math.hypot(press[0] - anchor[0], press[1] - anchor[1])
        a0 = math.atan2(-(press[1] - anchor[1]), press[0] - anchor[0])
        def at(deg):
            t = a0 + math.radians(deg)
            return [anchor[0] + r0 * math.cos(t), anchor[1] - r0 * math.sin(t)]
        wanted = 15 - (now["Angle"] or 0)
        ideal = at(wanted)
        candidates = [[round(ideal[0]) + i, round(ideal[1]) + j] for i in range(-3, 4) for j in range(-3, 4)]
        target = min(candidates, key=lambda p: abs(turn_of(p) - wanted))
        out["turnTarget"] = turn_of(target) + (now["Angle"] or 0)
        mid = at(wanted / 2)
        after_edit(lambda: gesture([press, [round(mid[0]), round(mid[1])], target]))
        out["turn"] = row(served)

        # Retype it in the label's panel.
        field = d.find_element(By.CSS_SELECTOR, '#label-panel input[name="TextString"]')
        field.clear()
        field.send_keys("45763 ELMWOOD CT")
        after_edit(lambda: d.find_element(By.CSS_SELECTOR, '#label-panel button[name="retext"]').click())
        out["text"] = row(served)
        out["panelFacts"] = d.find_element(By.CSS_SELECTOR, "#label-panel .facts").text
        out["drawnText"] = d.execute_script("const t = document.querySelector('#annotation text[data-oid=\"1\"][data-layer=\"%s\"]'); return t ? t.textContent : null;" % TABLE)
        d.save_screenshot(os.path.join(shot, "editor-labels.png"))
        # The served file as it stands (the WAL's pages included), for regenerate and check --fix.
        src = sqlite3.connect("file:" + served + "?mode=ro", uri=True); dst = sqlite3.connect(snapshot)
        src.backup(dst); dst.close(); src.close()

        # Undo each step with the page's Undo, newest first.
        undone = []
        for step in range(3):
            before = d.find_element(By.ID, "message").text
            d.find_element(By.CSS_SELECTOR, '#journal-tools button[name="undo"]').click()
            wait.until(lambda d: d.find_element(By.ID, "message").text.startswith("undid #") and d.find_element(By.ID, "message").text != before)
            wait.until(lambda d: settled())
            undone.append({"row": row(served), "message": d.find_element(By.ID, "message").text,
                           "panelText": d.find_element(By.CSS_SELECTOR, '#label-panel input[name="TextString"]').get_attribute("value")})
        out["undone"] = undone
        out["cli"] = row(cli)
        out["severe"] = [entry["message"] for entry in d.get_log("browser") if entry["level"] == "SEVERE"]
    finally:
        d.quit()
    print(json.dumps(out))
    """#

    static let table = "Loudoun_Address_PointsAnno_1"

    /// The columns of a label row as the script reads them.
    typealias Row = [String: Any]

    /// Differences between two rows, column by column: the anchor, the footprint's vertices and
    /// PlacedFrom's numbers within `tolerance` (US survey feet), every other column exactly.
    static func differences(_ a: Row, _ b: Row, tolerance: Double) -> [String] {
        var found: [String] = []
        for name in Set(a.keys).union(b.keys).sorted() {
            let x = a[name], y = b[name]
            switch name {
            case "AnchorX", "AnchorY":
                if let p = x as? Double, let q = y as? Double, abs(p - q) <= tolerance { continue }
            case "geom":
                let ringsOf = { (v: Any?) in ((v as? [String: Any])?["rings"] as? [[[Double]]]) ?? [] }
                let r = ringsOf(x), s = ringsOf(y)
                let same = r.count == s.count && zip(r, s).allSatisfy { ring in
                    ring.0.count == ring.1.count && zip(ring.0, ring.1).allSatisfy { abs($0[0] - $1[0]) <= tolerance && abs($0[1] - $1[1]) <= tolerance }
                }
                if same, !r.isEmpty { continue }
            case "PlacedFrom":
                let parts = { (v: Any?) in ((v as? String) ?? "").split(separator: " ").map(String.init) }
                let p = parts(x), q = parts(y)
                if p.count == 4, q.count == 4, p[0] == q[0],
                   zip(p.dropFirst(), q.dropFirst()).allSatisfy({ abs((Double($0) ?? .nan) - (Double($1) ?? .nan)) <= tolerance }) { continue }
            default:
                if "\(x ?? "nil")" == "\(y ?? "nil")" { continue }
            }
            found.append("\(name): \(x ?? "nil") vs \(y ?? "nil")")
        }
        return found
    }

    /// Where the screenshot goes: a scratch folder, copied to `ANNOLINK_EDITOR_SCREENSHOTS`
    /// (e.g. `docs`) when it is set, as MapGeoViewTests keeps its pictures.
    func keepScreenshot(_ name: String, from folder: URL) throws {
        let made = folder.appendingPathComponent(name)
        #expect(FileManager.default.fileExists(atPath: made.path), "\(name) was made")
        if let keep = ProcessInfo.processInfo.environment["ANNOLINK_EDITOR_SCREENSHOTS"] {
            let target = URL(fileURLWithPath: keep).appendingPathComponent(name).path
            try? FileManager.default.removeItem(atPath: target)
            try FileManager.default.copyItem(atPath: made.path, toPath: target)
        }
    }

    @Test("45763 ELMWOOD tapped, dragged 20 ft, turned 15°, retyped: the file's row, the CLI's identical row, kept by regenerate and check --fix, each step undone")
    func dragTurnRetype() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        // The same steps with `annolink place` on a copy, before the page edits the original.
        let cli = folder.appendingPathComponent("cli.gpkg").path
        try Harness.copyDatabase(path, to: cli)
        for step in [["--by", "20,0"], ["--angle", "15"], ["--text", "45763 ELMWOOD CT"]] {
            let run = try Harness.annolink(["place", cli, Self.table, "1"] + step)
            #expect(run.status == 0, "\(step): \(run.stderr)")
        }
        let snapshot = folder.appendingPathComponent("snapshot.gpkg").path
        let shots = try Harness.temporaryDirectory()
        let server = try ServeProcess(file: path, arguments: ["--quiet"])
        defer { _ = server.stop() }
        let result = try Harness.run(try Harness.venvTool("python"), ["-c", Self.script, server.url, path, cli, snapshot, shots.path])
        try #require(result.status == 0, "\(result.stderr)")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        func row(_ name: String) -> Row { seen[name] as? Row ?? [:] }
        #expect(seen["severe"] as? [String] == [], "console errors")

        // Selected by tapping its text: listed after the features under the tap, or alone.
        let list = seen["identifyList"] as? [[String]] ?? []
        if !list.isEmpty {
            #expect(list.last?.prefix(2) == [Self.table, "1"], "the label comes after the features: \(list)")
            #expect(list.last?.last == "\(Self.table) 1 — 45763 ELMWOOD (label)")
        }
        // The box drawn is the footprint, vertex for vertex (within a hundredth of a pixel).
        let box = seen["box"] as? [String: Any] ?? [:]
        let drawn = box["drawn"] as? [[Double]] ?? [], ring = box["ring"] as? [[Double]] ?? []
        #expect(drawn.count == ring.count && drawn.count >= 5)
        for (p, q) in zip(drawn, ring) { #expect(abs(p[0] - q[0]) < 0.01 && abs(p[1] - q[1]) < 0.01) }
        #expect(box["panel"] as? Bool == true && box["text"] as? String == "45763 ELMWOOD")

        let original = row("original"), drag = row("drag"), turn = row("turn"), text = row("text")
        let x = original["AnchorX"] as? Double ?? .nan, y = original["AnchorY"] as? Double ?? .nan
        // The drag: 20 CSS pixels at zoom 0 are 20 ft, converted through Leaflet's CRS in
        // doubles near 1.2e7 ft: within 1e-6 ft of 20 ft east.
        #expect(abs((drag["AnchorX"] as? Double ?? .nan) - (x + 20)) < 1e-6 && abs((drag["AnchorY"] as? Double ?? .nan) - y) < 1e-6)
        #expect(drag["Override"] as? Int == 1025 && (drag["PlacedFrom"] as? String)?.hasPrefix("person ") == true)
        #expect(seen["dragMessage"] as? String == "moved label \(Self.table) 1")
        #expect(abs((seen["turnTarget"] as? Double ?? .nan) - 15) < 0.5)
        #expect(turn["Angle"] as? Double == 15 && turn["Override"] as? Int == 1027)
        #expect(turn["AnchorX"] as? Double == drag["AnchorX"] as? Double, "a turn keeps the anchor")
        #expect(text["TextString"] as? String == "45763 ELMWOOD CT" && text["Override"] as? Int == 1031)
        #expect(seen["drawnText"] as? String == "45763 ELMWOOD CT")
        #expect(seen["panelFacts"] as? String == "angle 15.00°, placed, set by hand: position, angle, text")

        // The same three steps with annolink place: the same row, column by column.
        #expect(Self.differences(text, row("cli"), tolerance: 1e-6) == [])

        // annotate --regenerate and check --fix keep all three.
        let kept = { try Harness.sqlite(snapshot, "SELECT AnchorX || '|' || AnchorY || '|' || Angle || '|' || TextString || '|' || Override || '|' || hex(geom) FROM \(Self.table) WHERE fid = 1") }
        let before = try kept()
        #expect(try Harness.annolink("annotate", snapshot, "--regenerate").status == 0)
        #expect(try kept() == before)
        let fix = try Harness.annolink("check", snapshot, "--fix")
        #expect(fix.status == 0 || fix.status == 1, "\(fix.stderr)")
        #expect(try kept() == before)

        // Undo in the page reverts each step, exactly.
        let undone = seen["undone"] as? [[String: Any]] ?? []
        try #require(undone.count == 3)
        for (i, expected) in [turn, drag, original].enumerated() {
            #expect(Self.differences(undone[i]["row"] as? Row ?? [:], expected, tolerance: 0) == [], "undo \(i + 1)")
        }
        #expect((undone[0]["message"] as? String)?.hasPrefix("undid #3: applyEdits: set TextString of Loudoun_Address_PointsAnno_1 fid 1") == true, "\(undone[0])")
        #expect(undone[0]["panelText"] as? String == "45763 ELMWOOD", "the selection is read again after an undo")
        try keepScreenshot("editor-labels.png", from: shots)
    }
}
