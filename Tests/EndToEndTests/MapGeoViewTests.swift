import AnnoLinkTestSupport
import Foundation
import Testing

/// The map editor's GeoView operations, keyboard, phone viewport and tokens (issue 15 items 3,
/// 4 and 7; docs/editor.md) in a real browser: Debian's headless Chromium driven by Selenium
/// (the venv of scripts/test-venv) against a real `annolink serve` on the Loudoun import. What
/// the page shows is compared with outside oracles (PROJ's `cs2cs`, `sqlite3`) and with what the
/// server answers to other clients.
@Suite("Map editor GeoView operations in a browser", .serialized)
struct MapGeoViewTests {
    /// Viewpoints (typed scale, full extent, zoom to a point and a polygon, animated), identify
    /// (the list), the coordinate read-out, an empty label field refused, "Export image"; takes
    /// the 1280 × 800 screenshot. Arguments: the server's URL, the screenshot folder, the
    /// download folder.
    static let desktop = Browser.script("geoview_desktop.py")

    /// Tab order, visible focus and accessible names of every control; Enter on the map
    /// identifies at the centre; Space and Enter work the list and the popup; Escape closes it.
    static let keyboard = Browser.script("geoview_keyboard.py")

    /// A phone (390 × 844, touch, device pixel ratio 3): controls on the screen, a finger pans,
    /// two fingers zoom, taps identify and choose, "Zoom to" and "Export image" by taps; takes the 390 × 844
    /// screenshot. Arguments: the server's URL, the screenshot folder.
    static let phone = Browser.script("geoview_phone.py")

    /// A server with `--tokens`: read-only without a token (an edit refused with 499, the token
    /// form opened), an unknown token (401, forgotten), a read token (403), an edit token (the
    /// edit made, by that user); the token never in a URL.
    static let tokens = Browser.script("geoview_tokens.py")

