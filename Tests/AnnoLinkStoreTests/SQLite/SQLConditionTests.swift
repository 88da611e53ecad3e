import AnnoLinkStore
import Foundation
import Testing

/// The one guard for SQL that comes from a file or a user (issue 16, D1 and D9): a condition is
/// one read-only expression on one table, calling pure functions only.
@Suite("SQL conditions from outside")
struct SQLConditionTests {
    /// A database with a table `t` (the condition's own), another table and an FTS3 table.
    static func database() throws -> (Connection, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("annolink-condition-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let connection = try Connection(path: directory.appendingPathComponent("c.sqlite").path, mode: .create)
        try connection.execute("""
            CREATE TABLE t (fid INTEGER PRIMARY KEY, name TEXT, Length REAL, "with" INTEGER, "select" INTEGER);
            INSERT INTO t VALUES (1, 'ELMWOOD', 50, 1, 0), (2, 'O''BRIEN', 150, 0, 0);
            CREATE TABLE other (secret TEXT);
            CREATE VIRTUAL TABLE ftsv USING fts3(c, tokenize=simple);
            """)
        return (connection, directory)
    }

    @Test("plain conditions on the table's own columns pass and select what they say", arguments: [
        ("Length > 100", 1), ("name = 'O''BRIEN'", 1), ("upper(name) LIKE 'E%' AND Length < 100", 1),
        ("fid IN (1, 2, 5)", 2), ("Length > 100 -- a trailing comment", 1), ("substr(name, 1, 3) || 'x' = 'ELMx'", 1),
        // Keywords that begin a subquery, quoted as names of columns.
        ("\"with\" = 1 OR [select] = 2 OR name = 'select'", 1),
        ("length(name) * 2 >= 14 AND instr(name, '''') > 0", 1), ("strftime('%Y', '2026-12-01') = '2026'", 2),
        ("round(Length / 3, 1) >= 16.7 /* block */", 2), ("coalesce(name, '') <> ''", 2), ("\"name\" = [name]", 2),
    ])
    func accepted(clause: String, count: Int64) throws {
        let (connection, directory) = try Self.database()
        defer { try? FileManager.default.removeItem(at: directory) }
        let condition = try connection.condition(clause, on: "t")
        #expect(try connection.scalarInt("SELECT count(*) FROM t WHERE \(condition.sql)") == count)
    }

    @Test("text that would end the expression early is refused before SQLite sees it", arguments: [
        "fid=1) OR (1=1", "1) UNION SELECT secret FROM other WHERE (1", "1; DROP TABLE t", "name = 'open", "(1 = 1",
        "1 = 1 /* open", "   ", "\"open = 1",
    ])
    func notOneExpression(clause: String) throws {
        let (connection, directory) = try Self.database()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect {
            try connection.condition(clause, on: "t")
        } throws: { error in
            guard case SQLCondition.Refusal.notOneExpression = error else { return false }
            return true
        }
    }

    @Test("reading another table, a virtual table or the schema, and impure functions are refused by name", arguments: [
        ("fts3_tokenizer('simple', X'efbeadde00000000') IS NOT NULL", "fts3_tokenizer"),
        // A virtual table runs a pragma when it is first connected, before it is read.
        // Refused as a subquery (issue 25) before any table it reads is looked at.
        ("EXISTS (SELECT 1 FROM ftsv) OR fid < 0", "subquery"),
        ("EXISTS (SELECT 1 FROM other)", "subquery"),
        ("(SELECT count(*) FROM sqlite_master) > 0", "subquery"),
        ("fid IN other", "'other'"), ("fid IN ftsv", "'ftsv'|pragma"),
        ("load_extension('/tmp/x.so') IS NULL", "load_extension"),
        ("randomblob(100000000) IS NOT NULL", "randomblob"),
        ("zeroblob(1000000000) IS NOT NULL", "zeroblob"),
        ("EXISTS (SELECT 1 FROM pragma_table_info('t'))", "more than read|subquery"),
        ("fid IN (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c)", "subquery"),
    ])
    func notAllowed(clause: String, named: String) throws {
        let (connection, directory) = try Self.database()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect {
            try connection.condition(clause, on: "t")
        } throws: { error in
            guard case SQLCondition.Refusal.notAllowed(let why) = error else { return false }
            return named.split(separator: "|").contains { why.contains($0) }
        }
    }

    /// Issue 25: a condition may read the row it is asked about and nothing else. A subquery
    /// of the table itself passed before, and a six-fold join of it hung every edit.
    @Test("a subquery, a join, VALUES or WITH is refused, even over the table's own rows", arguments: [
        "(SELECT count(*) FROM t a, t b, t c, t d, t e, t f) > 0", "fid IN (SELECT fid FROM t WHERE Length > 10)",
        "EXISTS (SELECT 1)", "fid IN (VALUES (1), (2))", "fid = (WITH c AS (SELECT 1 AS x) SELECT x FROM c)",
        "(SELECT max(Length) FROM t) = Length", "fid IN (SELECT 1 UNION SELECT 2)", "Length > (SELECT 1) + 0",
    ])
    func subqueryRefused(clause: String) throws {
        let (connection, directory) = try Self.database()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect {
            try connection.condition(clause, on: "t")
        } throws: { error in
            guard case SQLCondition.Refusal.notAllowed(let why) = error else { return false }
            return why.contains("subquery")
        }
    }

    /// `x IN table` has no keyword: SQLite reads it as a subquery of the table, which the
    /// authorizer counts as a second SELECT.
    @Test("x IN table, a subquery without a keyword, is refused on the table itself", arguments: ["v IN u", "v IN \"u\"", "v + 1 IN [u]"])
    func inTableRefused(clause: String) throws {
        let (connection, directory) = try Self.database()
        defer { try? FileManager.default.removeItem(at: directory) }
        try connection.execute("CREATE TABLE u (v INTEGER); INSERT INTO u VALUES (1), (2)")
        #expect {
            try connection.condition(clause, on: "u")
        } throws: { error in
            guard case SQLCondition.Refusal.notAllowed(let why) = error else { return false }
            return why.contains("subquery")
        }
    }

