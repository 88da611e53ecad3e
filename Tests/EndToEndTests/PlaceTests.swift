import AnnoLinkTestSupport
import Foundation
import Testing

/// `annolink place` on the Loudoun import (issue 27 item 1): each option as the file then holds
/// it (read with `sqlite3`), kept by `annotate --regenerate` and `check --fix`, undone exactly,
/// and its refusals: one `error:` line, the file unchanged.
@Suite("place, end to end")
struct PlaceTests {
    static let table = "Loudoun_Address_PointsAnno_1"
    /// "45763 ELMWOOD", the label of address point 831, as ArcGIS placed it.
    static let fid = "1"

    /// The label's columns: anchor and angle to 17 digits (which read back exactly), text,
    /// status, override, PlacedFrom, the footprint as hexadecimal.
    static func row(_ path: String, fid: String = fid) throws -> [String] {
        try Harness.sqlite(path, """
            SELECT printf('%.17g', AnchorX) || '|' || printf('%.17g', AnchorY) || '|' || printf('%.17g', Angle) || '|' || TextString || '|' || Status || '|' ||
                   Override || '|' || ifnull(PlacedFrom, 'NULL') || '|' || hex(geom) FROM \(table) WHERE fid = \(fid)
            """).components(separatedBy: "|")
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("--to, --by, --angle and --text: the new anchor, angle and text with their Override bits and PlacedFrom person; kept by annotate --regenerate and check --fix; each undone exactly")
    func eachOption() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let original = try Self.row(path)
        let x = Double(original[0])!, y = Double(original[1])!
        var dumps = [try Harness.dumpIgnoringTimes(path)]

        let to = try Harness.annolink("place", path, Self.table, Self.fid, "--to", "\(x - 10),\(y + 5)", "--json")
        #expect(to.status == 0, "\(to.stderr)")
        let answer = try Self.json(to.stdout)
        #expect(answer["edit"] as? String == "place" && answer["dryRun"] as? Bool == false)
        #expect(try Double(Self.row(path)[0]) == x - 10 && Double(Self.row(path)[1]) == y + 5)
        #expect(try Self.row(path)[5] == "1025", "the position bit beside ArcGIS's 1024, which is kept")
        #expect(try Self.row(path)[6].hasPrefix("person "))
        dumps.append(try Harness.dumpIgnoringTimes(path))

        let by = try Harness.annolink("place", path, Self.table, Self.fid, "--by", "20,0")
        #expect(by.status == 0, "\(by.stderr)")
        #expect(by.stdout.hasPrefix("placed \(Self.table) fid 1 (journal entry 2;"), "\(by.stdout)")
        #expect(try Double(Self.row(path)[0]) == x - 10 + 20)
        dumps.append(try Harness.dumpIgnoringTimes(path))

        let angle = try Harness.annolink("place", path, Self.table, Self.fid, "--angle", "15")
        #expect(angle.status == 0, "\(angle.stderr)")
        #expect(try Double(Self.row(path)[2]) == 15 && Self.row(path)[5] == "1027")
        dumps.append(try Harness.dumpIgnoringTimes(path))

        let text = try Harness.annolink("place", path, Self.table, Self.fid, "--text", "45763 ELMWOOD CT")
        #expect(text.status == 0, "\(text.stderr)")
        let placed = try Self.row(path)
        #expect(placed[3] == "45763 ELMWOOD CT" && placed[5] == "1031")
        #expect(placed[7] != original[7], "the footprint follows the anchor, angle and text")
        dumps.append(try Harness.dumpIgnoringTimes(path))

        // What a person set stays through regeneration and repair.
        #expect(try Harness.annolink("annotate", path, "--regenerate").status == 0)
        #expect(try Self.row(path) == placed)
        let fix = try Harness.annolink("check", path, "--fix")
        #expect(fix.status == 0 || fix.status == 1, "\(fix.stderr)")
        #expect(try Self.row(path) == placed)
        let check = try Harness.annolink("check", path, "--json")
        #expect(!check.stdout.contains("\"annotationFid\":1,\"annotationTable\":\"\(Self.table)\""), "check finds nothing wrong with the hand-placed label: \(check.stdout)")

        // Undo the repair and the regeneration (whichever made entries), then each place, exactly.
        let log = try Harness.annolink("log", path, "--json")
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]])
        for _ in 0 ..< (entries.count - 4) { #expect(try Harness.annolink("undo", path).status == 0) }
        #expect(try Harness.dumpIgnoringTimes(path) == dumps[4])
        for step in (0 ..< 4).reversed() {
            let undo = try Harness.annolink("undo", path)
            #expect(undo.status == 0, "\(undo.stderr)")
            #expect(try Harness.dumpIgnoringTimes(path) == dumps[step], "after undoing edit \(step + 1)")
        }
        #expect(try Self.row(path) == original)
    }

    @Test("--reset clears the hand-set bits and places the label by the rules; --unplaced and --placed set Status")
    func resetAndStatus() throws {
        guard let path = try Harness.importLoudoun() else { return }
        #expect(try Harness.annolink("place", path, Self.table, Self.fid, "--by", "30,-4", "--angle", "40", "--text", "X").status == 0)
        #expect(try Self.row(path)[5] == "1031")
        let reset = try Harness.annolink("place", path, Self.table, Self.fid, "--reset", "--json")
        #expect(reset.status == 0, "\(reset.stderr)")
        let row = try Self.row(path)
        #expect(row[5] == "1024" && row[3] == "45763 ELMWOOD" && row[6].hasPrefix("rules "), "ArcGIS's bit 1024 is kept: \(row)")
        // The rules' placement: annotate --regenerate --replace puts it where reset did.
        let copy = path + ".copy.gpkg"
        try Harness.copyDatabase(path, to: copy)
        #expect(try Harness.annolink("annotate", copy, "--regenerate", "--replace").status == 0)
        #expect(try Self.row(copy)[0 ..< 3] == row[0 ..< 3])

        #expect(try Harness.annolink("place", path, Self.table, Self.fid, "--unplaced").status == 0)
        #expect(try Self.row(path)[4] == "1" && Self.row(path)[5] == "1024")
        #expect(try Harness.annolink("place", path, Self.table, Self.fid, "--placed").status == 0)
        #expect(try Self.row(path)[4] == "0")
    }

    @Test("--dry-run says what would change and writes nothing")
    func dryRun() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let before = try Harness.dumpIgnoringTimes(path)
        let run = try Harness.annolink("place", path, Self.table, Self.fid, "--by", "20,0", "--angle", "15", "--dry-run", "--json")
        #expect(run.status == 0, "\(run.stderr)")
        let answer = try Self.json(run.stdout)
        #expect(answer["dryRun"] as? Bool == true && answer["journalEntry"] is NSNull)
        #expect((answer["annotation"] as? [[String: Any]])?.first?["newAngle"] as? Double == 15)
        #expect(try Harness.dumpIgnoringTimes(path) == before)
    }

    static let refusals: [(arguments: [String], status: Int32, message: String)] = [
        (["no_such_table", "1", "--angle", "5"], 65, "error: "),
        ([table, "999999", "--angle", "5"], 65, "error: table 'Loudoun_Address_PointsAnno_1' has no feature with fid 999999"),
        (["Loudoun_Address_Points_1", "831", "--angle", "5"], 65,
         "error: Loudoun_Address_Points_1 is not an annotation table: place moves, turns and retexts annotation rows (to move a feature, use move)"),
        ([table, "1", "--to", "nan,5"], 65, "error: --to: coordinates must be finite numbers, not 'nan,5'"),
        ([table, "1", "--by", "inf,0"], 65, "error: --by: coordinates must be finite numbers, not 'inf,0'"),
        ([table, "1", "--angle", "nan"], 65, "error: --angle: the angle must be a finite number, not 'nan'"),
        ([table, "1", "--angle", "1000"], 65, "error: invalid value '1000.0' for Loudoun_Address_PointsAnno_1.Angle: Angle takes a number from -720 to 720 (degrees)"),
        ([table, "1", "--to", "1,2", "--by", "3,4"], 64, "error: give --to X,Y (the new anchor) or --by DX,DY (a move), not both"),
        ([table, "1", "--reset", "--angle", "3"], 64, "error: --reset places the label by the rules: give it alone"),
        ([table, "1"], 64, "error: nothing to change"),
        ([table, "1", "--text", ""], 65, "error: invalid value '' for Loudoun_Address_PointsAnno_1.TextString: a label's text may not be empty or blank"),
    ]

    @Test("refusals: an error: line (a usage error adds the --help pointer), its exit status, the file unchanged", arguments: refusals.indices)
    func refused(index: Int) throws {
        let (arguments, status, message) = Self.refusals[index]
        guard let path = try Harness.importLoudoun() else { return }
        let before = try Harness.dumpIgnoringTimes(path)
        let run = try Harness.annolink(["place", path] + arguments)
        #expect(run.status == status, "\(run.stderr)")
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.first?.hasPrefix(message) == true, "\(run.stderr)")
        #expect(lines.count == (status == 64 ? 2 : 1), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(try Harness.dumpIgnoringTimes(path) == before)
    }

    @Test("POST /annotation/place runs the same edit as the CLI, one journal entry each; refusals are problem documents in the CLI's words")
    func overHTTP() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let cli = path + ".cli.gpkg"
        try Harness.copyDatabase(path, to: cli)
        #expect(try Harness.annolink("place", cli, Self.table, Self.fid, "--by", "20,0", "--angle", "15").status == 0)
        let server = try ServeProcess(file: path, arguments: ["--quiet"])
        defer { _ = server.stop() }
        let moved = try server.request("/annotation/place", method: "POST", form: [("table", Self.table), ("fid", "1"), ("by", "20,0"), ("angle", "15")])
        #expect(moved.status == 200, "\(moved.text)")
        #expect(moved.object?["edit"] as? String == "place" && moved.object?["journalEntry"] as? Int == 1)
        #expect(try Self.row(path) == Self.row(cli), "the same row as annolink place")
        let log = try #require(try JSONSerialization.jsonObject(with: Data(Harness.annolink("log", path, "--json").stdout.utf8)) as? [[String: Any]])
        #expect(log.first?["command"] as? String == "serve /annotation/place")

        let reset = try server.request("/annotation/place", method: "POST", form: [("table", Self.table), ("fid", "1"), ("reset", "true")])
        #expect(reset.status == 200, "\(reset.text)")
        #expect(try Self.row(path)[5] == "1024" && Self.row(path)[6].hasPrefix("rules "))

        let before = try Harness.dumpIgnoringTimes(path)
        let feature = try server.request("/annotation/place", method: "POST", form: [("table", "Loudoun_Address_Points_1"), ("fid", "831"), ("angle", "5")])
        #expect(feature.status == 409 && feature.headers["content-type"] == "application/problem+json")
        #expect(feature.object?["detail"] as? String
            == "Loudoun_Address_Points_1 is not an annotation table: place moves, turns and retexts annotation rows (to move a feature, use move)")
        let both = try server.request("/annotation/place", method: "POST", form: [("table", Self.table), ("fid", "1"), ("to", "1,2"), ("by", "3,4")])
        #expect(both.status == 409 && both.object?["detail"] as? String == "give the new anchor (to) or the move (by), not both")
        let unknown = try server.request("/annotation/place", method: "POST", form: [("table", Self.table), ("fid", "999999"), ("angle", "5")])
        #expect(unknown.status == 404, "\(unknown.text)")
        let malformed = try server.request("/annotation/place", method: "POST", form: [("table", Self.table), ("fid", "1"), ("angle", "north")])
        #expect(malformed.status == 400 && malformed.object?["detail"] as? String == "angle must be a number of degrees, not 'north'")
        let get = try server.request("/annotation/place")
        #expect(get.status == 405 && get.headers["allow"] == "POST")
        #expect(try Harness.dumpIgnoringTimes(path) == before)
    }

    @Test("--help lists every option")
    func help() throws {
        let help = try Harness.annolink("place", "--help")
        #expect(help.status == 0)
        for option in ["--to X,Y", "--by DX,DY", "--crs CRS", "--angle DEGREES", "--text TEXT", "--reset", "--unplaced", "--placed", "--dry-run", "--json", "--at X,Y"] {
            #expect(help.stdout.contains(option), "\(option)")
        }
    }
}
