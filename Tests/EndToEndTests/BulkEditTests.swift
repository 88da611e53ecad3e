import AnnoLinkTestSupport
import Foundation
import Testing

/// Bulk `set` and `delete`, `--dry-run` on every command that writes, and the refusal of
/// empty label values, run through the binary on the Loudoun data.
@Suite("bulk edits and dry runs, end to end")
struct BulkEditTests {
    static let points = "Loudoun_Address_Points_1"
    static let labels = "Loudoun_Address_PointsAnno_1"

    func json(_ text: String) throws -> Any { try JSONSerialization.jsonObject(with: Data(text.utf8)) }

    /// `object` without the keys a dry run cannot share with the real run (`journalEntry`,
    /// `dryRun`), at any depth, as sorted JSON text.
    func withoutRunKeys(_ object: Any) throws -> String {
        func strip(_ value: Any) -> Any {
            if let dictionary = value as? [String: Any] {
                return dictionary.filter { $0.key != "journalEntry" && $0.key != "dryRun" }.mapValues(strip)
            }
            if let array = value as? [Any] { return array.map(strip) }
            return value
        }
        return String(decoding: try JSONSerialization.data(withJSONObject: strip(object), options: [.sortedKeys]), as: UTF8.self)
    }

    /// The file's bytes and the names of the files beside it.
    func snapshot(_ path: String) throws -> (Data, [String]) {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return (try Data(contentsOf: URL(fileURLWithPath: path)), try FileManager.default.contentsOfDirectory(atPath: folder).sorted())
    }

