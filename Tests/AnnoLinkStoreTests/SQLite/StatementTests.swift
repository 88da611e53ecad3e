import AnnoLinkStore
import Foundation
import Testing

/// `Connection.prepare`, the statement cache, binding of every `SQLValue` kind and reading
/// them back, and the errors of statements, with their SQL attached.
@Suite("SQLite statements")
struct StatementTests {
    func connection() throws -> (TemporaryDirectory, Connection) {
        let directory = try TemporaryDirectory()
        return (directory, try Connection(path: directory.path("test.sqlite"), mode: .create))
    }

    @Test("prepare returns the cached statement for the same SQL, reset and with its bindings cleared")
    func cacheReuse() throws {
        let (directory, c) = try connection()
        defer { withExtendedLifetime(directory) {} }
        let first = try c.prepare("SELECT ?1")
        try first.bind(.integer(42), at: 1)
        #expect(try first.step())
        #expect(first.value(0) == .integer(42))
        let again = try c.prepare("SELECT ?1")
        #expect(again === first)
        #expect(try again.step())
        #expect(again.value(0) == .null, "the binding was cleared")
        #expect(try c.prepare("SELECT ?1 ") !== first, "the cache is keyed by the exact text")
        #expect(try c.prepareUncached("SELECT ?1") !== first)
    }

    @Test("a statement that does not compile throws SQLite's message with the SQL attached")
    func badSQL() throws {
        let (directory, c) = try connection()
        defer { withExtendedLifetime(directory) {} }
        let error = #expect(throws: SQLiteError.self) { try c.prepare("SELEC 1") }
        #expect(primaryCode(error) == PrimaryCode.error)
        #expect(error?.message == "near \"SELEC\": syntax error")
        #expect(error?.sql == "SELEC 1")
        #expect(error?.description == "SQLite error 1: near \"SELEC\": syntax error (in SELEC 1)")
        let missing = #expect(throws: SQLiteError.self) { try c.prepareUncached("SELECT * FROM nowhere") }
        #expect(missing?.message == "no such table: nowhere")
        #expect(missing?.sql == "SELECT * FROM nowhere")
        let exec = #expect(throws: SQLiteError.self) { try c.execute("CREATE TABLE t (a); CREATE TABLE t (a)") }
        #expect(exec?.message == "table t already exists")
        #expect(exec?.sql == "CREATE TABLE t (a); CREATE TABLE t (a)")
    }

    @Test("prepare refuses more than one statement")
    func oneStatementOnly() throws {
        let (directory, c) = try connection()
        defer { withExtendedLifetime(directory) {} }
        let error = #expect(throws: SQLiteError.self) { try c.prepare("SELECT 1; SELECT 2") }
        #expect(primaryCode(error) == PrimaryCode.misuse)
        #expect(error?.message == "only one SQL statement may be given")
        // Trailing semicolons and spaces are one statement.
        #expect(try c.scalarInt("SELECT 3 ;  ") == 3)
    }

    @Test("every SQLValue binds and reads back as itself, with SQLite's storage class", arguments: [
        SQLValue.null, .integer(0), .integer(Int64.max), .integer(Int64.min), .real(3.141592653589793), .real(-1.5e-300),
        .real(1.7976931348623157e308), .text(""), .text("Bubeneč – 北京 😀"), .text("it's \"quoted\""),
        .blob([]), .blob(Array(0...255)), .blob([0, 0, 0]),
    ])
    func bindingRoundTrip(value: SQLValue) throws {
        let (directory, c) = try connection()
        defer { withExtendedLifetime(directory) {} }
        let read = try c.rows("SELECT ?1, typeof(?1), length(?1)", [value])
        #expect(read.count == 1)
        #expect(read[0][0] == value)
        #expect(read[0][1] == .text(value.typeName))
        // Stored and read back from a table too.
        try c.execute("CREATE TABLE t (v)")
        try c.run("INSERT INTO t (v) VALUES (?)", [value])
        #expect(try c.rows("SELECT v, typeof(v) FROM t") == [[value, .text(value.typeName)]])
        if case .blob(let bytes) = value {
            #expect(read[0][2] == .integer(Int64(bytes.count)), "an empty blob is a blob, not NULL")
        }
    }