    /// Runs the script at `script` (`Browser.script`) with the venv's Python and reads the JSON it prints.
    func browse(_ script: String, _ arguments: [String]) throws -> [String: Any] {
        let result = try Harness.run(try Harness.venvTool("python"), [script] + arguments)
        try #require(result.status == 0, "\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    /// The width and height in a PNG's IHDR chunk.
    func pngSize(_ data: Data) -> (Int, Int)? {
        let bytes = [UInt8](data)
        guard bytes.count > 24, bytes.prefix(8) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], bytes[12..<16] == [0x49, 0x48, 0x44, 0x52] else { return nil }
        let be = { (i: Int) in bytes[i..<i + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (be(16), be(20))
    }

    /// Where the screenshots go: a scratch folder, copied to `ANNOLINK_EDITOR_SCREENSHOTS`
    /// (e.g. `docs`) when it is set.
    func keepScreenshot(_ name: String, from folder: URL) throws {
        let made = folder.appendingPathComponent(name)
        let png = try Data(contentsOf: made)
        #expect(pngSize(png) != nil, "\(name) is a PNG")
        if let keep = ProcessInfo.processInfo.environment["ANNOLINK_EDITOR_SCREENSHOTS"] {
            let target = URL(fileURLWithPath: keep).appendingPathComponent(name).path
            try? FileManager.default.removeItem(atPath: target)
            try FileManager.default.copyItem(atPath: made.path, toPath: target)
        }
    }

    @Test("viewpoints animated, identify list, zoom to, read-out against cs2cs, empty label field refused, export image as render")
    func geoViewOperations() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let server = try ServeProcess(file: path)
        defer { _ = server.stop() }
        let shots = try Harness.temporaryDirectory(), downloads = try Harness.temporaryDirectory()
        let seen = try browse(Self.desktop, [server.url, shots.path, downloads.path])
        #expect(seen["severe"] as? [String] == [], "console errors")

        // A typed 1:1200 and Full extent: animated (many zoom frames), the centre kept.
        let typed = try #require(seen["typedScale"] as? [String: Any])
        #expect(typed["shown"] as? String == "1200")
        #expect((typed["frames"] as? Int ?? 0) > 3, "zoom frames \(typed["frames"] ?? "")")
        let before = try #require(typed["before"] as? [Double]), after = try #require(typed["after"] as? [Double])
        let pixel = try #require(typed["unitsPerPixel"] as? Double)
        #expect(hypot(after[0] - before[0], after[1] - before[1]) < pixel, "centre \(before) → \(after)")
        let full = try #require(seen["fullExtent"] as? [String: Any])
        #expect(full["shown"] as? String == full["first"] as? String)
        #expect((full["frames"] as? Int ?? 0) > 3)

        // Identify: every feature the server finds within 10 px of the tap, listed points first,
        // then lines, then polygons; after them the labels whose footprint holds the tap point.
        let listed = try #require(seen["identifyList"] as? [[Any]]), found = try #require(seen["identifyExpected"] as? [[Any]])
        let list = listed.map { "\($0[0]) \($0[1])" }, expected = found.map { "\($0[0]) \($0[1])" }
        #expect(list.count > 1 && Set(list) == Set(expected) && list.count == expected.count, "list \(list) vs server \(expected)")
        #expect(list.first == "Loudoun_Address_Points_1 831")
        let features = Array(list.prefix { !$0.contains("Anno") })
        #expect(list.dropFirst(features.count).allSatisfy { $0.contains("Anno") }, "labels after the features: \(list)")
        let kinds = features.map { $0.hasPrefix("Loudoun_Address_Points_1") ? 0 : $0.hasPrefix("ParcelLines_1") ? 1 : 2 }
        #expect(kinds == kinds.sorted(), "points, lines, polygons: \(list)")
        // A place with one feature within 10 px: its popup at once; with none: said so.
        let singles = try #require(seen["singles"] as? [String: [String: Any]])
        #expect(singles["1"]?["forms"] as? Int == 1 && singles["1"]?["lists"] as? Int == 0, "one feature: \(singles["1"] ?? [:])")
        #expect((singles["1"]?["message"] as? String ?? "").hasPrefix("Loudoun_"), "\(singles["1"] ?? [:])")
        #expect(singles["0"]?["forms"] as? Int == 0 && singles["0"]?["lists"] as? Int == 0
                && singles["0"]?["message"] as? String == "nothing within 10 px", "no feature: \(singles["0"] ?? [:])")
        let buttons = seen["popupButtons"] as? [String] ?? []
        #expect(["Update", "Move", "‹ List", "Zoom to"].allSatisfy(buttons.contains), "\(buttons)")

        // The read-out: x, y where the pointer is; longitude/latitude as cs2cs gives them.
        let readouts = try #require(seen["readouts"] as? [[String: Any]])
        try #require(readouts.count == 3)
        let input = readouts.map { String(format: "%.6f %.6f", $0["x"] as? Double ?? 0, $0["y"] as? Double ?? 0) }.joined(separator: "\n") + "\n"
        let proj = try ExternalTool.cs2cs.output(["-f", "%.10f", "EPSG:2924", "EPSG:4326"], input: input).split(separator: "\n")
        try #require(proj.count == 3)
        for (readout, line) in zip(readouts, proj) {
            let expect = readout["expect"] as? [Double] ?? []
            let x = readout["x"] as? Double ?? .nan, y = readout["y"] as? Double ?? .nan
            #expect(abs(x - expect[0]) < 1e-6 && abs(y - expect[1]) < 1e-6)
            // cs2cs writes latitude, longitude (EPSG:4326's axis order).
            let numbers = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap { Double($0) }
            let longitude = readout["longitude"] as? Double ?? .nan, latitude = readout["latitude"] as? Double ?? .nan
            #expect(abs(longitude - numbers[1]) < 1e-6 && abs(latitude - numbers[0]) < 1e-6, "page \(longitude), \(latitude) vs cs2cs \(line)")
            let text = readout["text"] as? String ?? ""
            #expect(text.contains(String(format: "lon %.7f°", longitude)) && text.contains(String(format: "x %.2f", x)), "\(text)")
        }

        // An empty label field: refused in the page with the edit service's words, no request sent.
        #expect(seen["labelFieldMarked"] as? Bool == true)
        let refusal = seen["emptyRefusal"] as? String ?? ""
        let words = #"Loudoun_Address_Points_1.ST_STR_NAM may not be empty or NULL: annotation class 'Class 1' (Loudoun_Address_PointsAnno_1 class 0) labels with $feature.AD_ADDRESS + " " + $feature.ST_STR_NAM, which reads it"#
        #expect(refusal.contains(words), "\(refusal)")
        let numberWords = words.replacingOccurrences(of: "ST_STR_NAM may", with: "AD_ADDRESS may")
        #expect((seen["emptyNumberRefusal"] as? String ?? "").contains(numberWords), "\(seen["emptyNumberRefusal"] ?? "")")
        #expect(!server.stderr.contains("applyEdits"), "the page sent an edit")
        let direct = try server.request("/arcgis/rest/services/loudoun/FeatureServer/0/applyEdits", method: "POST", form: [
            ("f", "json"), ("updates", #"[{"attributes": {"fid": 831, "ST_STR_NAM": ""}}]"#)])
        let outcome = (direct.object?["updateResults"] as? [[String: Any]])?.first
        let description = (outcome?["error"] as? [String: Any])?["description"] as? String ?? ""
        #expect(outcome?["success"] as? Bool == false && description.hasPrefix(words), "the server's refusal: \(direct.text)")
        #expect(try Harness.sqlite(path, "SELECT ST_STR_NAM FROM Loudoun_Address_Points_1 WHERE fid = 831") == "ELMWOOD")

        // Zoom to: a point centred at 1:1200, a polygon's extent fitted; both animated.
        let point = try #require(seen["zoomToPoint"] as? [String: Any])
        let centre = try #require(point["centre"] as? [Double]), target = try #require(point["point"] as? [Double])
        #expect(hypot(centre[0] - target[0], centre[1] - target[1]) < pixel, "centre \(centre) vs 831 \(target)")
        #expect(point["shown"] as? String == "1200")
        #expect((point["frames"] as? Int ?? 0) > 3)
        let polygon = try #require(seen["zoomToPolygon"] as? [String: Any])
        let extent = try #require(polygon["extent"] as? [Double]), view = try #require(polygon["view"] as? [Double])
        #expect(view[0] <= extent[0] && view[1] <= extent[1] && view[2] >= extent[2] && view[3] >= extent[3], "extent \(extent) in view \(view)")
        let fill = max((extent[2] - extent[0]) / (view[2] - view[0]), (extent[3] - extent[1]) / (view[3] - view[1]))
        #expect(fill > 0.8, "the extent fills \(fill) of the view")
        #expect((polygon["frames"] as? Int ?? 0) > 3)

        // Export image: a PNG as big as the view, the picture `annolink render` makes of its box.
        let export = try #require(seen["export"] as? [String: Any])
        let size = try #require(seen["mapSize"] as? [Int])
        #expect(export["width"] as? Int == size[0] && export["height"] as? Int == size[1])
        #expect(seen["downloads"] as? [String] == ["loudoun-1-1200.png"])
        let downloaded = try Data(contentsOf: downloads.appendingPathComponent("loudoun-1-1200.png"))
        let picture = try #require(pngSize(downloaded))
        #expect(picture == (size[0], size[1]), "PNG \(picture) vs view \(size)")
        let rendered = try Harness.temporaryDirectory().appendingPathComponent("render.png").path
        let render = try Harness.annolink("render", path, rendered, "--bbox", export["bbox"] as? String ?? "", "--size", "\(size[0]),\(size[1])")
        #expect(render.status == 0, "\(render.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: rendered)) == downloaded, "the exported image is render's")
        try keepScreenshot("editor-geoview.png", from: shots)
    }

    @Test("every control reachable by keyboard, with a visible focus and a name; Enter on the map identifies at the centre")
    func keyboard() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let server = try ServeProcess(file: path, arguments: ["--quiet"])
        defer { _ = server.stop() }
        let seen = try browse(Self.keyboard, [server.url])
        #expect(seen["severe"] as? [String] == [], "console errors")
        let order = try #require(seen["tabOrder"] as? [[String: Any]])
        let names = order.map { f -> String in
            let id = f["id"] as? String ?? "", cls = f["cls"] as? String ?? ""
            if !id.isEmpty { return "#" + id }
            if cls.contains("leaflet-control-zoom-in") { return "zoom in" }
            if cls.contains("leaflet-control-zoom-out") { return "zoom out" }
            return f["tag"] as? String ?? "?"
        }
        #expect(names == ["#map", "zoom in", "zoom out", "#token-button", "#export-image", "#full-extent", "#scale"]
                || Array(names.prefix(3)) == ["#map", "zoom in", "zoom out"] && Set(["#token-button", "#export-image", "#full-extent", "#scale"]).isSubset(of: Set(names)),
                "tab order \(names)")
        for f in order {
            #expect(f["visible"] as? Bool == true, "no visible focus on \(f)")
            #expect(!(f["label"] as? String ?? "").isEmpty, "no name for \(f)")
        }
        let zooms = seen["zoomKeys"] as? [Double] ?? []
        #expect(zooms.count == 3 && abs(zooms[1] - zooms[0] - 0.5) < 1e-9 && abs(zooms[2] - zooms[0]) < 1e-9, "Space on zoom in, Enter on zoom out: \(zooms)")
        #expect((seen["afterEnter"] as? [String: Any])?["tag"] as? String == "button", "Enter on the map puts the focus in the list")
        #expect((seen["popupFocus"] as? [String: Any])?["tag"] as? String == "input")
        let inside = try #require(seen["popupOrder"] as? [[String: Any]])
        let buttonNames = inside.compactMap { $0["tag"] as? String == "button" ? $0["name"] as? String : nil }
        #expect(buttonNames == ["update", "move", "back", "zoom-to"], "\(buttonNames)")
        #expect(inside.count > 10 && inside.allSatisfy { $0["visible"] as? Bool == true })
        let zoom = try #require(seen["zoomTo"] as? [String: Any])
        let centre = try #require(zoom["centre"] as? [Double]), point = try #require(zoom["point"] as? [Double])
        #expect(zoom["shown"] as? String == "1200")
        #expect(hypot(centre[0] - point[0], centre[1] - point[1]) < 0.5)
        #expect(((seen["afterEscape"] as? [String: Any])?["cls"] as? String ?? "").contains("leaflet-container"))
        #expect(seen["typedScale"] as? String == "600")
        // A point moved with the keyboard alone: to the centre after an arrow key's pan.
        #expect(((seen["afterMove"] as? [String: Any])?["cls"] as? String ?? "").contains("leaflet-container"), "the map has the focus after Move")
        let move = try #require(seen["keyboardMove"] as? [String: Any])
        let moveCentre = try #require(move["centre"] as? [Double]), stored = try #require(move["stored"] as? [Double])
        let before = try #require(move["before"] as? [Double])
        #expect(move["message"] as? String == "moved Loudoun_Address_Points_1 831")
        #expect(abs(stored[0] - moveCentre[0]) < 1e-6 && abs(stored[1] - moveCentre[1]) < 1e-6, "stored \(stored) vs centre \(moveCentre)")
        #expect(stored[0] - before[0] > 20, "the arrow key panned right: \(before) → \(stored)")
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM annolink_journal") == "1")
    }

    @Test("a phone: 390 × 844 with touch; pan, identify and choose by taps, zoom to, export the view")
    func phone() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let server = try ServeProcess(file: path, arguments: ["--quiet"])
        defer { _ = server.stop() }
        let shots = try Harness.temporaryDirectory()
        let seen = try browse(Self.phone, [server.url, shots.path])
        #expect(seen["severe"] as? [String] == [], "console errors")
        let viewport = try #require(seen["viewport"] as? [Any])
        #expect(viewport[0] as? Int == 390 && viewport[1] as? Int == 844 && viewport[3] as? Bool == true && viewport[5] as? Bool == true, "\(viewport)")
        let controls = try #require(seen["controls"] as? [[Any]])
        let boxes = controls.map { c in (c[0] as? String ?? "", (1...4).map { (c[$0] as? NSNumber)?.doubleValue ?? .nan }) }
        for (name, r) in boxes {
            #expect(r[0] >= 0 && r[1] >= 0 && r[2] <= 390 && r[3] <= 844 && r[2] > r[0] && r[3] > r[1], "\(name) at \(r)")
        }
        for (i, a) in boxes.enumerated() {
            for b in boxes[(i + 1)...] where a.0 != "#status" && b.0 != "#status" {
                let overlap = a.1[0] < b.1[2] && b.1[0] < a.1[2] && a.1[1] < b.1[3] && b.1[1] < a.1[3]
                #expect(!overlap, "\(a.0) \(a.1) covers \(b.0) \(b.1)")
            }
        }
        // A finger dragged 80 px to the left moves the map's centre right by as much, less
        // Chromium's touch slop (its first 10 px move reaches Leaflet only as the drag's start),
        // and not up or down.
        let pan = try #require(seen["pan"] as? [String: Any])
        let before = try #require(pan["before"] as? [Double]), after = try #require(pan["after"] as? [Double])
        let panned = (after[0] - before[0]) / before[2]
        #expect(panned > 65 && panned < 81, "panned \(panned) px")
        #expect(abs(after[1] - before[1]) / before[2] < 3)
        let pinch = seen["pinch"] as? [Double] ?? []
        #expect(pinch.count == 2 && abs(pinch[1] - pinch[0] - log2(3)) < 0.05, "a pinch from 100 to 300 px zooms by log2(3): \(pinch)")
        let list = try #require(seen["list"] as? [[String]])
        #expect(list.count > 1 && list.first == ["Loudoun_Address_Points_1", "831"], "\(list)")
        let tapped = try #require(seen["tapReadout"] as? [Double]), expected = try #require(seen["tapExpected"] as? [Double])
        #expect(hypot(tapped[0] - expected[0], tapped[1] - expected[1]) < expected[2], "read-out \(tapped) at the tap \(expected)")
        let popup = try #require(seen["popup"] as? [Double])
        #expect(popup[0] >= 0 && popup[2] <= 390, "popup \(popup) inside the screen")
        #expect((seen["popupButtons"] as? [String] ?? []).contains("Zoom to"))
        let zoom = try #require(seen["zoomTo"] as? [String: Any])
        let centre = try #require(zoom["centre"] as? [Double]), point = try #require(zoom["point"] as? [Double])
        #expect(zoom["shown"] as? String == "1200")
        #expect(hypot(centre[0] - point[0], centre[1] - point[1]) < centre[2])
        let export = try #require(seen["export"] as? [String: Any]), size = try #require(seen["mapSize"] as? [Int])
        #expect(size[0] == 390 && export["width"] as? Int == 390 && export["height"] as? Int == size[1])
        try keepScreenshot("editor-phone.png", from: shots)
    }