    /// Issue 25: `length(printf('%0900000000d', 1))` grew the server until it was killed, and
    /// `hex(hex(…))`, `replace`, `quote` multiply a value's size with every level of nesting.
    @Test("functions whose result can outgrow their arguments are refused by name", arguments: [
        ("length(printf('%0900000000d', 1)) > 0", "printf"), ("length(printf('%.*c', 20000000 + fid, 'x')) > 0", "printf"),
        ("length(format('%0900000000d', 1)) > 0", "format"), ("length(hex(hex(hex(name)))) > 0", "hex"),
        ("length(replace(replace(name, 'E', name), 'E', name)) > 0", "replace"), ("length(quote(quote(name))) > 0", "quote"),
        ("count(*) > 0", "count"), ("group_concat(name) IS NULL", "group_concat"),
        ("length(zeroblob(1000000000)) > 0", "zeroblob"),
    ])
    func amplifyingRefused(clause: String, named: String) throws {
        let (connection, directory) = try Self.database()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect {
            try connection.condition(clause, on: "t")
        } throws: { error in
            guard case SQLCondition.Refusal.notAllowed(let why) = error else { return false }
            return why.contains("\(named)()")
        }
        for name in ["printf", "format", "hex", "replace", "quote", "count", "group_concat"] {
            #expect(!SQLCondition.allowedFunctions.contains(name))
        }
    }

