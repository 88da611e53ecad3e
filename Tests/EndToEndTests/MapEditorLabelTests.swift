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
    static let script = Browser.script("labels.py")

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
        let result = try Harness.run(try Harness.venvTool("python"), [Self.script, server.url, path, cli, snapshot, shots.path])
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
