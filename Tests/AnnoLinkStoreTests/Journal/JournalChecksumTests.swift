import AnnoLinkGeometry
import AnnoLinkStore
import Testing

/// Issue 16, D2: a damaged journal entry is refused by name before it is used.
@Suite("journal checksums")
struct JournalChecksumTests {
    /// A scratch file with one recorded attribute edit; returns the scratch, its journal, the
    /// entry's id and the file as it is after the edit.
    func edited() throws -> (JournalScratch, Journal, Int64, [String: [[SQLValue]]]) {
        let db = try JournalScratch()
        let journal = try Journal(package: db.package)
        let (_, entry) = try journal.record(command: "annolink set test.gpkg parcel_lines 3 Name=Oak", summary: "set Name of parcel_lines fid 3") { _ in
            try db.package.connection.run("UPDATE parcel_lines SET Name = 'Oak', Length = 12.5 WHERE fid = 3")
            try db.package.connection.run("UPDATE parcel_lines_anno SET TextString = 'Oak' WHERE FeatureID = 3")
        }
        return (db, journal, try #require(entry), try db.dump())
    }

    func isCorrupt(_ error: any Error, entry: Int64) -> Bool {
        guard case JournalError.corrupt(let id, let reason) = error else { return false }
        return id == entry && reason.contains("checksum does not match")
    }

    @Test("a truncated changeset is refused by name instead of spinning in sqlite3changeset_invert")
    func truncated() throws {
        let (db, journal, entry, after) = try edited()
        try db.package.connection.run("UPDATE annolink_journal SET changeset = substr(changeset, 1, 15) WHERE id = ?", [.integer(entry)])
        #expect { try journal.undo() } throws: { isCorrupt($0, entry: entry) }
        #expect(try db.dump() == after)
    }

    @Test("every one-bit flip of the changeset is refused, and the file keeps its values")
    func bitFlips() throws {
        let (db, journal, entry, after) = try edited()
        let original = try #require(db.package.connection.rows("SELECT changeset FROM annolink_journal WHERE id = ?", [.integer(entry)]).first?[0].blobValue)
        // 30 flips spread over the whole changeset, as in the report, then every bit of its first bytes.
        var positions = (0..<30).map { ($0 * original.count * 8) / 30 }
        positions += Array(0..<min(64, original.count * 8))
        for bit in positions {
            var damaged = original
            damaged[bit / 8] ^= UInt8(1) << UInt8(bit % 8)
            try db.package.connection.run("UPDATE annolink_journal SET changeset = ? WHERE id = ?", [.blob(damaged), .integer(entry)])
            #expect(throws: (any Error).self, "bit \(bit)") { try journal.undo() }
            #expect(try db.dump() == after, "bit \(bit)")
        }
        try db.package.connection.run("UPDATE annolink_journal SET changeset = ? WHERE id = ?", [.blob(original), .integer(entry)])
        _ = try journal.undo()
        _ = try journal.redo()
        #expect(try db.dump() == after)
    }

    @Test("a changed row count, table list or move record is refused too; redo checks as undo does")
    func otherFields() throws {
        let (db, journal, entry, _) = try edited()
        try db.package.connection.run("UPDATE annolink_journal SET tables = 'parcel_lines' WHERE id = ?", [.integer(entry)])
        #expect { try journal.undo() } throws: { isCorrupt($0, entry: entry) }
        try db.package.connection.run("UPDATE annolink_journal SET tables = 'parcel_lines\nparcel_lines_anno' WHERE id = ?", [.integer(entry)])
        _ = try journal.undo()
        try db.package.connection.run("UPDATE annolink_journal SET row_count = row_count + 1 WHERE id = ?", [.integer(entry)])
        #expect { try journal.redo() } throws: { isCorrupt($0, entry: entry) }
    }

    @Test("an entry written before checksums were kept is still undone")
    func entryWithoutChecksum() throws {
        let (db, journal, entry, _) = try edited()
        try db.package.connection.run("DELETE FROM annolink_journal_checksums WHERE entry_id = ?", [.integer(entry)])
        let undone = try journal.undo()
        #expect(undone.id == entry)
    }
}
