import AnnoLinkAnnotation
import AnnoLinkEditing
import AnnoLinkGeometry
import AnnoLinkStore
import Foundation
import Testing

/// One label moved, turned, retyped, marked or reset by hand (`PlaceAnnotation`, issue 27 item
/// 1): the row the request leaves, its `Override` bits and `PlacedFrom`, and its refusals, on the
/// synthetic sample (address labels above their points, 3.35 pt, horizontal, centred).
@Suite("EditService: labels placed by hand")
struct PlaceAnnotationTests {
    static let table = "address_points_anno"

    /// Address point 3's label and its fid.
    static func label(_ s: EditScratch) throws -> (row: AnnotationRow, fid: Int64) {
        let row = try s.annotation(table, feature: 3)
        return (row, try #require(row.fid))
    }

    static func stored(_ s: EditScratch, _ fid: Int64) throws -> AnnotationRow {
        try s.package.annotationRow(s.table(table), fid: fid)
    }

    @Test("--to sets the anchor exactly, the position bit and PlacedFrom person from the rule anchor; the footprint moves with it")
    func moveTo() throws {
        let s = try EditScratch()
        let (before, fid) = try Self.label(s)
        let target = Point(x: before.anchor!.x + 12.5, y: before.anchor!.y - 3.25)
        let result = try s.service.run(PlaceAnnotation(table: Self.table, fid: fid, to: target, command: "test"))
        let row = try Self.stored(s, fid)
        #expect(row.anchor == target)
        #expect(row.override == .position)
        #expect(row.angle == before.angle && row.text == before.text && row.status == 0)
        // The rule anchor is 3.35 pt above the point: PlacedFrom holds it relative to the new anchor.
        let point = try s.point(3)
        let basis = try #require(row.placedFrom)
        #expect(basis.source == .person)
        #expect(close(basis.ruleAnchor(from: target), Point(x: point.x, y: point.y + EditScratch.addressOffset), within: 1e-6))
        // The footprint is the old one moved by the same vector (same text, angle and font).
        let old = try #require(before.footprint?.exterior).points, new = try #require(row.footprint?.exterior).points
        #expect(old.count == new.count)
        for (a, b) in zip(old, new) { #expect(close(Point(x: a.x + 12.5, y: a.y - 3.25), b, within: 1e-6)) }
        #expect(result.kind == .place && result.journalEntry != nil)
        #expect(result.fields.map(\.name) == ["AnchorX", "AnchorY"])
        #expect(result.annotation.first?.newAnchor == target && result.annotation.first?.oldAnchor == before.anchor)
    }

    @Test("--by moves the anchor by exactly the vector (x + dx in doubles)")
    func moveBy() throws {
        let s = try EditScratch()
        let (before, fid) = try Self.label(s)
        _ = try s.service.run(PlaceAnnotation(table: Self.table, fid: fid, by: (20, -0.1), command: "test"))
        let row = try Self.stored(s, fid)
        #expect(row.anchor == Point(x: before.anchor!.x + 20, y: before.anchor!.y + -0.1))
        #expect(row.override == .position)
    }

    @Test("--angle is stored normalized to [0, 360), with the angle bit; the footprint turns about the anchor")
    func turn() throws {
        let s = try EditScratch()
        let (before, fid) = try Self.label(s)
        _ = try s.service.run(PlaceAnnotation(table: Self.table, fid: fid, angle: -15, command: "test"))
        let row = try Self.stored(s, fid)
        #expect(row.angle == 345)
        #expect(row.override == .angle)
        #expect(row.anchor == before.anchor)
        #expect(row.placedFrom?.source == .person)
        // Every vertex keeps its distance from the anchor (a rotation about it).
        let anchor = try #require(row.anchor)
        for (a, b) in zip(try #require(before.footprint?.exterior).points, try #require(row.footprint?.exterior).points) {
            #expect(abs(a.distance(to: anchor) - b.distance(to: anchor)) < 1e-6)
        }
    }

    @Test("--text sets the text with the text bit, the footprint as wide as the new text; PlacedFrom kept")
    func retext() throws {
        let s = try EditScratch()
        let (before, fid) = try Self.label(s)
        _ = try s.service.run(PlaceAnnotation(table: Self.table, fid: fid, text: before.text + " EXTENDED", command: "test"))
        let row = try Self.stored(s, fid)
        #expect(row.text == before.text + " EXTENDED")
        #expect(row.override == .text)
        #expect(row.placedFrom == before.placedFrom)
        let width = { (p: Polygon?) in p.flatMap { Geometry.polygon($0).envelope }.map { $0.maxX - $0.minX } ?? 0 }
        #expect(width(row.footprint) > width(before.footprint) + 10)
    }

    @Test("moving, turning and retyping in one request gives the row `set` gives for the same fields: one mechanism")
    func sameAsSet() throws {
        let placed = try EditScratch(), set = try EditScratch()
        let (before, fid) = try Self.label(placed)
        let target = Point(x: before.anchor!.x + 7, y: before.anchor!.y + 2)
        _ = try placed.service.run(PlaceAnnotation(table: Self.table, fid: fid, to: target, angle: 15, text: "45763 ELMWOOD CT", command: "test"))
        _ = try set.service.setFields(table: Self.table, fid: fid, values: [
            ("AnchorX", "\(target.x)"), ("AnchorY", "\(target.y)"), ("Angle", "15"), ("TextString", "45763 ELMWOOD CT"),
        ], command: "test")
        let a = try Self.stored(placed, fid), b = try Self.stored(set, fid)
        #expect(a == b)
        #expect(a.override == [.position, .angle, .text])
    }

    @Test("what was set by hand survives regeneration of the whole file and of the feature's attribute edit")
    func regenerationKeepsIt() throws {
        let s = try EditScratch()
        let (before, fid) = try Self.label(s)
        let target = Point(x: before.anchor!.x + 20, y: before.anchor!.y)
        _ = try s.service.run(PlaceAnnotation(table: Self.table, fid: fid, to: target, angle: 15, text: "HAND TEXT", command: "test"))
        let placed = try Self.stored(s, fid)
        _ = try s.service.annotation.regenerateAll()
        #expect(try Self.stored(s, fid) == placed)
        _ = try s.service.annotation.regenerateAll(replace: true)
        let replaced = try Self.stored(s, fid)
        #expect(replaced.anchor == target && replaced.angle == 15 && replaced.text == "HAND TEXT")
    }

    @Test("--reset clears annolink's three bits (Esri's kept), places the label by the rules and records PlacedFrom rules")
    func reset() throws {
        let s = try EditScratch()
        let (before, fid) = try Self.label(s)
        _ = try s.service.run(PlaceAnnotation(table: Self.table, fid: fid, by: (30, 30), angle: 40, text: "HAND", command: "test"))
        _ = try s.service.setFields(table: Self.table, fid: fid, values: [("Override", "1031")], command: "Esri's word spacing bit")
        let result = try s.service.run(PlaceAnnotation(table: Self.table, fid: fid, reset: true, command: "test"))
        let row = try Self.stored(s, fid)
        #expect(row.override.rawValue == 1024)
        #expect(row.text == before.text)
        #expect(row.angle == before.angle)
        #expect(close(row.anchor, before.anchor, within: 1e-9), "the sample's labels are at their rule placement")
        #expect(row.placedFrom?.source == .rules)
        #expect(row.status == 0)
        #expect(result.fields.map(\.name).sorted() == ["AnchorX", "AnchorY", "Angle", "Override", "TextString"])
    }

    @Test("--unplaced and --placed set Status, and no Override bit")
    func status() throws {
        let s = try EditScratch()
        let (_, fid) = try Self.label(s)
        _ = try s.service.run(PlaceAnnotation(table: Self.table, fid: fid, status: .unplaced, command: "test"))
        #expect(try Self.stored(s, fid).status == 1)
        #expect(try Self.stored(s, fid).override == [])
        _ = try s.service.run(PlaceAnnotation(table: Self.table, fid: fid, status: .placed, command: "test"))
        #expect(try Self.stored(s, fid).status == 0)
    }

    @Test("undo restores the file exactly after each kind of edit", arguments: ["to", "by", "angle", "text", "reset", "unplaced"])
    func undo(kind: String) throws {
        let s = try EditScratch()
        let (before, fid) = try Self.label(s)
        // A hand-set row first, so that the reset has something to undo.
        _ = try s.service.run(PlaceAnnotation(table: Self.table, fid: fid, by: (5, 5), command: "first"))
        let dump = try s.dump()
        var request = PlaceAnnotation(table: Self.table, fid: fid, command: "test")
        switch kind {
        case "to": request.to = Point(x: before.anchor!.x - 9, y: before.anchor!.y)
        case "by": request.by = (1.5, 2.5)
        case "angle": request.angle = 90
        case "text": request.text = "OTHER"
        case "reset": request.reset = true
        default: request.status = .unplaced
        }
        _ = try s.service.run(request)
        #expect(try s.dump() != dump)
        _ = try s.service.run(Undo())
        // The journal's own rows (and its place in sqlite_sequence) record the undo; every other
        // table is as it was.
        let journal = { (lines: [String]) in lines.filter { !$0.hasPrefix("annolink_journal") && !$0.hasPrefix("sqlite_sequence: 6, 'annolink_journal'") } }
        let after = journal(try s.dump()), expected = journal(dump)
        #expect(after == expected ? true : false, "first difference: \(zip(after, expected).first { $0 != $1 }.map { "\($0.0)\n→ \($0.1)" } ?? "counts \(after.count) \(expected.count)")")
    }

    @Test("a dry run answers what the edit does and writes nothing")
    func dryRun() throws {
        let s = try EditScratch()
        let (_, fid) = try Self.label(s)
        let dump = try s.dump()
        let request = PlaceAnnotation(table: Self.table, fid: fid, by: (3, 4), angle: 10, command: "test")
        let preview = try s.service.run(DryRun(request))
        #expect(try s.dump() == dump)
        #expect(preview.dryRun && preview.journalEntry == nil)
        let real = try s.service.run(request)
        #expect(preview.annotation == real.annotation)
    }

    static let refusals: [(name: String, request: PlaceAnnotation, message: String)] = [
        ("unknown table", PlaceAnnotation(table: "no_such", fid: 1, angle: 5, command: "t"), "no_such"),
        ("unknown fid", PlaceAnnotation(table: table, fid: 999_999, angle: 5, command: "t"), "999999"),
        ("a feature table", PlaceAnnotation(table: "address_points", fid: 3, angle: 5, command: "t"),
         "address_points is not an annotation table: place moves, turns and retexts annotation rows (to move a feature, use move)"),
        ("both to and by", PlaceAnnotation(table: table, fid: 1, to: Point(x: 1, y: 2), by: (1, 1), command: "t"),
         "give the new anchor (to) or the move (by), not both"),
        ("nothing asked", PlaceAnnotation(table: table, fid: 1, command: "t"),
         "nothing to change: give a new anchor (to or by), angle, text or status, or a reset"),
        ("reset and more", PlaceAnnotation(table: table, fid: 1, angle: 3, reset: true, command: "t"),
         "a reset places the label by the rules: it takes no new anchor, angle, text or status"),
        ("a NaN anchor", PlaceAnnotation(table: table, fid: 1, to: Point(x: .nan, y: 2), command: "t"), "coordinates must be finite numbers"),
        ("an infinite move", PlaceAnnotation(table: table, fid: 1, by: (.infinity, 0), command: "t"), "coordinates must be finite numbers"),
        ("a NaN angle", PlaceAnnotation(table: table, fid: 1, angle: .nan, command: "t"), "invalid value 'nan' for address_points_anno.Angle"),
        ("an angle beyond two turns", PlaceAnnotation(table: table, fid: 1, angle: 721, command: "t"),
         "invalid value '721.0' for address_points_anno.Angle: Angle takes a number from -720 to 720 (degrees)"),
        ("an anchor beyond the CRS", PlaceAnnotation(table: table, fid: 1, to: Point(x: 1e300, y: 0), command: "t"), "AnchorX takes a number from"),
        ("an empty text", PlaceAnnotation(table: table, fid: 1, text: " ", command: "t"), "a label's text may not be empty or blank"),
    ]

    @Test("refusals name what was wrong and change nothing", arguments: refusals.indices)
    func refused(index: Int) throws {
        let (name, request, message) = Self.refusals[index]
        let s = try EditScratch()
        let error = try s.expectUnchanged(by: { _ = try s.service.run(request) }, throws: (any Error).self)
        let text = error.map { "\($0)" } ?? ""
        #expect(text.contains(message), "\(name): \(text)")
    }

    @Test("a reset of a row linked to no feature is refused and changes nothing")
    func resetUnlinked() throws {
        let s = try EditScratch()
        let (_, fid) = try Self.label(s)
        try s.package.connection.execute("UPDATE address_points_anno SET FeatureID = NULL WHERE fid = \(fid)")
        let error = try s.expectUnchanged(by: {
            _ = try s.service.run(PlaceAnnotation(table: Self.table, fid: fid, reset: true, command: "t"))
        }, throws: EditError.self)
        #expect(error?.description == "address_points_anno fid \(fid) is not linked to a feature (FeatureID is NULL): there are no rules to place it by")
    }
}