    @Test("a street rename over --where changes every matching point and its label in one journal entry; undo restores the file exactly")
    func streetRename() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let before = try Harness.dump(path)
        let woodland = try Harness.sqlite(path, "SELECT count(*) FROM \(Self.points) WHERE ST_STR_NAM = 'WOODLAND'")
        #expect(woodland == "10")
        let result = try Harness.annolink("set", path, Self.points, "--where", "ST_STR_NAM = 'WOODLAND'", "ST_STR_NAM=WOODLAND CT")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("set ST_STR_NAM=WOODLAND CT of 10 features of \(Self.points); annotation rows: 10 updated, 0 created"),
                "\(result.stdout)")
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM \(Self.points) WHERE ST_STR_NAM = 'WOODLAND'") == "0")
        // Every renamed point's label reads its number and the new name.
        #expect(try Harness.sqlite(path, """
            SELECT count(*) FROM \(Self.points) p JOIN \(Self.labels) a ON a.FeatureID = p.fid
            WHERE p.ST_STR_NAM = 'WOODLAND CT' AND a.TextString = p.AD_ADDRESS || ' WOODLAND CT'
            """) == "10")
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM \(Self.labels) WHERE TextString LIKE '%WOODLAND'") == "0")
        let log = try #require(try json(Harness.annolink("log", path, "--json").stdout) as? [[String: Any]])
        #expect(log.count == 1 && log.first?["kind"] as? String == "bulk")
        if Harness.hasGDAL { #expect(try Harness.validate(path) == "") }

        #expect(try Harness.annolink("undo", path).status == 0)
        #expect(try Harness.dump(path) == before)
        #expect(try Harness.annolink("redo", path).status == 0)
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM \(Self.labels) WHERE TextString LIKE '% WOODLAND CT'") == "10")
    }

    @Test("a bulk delete by box takes the features and their labels; undo brings them back exactly")
    func bulkDelete() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let before = try Harness.dump(path)
        let result = try Harness.annolink("delete", path, "ParcelLines_1", "--where", "Length < 100", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try json(result.stdout) as? [String: Any])
        let count = try #require(object["features"] as? Int)
        #expect(count > 10 && (object["changes"] as? [Any])?.count == count)
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM ParcelLines_1 WHERE Length < 100") == "0")
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM ParcelLinesAnno_1 WHERE FeatureID NOT IN (SELECT fid FROM ParcelLines_1)") == "0")
        #expect(try Harness.annolink("check", path).status == 0, "the labels left are ArcGIS's, as placed")
        #expect(try Harness.annolink("undo", path).status == 0)
        #expect(try Harness.dump(path) == before)
    }

    @Test("set and delete refuse the selections translate refuses, changing nothing")
    func refusedSelections() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let before = try Harness.dump(path, excluding: [])
        let cases: [([String], Int32, String)] = [
            (["--where", "1; DROP TABLE \(Self.points)"], 65, "invalid selection"),
            (["--where", "no_such_column = 1"], 65, "does not compile"),
            (["--where", "fid=1) OR (1=1"], 65, "error: invalid selection: the where clause"),
            (["--where", "1) UNION SELECT fid FROM ParcelLines_1 WHERE (1"], 65, "error: invalid selection: the where clause"),
            (["--where", "fid IN (SELECT fid FROM gpkg_contents)"], 65, "error: invalid selection: the where clause"),
            (["--fids", "999999"], 65, "no feature with fid 999999"),
            (["--fids", "a,b"], 64, "--fids expects whole numbers"),
            (["--bbox", "1,2,3"], 64, "--bbox expects"),
            (["--bbox", "1,2,3,nan"], 65, "finite"),
            (["--fids", "1", "--where", "1"], 64, "exactly one of"),
        ]
        for (selection, status, message) in cases {
            for command in [["set", path, Self.points] + selection + ["ST_STR_NAM=X"], ["delete", path, Self.points] + selection] {
                let result = try Harness.annolink(command)
                #expect(result.status == status, "\(command): \(result.stderr)")
                // A usage error adds a line naming --help.
                #expect(result.stderrLines.count == (status == 64 ? 2 : 1) && result.stderrLines.first?.contains(message) == true,
                        "\(command): \(result.stderr)")
            }
        }
        #expect(try Harness.dump(path, excluding: []) == before)
    }

    @Test("an empty label value is refused with the class and expression; --allow-empty sets it")
    func emptyValues() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let fid = try Harness.sqlite(path, "SELECT min(fid) FROM \(Self.points)")
        let number = try Harness.sqlite(path, "SELECT AD_ADDRESS FROM \(Self.points) WHERE fid = \(fid)")
        let before = try Harness.dump(path, excluding: [])
        for value in ["ST_STR_NAM=", "ST_STR_NAM=  "] {
            let refused = try Harness.annolink("set", path, Self.points, fid, value)
            #expect(refused.status == 65)
            #expect(refused.stderrLines == [
                "error: \(Self.points).ST_STR_NAM may not be empty or NULL: annotation class 'Class 1' (\(Self.labels) class 0) labels with " +
                    "$feature.AD_ADDRESS + \" \" + $feature.ST_STR_NAM, which reads it (--allow-empty sets it anyway)",
            ], "\(refused.stderr)")
        }
        let bulk = try Harness.annolink("set", path, Self.points, "--where", "ST_STR_NAM = 'WOODLAND'", "ST_STR_NAM=")
        #expect(bulk.status == 65 && bulk.stderr.contains("may not be empty"))
        #expect(try Harness.dump(path, excluding: []) == before)
        let allowed = try Harness.annolink("set", path, Self.points, fid, "ST_STR_NAM=", "--allow-empty")
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(try Harness.sqlite(path, "SELECT '[' || TextString || ']' FROM \(Self.labels) WHERE FeatureID = \(fid)") == "[\(number) ]")
    }

    @Test("--dry-run of every command that writes leaves the file's bytes as they were and reports what the real run then does")
    func dryRuns() throws {
        guard let path = try Harness.importLoudoun() else { return }
        // Without their placement records ArcGIS's 21 off-rule labels read as stale placements,
        // so that check --fix and annotate --regenerate have work.
        guard Harness.hasGDAL else { return }
        try Harness.gdalSQL(path, "UPDATE ParcelLinesAnno_1 SET PlacedFrom = NULL")
        try Harness.gdalSQL(path, "UPDATE Loudoun_Address_PointsAnno_1 SET PlacedFrom = NULL")
        let point = try Harness.sqlite(path, "SELECT min(fid) FROM \(Self.points)")
        let line = try Harness.sqlite(path, "SELECT min(fid) FROM ParcelLines_1 WHERE fid IN (SELECT fid FROM ParcelLines_1) AND length(hex(geom)) < 200")
        let xy = try Harness.sqlite(path, "SELECT AnchorX || ',' || AnchorY FROM \(Self.labels) ORDER BY fid LIMIT 1")
        let commands: [[String]] = [
            // The plain import: ArcGIS's placements differ from the rules, so these have work.
            ["check", path, "--fix"],
            ["annotate", path, "--regenerate"],
            ["set", path, Self.points, point, "ST_STR_NAM=ELM TREE"],
            ["set", path, Self.points, "--where", "ST_STR_NAM = 'WOODLAND'", "ST_STR_NAM=WOODLAND CT"],
            ["move", path, Self.points, point, "--to", xy],
            ["move-vertex", path, "ParcelLines_1", line, "--to", xy],
            ["add", path, Self.points, "--geometry", "POINT (\(xy.replacingOccurrences(of: ",", with: " ")))", "AD_ADDRESS=1", "ST_STR_NAM=NEW",
             "GlobalID={00000000-0000-0000-0000-000000000001}"],
            ["delete", path, Self.points, point],
            ["delete", path, "ParcelLines_1", "--bbox", "0,0,11790500,99999999"],
            ["translate", path, "ParcelLines_1", "--where", "Length > 100", "--by", "1,-1"],
        ]
        for command in commands {
            let (bytes, files) = try snapshot(path)
            let dry = try Harness.annolink(command + ["--dry-run", "--json"])
            #expect(dry.status == 0 || (command[0] == "check" && dry.status == 1), "\(command): \(dry.stderr)")
            let (bytesAfter, filesAfter) = try snapshot(path)
            #expect(bytesAfter == bytes, "\(command): the dry run changed the file")
            #expect(filesAfter == files, "\(command): the dry run left \(filesAfter) beside the file")
            let preview = try #require(try json(dry.stdout) as? [String: Any], "\(command): \(dry.stdout)")
            // annotate --regenerate is not journaled: it has no journalEntry key.
            #expect(preview["dryRun"] as? Bool == true && (preview["journalEntry"] is NSNull || command[0] == "annotate"), "\(command)")

            let real = try Harness.annolink(command + ["--json"])
            #expect(real.status == dry.status, "\(command): \(real.stderr)")
            var done = try #require(try json(real.stdout) as? [String: Any])
            #expect(done["dryRun"] as? Bool == false, "\(command)")
            #expect((try Data(contentsOf: URL(fileURLWithPath: path))) != bytes, "\(command): the real run wrote nothing")
            if command[0] == "annotate" {
                // The real run reports counts only; the dry run's listing is checked against them.
                if let changes = preview["changes"] as? [Any] { #expect(changes.count == (done["updated"] as? Int ?? -1), "\(command)") }
                done["changes"] = preview["changes"]
            }
            #expect(try withoutRunKeys(preview) == withoutRunKeys(done), "\(command): the dry run reported something else")
        }
    }

    @Test("a dry run prints, for a person, what would change: fields and label text before -> after")
    func dryRunText() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let result = try Harness.annolink("set", path, Self.points, "--where", "ST_STR_NAM = 'WOODLAND'", "ST_STR_NAM=WOODLAND CT", "--dry-run")
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "would set ST_STR_NAM=WOODLAND CT of 10 features of \(Self.points); annotation rows: 10 updated, 0 created, " +
            "0 deleted, 0 reclassified (dry run: nothing written)")
        #expect(lines.filter { $0.hasPrefix("    ST_STR_NAM: WOODLAND -> WOODLAND CT") }.count == 10)
        #expect(lines.filter { $0.contains(" WOODLAND' -> '") && $0.contains(" WOODLAND CT'") }.count == 10)
    }
}
