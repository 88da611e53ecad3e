import AnnoLinkStore
import Foundation
import Testing

/// The SQL functions every GeoPackage connection registers for the R-tree triggers (`ST_MinX` …,
/// `annolink_has_geometry`, `annolink_translate`). They are `SQLITE_INNOCUOUS`, so a file's own
/// triggers and views may call them with anything (issue 25): each answer is a value, NULL or an
/// SQL error, never a crash.
@Suite struct GeoPackageFunctionsTests {
    /// Blobs that look like a GeoPackage geometry header and are not one: every envelope code,
    /// cut at every length up to a full header with an envelope and some WKB.
    static var hostileBlobs: [String] {
        var blobs: [String] = ["X''", "X'47'", "X'4750'", "X'47500000'", "X'4750000000000000'", "X'FFFFFFFFFFFFFFFF'"]
        for flags in [0x00, 0x01, 0x03, 0x05, 0x07, 0x09, 0x0F, 0x11, 0x21, 0xFF] {
            let header = "4750" + "00" + String(format: "%02X", flags) + "00000000"
            for extra in [0, 7, 16, 31, 32, 48, 64] {
                blobs.append("X'" + header + String(repeating: "3F", count: extra) + "'")
                // A WKB polygon claiming 2^32 - 1 rings after the envelope bytes.
                blobs.append("X'" + header + String(repeating: "00", count: extra) + "0103000000FFFFFFFF'")
            }
        }
        return blobs
    }

    static let otherArguments = ["NULL", "0", "-1", "1e308", "'text'", "'GP'", "zeroblob(5)", "randomblob(40)"]

    @Test("hostile arguments give a value, NULL or an SQL error",
          arguments: ["ST_IsEmpty", "ST_MinX", "ST_MaxX", "ST_MinY", "ST_MaxY", "annolink_has_geometry"])
    func envelopeFunctions(name: String) throws {
        let d = try TemporaryDirectory()
        let package = try GeoPackage.create(path: d.path("f.gpkg"))
        var answered = 0
        for argument in Self.hostileBlobs + Self.otherArguments {
            do {
                _ = try package.connection.rows("SELECT \(name)(\(argument))")
            } catch is SQLiteError {}
            answered += 1
        }
        #expect(answered == Self.hostileBlobs.count + Self.otherArguments.count)
        #expect(try package.connection.rows("SELECT \(name)('text'), \(name)(NULL), \(name)(42)") == [[.null, .null, .null]])
        if name == "annolink_has_geometry" {
            #expect(try package.connection.rows("SELECT annolink_has_geometry(X'4750')") == [[.null]], "a blob that cannot be read is NULL, not an error")
        } else {
            #expect(throws: SQLiteError.self) { try package.connection.rows("SELECT \(name)(X'4750')") }
        }
    }

    @Test("annolink_translate refuses what is not a geometry blob or a finite move, through a file's trigger too")
    func translate() throws {
        let d = try TemporaryDirectory()
        let package = try GeoPackage.create(path: d.path("t.gpkg"))
        // A point (1, 2), little-endian WKB, no envelope.
        let point = "X'47500001000000000101000000000000000000F03F0000000000000040'"
        for argument in Self.hostileBlobs + Self.otherArguments {
            for move in ["1, 1", "'x', NULL", "1e308 * 10, 0", "0, -1e308 * 10", "X'00', 'y'"] {
                do {
                    _ = try package.connection.rows("SELECT annolink_translate(\(argument), \(move))")
                } catch is SQLiteError {}
            }
        }
        #expect(throws: SQLiteError.self) { try package.connection.rows("SELECT annolink_translate(\(point), 1e308 * 10, 0)") }
        #expect(throws: SQLiteError.self) { try package.connection.rows("SELECT annolink_translate('text', 1, 1)") }
        let moved = try package.connection.rows("SELECT hex(annolink_translate(\(point), 2, 'x'))")
        // (1, 2) moved by (2, 0): x 3.0 and y 2.0, little-endian.
        #expect(moved == [[.text("4750000100000000" + "0101000000" + "0000000000000840" + "0000000000000040")]], "a text move counts as 0")
        // A trigger of the file may call it (the functions are innocuous): still an SQL error.
        try package.connection.execute("""
            CREATE TABLE log (b BLOB);
            CREATE TRIGGER hostile AFTER INSERT ON log BEGIN SELECT annolink_translate(NEW.b, 1, 1), ST_MinX(NEW.b); END;
            """)
        for argument in ["X'4750'", "X'47500007000000003F3F'", "'text'"] {
            #expect(throws: SQLiteError.self) { try package.connection.execute("INSERT INTO log VALUES (\(argument))") }
        }
    }
}
