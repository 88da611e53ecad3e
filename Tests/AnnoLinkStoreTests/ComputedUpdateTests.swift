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

/// Issue 25: a trigger of the file called annolink's own function with a column index of its
/// choosing (`annolink_computed_value(999, NEW.fid)`), and a bulk `set` died of SIGILL.
@Suite struct ComputedUpdateHostileTests {
    @Test("a trigger cannot call annolink's computed-update functions: the statement fails, nothing is written", arguments: [
        "SELECT annolink_computed_value(999, NEW.id)", "SELECT annolink_computed_value(-1, NEW.id)",
        "SELECT annolink_computed_row(0, NEW.id, 'x')",
    ])
    func triggerCannotCall(body: String) throws {
        let db = try ScratchDatabase()
        try db.connection.execute("""
            CREATE TABLE t (id INTEGER PRIMARY KEY, a REAL);
            INSERT INTO t VALUES (1, 1.5), (2, 2.5);
            CREATE TRIGGER evil AFTER UPDATE ON t BEGIN \(body); END;
            """)
        var calls = 0
        let error = #expect(throws: SQLiteError.self) {
            try db.connection.updateComputed(table: "t", key: "id", columns: ["a"], rowsWhere: "1", inputs: ["a.a"]) { _, _ in
                calls += 1
                return [.real(-1)]
            }
        }
        #expect(error?.message.contains("unsafe use of annolink_computed_") == true, "\(String(describing: error))")
        #expect(calls == 0, "refused when the statement is prepared")
        #expect(try db.connection.rows("SELECT a FROM t ORDER BY id") == [[1.5], [2.5]])
    }

    @Test("a direct call with an unexpected column or key is an SQL error, never a trap")
    func unexpectedArguments() throws {
        let db = try ScratchDatabase()
        try db.connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, a REAL, b REAL); INSERT INTO t VALUES (1, 1.5, 2.5), (2, 0, 0);")
        var errors: [String] = []
        try db.connection.updateComputed(table: "t", key: "id", columns: ["a", "b"], rowsWhere: "1", inputs: ["a.a"]) { key, _ in
            // The functions exist while the statement runs; SQL of annolink's own that called
            // them wrongly must fail as SQL. While row 2 is computed, row 1's values are held.
            guard key == 2 else { return [.real(7), .real(8)] }
            let calls = [
                "annolink_computed_value(999, 1)", "annolink_computed_value(-1, 1)", "annolink_computed_value('x', 1)",
                "annolink_computed_value(0, 42)", "annolink_computed_value(0, 1.5)",
            ]
            for call in calls {
                do {
                    _ = try db.connection.rows("SELECT \(call)")
                    errors.append("\(call): no error")
                } catch let error as SQLiteError {
                    errors.append(error.message.contains("annolink") || error.message.contains("computed") ? "refused" : "\(call): \(error)")
                }
            }
            return [.real(7), .real(8)]
        }
        #expect(errors == ["refused", "refused", "refused", "refused", "refused"])
        #expect(try db.connection.rows("SELECT a, b FROM t ORDER BY id") == [[7.0, 8.0], [7.0, 8.0]])
    }
}