    @Test("the typed binds (Double, Int64, a raw buffer) and the column readers agree")
    func typedBinds() throws {
        let (directory, c) = try connection()
        defer { withExtendedLifetime(directory) {} }
        let s = try c.prepare("SELECT ?1, ?2, ?3, ?4")
        try s.bind(2.5, at: 1)
        try s.bind(Int64(-7), at: 2)
        let bytes: [UInt8] = [0xDE, 0xAD, 0xBE, 0xEF]
        try bytes.withUnsafeBytes { try s.bind(blob: $0, at: 3) }
        #expect(try s.step())
        #expect(s.double(0) == 2.5)
        #expect(s.int64(1) == -7)
        #expect(s.blob(2) == bytes)
        #expect(s.withBlob(2) { Array($0) } == bytes)
        #expect(s.isNull(3) && s.blob(3) == nil && s.text(3) == nil)
        #expect(s.withBlob(3) { $0.count } == 0)
        #expect(s.columnCount == 4)
        #expect(try !s.step())
    }

    @Test("binding past the last parameter fails with SQLITE_RANGE and the SQL")
    func bindOutOfRange() throws {
        let (directory, c) = try connection()
        defer { withExtendedLifetime(directory) {} }
        let s = try c.prepare("SELECT ?1")
        let error = #expect(throws: SQLiteError.self) { try s.bind(.integer(1), at: 2) }
        #expect(primaryCode(error) == PrimaryCode.range)
        #expect(error?.sql == "SELECT ?1")
        #expect(throws: SQLiteError.self) { try s.bind([1, 2]) }
    }

    @Test("a constraint violation in step throws the extended code and the SQL; the statement can run again")
    func stepErrors() throws {
        let (directory, c) = try connection()
        defer { withExtendedLifetime(directory) {} }
        try c.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL)")
        let insert = "INSERT INTO t (name) VALUES (?)"
        try c.run(insert, ["a"])
        let unique = #expect(throws: SQLiteError.self) { try c.run(insert, ["a"]) }
        #expect(unique?.extendedResultCode.rawValue == 2067, "SQLITE_CONSTRAINT_UNIQUE")
        #expect(primaryCode(unique) == PrimaryCode.constraint)
        #expect(unique?.message == "UNIQUE constraint failed: t.name")
        #expect(unique?.sql == insert)
        let notNull = #expect(throws: SQLiteError.self) { try c.run(insert, [nil]) }
        #expect(notNull?.extendedResultCode.rawValue == 1299, "SQLITE_CONSTRAINT_NOTNULL")
        #expect(try c.run(insert, ["b"]) == 1)
        #expect(c.lastInsertRowID == 2)
        #expect(try c.rows("SELECT id, name FROM t ORDER BY id") == [[1, "a"], [2, "b"]])
    }

    @Test("run counts the rows changed; the scalar helpers give nil for NULL and for no row")
    func helpers() throws {
        let (directory, c) = try connection()
        defer { withExtendedLifetime(directory) {} }
        try c.execute("CREATE TABLE t (a INTEGER, b TEXT); INSERT INTO t VALUES (1, 'x'), (2, NULL), (3, 'z')")
        #expect(try c.run("UPDATE t SET a = a + 10 WHERE a >= ?", [2]) == 2)
        #expect(c.changeCount == 2)
        #expect(try c.scalarInt("SELECT sum(a) FROM t") == 26)
        #expect(try c.scalarText("SELECT b FROM t WHERE a = 12") == nil)
        #expect(try c.scalarInt("SELECT a FROM t WHERE a > 100") == nil)
        #expect(try c.scalarText("SELECT group_concat(b, '+') FROM t") == "x+z")
        #expect(try c.hasTable("t"))
        #expect(try !c.hasTable("T2"))
        #expect(try c.prepare("SELECT * FROM t").isReadOnly)
        #expect(try !c.prepare("DELETE FROM t").isReadOnly)
        // A scalar read leaves no statement in progress: COMMIT works right after.
        try c.execute("BEGIN")
        _ = try c.scalarInt("SELECT a FROM t")
        try c.execute("COMMIT")
        #expect(!c.isInTransaction)
    }
}
