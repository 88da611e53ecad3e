import AnnoLinkStore
import Foundation
import Testing

/// Opening a connection (WAL, busy timeout, modes), transactions (`write`, nested savepoints,
/// rollback on throw, `read` snapshots) and what happens when another connection holds the lock.
@Suite("SQLite connections")
struct ConnectionTests {
    struct Refused: Error, Equatable {}

    func table(_ directory: TemporaryDirectory) throws -> Connection {
        let c = try Connection(path: directory.path("test.sqlite"), mode: .create)
        try c.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
        return c
    }

    func names(_ c: Connection) throws -> [SQLValue] { try c.rows("SELECT name FROM t ORDER BY id").map { $0[0] } }

    @Test("a writable connection switches the file to WAL and sets the busy timeout")
    func walAndTimeout() throws {
        let d = try TemporaryDirectory()
        let c = try Connection(path: d.path("a.sqlite"), mode: .create)
        #expect(try c.scalarText("PRAGMA journal_mode") == "wal")
        #expect(try c.scalarInt("PRAGMA busy_timeout") == 5000)
        let quick = try Connection(path: d.path("a.sqlite"), busyTimeoutMilliseconds: 50)
        #expect(try quick.scalarInt("PRAGMA busy_timeout") == 50)
        // WAL is a property of the file: a new connection finds it.
        let plain = try Connection(path: d.path("a.sqlite"), mode: .readOnly)
        #expect(try plain.scalarText("PRAGMA journal_mode") == "wal")
    }

    @Test("a scan's larger page cache is the connection's only while it runs, a throw included")
    func pageCache() throws {
        let d = try TemporaryDirectory()
        let c = try table(d)
        let before = try c.scalarInt("PRAGMA cache_size")
        #expect(try c.withPageCache(kibibytes: 65536) { try c.scalarInt("PRAGMA cache_size") } == -65536)
        #expect(try c.scalarInt("PRAGMA cache_size") == before)
        #expect(throws: Refused.self) { try c.withPageCache(kibibytes: 4096) { throw Refused() } }
        #expect(try c.scalarInt("PRAGMA cache_size") == before)
    }

    @Test("journalMode nil leaves the file's own mode; another mode is asked for and checked")
    func otherJournalModes() throws {
        let d = try TemporaryDirectory()
        let kept = try Connection(path: d.path("b.sqlite"), mode: .create, journalMode: nil)
        #expect(try kept.scalarText("PRAGMA journal_mode") == "delete")
        let truncate = try Connection(path: d.path("c.sqlite"), mode: .create, journalMode: "TRUNCATE")
        #expect(try truncate.scalarText("PRAGMA journal_mode") == "truncate")
    }

