import AnnoLinkStore
import AnnoLinkTestSupport
import Foundation
import Testing

/// The user of each edit (`annolink serve` records the token's user): a nullable column that
/// journals made before it do not have.
@Suite struct JournalUserTests {
    @Test("an entry records the journal's user; without one it records none")
    func userIsRecorded() throws {
        let db = try JournalScratch()
        let journal = try Journal(package: db.package)
        try journal.record(command: "annolink set", summary: "no user") { _ in
            try db.package.connection.run("UPDATE parcel_lines SET Name = 'A' WHERE fid = 1")
        }
        journal.user = "alice"
        try journal.record(command: "serve applyEdits", summary: "by alice") { _ in
            try db.package.connection.run("UPDATE parcel_lines SET Name = 'B' WHERE fid = 1")
        }
        let entries = try journal.entries()
        #expect(entries.map(\.user) == ["alice", nil])
        #expect(try db.package.connection.scalarText("SELECT user FROM annolink_journal WHERE id = 2") == "alice")
        // Undo and redo keep working on entries with a user.
        #expect(try journal.undo().id == 2)
        #expect(try journal.redo().id == 2)
    }

    @Test("a journal made before the user column still reads, and gets the column with its first user")
    func journalWithoutTheColumn() throws {
        let db = try JournalScratch()
        let journal = try Journal(package: db.package)
        try journal.record(command: "annolink set", summary: "old entry") { _ in
            try db.package.connection.run("UPDATE parcel_lines SET Name = 'A' WHERE fid = 1")
        }
        // As annolink made the table before `user` existed.
        try db.package.connection.execute("ALTER TABLE annolink_journal DROP COLUMN user")
        let reopened = try Journal(package: try GeoPackage(path: db.path))
        #expect(try reopened.entries().map(\.user) == [nil])
        #expect(try reopened.entries().first?.summary == "old entry")

        reopened.user = "bob"
        try reopened.record(command: "serve", summary: "new entry") { _ in
            try reopened.package.connection.run("UPDATE parcel_lines SET Name = 'B' WHERE fid = 2")
        }
        #expect(try reopened.entries().map(\.user) == ["bob", nil])
        #expect(try reopened.undo().summary == "new entry")
        #expect(try reopened.undo().summary == "old entry")
    }

    @Test("a failed edit leaves no column and no entry behind")
    func failedEditAddsNothing() throws {
        let db = try JournalScratch()
        let journal = try Journal(package: db.package)
        try journal.record(command: "annolink set", summary: "old entry") { _ in
            try db.package.connection.run("UPDATE parcel_lines SET Name = 'A' WHERE fid = 1")
        }
        try db.package.connection.execute("ALTER TABLE annolink_journal DROP COLUMN user")
        let reopened = try Journal(package: try GeoPackage(path: db.path))
        reopened.user = "carol"
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try reopened.record(command: "serve", summary: "refused") { _ in
                try reopened.package.connection.run("UPDATE parcel_lines SET Name = 'C' WHERE fid = 2")
                throw Refused()
            }
        }
        #expect(try reopened.package.connection.scalarInt("SELECT count(*) FROM pragma_table_info('annolink_journal') WHERE name = 'user'") == 0)
        #expect(try reopened.entries().count == 1)
    }
}
