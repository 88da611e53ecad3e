@testable import AnnoLinkStore
import Testing

/// `Connection.updateComputed`: one UPDATE whose new values come from Swift.
@Suite struct ComputedUpdateTests {
    struct Refused: Error, Equatable { var key: Int64 }

    func table() throws -> ScratchDatabase {
        let db = try ScratchDatabase()
        // The columns written are declared out of the order they are asked for.
        try db.connection.execute("""
            CREATE TABLE t (id INTEGER PRIMARY KEY, c TEXT, a REAL, b BLOB, keep INTEGER);
            INSERT INTO t VALUES (1, 'one', 1.5, x'01', 10), (2, 'two', 2.5, x'02', 20), (3, 'three', 3.5, x'03', 30);
            """)
        return db
    }

    @Test("every selected row gets the values computed from its inputs; the others keep theirs")
    func computes() throws {
        let db = try table()
        var seen: [Int64] = []
        try db.connection.updateComputed(table: "t", key: "id", columns: ["a", "b", "c"], rowsWhere: "id >= 2",
                                         inputs: ["a.a", "a.c", "a.keep * 2"]) { key, inputs in
            seen.append(key)
            #expect(inputs.count == 3)
            return [.real(inputs.double(0) * 10), .blob([UInt8(key)]), .text("\(inputs.text(1) ?? "")-\(inputs.int64(2))")]
        }
        #expect(seen == [2, 3], "one call per row")
        #expect(try db.connection.rows("SELECT id, c, a, b, keep FROM t ORDER BY id") == [
            [1, "one", 1.5, .blob([1]), 10], [2, "two-40", 25.0, .blob([2]), 20], [3, "three-60", 35.0, .blob([3]), 30],
        ])
        #expect(try db.connection.rows("SELECT count(*) FROM t NOT INDEXED") == [[3]])
    }

    @Test("an error thrown for a row stops the statement, comes out as itself, and the functions are gone after")
    func errors() throws {
        let db = try table()
        try db.connection.execute("BEGIN")
        let error = #expect(throws: Refused.self) {
            try db.connection.updateComputed(table: "t", key: "id", columns: ["a"], rowsWhere: "1", scanning: true, inputs: ["a.a"]) { key, inputs in
                if key == 2 { throw Refused(key: key) }
                return [.real(-1)]
            }
        }
        #expect(error == Refused(key: 2))
        try db.connection.execute("ROLLBACK")
        #expect(try db.connection.rows("SELECT a FROM t ORDER BY id") == [[1.5], [2.5], [3.5]])
        #expect(throws: SQLiteError.self) { try db.connection.execute("SELECT annolink_computed_value(0, 1)") }
    }
}