    @Test("opening fails for a missing file unless creating, and for a file that is not a database")
    func openFailures() throws {
        let d = try TemporaryDirectory()
        let missing = #expect(throws: SQLiteError.self) { try Connection(path: d.path("missing.sqlite"), mode: .readWrite) }
        #expect(primaryCode(missing) == PrimaryCode.cantOpen)
        #expect(throws: SQLiteError.self) { try Connection(path: d.path("missing.sqlite"), mode: .readOnly) }
        #expect(!FileManager.default.fileExists(atPath: d.path("missing.sqlite")), "nothing was created")
        let text = d.path("notes.txt")
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: text))
        let notADatabase = #expect(throws: SQLiteError.self) { try Connection(path: text) }
        #expect(notADatabase?.isNotADatabase == true)
        #expect(notADatabase?.message == "file is not a database")
    }

    @Test("a read after a statement left part-way sees the newest snapshot, and the WAL can be checkpointed")
    func readAfterAStatementLeftOnARow() throws {
        let d = try TemporaryDirectory()
        let writer = try table(d)
        try writer.write { for i in 0..<5 { try writer.execute("INSERT INTO t (name) VALUES ('row \(i)')") } }
        let reader = try Connection(path: d.path("test.sqlite"), mode: .readOnly)
        // A first page of a longer list: the cached statement stays on its row.
        try reader.read {
            let page = try reader.prepare("SELECT name FROM t ORDER BY id LIMIT 10")
            #expect(try page.step())
        }
        try writer.write { try writer.execute("UPDATE t SET name = 'changed' WHERE id = 1") }
        #expect(try reader.read { try reader.scalarText("SELECT name FROM t WHERE id = 1") } == "changed")
        // Nothing pins an old snapshot: a checkpoint copies every frame of the WAL.
        let checkpoint = try writer.rows("PRAGMA wal_checkpoint(PASSIVE)")[0]
        #expect(checkpoint[1] == checkpoint[2], "frames in the WAL, frames checkpointed: \(checkpoint)")
    }

    @Test("write commits: another connection sees the rows")
    func writeCommits() throws {
        let d = try TemporaryDirectory()
        let c = try table(d)
        let returned = try c.write {
            #expect(c.isInTransaction)
            try c.run("INSERT INTO t (name) VALUES ('a'), ('b')")
            return c.lastInsertRowID
        }
        #expect(returned == 2)
        #expect(!c.isInTransaction)
        let other = try Connection(path: d.path("test.sqlite"))
        #expect(try names(other) == ["a", "b"])
    }

    @Test("write rolls back everything when its body throws, and rethrows the error")
    func writeRollsBack() throws {
        let d = try TemporaryDirectory()
        let c = try table(d)
        try c.run("INSERT INTO t (name) VALUES ('kept')")
        let error = #expect(throws: Refused.self) {
            try c.write {
                try c.run("INSERT INTO t (name) VALUES ('lost')")
                try c.run("UPDATE t SET name = 'changed' WHERE name = 'kept'")
                throw Refused()
            }
        }
        #expect(error == Refused())
        #expect(!c.isInTransaction)
        #expect(try names(c) == ["kept"])
        // An SQL error in the body rolls back the same way.
        #expect(throws: SQLiteError.self) {
            try c.write {
                try c.run("INSERT INTO t (name) VALUES ('lost')")
                try c.run("INSERT INTO nowhere VALUES (1)")
            }
        }
        #expect(try names(c) == ["kept"])
    }

    @Test("a nested write is a savepoint: its failure is rolled back alone and the outer write commits")
    func nestedSavepoint() throws {
        let d = try TemporaryDirectory()
        let c = try table(d)
        try c.write {
            try c.run("INSERT INTO t (name) VALUES ('outer 1')")
            #expect(throws: Refused.self) {
                try c.write {
                    try c.run("INSERT INTO t (name) VALUES ('inner, lost')")
                    throw Refused()
                }
            }
            #expect(c.isInTransaction, "the outer transaction goes on")
            try c.write { try c.run("INSERT INTO t (name) VALUES ('inner, kept')") }
            try c.run("INSERT INTO t (name) VALUES ('outer 2')")
        }
        #expect(try names(Connection(path: d.path("test.sqlite"))) == ["outer 1", "inner, kept", "outer 2"])
    }

    @Test("a nested write that succeeded is rolled back with its outer write")
    func nestedRolledBackWithOuter() throws {
        let d = try TemporaryDirectory()
        let c = try table(d)
        #expect(throws: Refused.self) {
            try c.write {
                try c.write { try c.run("INSERT INTO t (name) VALUES ('inner')") }
                throw Refused()
            }
        }
        #expect(try names(c) == [])
    }

    @Test("a writer fails with SQLITE_BUSY while another connection holds BEGIN IMMEDIATE, and succeeds after")
    func busy() throws {
        let d = try TemporaryDirectory()
        let c = try table(d)
        let holder = try Connection(path: d.path("test.sqlite"))
        try holder.execute("BEGIN IMMEDIATE")
        try holder.run("INSERT INTO t (name) VALUES ('holder')")
        let writer = try Connection(path: d.path("test.sqlite"), busyTimeoutMilliseconds: 20)
        let error = #expect(throws: SQLiteError.self) {
            try writer.write { try writer.run("INSERT INTO t (name) VALUES ('writer')") }
        }
        #expect(primaryCode(error) == PrimaryCode.busy)
        #expect(error?.message == "database is locked")
        #expect(!writer.isInTransaction)
        // In WAL readers are not blocked, and see the last commit, not the holder's row.
        #expect(try names(c) == [])
        try holder.execute("COMMIT")
        try writer.write { try writer.run("INSERT INTO t (name) VALUES ('writer')") }
        #expect(try names(c) == ["holder", "writer"])
    }

    @Test("read sees one snapshot while another connection commits")
    func readSnapshot() throws {
        let d = try TemporaryDirectory()
        let c = try table(d)
        try c.run("INSERT INTO t (name) VALUES ('first')")
        let other = try Connection(path: d.path("test.sqlite"))
        let seen = try c.read {
            let before = try names(c)
            try other.run("INSERT INTO t (name) VALUES ('second')")
            return (before, try names(c))
        }
        #expect(seen.0 == ["first"] && seen.1 == ["first"])
        #expect(try names(c) == ["first", "second"])
    }

    @Test("a read-only connection reads and refuses every write with SQLITE_READONLY")
    func readOnly() throws {
        let d = try TemporaryDirectory()
        let c = try table(d)
        try c.run("INSERT INTO t (name) VALUES ('a')")
        let reader = try Connection(path: d.path("test.sqlite"), mode: .readOnly)
        #expect(try names(reader) == ["a"])
        let insert = #expect(throws: SQLiteError.self) { try reader.run("INSERT INTO t (name) VALUES ('b')") }
        #expect(primaryCode(insert) == PrimaryCode.readOnly)
        #expect(insert?.message == "attempt to write a readonly database")
        #expect(throws: SQLiteError.self) { try reader.execute("CREATE TABLE u (a)") }
        #expect(throws: SQLiteError.self) { try reader.write { try reader.run("DELETE FROM t") } }
        #expect(!reader.isInTransaction)
        #expect(try names(c) == ["a"])
    }

    @Test("backup copies the whole database into a new file")
    func backup() throws {
        let d = try TemporaryDirectory()
        let c = try table(d)
        try c.run("INSERT INTO t (name) VALUES ('a'), (?)", [.text("ž")])
        try c.backup(to: d.path("copy.sqlite"))
        let copy = try Connection(path: d.path("copy.sqlite"), mode: .readOnly)
        #expect(try names(copy) == ["a", "ž"])
    }

    @Test("defensive mode can be turned on and off")
    func defensive() throws {
        let d = try TemporaryDirectory()
        let c = try table(d)
        try c.setDefensive(true)
        #expect(try c.isDefensive())
        try c.setDefensive(false)
        #expect(try !c.isDefensive())
    }
}
