import AnnoLinkTestSupport
import Foundation
import Testing

/// Files and arguments built to attack annolink (issue 16): each gets a clear refusal, never a
/// native call through data the file chose, and the file stays as it was.
@Suite("hostile files and arguments, end to end")
struct SecurityTests {
    /// Issue 16, D1: one class plants a tokenizer pointer with the two-argument
    /// `fts3_tokenizer()`, the next uses it through an FTS3 table. Before the fix, `set` called
    /// through 0xdeadbeef and died with SIGSEGV (exit 139).
    @Test("a class where clause cannot plant a pointer through fts3_tokenizer (D1)")
    func plantedTokenizer() throws {
        let path = try Harness.temporaryDirectory().appendingPathComponent("m.gpkg").path
        #expect(try Harness.annolink("sample", path, "--parcels", "50").status == 0)
        _ = try Harness.sqlite(path, """
            CREATE VIRTUAL TABLE ftsv USING fts3(c, tokenize=simple);
            UPDATE annolink_annotation_classes SET where_clause = 'fts3_tokenizer(''simple'', X''efbeadde00000000'') IS NOT NULL'
              WHERE origin_table = 'address_points';
            INSERT INTO annolink_annotation_classes SELECT annotation_table, 7, 'planted', origin_table,
              'EXISTS (SELECT 1 FROM ftsv) OR fid<0', expression, font_name, font_size, horizontal_alignment, vertical_alignment,
              reference_scale, placement, placement_offset, placement_parameters, auto_create, update_on_shape_change
              FROM annolink_annotation_classes WHERE origin_table = 'address_points';
            """)
        let before = try Harness.dump(path, excluding: [])
        let set = try Harness.annolink("set", path, "address_points", "1", "AD_ADDRESS=5")
        #expect(set.status == 65, "\(set.stderr)")
        #expect(set.stderrLines.count == 1 && set.stderrLines[0].hasPrefix("error: where clause of address_points_anno class 0"), "\(set.stderr)")
        #expect(set.stderr.contains("fts3_tokenizer"))
        // The second class alone (the first one repaired) is refused too: it reads a table
        // that is not its origin.
        _ = try Harness.sqlite(path, "UPDATE annolink_annotation_classes SET where_clause = NULL WHERE class_id = 0 AND origin_table = 'address_points'")
        let second = try Harness.annolink("set", path, "address_points", "1", "AD_ADDRESS=5")
        #expect(second.status == 65, "\(second.stderr)")
        // Refused as a subquery (issue 25) before the table it reads is looked at.
        #expect(second.stderr.contains("class 7") && second.stderr.contains("subquery"), "\(second.stderr)")
        _ = try Harness.sqlite(path, "UPDATE annolink_annotation_classes " +
            "SET where_clause = 'fts3_tokenizer(''simple'', X''efbeadde00000000'') IS NOT NULL' WHERE class_id = 0 AND origin_table = 'address_points'")
        #expect(try Harness.dump(path, excluding: []) == before)
        // Reading commands report the class and go on; none crashes.
        let info = try Harness.annolink("info", path)
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("class 7 'planted'") && info.stdout.contains("the where clause may only read its own table"), "\(info.stdout)")
        let check = try Harness.annolink("check", path)
        #expect(check.status == 65 && check.stderrLines.count == 1, "\(check.stderr)")
        let regenerate = try Harness.annolink("annotate", path, "--regenerate")
        #expect(regenerate.status == 65, "\(regenerate.stderr)")
        #expect(try Harness.dump(path, excluding: []) == before)
    }

    /// Issue 16, D9: a where clause is parsed as one expression; it cannot close the
    /// parenthesis annolink puts around it.
    @Test("a --where that escapes its parentheses is refused and changes nothing (D9)", arguments: [
        "fid=1) OR (1=1", "1) UNION SELECT fid FROM address_points WHERE (1", "1=1 --", "fid IN (SELECT fid FROM gpkg_contents)",
    ])
    func escapingWhere(clause: String) throws {
        let path = try Harness.temporaryDirectory().appendingPathComponent("w.gpkg").path
        #expect(try Harness.annolink("sample", path, "--parcels", "20").status == 0)
        let before = try Harness.dump(path, excluding: [])
        let result = try Harness.annolink("translate", path, "parcel_lines", "--where", clause, "--by", "1,1")
        if clause == "1=1 --" {
            // A trailing comment is harmless: the closing parenthesis is on a line of its own.
            #expect(result.status == 0, "\(result.stderr)")
            return
        }
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderrLines.first?.hasPrefix("error: invalid selection: the where clause") == true, "\(result.stderr)")
        #expect(try Harness.dump(path, excluding: []) == before)
    }

    /// A class registered with `annotate --where` is checked before it is stored.
    @Test("annotate --where refuses a clause that reads other tables")
    func annotateWhere() throws {
        let path = try Harness.temporaryDirectory().appendingPathComponent("a.gpkg").path
        #expect(try Harness.annolink("sample", path, "--parcels", "20").status == 0)
        let result = try Harness.annolink("annotate", path, "--origin", "parcel_lines", "--into", "length_anno", "--where",
                                          "EXISTS (SELECT 1 FROM gpkg_contents)", "--expression", "$feature.Length", "--placement", "line")
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("gpkg_contents"), "\(result.stderr)")
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM annolink_annotation_classes WHERE annotation_table = 'length_anno'") == "0")
    }

    /// Issue 25: a trigger of the file called annolink's own SQL function with a column index
    /// of its choosing; a bulk `set` died of SIGILL (exit 132) with no `error:` line.
    @Test("a file's trigger cannot call annolink's internal SQL functions: a bulk set says error and changes nothing")
    func triggerCallsInternalFunction() throws {
        let path = try Harness.temporaryDirectory().appendingPathComponent("t.gpkg").path
        #expect(try Harness.annolink("sample", path, "--parcels", "30").status == 0)
        _ = try Harness.sqlite(path, """
            CREATE TRIGGER evil AFTER UPDATE ON address_points_anno BEGIN SELECT annolink_computed_value(999, NEW.fid); END;
            """)
        let before = try Harness.dump(path, excluding: [])
        let set = try Harness.annolink("set", path, "address_points", "--where", "1=1", "ST_STR_NAM=ELM")
        #expect(set.status == 65 || set.status == 70, "\(set.status): \(set.stderr)")
        #expect(set.stderrLines.count == 1 && set.stderrLines[0].hasPrefix("error: "), "\(set.stderr)")
        #expect(set.stderr.contains("annolink_computed_value"), "\(set.stderr)")
        #expect(try Harness.dump(path, excluding: []) == before)
    }

    /// A sample of `parcels` parcels whose address-point class selects with its origin table
    /// joined to itself six times (issue 25's hang).
    static func sampleWithSixFoldJoinClass(_ name: String, parcels: Int) throws -> String {
        let path = try Harness.temporaryDirectory().appendingPathComponent(name).path
        #expect(try Harness.annolink("sample", path, "--parcels", "\(parcels)").status == 0)
        let join = (["a", "b", "c", "d", "e", "f"].map { "address_points \($0)" }).joined(separator: ", ")
        _ = try Harness.sqlite(path, "UPDATE annolink_annotation_classes SET where_clause = '(SELECT count(*) FROM \(join)) > 0' " +
            "WHERE origin_table = 'address_points'")
        return path
    }

    /// Issue 25: a class where clause joining its origin table with itself six times passed the
    /// guard and hung `info`, `set` and every edit under `serve`.
    @Test("a class where clause with a subquery of its own table is refused by set and info, naming the class")
    func subqueryClassWhereClause() throws {
        let path = try Self.sampleWithSixFoldJoinClass("j.gpkg", parcels: 30)
        let before = try Harness.dump(path, excluding: [])
        let set = try Harness.annolink("set", path, "address_points", "1", "AD_ADDRESS=5")
        #expect(set.status == 65, "\(set.stderr)")
        #expect(set.stderrLines.count == 1 && set.stderrLines[0].hasPrefix("error: where clause of address_points_anno class 0"), "\(set.stderr)")
        #expect(set.stderr.contains("subquery"), "\(set.stderr)")
        let info = try Harness.annolink("info", path)
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("address_points_anno class 0") && info.stdout.contains("subquery"), "\(info.stdout)")
        #expect(try Harness.dump(path, excluding: []) == before)
        // And it cannot be saved either.
        let annotate = try Harness.annolink("annotate", path, "--origin", "parcel_lines", "--into", "length_anno",
                                            "--where", "fid IN (SELECT fid FROM parcel_lines)",
                                            "--expression", "$feature.Length", "--placement", "line")
        #expect(annotate.status == 65 && annotate.stderr.contains("subquery"), "\(annotate.stderr)")
    }

    /// Issue 25: `printf` with a width from the text or a column allocated what it was told:
    /// four terms of `length(printf('%0900000000d', 1))` grew the server until it was killed.
    @Test("a --where calling printf, hex or replace is refused and changes nothing", arguments: [
        "length(printf('%0900000000d', 1)) > 0", "length(printf('%.*c', 20000000 + AD_ADDRESS, 'x')) > 0",
        "length(hex(hex(hex(hex(ST_STR_NAM))))) > 0", "length(replace(ST_STR_NAM, 'E', ST_STR_NAM)) > 0",
    ])
    func amplifyingWhere(clause: String) throws {
        let path = try Harness.temporaryDirectory().appendingPathComponent("p.gpkg").path
        #expect(try Harness.annolink("sample", path, "--parcels", "20").status == 0)
        let before = try Harness.dump(path, excluding: [])
        let result = try Harness.annolink("set", path, "address_points", "--where", clause, "ST_STR_NAM=X")
        #expect(result.status == 65, "\(result.stderr)")
        let name = String(clause.split(separator: "(")[1])
        #expect(result.stderrLines.first?.hasPrefix("error: invalid selection: the where clause") == true, "\(result.stderr)")
        #expect(result.stderr.contains("\(name)()"), "\(result.stderr)")
        #expect(try Harness.dump(path, excluding: []) == before)
    }

    /// The same refusals through `serve`'s filter: a 400 in the interface's shape, and the
    /// server goes on answering.
    @Test("a where of serve's query with printf or a subquery is refused with 400")
    func servedWhere() throws {
        let path = try Harness.temporaryDirectory().appendingPathComponent("s.gpkg").path
        #expect(try Harness.annolink("sample", path, "--parcels", "20").status == 0)
        let server = try ServeProcess(file: path)
        defer { server.stop() }
        let join = (["a", "b", "c", "d", "e", "f"].map { "address_points \($0)" }).joined(separator: ", ")
        for (clause, reason) in [
            (Array(repeating: "length(printf('%0900000000d',1))", count: 4).joined(separator: "+") + " > 0", "printf()"),
            ("(SELECT count(*) FROM \(join)) > 0", "subquery"),
        ] {
            let query = clause.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let reply = try server.request("/arcgis/rest/services/s/FeatureServer/0/query?where=\(query)&outFields=*&f=json")
            let error = reply.object?["error"] as? [String: Any]
            #expect(reply.status == 400 || error?["code"] as? Int == 400, "\(reply.status) \(reply.text)")
            #expect(reply.text.contains(reason), "\(reply.text)")
        }
        #expect(try server.request("/health").status == 200)
    }

    /// Issue 25: under `serve` the six-fold join in a class where clause hung every edit of its
    /// origin table, and SIGTERM with it. Now the edit is refused, naming the class.
    @Test("a served edit of a table whose class where clause has a subquery is refused, and the server stops on SIGTERM")
    func servedEditWithSubqueryClass() throws {
        let path = try Self.sampleWithSixFoldJoinClass("e.gpkg", parcels: 20)
        let before = try Harness.dump(path, excluding: [])
        let server = try ServeProcess(file: path)
        let edit = try server.request("/arcgis/rest/services/e/FeatureServer/0/applyEdits", method: "POST",
                                      form: [("f", "json"), ("updates", #"[{"attributes": {"fid": 3, "AD_ADDRESS": 777}}]"#)])
        let outcome = (edit.object?["updateResults"] as? [[String: Any]])?.first
        let refused = outcome?["success"] as? Bool == false || edit.object?["error"] != nil
        #expect(refused && edit.text.contains("subquery") && edit.text.contains("class 0"), "\(edit.status) \(edit.text)")
        #expect(try server.request("/health").status == 200)
        #expect(server.stop() == 0)
        #expect(try Harness.dump(path, excluding: []) == before)
    }
}

