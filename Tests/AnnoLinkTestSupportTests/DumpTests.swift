import AnnoLinkTestSupport
import Foundation
import Testing

/// `dump(of:)` and `contentDump(of:)`, the before/after comparisons other tests rely on to
/// prove that a file is unchanged.
@Suite("dumps")
struct DumpTests {
    /// A small database with a table, an index and a trigger.
    func database(in scratch: ScratchDirectory, _ name: String = "a.sqlite") throws -> String {
        let path = scratch.path(name)
        _ = try ExternalTool.sqlite3.output([path, """
            CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, value REAL);
            CREATE INDEX t_name ON t(name);
            CREATE TABLE log(what TEXT);
            CREATE TRIGGER t_log AFTER UPDATE ON t BEGIN INSERT INTO log VALUES ('update'); END;
            INSERT INTO t VALUES (1, 'one', 1.5), (2, 'two', NULL), (3, 'it''s', -0.25);
            """])
        return path
    }

    @Test("equal for two files with the same schema and rows")
    func equalForEqualFiles() throws {
        let scratch = try ScratchDirectory()
        let a = try database(in: scratch, "a.sqlite"), b = try database(in: scratch, "b.sqlite")
        let text = try dump(of: a)
        #expect(text == (try dump(of: b)))
        #expect(text.contains("INSERT INTO t VALUES(3,'it''s',-0.25);"))
        #expect(text.contains("CREATE TRIGGER t_log"))
    }

    @Test("different after any change: a row, a value, the schema", arguments: [
        "UPDATE t SET value = 1.5000001 WHERE id = 1",
        "DELETE FROM t WHERE id = 2",
        "INSERT INTO log VALUES ('x')",
        "DROP INDEX t_name",
        "DROP TRIGGER t_log",
    ])
    func differentAfterAChange(_ sql: String) throws {
        let scratch = try ScratchDirectory()
        let path = try database(in: scratch)
        let before = try dump(of: path)
        _ = try ExternalTool.sqlite3.output([path, sql])
        #expect(try dump(of: path) != before)
    }

    @Test("dumping does not write: the file's bytes stay, no journal files are left")
    func readsOnly() throws {
        let scratch = try ScratchDirectory()
        let path = try database(in: scratch)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        _ = try dump(of: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path) == ["a.sqlite"])
    }

    @Test("a file that is not there is an error, not an empty dump")
    func missingFile() throws {
        let scratch = try ScratchDirectory()
        #expect(throws: ToolFailure.self) { _ = try dump(of: scratch.path("none.sqlite")) }
    }

    @Test("contentDump leaves out the journal and R-tree node blobs, and sees every other row")
    func contentDumpScope() throws {
        let scratch = try ScratchDirectory()
        let path = try database(in: scratch)
        let before = try contentDump(of: path)
        #expect(before.contains("-- t\n1,'one',1.5\n2,'two',NULL\n3,'it''s',-0.25\n"))
        _ = try ExternalTool.sqlite3.output([path, """
            CREATE TABLE annolink_journal(id INTEGER PRIMARY KEY, command TEXT);
            CREATE TABLE annolink_journal_rows(entry INTEGER, data BLOB);
            INSERT INTO annolink_journal VALUES (1, 'set');
            """])
        #expect(try contentDump(of: path) == before)
        #expect(try dump(of: path).contains("INSERT INTO annolink_journal VALUES(1,'set');"))
        _ = try ExternalTool.sqlite3.output([
            path, "CREATE VIRTUAL TABLE rtree_t_geom USING rtree(id, minx, maxx, miny, maxy); INSERT INTO rtree_t_geom VALUES (1, 0, 1, 0, 1)",
        ])
        let withIndex = try contentDump(of: path)
        #expect(withIndex.contains("-- rtree_t_geom\n1,0.0,1.0,0.0,1.0\n"))
        #expect(!withIndex.contains("-- rtree_t_geom_node"))
    }
}
