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
    static let script = Browser.script("traps.py")

    @Test("layer list, tools by geometry, one undo in view while sketching (Ctrl+Z undoes the sketch, not the journal), the journal Undo naming table, fid and field")
    func traps() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let server = try ServeProcess(file: path, arguments: ["--quiet"])
        defer { _ = server.stop() }
        let pointsBefore = try Harness.sqlite(path, "SELECT count(*) FROM Loudoun_Address_Points_1")
        let result = try Harness.run(try Harness.venvTool("python"), [Self.script, server.url])
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
    static let phoneScript = Browser.script("traps_phone.py")

    @Test("at 390 × 844 with touch, the idle sketch toolbar covers neither Full extent nor the scale box")
    func phoneToolbar() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let server = try ServeProcess(file: path, arguments: ["--quiet"])
        defer { _ = server.stop() }
        let shot = try Harness.temporaryDirectory().appendingPathComponent("editor-traps-phone.png").path
        let result = try Harness.run(try Harness.venvTool("python"), [Self.phoneScript, server.url, shot])
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
