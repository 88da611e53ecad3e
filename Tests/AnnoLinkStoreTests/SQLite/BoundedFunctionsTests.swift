import AnnoLinkStore
import AnnoLinkTestSupport
import Foundation
import Testing

/// `instr` in linear time and `LIKE`/`GLOB` patterns bounded (issue 25: one call on two large
/// values of one row cost the product of their lengths, past the progress handler's reach).
/// Debian's `sqlite3` shell, which has SQLite's own `instr`, is the oracle for its answers.
@Suite("SQL functions bounded by their arguments")
struct BoundedFunctionsTests {
    static func connection() throws -> (Connection, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("annolink-bounded-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return (try Connection(path: directory.appendingPathComponent("b.sqlite").path, mode: .create), directory)
    }

    /// Argument pairs as SQL: texts with multi-byte characters, blobs, numbers, NULL, empty
    /// values, a needle that begins inside a character, and no match.
    static let pairs: [(String, String)] = [
        ("'hello world'", "'world'"), ("'hello'", "''"), ("''", "''"), ("''", "'a'"), ("'abc'", "'abcd'"),
        ("'naïve café'", "'café'"), ("'日本語テキスト'", "'テキ'"), ("'aéaéb'", "'éb'"), ("'€uro€'", "'€'"),
        ("X'00010203'", "X'0203'"), ("X'00010203'", "X'04'"), ("X'C3A9C3A9'", "X'A9'"), ("X'A9C3'", "X'A9'"),
        ("'aébé'", "X'A9'"), ("X'61C3A962'", "'b'"), ("12345", "34"), ("3.25", "'.'"), ("'x42y'", "42"),
        ("NULL", "'a'"), ("'a'", "NULL"), ("X''", "X'00'"), ("'mississippi'", "'issip'"), ("'aaaaab'", "'aab'"),
    ]

    @Test("instr gives SQLite's own answers: characters for text, bytes for blobs, NULL, 0 and 1 where SQLite does")
    func instrAsSQLite() throws {
        let (connection, directory) = try Self.connection()
        defer { try? FileManager.default.removeItem(at: directory) }
        let sql = Self.pairs.map { "SELECT quote(instr(\($0.0), \($0.1)));" }.joined(separator: "\n")
        let oracle = try ExternalTool.sqlite3.run([":memory:", sql]).stdout.split(separator: "\n").map(String.init)
        try #require(oracle.count == Self.pairs.count, "\(oracle)")
        for (pair, expected) in zip(Self.pairs, oracle) {
            let ours = try connection.scalarText("SELECT quote(instr(\(pair.0), \(pair.1)))")
            #expect(ours == expected, "instr(\(pair.0), \(pair.1))")
        }
        // The arguments keep their types after the call (a blob beside a text is read from a copy).
        #expect(try connection.scalarText("SELECT typeof(b) || instr(b, 'b') || typeof(b) FROM (SELECT X'61C3A962' AS b)") == "blob3blob")
    }

    /// SQLite's loop compares Y with every place of X: about 8 · 10¹² byte comparisons here,
    /// hours. memmem is linear; the wait's limit (5 minutes) is far above any honest run.
    @Test("instr of two 8 MB values that defeat a naive search ends")
    func instrIsLinear() throws {
        let (connection, directory) = try Self.connection()
        defer { try? FileManager.default.removeItem(at: directory) }
        let size = 8 * 1024 * 1024
        try connection.execute("CREATE TABLE t (fid INTEGER PRIMARY KEY, a TEXT, b TEXT)")
        try connection.execute("INSERT INTO t VALUES (1, substr(hex(zeroblob(\(size / 2))), 1, \(size)), substr(hex(zeroblob(\(size / 4))), 1, \(size / 2 - 1)) || '1')")
        let condition = try connection.condition("instr(a, b) > 0", on: "t")
        // The connection is used by one thread at a time: this one waits.
        final class Box: @unchecked Sendable {
            let connection: Connection
            var count: Int64?
            init(_ connection: Connection) { self.connection = connection }
        }
        let box = Box(connection), done = DispatchSemaphore(value: 0)
        let sql = "SELECT count(*) FROM t WHERE \(condition.sql)"
        Thread.detachNewThread {
            box.count = try? box.connection.scalarInt(sql)
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 300) == .success)
        #expect(box.count == 0)
    }

    @Test("a LIKE or GLOB pattern longer than the limit fails with SQLite's reason; one at the limit runs")
    func likePatternsBounded() throws {
        let (connection, directory) = try Self.connection()
        defer { try? FileManager.default.removeItem(at: directory) }
        let limit = Int(Connection.likePatternLimit)
        try connection.execute("CREATE TABLE t (fid INTEGER PRIMARY KEY, v TEXT, p TEXT)")
        try connection.execute("INSERT INTO t VALUES (1, 'abc', '\(String(repeating: "%", count: limit))'), (2, 'abc', '\(String(repeating: "%", count: limit + 1))')")
        #expect(try connection.scalarInt("SELECT count(*) FROM t WHERE fid = 1 AND v LIKE p") == 1)
        for operation in ["v LIKE p", "v GLOB p", "like(p, v)"] {
            #expect {
                _ = try connection.scalarInt("SELECT count(*) FROM t WHERE fid = 2 AND \(operation)")
            } throws: { error in
                "\(error)".contains("LIKE or GLOB pattern too complex")
            }
        }
    }
}
