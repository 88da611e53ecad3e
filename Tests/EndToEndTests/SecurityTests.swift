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
        #expect(second.stderr.contains("class 7") && (second.stderr.contains("ftsv") || second.stderr.contains("pragma")), "\(second.stderr)")
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
}
