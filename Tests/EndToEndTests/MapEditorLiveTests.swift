import AnnoLinkTestSupport
import Foundation
import Testing

/// The map editor's live updates and undo/redo (docs/editor.md), in Debian's headless Chromium
/// driven by Selenium against a real `annolink serve`: edits made by other processes (the
/// command line, an HTTP client) appear without a reload; "Undo" and "Redo" do what
/// `annolink undo`/`redo` do, refusals included; the `/journal` routes' refusals over real HTTP;
/// and the page with a 100,000-parcel sample, timed.
@Suite("Map editor: live, undo, 100k parcels", .serialized)
struct MapEditorLiveTests {
    /// Shared by the browser scripts: the driver, waiting for the page to be idle, and taps.
    static let prelude = #"""
    import json, math, subprocess, sys, time, urllib.parse, urllib.request
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    \#(Browser.chromium)

    def get(url):
        with urllib.request.urlopen(url) as r:
            return json.load(r)
    def browser():
        return chromium(1280, 800)
    def body(d, name):
        return d.find_element(By.TAG_NAME, "body").get_attribute(name)
    def settled(d):
        # No request in flight, twice 100 ms apart.
        idle = lambda: body(d, "data-pending") in (None, "0") and body(d, "data-journal-pending") in (None, "0")
        if not idle(): return False
        time.sleep(0.1)
        return idle()
    """#

    /// Arguments: the server's URL, the file, the annolink binary. Prints what it saw as JSON.
    static let liveScript = prelude + "\n" + #"""
    base, path, annolink = sys.argv[1], sys.argv[2], sys.argv[3]
    service = base + "/arcgis/rest/services/loudoun/FeatureServer"
    LABEL = 'text[data-layer="Loudoun_Address_PointsAnno_1"][data-feature-id="831"]'
    def sqlite(sql):
        return subprocess.run(["sqlite3", path, sql], capture_output=True, text=True, check=True).stdout.strip()
    d = browser()
    out = {}
    # A live redraw can replace the labels between finding one and reading it.
    wait = WebDriverWait(d, 30, ignored_exceptions=[StaleElementReferenceException])
    def label():
        return d.find_element(By.CSS_SELECTOR, LABEL).text
    def label_becomes(text):
        # Waits for the label drawn to read `text`; returns the seconds it took.
        t0 = time.time()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, LABEL) and label() == text)
        return time.time() - t0
    try:
        d.get(base + "/")
        wait.until(lambda d: "in view" in d.find_element(By.ID, "status").text)
        wait.until(lambda d: d.find_element(By.ID, "live").text == "live")
        undo, redo = d.find_element(By.NAME, "undo"), d.find_element(By.NAME, "redo")
        out["start"] = {"undo": undo.is_enabled(), "redo": redo.is_enabled(), "title": undo.get_attribute("title")}
        d.execute_script("window.notReloaded = true")

        # Address point 831 at 1:1200, its popup open.
        p = get(service + "/0/query?objectIds=831&returnGeometry=true&f=json")["features"][0]["geometry"]
        zoom = -math.log2(1200 * 0.0254 / 96 / (1200 / 3937))
        d.execute_script("annolinkMap.setView([%r,%r], %r, {animate: false})" % (p["y"], p["x"], zoom))
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, LABEL) and settled(d))
        m = d.find_element(By.ID, "map")
        c = d.execute_script("const p = annolinkMap.latLngToContainerPoint([arguments[1], arguments[0]]); return [p.x, p.y];", p["x"], p["y"])
        ActionChains(d).move_to_element_with_offset(m, c[0] + 4 - m.size["width"] / 2, c[1] - 3 - m.size["height"] / 2).click().perform()
        # Several features are within 10 px there: 831 is chosen from the identify list.
        found = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, '.feature-form[data-oid="831"]')
                           or d.find_elements(By.CSS_SELECTOR, '.identify-list button[data-oid="831"]'))
        if not d.find_elements(By.CSS_SELECTOR, '.feature-form[data-oid="831"]'):
            found[0].click()
        form = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, '.feature-form[data-oid="831"]'))
        wait.until(lambda d: settled(d))
        out["before"] = {"label": wait.until(lambda d: label()), "popup": form.find_element(By.CSS_SELECTOR, ".annotation").text}

        # The command line, in another process, changes the house number: the label drawn and
        # the open popup follow, without a reload.
        redraws = int(body(d, "data-live-redraws") or 0)
        t0 = time.time()
        cli = subprocess.run([annolink, "set", path, "Loudoun_Address_Points_1", "831", "AD_ADDRESS=45888"], capture_output=True, text=True)
        out["cliStatus"] = cli.returncode
        label_becomes("45888 ELMWOOD")
        out["cliSeconds"] = time.time() - t0
        wait.until(lambda d: form.find_element(By.CSS_SELECTOR, ".annotation").text == "45888 ELMWOOD")
        out["cli"] = {"label": wait.until(lambda d: label()), "popup": form.find_element(By.CSS_SELECTOR, ".annotation").text,
                      "field": form.find_element(By.NAME, "AD_ADDRESS").get_attribute("value"),
                      "redraws": int(body(d, "data-live-redraws") or 0) - redraws,
                      "undoTitle": undo.get_attribute("title"), "undo": undo.is_enabled()}

        # Undo in the page: the file and the page go back.
        wait.until(lambda d: undo.is_enabled())
        undo.click()
        label_becomes("45763 ELMWOOD")
        wait.until(lambda d: settled(d) and d.find_element(By.ID, "message").text.startswith("undid"))
        out["undo"] = {"message": d.find_element(By.ID, "message").text, "popup": form.find_element(By.CSS_SELECTOR, ".annotation").text,
                       "file": sqlite("SELECT AD_ADDRESS FROM Loudoun_Address_Points_1 WHERE fid = 831") + "|" +
                               sqlite("SELECT TextString FROM Loudoun_Address_PointsAnno_1 WHERE FeatureID = 831"),
                       "redo": redo.is_enabled(), "redoTitle": redo.get_attribute("title")}
        # Redo in the page.
        redo.click()
        label_becomes("45888 ELMWOOD")
        wait.until(lambda d: settled(d) and d.find_element(By.ID, "message").text.startswith("redid"))
        out["redo"] = {"message": d.find_element(By.ID, "message").text,
                       "file": sqlite("SELECT TextString FROM Loudoun_Address_PointsAnno_1 WHERE FeatureID = 831")}

        # Another client of the server (an HTTP applyEdits): the page follows it too.
        edit = urllib.parse.urlencode({"f": "json", "updates": json.dumps([{"attributes": {"fid": 831, "AD_ADDRESS": 45777}}])}).encode()
        with urllib.request.urlopen(urllib.request.Request(service + "/0/applyEdits", data=edit)) as r:
            out["httpEdit"] = json.load(r)["updateResults"][0]["success"]
        out["httpSeconds"] = label_becomes("45777 ELMWOOD")

        # A change outside the journal (GDAL, in another process): the page's undo is refused
        # with the command line's words, and nothing changes.
        subprocess.run(["ogrinfo", "-q", path, "-dialect", "SQLite", "-sql",
                        "UPDATE Loudoun_Address_Points_1 SET AD_ADDRESS = 45111 WHERE fid = 831"], check=True, capture_output=True)
        wait.until(lambda d: settled(d) and undo.is_enabled())
        undo.click()
        wait.until(lambda d: d.find_element(By.ID, "errors").text.strip())
        out["refused"] = {"error": d.find_element(By.ID, "errors").text,
                          "file": sqlite("SELECT AD_ADDRESS FROM Loudoun_Address_Points_1 WHERE fid = 831")}
        out["notReloaded"] = d.execute_script("return window.notReloaded === true")
        out["navigations"] = d.execute_script("return performance.getEntriesByType('navigation').length")
        out["severe"] = [e["message"] for e in d.get_log("browser") if e["level"] == "SEVERE"]
    finally:
        d.quit()
    print(json.dumps(out))
    """#

    @Test("Edits by the CLI and by an HTTP client appear without a reload; Undo and Redo; a refused undo shown")
    func liveAndUndo() throws {
        guard Harness.hasGDAL, let path = try Harness.importLoudoun() else { return }
        let server = try ServeProcess(file: path, arguments: ["--quiet"])
        defer { _ = server.stop() }
        let result = try Harness.run(try Harness.venvTool("python"), ["-c", Self.liveScript, server.url, path, Harness.binary])
        try #require(result.status == 0, "\(result.stderr)")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        func part(_ name: String) -> [String: Any] { seen[name] as? [String: Any] ?? [:] }

        // Chromium logs every 4xx answer; the refused undo's 409 is the one expected.
        let severe = (seen["severe"] as? [String] ?? ["(none read)"]).filter { !$0.contains("/journal/undo - Failed to load resource: the server responded with a status of 409") }
        #expect(severe == [], "console errors")
        // The imported file has no journal: nothing to undo or redo.
        #expect(part("start")["undo"] as? Bool == false && part("start")["redo"] as? Bool == false)
        #expect(part("start")["title"] as? String == "nothing to undo")
        #expect(part("before")["label"] as? String == "45763 ELMWOOD" && part("before")["popup"] as? String == "45763 ELMWOOD")

        // The CLI's edit, seen by the page without a reload: label, popup annotation and field.
        #expect(seen["cliStatus"] as? Int == 0)
        #expect(part("cli")["label"] as? String == "45888 ELMWOOD")
        #expect(part("cli")["popup"] as? String == "45888 ELMWOOD")
        #expect(part("cli")["field"] as? String == "45888")
        #expect((part("cli")["redraws"] as? Int ?? 0) >= 1)
        let log = try #require(try JSONSerialization.jsonObject(with: Data(Harness.annolink("log", path, "--json").stdout.utf8)) as? [[String: Any]])
        // The newest entries now: the HTTP edit, then the CLI's (done again by Redo).
        try #require(log.count == 2, "\(log)")
        let cliEntry = log[1]
        #expect(part("cli")["undoTitle"] as? String == "Undo #\(cliEntry["id"] as? Int ?? 0): \(cliEntry["summary"] as? String ?? "")")
        // Undo and Redo from the page, in the command line's words; the file went back and forth.
        #expect(part("undo")["message"] as? String == "undid #\(cliEntry["id"] as? Int ?? 0): \(cliEntry["summary"] as? String ?? "") (2 rows)")
        #expect(part("undo")["file"] as? String == "45763|45763 ELMWOOD")
        #expect(part("undo")["popup"] as? String == "45763 ELMWOOD")
        #expect(part("undo")["redo"] as? Bool == true)
        #expect(part("redo")["message"] as? String == "redid #\(cliEntry["id"] as? Int ?? 0): \(cliEntry["summary"] as? String ?? "") (2 rows)")
        #expect(part("redo")["file"] as? String == "45888 ELMWOOD")
        #expect(seen["httpEdit"] as? Bool == true)
        // The refused undo: the page shows what `annolink undo` says, and the file kept GDAL's value.
        let cli = try Harness.annolink("undo", path)
        #expect(cli.status == 65)
        let refusal = cli.stderr.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "error: ", with: "")
        #expect(refusal.hasPrefix("undo refused: Loudoun_Address_Points_1 fid 831 was changed after edit #"), "\(refusal)")
        let shown = part("refused")["error"] as? String ?? ""
        #expect(shown.contains(refusal), "page: \(shown); CLI: \(refusal)")
        #expect(part("refused")["file"] as? String == "45111")
        #expect(try Harness.sqlite(path, "SELECT AD_ADDRESS FROM Loudoun_Address_Points_1 WHERE fid = 831") == "45111")
        #expect(seen["notReloaded"] as? Bool == true && seen["navigations"] as? Int == 1)
        // Within a poll (1 s) and a redraw; generous for a loaded machine.
        #expect((seen["cliSeconds"] as? Double ?? 99) < 10 && (seen["httpSeconds"] as? Double ?? 99) < 10)
        print("live: the CLI's edit drawn \(seen["cliSeconds"] ?? "") s after the CLI started, the HTTP client's \(seen["httpSeconds"] ?? "") s after its answer")
    }

    @Test("/journal over HTTP: state, undo and redo as the CLI, refusals with their statuses")
    func journalRoutes() throws {
        let scratch = try ScratchDirectory(prefix: "journal-routes")
        let path = scratch.path("sample.gpkg")
        #expect(try Harness.annolink("sample", path, "--parcels", "20").status == 0)
        let tokens = scratch.path("tokens.txt")
        try "edit-token alice edit\nread-token bob read\n".write(toFile: tokens, atomically: true, encoding: .utf8)
        let server = try ServeProcess(file: path, arguments: ["--quiet", "--tokens", tokens])
        defer { _ = server.stop() }
        let alice = ["Authorization": "Bearer edit-token"]

        // An empty journal.
        let empty = try server.request("/journal", headers: alice)
        #expect(empty.status == 200 && empty.headers["cache-control"] == "no-store")
        #expect(empty.object?["lastEntry"] as? Int == 0 && empty.object?["undo"] is NSNull && empty.object?["redo"] is NSNull)
        #expect(empty.object?["mayEdit"] as? Bool == true)
        #expect(try server.request("/journal").object?["mayEdit"] as? Bool == false)
        let nothing = try server.request("/journal/undo", method: "POST", headers: alice)
        #expect(nothing.status == 409 && nothing.headers["content-type"] == "application/problem+json")
        #expect(nothing.object?["detail"] as? String == "nothing to undo: every edit in the journal is undone already, or there is none")
        #expect(try server.request("/journal/redo", method: "POST", headers: alice).object?["detail"] as? String
            == "nothing to redo: no edit was undone since the last edit")

        // An edit by alice through the FeatureServer; the key changes; the journal names her.
        let keyBefore = empty.object?["key"] as? String
        let service = "/arcgis/rest/services/sample/FeatureServer"
        let edit = try server.request(service + "/0/applyEdits", method: "POST", headers: alice,
                                      form: [("f", "json"), ("updates", #"[{"attributes": {"fid": 3, "AD_ADDRESS": 777}}]"#)])
        #expect((edit.object?["updateResults"] as? [[String: Any]])?.first?["success"] as? Bool == true, "\(edit.text)")
        let state = try server.request("/journal")
        #expect(state.object?["key"] as? String != keyBefore)
        let undoable = try #require(state.object?["undo"] as? [String: Any])
        #expect(undoable["user"] as? String == "alice" && undoable["command"] as? String == "serve applyEdits")

        // Who may not undo: anonymous (401 with a challenge), a read token (403), a bad token (401).
        let anonymous = try server.request("/journal/undo", method: "POST")
        #expect(anonymous.status == 401 && anonymous.headers["www-authenticate"] == "Bearer realm=\"annolink\"")
        let bob = try server.request("/journal/undo", method: "POST", headers: ["Authorization": "Bearer read-token"])
        #expect(bob.status == 403 && bob.object?["detail"] as? String == "the token of bob grants reading only")
        let bad = try server.request("/journal/undo", method: "POST", headers: ["Authorization": "Bearer nope"])
        #expect(bad.status == 401 && (bad.headers["www-authenticate"] ?? "").contains("invalid_token"))
        #expect(try server.request("/journal", headers: ["Authorization": "Bearer nope"]).status == 401)
        #expect(try Harness.sqlite(path, "SELECT AD_ADDRESS FROM address_points WHERE fid = 3") == "777")

        // Methods and paths.
        let get = try server.request("/journal/undo", headers: alice)
        #expect(get.status == 405 && get.headers["allow"] == "POST")
        let post = try server.request("/journal", method: "POST", headers: alice)
        #expect(post.status == 405 && post.headers["allow"] == "GET, HEAD")
        #expect(try server.request("/journal/undo/again", method: "POST", headers: alice).status == 404)
        #expect(try server.request("/journal", method: "HEAD").status == 200)

        // Alice undoes: the entry as `annolink log --json` has it, now undone; the file went back.
        let undone = try server.request("/journal/undo", method: "POST", headers: alice)
        #expect(undone.status == 200, "\(undone.text)")
        let entry = try #require(undone.object?["undone"] as? [String: Any])
        let log = try #require(try JSONSerialization.jsonObject(with: Data(Harness.annolink("log", path, "--json").stdout.utf8)) as? [[String: Any]])
        #expect(NSDictionary(dictionary: entry).isEqual(to: log[0]), "\(entry) vs \(log[0])")
        #expect(entry["state"] as? String == "undone")
        let after = try #require(undone.object?["journal"] as? [String: Any])
        #expect(after["undo"] is NSNull && (after["redo"] as? [String: Any])?["id"] as? Int == entry["id"] as? Int)
        #expect(try Harness.sqlite(path, "SELECT AD_ADDRESS FROM address_points WHERE fid = 3") != "777")
        // The command line sees the undo; its redo is seen by the server.
        #expect(try Harness.annolink("redo", path).status == 0)
        let redone = try server.request("/journal")
        #expect((redone.object?["undo"] as? [String: Any])?["id"] as? Int == entry["id"] as? Int)
        // A change outside the journal: the undo is refused (409) in the command line's words.
        try Harness.gdalSQL(path, "UPDATE address_points SET AD_ADDRESS = 1 WHERE fid = 3")
        let refused = try server.request("/journal/undo", method: "POST", headers: alice)
        let cli = try Harness.annolink("undo", path)
        #expect(refused.status == 409)
        #expect("error: \(refused.object?["detail"] as? String ?? "")\n" == cli.stderr, "\(refused.text) vs \(cli.stderr)")
        #expect(try Harness.sqlite(path, "SELECT AD_ADDRESS FROM address_points WHERE fid = 3") == "1")

        // A read-only server: the state says so; undo is refused with 403.
        _ = server.stop()
        let readOnly = try ServeProcess(file: path, arguments: ["--quiet", "--read-only"])
        defer { _ = readOnly.stop() }
        #expect(try readOnly.request("/journal").object?["mayEdit"] as? Bool == false)
        let refusedReadOnly = try readOnly.request("/journal/undo", method: "POST")
        #expect(refusedReadOnly.status == 403 && refusedReadOnly.object?["detail"] as? String == "the server is read-only (annolink serve --read-only)")
    }

    /// Arguments: the server's URL. Prints the Undo and Redo buttons' state once the page polls.
    static let buttonsScript = prelude + "\n" + #"""
    d = browser()
    try:
        d.get(sys.argv[1] + "/")
        WebDriverWait(d, 30).until(lambda d: d.find_element(By.ID, "live").text == "live")
        b = {n: d.find_element(By.NAME, n) for n in ("undo", "redo")}
        print(json.dumps({n: [e.is_enabled(), e.get_attribute("title")] for n, e in b.items()}))
    finally:
        d.quit()
    """#

    @Test("On a read-only server, and one that wants a token, Undo and Redo are disabled and say why")
    func buttonsRespectTheServer() throws {
        let scratch = try ScratchDirectory(prefix: "editor-buttons")
        let path = scratch.path("sample.gpkg")
        #expect(try Harness.annolink("sample", path, "--parcels", "20").status == 0)
        #expect(try Harness.annolink("set", path, "address_points", "3", "AD_ADDRESS=777").status == 0)
        let tokens = scratch.path("tokens.txt")
        try "edit-token alice edit\n".write(toFile: tokens, atomically: true, encoding: .utf8)
        let python = try Harness.venvTool("python")
        for (arguments, why) in [(["--read-only"], "the server is read-only"), (["--tokens", tokens], "editing needs a token")] {
            let server = try ServeProcess(file: path, arguments: ["--quiet"] + arguments)
            defer { _ = server.stop() }
            let result = try Harness.run(python, ["-c", Self.buttonsScript, server.url])
            try #require(result.status == 0, "\(result.stderr)")
            let seen = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: [Any]])
            for name in ["undo", "redo"] {
                #expect(seen[name]?.first as? Bool == false, "\(arguments): \(seen)")
                #expect(seen[name]?.last as? String == why, "\(arguments): \(seen)")
            }
        }
        // Served with neither, the page offers the CLI's edit for undo.
        let server = try ServeProcess(file: path, arguments: ["--quiet"])
        defer { _ = server.stop() }
        let result = try Harness.run(python, ["-c", Self.buttonsScript, server.url])
        let seen = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: [Any]]
        #expect(seen?["undo"]?.first as? Bool == true && seen?["undo"]?.last as? String == "Undo #1: set AD_ADDRESS of address_points fid 3", "\(String(describing: seen))")
        #expect(seen?["redo"]?.first as? Bool == false && seen?["redo"]?.last as? String == "nothing to redo")
    }

    /// Arguments: the server's URL, the service name. Times views at a few scales (from the
    /// call that moves the map to the frame after the view is drawn) and reads what each
    /// fetched. Prints JSON.
    static let perfScript = prelude + "\n" + #"""
    base, name = sys.argv[1], sys.argv[2]
    service = base + "/arcgis/rest/services/" + name + "/FeatureServer"
    d = browser()
    out = {"views": []}
    try:
        t0 = time.time()
        d.get(base + "/")
        WebDriverWait(d, 300).until(lambda d: "in view" in d.find_element(By.ID, "status").text)
        out["firstView"] = time.time() - t0
        d.execute_script("""
          window.viewTimes = [];
          new MutationObserver(() => requestAnimationFrame(() => window.viewTimes.push(performance.now())))
            .observe(document.body, { attributes: true, attributeFilter: ['data-views'] });""")
        info = get(service + "?f=json")
        out["maxRecordCount"] = info["maxRecordCount"]
        e = info["fullExtent"]
        cx, cy = (e["xmin"] + e["xmax"]) / 2, (e["ymin"] + e["ymax"]) / 2
        for scale in ["full", 20000, 4800, 1200]:
            for step in range(3):
                WebDriverWait(d, 300).until(lambda d: settled(d))
                d.execute_script("performance.clearResourceTimings()")
                n = d.execute_script("return window.viewTimes.length")
                if scale == "full":
                    js = "annolinkMap.fitBounds([[%r,%r],[%r,%r]], {animate: false})" % (e["ymin"], e["xmin"], e["ymax"], e["xmax"]) if step == 0 else "annolinkMap.panBy([40, 0], {animate: false})"
                else:
                    zoom = -math.log2(scale * 0.0254 / 96 / (1200 / 3937))
                    # A 40-pixel step east after the first view (map units per CSS pixel at 1:scale).
                    js = "annolinkMap.setView([%r,%r], %r, {animate: false})" % (cy, cx + step * 40 * scale * 0.0254 / 96 / (1200 / 3937), zoom)
                start = d.execute_script("const t = performance.now(); " + js + "; return t;")
                WebDriverWait(d, 300).until(lambda d: d.execute_script("return window.viewTimes.length") > n and settled(d))
                end = d.execute_script("return window.viewTimes[%d]" % n)
                # What the view fetched: the counts, the layers' features, the overview image.
                fetched = d.execute_script("""return performance.getEntriesByType('resource')
                    .filter(r => r.name.includes('/render.png?') || (r.name.includes('/query?') && r.name.includes('esriGeometryEnvelope')))
                    .map(r => [r.name.includes('returnCountOnly') ? 'count' : r.name.includes('/render.png?') ? 'image' : 'features', r.encodedBodySize])""")
                # The overview image, where it is on the screen and the box it was drawn for,
                # against the view's.
                seen = d.execute_script("""
                  const img = document.querySelector('img.overview'), b = annolinkMap.getBounds();
                  const r = img && img.getBoundingClientRect(), m = annolinkMap.getContainer().getBoundingClientRect();
                  return { overview: document.body.dataset.overview, images: document.querySelectorAll('img.overview').length,
                    bbox: img ? img.dataset.bbox.split(',').map(Number) : null, view: [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()],
                    size: img ? img.dataset.size : null, mapSize: annolinkMap.getSize().x + ',' + annolinkMap.getSize().y,
                    rect: r ? [r.left - m.left, r.top - m.top, r.width, r.height] : null, mapRect: [m.width, m.height],
                    vectors: Object.values(annolinkMap._layers).filter(l => l instanceof L.Path).length };""")
                seen.update({"scale": scale, "ms": end - start, "status": d.find_element(By.ID, "status").text,
                             "labels": len(d.find_elements(By.CSS_SELECTOR, "#annotation text")),
                             "counts": sum(1 for k, _ in fetched if k == "count"),
                             "queries": sum(1 for k, _ in fetched if k == "features"),
                             "images": sum(1 for k, _ in fetched if k == "image"),
                             "bytes": sum(n for _, n in fetched)})
                out["views"].append(seen)
        out["severe"] = [x["message"] for x in d.get_log("browser") if x["level"] == "SEVERE"]
    finally:
        d.quit()
    print(json.dumps(out))
    """#

    @Test("100,000 parcels: a dense view is one overview image of the view's box, a sparse one vectors, each view's time printed")
    func hundredThousandParcels() throws {
        let scratch = try ScratchDirectory(prefix: "editor-100k")
        let path = scratch.path("parcels.gpkg")
        let made = try Harness.annolink("sample", path, "--parcels", "100000")
        try #require(made.status == 0, "\(made.stderr)")
        let server = try ServeProcess(file: path, arguments: ["--quiet"])
        defer { _ = server.stop() }
        let result = try Harness.run(try Harness.venvTool("python"), ["-c", Self.perfScript, server.url, "parcels"])
        try #require(result.status == 0, "\(result.stderr)")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let views = try #require(seen["views"] as? [[String: Any]])
        try #require(views.count == 12)
        #expect(seen["severe"] as? [String] == [], "console errors")
        let fileBytes = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        var figures: [String] = []
        for view in views {
            let status = view["status"] as? String ?? "", scale = "\(view["scale"] ?? "")"
            let labels = view["labels"] as? Int ?? 0, bytes = view["bytes"] as? Int ?? 0, ms = view["ms"] as? Double ?? .infinity
            let overview = view["overview"] as? String == "true"
            figures.append("1:\(scale) \(Int(ms)) ms \(overview ? "overview" : "vectors") \(labels) labels \(bytes / 1024) KiB")
            // First the count of each feature layer and of each annotation layer whose text is
            // big enough to read, then either one image or one query per such layer.
            #expect((view["counts"] as? Int).map { $0 == 2 || $0 == 4 } == true, "\(view)")
            #expect(bytes < fileBytes / 50, "\(view)")
            // The time of each view is printed, not asserted: a busy machine may take any time
            // (issue 28); docs/editor.md has the figures and how they were measured.
            if scale == "full" || scale == "20000" {
                // Too dense for vectors (more than 2000 of a layer; the sample's Loudoun-sized
                // parcels leave about 1,000 in a 1:4800 view): one image, of the view's
                // box and pixel size, placed on the view; no vectors and no SVG text.
                #expect(overview, "\(view)")
                #expect(view["images"] as? Int == 1 && view["queries"] as? Int == 0, "\(view)")
                #expect(status.contains("overview: zoom in to edit"), "\(status)")
                #expect(labels == 0 && view["vectors"] as? Int == 0, "\(view)")
                let bbox = view["bbox"] as? [Double] ?? [], box = view["view"] as? [Double] ?? []
                #expect(bbox.count == 4 && zip(bbox, box).allSatisfy { abs($0 - $1) < 1e-6 * max(1, abs($1)) }, "\(view)")
                #expect(view["size"] as? String == view["mapSize"] as? String, "\(view)")
                // On the screen: from the map's top-left corner, as wide and high as Leaflet's
                // view (the bar below may have wrapped over its bottom edge since: not checked).
                let rect = view["rect"] as? [Double] ?? []
                let size = (view["mapSize"] as? String ?? "").split(separator: ",").compactMap { Double($0) }
                #expect(rect.count == 4 && size.count == 2 && abs(rect[0]) <= 1 && abs(rect[1]) <= 1
                        && abs(rect[2] - size[0]) <= 1 && abs(rect[3] - size[1]) <= 1, "\(view)")
            }
            if scale == "full" || scale == "20000" {
                // Text there is under a pixel: not fetched, and the image says how much it left out.
                #expect(view["counts"] as? Int == 2, "\(view)")
                #expect(status.contains("labels under 1 px not drawn"), "\(status)")
            }
            if scale == "1200" {
                // The sample's Loudoun-sized parcels put some 70 labels in a 1:1200 view.
                #expect(!overview && view["images"] as? Int == 0 && view["queries"] as? Int == 4, "\(view)")
                #expect(view["images"] as? Int == 0 && (view["vectors"] as? Int ?? 0) > 40, "\(view)")
                #expect(!status.contains("zoom in") && labels > 40, "\(view)")
            }
        }
        print("100k parcels, first view \(seen["firstView"] ?? ""): " + figures.joined(separator: "; "))
    }
}
