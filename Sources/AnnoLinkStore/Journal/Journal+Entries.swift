extension Journal {
    // MARK: Reading entries

    /// The entries, newest first: at most `limit` of them, all when nil.
    ///
    /// - Throws: `JournalError.corrupt` when a row cannot be read; `SQLiteError`.
    public func entries(limit: Int? = nil) throws -> [JournalEntry] {
        guard try hasSchema() else { return [] }
        return try connection.read {
            let user = try JournalSchema.hasUserColumn(on: connection) ? "user" : "NULL"
            return try connection.rows("""
                SELECT id, time, command, summary, state, kind, row_count, tables, \(user) FROM annolink_journal ORDER BY id DESC LIMIT ?
                """, [.integer(Int64(limit ?? -1))]).map { row in
                var entry = try Self.entry(from: row)
                entry.user = row[8].textValue
                return entry
            }
        }
    }

    func hasSchema() throws -> Bool {
        try schemaIsKnown || JournalSchema.exists(on: connection)
    }

    struct StoredEntry {
        var entry: JournalEntry
        var changeset: Changeset
    }

    func storedEntry(where condition: String) throws -> StoredEntry? {
        let rows = try connection.rows("""
            SELECT id, time, command, summary, state, kind, row_count, tables, changeset FROM annolink_journal WHERE \(condition)
            """)
        guard let row = rows.first else { return nil }
        let entry = try Self.entry(from: row)
        switch row[8] {
        case .null: return StoredEntry(entry: entry, changeset: Changeset(bytes: []))
        case .blob(let bytes): return StoredEntry(entry: entry, changeset: Changeset(bytes: bytes))
        default: throw JournalError.corrupt(entry: entry.id, reason: "its changeset is not a blob")
        }
    }

    static func entry(from row: [SQLValue]) throws -> JournalEntry {
        let id = row[0].integerValue ?? 0
        guard let time = row[1].textValue, let command = row[2].textValue, let summary = row[3].textValue,
              let state = row[4].textValue.flatMap(JournalEntry.State.init(rawValue:)),
              let kind = row[5].textValue.flatMap(JournalEntry.Kind.init(rawValue:)),
              let rowCount = row[6].integerValue, let tables = row[7].textValue else {
            throw JournalError.corrupt(entry: id, reason: "its row in annolink_journal cannot be read")
        }
        return JournalEntry(
            id: id, time: time, command: command, summary: summary, state: state, kind: kind, rowCount: Int(rowCount),
            tables: tables.isEmpty ? [] : tables.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
    }
}
