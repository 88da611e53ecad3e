extension Journal {
    // MARK: Checksums

    /// Stores the checksum of entry `id` (see `checksum(of:)`) once everything it holds is
    /// written, so that undo and redo can tell a damaged entry from a good one.
    func seal(_ id: Int64) throws {
        try JournalSchema.createChecksums(on: connection)
        try connection.run("INSERT OR REPLACE INTO annolink_journal_checksums (entry_id, checksum) VALUES (?, ?)",
                           [.integer(id), .integer(Int64(bitPattern: try checksum(of: id)))])
    }

    /// Refuses entry `id` when what it holds no longer has the checksum it was written with: a
    /// truncated changeset made undo spin in `sqlite3changeset_invert`, and flipped bits were
    /// undone into wrong values (issue 16, D2). Entries written before checksums were kept
    /// have none and are used as they are.
    ///
    /// - Throws: `JournalError.corrupt` naming the entry.
    func verify(_ id: Int64) throws {
        guard try JournalSchema.hasChecksums(on: connection),
              let stored = try connection.scalarInt("SELECT checksum FROM annolink_journal_checksums WHERE entry_id = ?", [.integer(id)])
        else { return }
        guard UInt64(bitPattern: stored) == (try checksum(of: id)) else {
            throw JournalError.corrupt(entry: id, reason: "it was changed or damaged after it was written (its checksum does not match)")
        }
    }

    /// A 64-bit FNV-1a hash of everything undo and redo read of entry `id`: its row's kind,
    /// row count, tables and changeset, and its move and image records (keys, digests, vectors,
    /// the names of the image tables). Every value goes in with its type and length, so a
    /// truncation or any changed byte changes the hash. The rows of bulk image tables are not
    /// covered; their own after-image checks guard them.
    func checksum(of id: Int64) throws -> UInt64 {
        var hash = FNV1a()
        let entry = try connection.rows("SELECT kind, row_count, tables, changeset FROM annolink_journal WHERE id = ?", [.integer(id)])
        for row in entry { for value in row { hash.add(value) } }
        let moves = try !JournalSchema.hasMoves(on: connection) ? [] : connection.rows("""
            SELECT sequence, table_name, columns, dx, dy, row_count, keys, before_digests, after_digests, exceptions_before,
              exceptions_after, exception_count FROM annolink_journal_moves WHERE entry_id = ? ORDER BY sequence
            """, [.integer(id)])
        for row in moves { for value in row { hash.add(value) } }
        let images = try connection.rows("""
            SELECT sequence, table_name, before_table, after_table, row_count FROM annolink_journal_images WHERE entry_id = ?
            ORDER BY sequence
            """, [.integer(id)])
        for row in images { for value in row { hash.add(value) } }
        return hash.value
    }
}

/// The 64-bit FNV-1a hash: each byte XORed in, then a multiplication by an odd prime. Both
/// steps are bijections of the state, so a change in any one byte always changes the result.
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add<C: Collection<UInt8>>(bytes: C) {
        for byte in bytes {
            value ^= UInt64(byte)
            value = value &* 0x0000_0100_0000_01b3
        }
    }

    mutating func add(number: UInt64) {
        withUnsafeBytes(of: number.littleEndian) { add(bytes: $0) }
    }

    /// Adds an SQL value with its type and, for text and blobs, its length.
    mutating func add(_ sqlValue: SQLValue) {
        switch sqlValue {
        case .null: add(number: 0)
        case .integer(let v): add(number: 1); add(number: UInt64(bitPattern: v))
        case .real(let v): add(number: 2); add(number: v.bitPattern)
        case .text(let v): add(number: 3); add(number: UInt64(v.utf8.count)); add(bytes: v.utf8)
        case .blob(let v): add(number: 4); add(number: UInt64(v.count)); add(bytes: v)
        }
    }
}