    @Test("a condition for another database refuses a subquery as on SQLite")
    func checkedSubqueryRefused() throws {
        #expect {
            try SQLCondition.checked("(SELECT count(*) FROM t a, t b) > 0", on: Self.twin)
        } throws: { error in
            guard case SQLCondition.Refusal.notAllowed(let why) = error else { return false }
            return why.contains("subquery")
        }
    }

    /// Found by the `where` fuzz target: `~` repeated some ninety times before `fid = 1` fitted
    /// SQLite's parser stack in the guard's statement but not in annolink's own, deeper ones.
    @Test("a condition nested to the parser's limit is refused by the guard or compiles wherever annolink embeds it")
    func parserDepth() throws {
        let (connection, directory) = try Self.database()
        defer { try? FileManager.default.removeItem(at: directory) }
        var accepted = 0
        for depth in stride(from: 40, through: 140, by: 2) {
            let clause = String(repeating: "~", count: depth) + "fid = ~~1 -- c"
            guard let condition = try? connection.condition(clause, on: "t") else { continue }
            accepted += 1
            _ = try connection.rows("EXPLAIN SELECT count(*) FROM t WHERE fid = ? AND \(condition.sql) AND fid IN (SELECT fid FROM t)", [.integer(1)])
        }
        #expect(accepted > 0, "shallow ones pass")
    }

    @Test("a condition that does not compile says SQLite's reason")
    func doesNotCompile() throws {
        let (connection, directory) = try Self.database()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect {
            try connection.condition("no_such_column = 1", on: "t")
        } throws: { error in
            guard case SQLCondition.Refusal.doesNotCompile(let message) = error else { return false }
            return message.contains("no_such_column")
        }
    }

    @Test("the authorizer is gone after a check: annolink's own SQL runs as before")
    func authorizerRemoved() throws {
        let (connection, directory) = try Self.database()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(throws: SQLCondition.Refusal.self) { try connection.condition("EXISTS (SELECT 1 FROM other)", on: "t") }
        #expect(try connection.scalarInt("SELECT count(*) FROM other") == 0)
        try connection.execute("INSERT INTO other VALUES ('x')")
    }

    @Test("every connection is hardened: no pointer through fts3_tokenizer, defensive mode, untrusted schema for readers")
    func hardenedConnection() throws {
        let (connection, directory) = try Self.database()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try connection.isDefensive())
        // Debian's SQLite has the two-argument form compiled in; off, it refuses instead of
        // storing the pointer the blob holds.
        #expect(throws: SQLiteError.self) {
            try connection.scalarText("SELECT fts3_tokenizer('simple', X'efbeadde00000000')")
        }
        try connection.execute("""
            CREATE TABLE log (x); CREATE VIEW v AS SELECT fts3_tokenizer('simple') AS p;
            """)
        let reader = try Connection(path: connection.path, mode: .readOnly)
        #expect(try reader.isDefensive())
        // An untrusted schema: a view may not call a function that is not innocuous.
        #expect(throws: SQLiteError.self) { try reader.scalarText("SELECT p FROM v") }
    }

    /// The table of `database()` as a feature table: what `SQLCondition.checked` reads.
    static let twin = FeatureTable(
        name: "t", geometryColumn: "geom", primaryKey: "fid", geometryTypeName: "POINT", srsID: 0, hasZ: false, hasM: false,
        columns: [Column(name: "fid", type: "INTEGER", isPrimaryKey: true), Column(name: "geom", type: "POINT"),
                  Column(name: "SubType", type: "INTEGER"), Column(name: "Name", type: "TEXT")], hasSpatialIndex: false)

    @Test("a condition for another database: checked by the same rules, column names quoted as the table spells them", arguments: [
        ("subtype = 1 AND name <> 'subtype'", "\"SubType\" = 1 AND \"Name\" <> 'subtype'"),
        ("[SUBTYPE] IN (1, 2) -- subtype", "\"SubType\" IN (1, 2) -- subtype"),
        ("upper(`name`) LIKE 'A%' OR \"Name\" IS NULL", "upper(\"Name\") LIKE 'A%' OR \"Name\" IS NULL"),
        ("fid > 2 /* name */", "\"fid\" > 2 /* name */"),
    ])
    func checkedForAnotherDatabase(clause: String, expected: String) throws {
        #expect(try SQLCondition.checked(clause, on: Self.twin).text == expected)
    }

    @Test("a condition for another database is refused as on SQLite", arguments: [
        "load_extension('x') = 1", "fid IN (SELECT 1 FROM other)", "nosuchcolumn = 1", "1; DROP TABLE t",
    ])
    func checkedForAnotherDatabaseRefused(clause: String) throws {
        #expect(throws: SQLCondition.Refusal.self) { try SQLCondition.checked(clause, on: Self.twin) }
    }

    /// Texts SQLite reads as one harmless expression that PostgreSQL would read otherwise: an
    /// escaped quote ending the string early, a parameter of the statement, a dollar-quoted
    /// string, a nested comment hiding what follows from SQLite, a backslash escape.
    @Test("a condition for PostgreSQL: what PostgreSQL reads otherwise than SQLite is refused", arguments: [
        #"name = E'\'' OR fid IN (SELECT 1) --'"#, "name = U&'d\\0061t' ", "fid = $1", "name = $$x$$",
        "fid = 1 /* /* */ OR 1=1 -- */", #"name = 'a\'"#,
    ])
    func checkedForPostgreSQLRefused(clause: String) throws {
        #expect(throws: SQLCondition.Refusal.self) { try SQLCondition.checked(clause, on: Self.twin) }
    }
}