    @Test("with --tokens: read only without one, unknown and read tokens refused clearly, an edit token edits as its user")
    func tokens() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let tokenFile = try Harness.temporaryDirectory().appendingPathComponent("tokens").path
        try "alice-secret alice edit\nbob-secret bob read\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let server = try ServeProcess(file: path, arguments: ["--tokens", tokenFile])
        defer { _ = server.stop() }
        let seen = try browse(Self.tokens, [server.url])
        #expect(seen["anonymous"] as? String == #"read only without a token: "Token" to edit"#)
        #expect((seen["anonymousEdit"] as? String ?? "").contains(#"Token Required (499) — this needs a token: enter one with "Token""#), "\(seen["anonymousEdit"] ?? "")")
        // The sketch module reads its answers through the core's: the sketch routes' problem
        // documents get the same hints as Esri's codes.
        #expect((seen["anonymousSketch"] as? String ?? "").contains(#"sketch: sketching needs a token (Authorization: Bearer TOKEN) (401) — this needs a token: enter one with "Token""#), "\(seen["anonymousSketch"] ?? "")")
        #expect(seen["formShown"] as? Bool == true)
        // The popups say why they cannot edit: no fields to type in, Update off.
        let anonymousPopup = seen["anonymousPopup"] as? [Any] ?? []
        #expect(anonymousPopup.count == 3 && anonymousPopup[0] as? String == #"read only: "Token" to edit"# && anonymousPopup[1] as? Bool == false
                && anonymousPopup[2] as? Int == 0, "\(anonymousPopup)")
        let readerPopup = seen["readerPopup"] as? [Any] ?? []
        #expect(readerPopup.first as? String == "read only: the token of bob does not allow edits", "\(readerPopup)")
        #expect((seen["invalid"] as? String ?? "").contains("the token kept in this tab is not valid on this server (401)"), "\(seen["invalid"] ?? "")")
        let afterInvalid = seen["afterInvalid"] as? [Any] ?? []
        #expect(afterInvalid.count == 2 && afterInvalid[1] is NSNull, "the unknown token is forgotten: \(afterInvalid)")
        #expect(seen["reader"] as? [String] == ["signed in as bob (read only)", "Token: bob"])
        #expect((seen["readerEdit"] as? String ?? "").contains("(403) — your token does not allow this"), "\(seen["readerEdit"] ?? "")")
        #expect((seen["readerSketch"] as? String ?? "").contains("sketch: the token of bob grants reading only (403) — your token does not allow this"), "\(seen["readerSketch"] ?? "")")
        #expect(seen["editor"] as? [String] == ["signed in as alice", "Token: alice"])
        #expect(seen["editorEdit"] as? [String] == ["updated Loudoun_Address_Points_1 831", ""])
        #expect(try Harness.sqlite(path, "SELECT AD_ADDRESS FROM Loudoun_Address_Points_1 WHERE fid = 831") == "45003")
        #expect(try Harness.sqlite(path, "SELECT user FROM annolink_journal ORDER BY id DESC LIMIT 1") == "alice")
        #expect(seen["export"] as? [String] == ["1", ""])
        #expect(seen["storedToken"] as? String == "alice-secret")
        #expect(seen["urls"] as? [String] == [], "the token in a URL")
        // The page's requests carried the token (a Bearer header): the access log names alice.
        #expect(server.stderr.split(separator: "\n").contains { $0.contains("GET /render.png 200") && $0.hasSuffix(" alice") })
    }
}
