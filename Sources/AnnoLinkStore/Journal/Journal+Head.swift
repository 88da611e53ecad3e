/// Where the journal of a file stands: its newest entry, the entry `undo` would revert and the
/// one `redo` would re-apply. Read cheaply (three indexed look-ups) so that `annolink serve` can
/// tell its pages, every second, whether the file changed (docs/editor.md).
public struct JournalHead: Hashable, Sendable {
    /// The id of the newest entry, done or undone; 0 when the journal is empty or missing.
    public var lastEntry: Int64
    /// The entry `undo` would revert (the newest done one); nil when there is nothing to undo.
    public var undo: JournalEntry?
    /// The entry `redo` would re-apply (the oldest undone one); nil when there is nothing to redo.
    public var redo: JournalEntry?

    /// Creates a head value (the journal makes them; tests may compare them).
    public init(lastEntry: Int64, undo: JournalEntry?, redo: JournalEntry?) {
        self.lastEntry = lastEntry
        self.undo = undo
        self.redo = redo
    }

    /// A key that changes with every journaled change of the file: a new entry raises
    /// `lastEntry`; an undo or a redo changes which entry `undo` would take.
    public var key: String { "\(lastEntry).\(undo?.id ?? 0)" }
}

extension Journal {
    /// Where the journal stands now, read in one read transaction.
    ///
    /// - Throws: `JournalError.corrupt` when an entry's row cannot be read; `SQLiteError`.
    public func head() throws -> JournalHead {
        guard try hasSchema() else { return JournalHead(lastEntry: 0, undo: nil, redo: nil) }
        return try connection.read {
            let user = try JournalSchema.hasUserColumn(on: connection) ? "user" : "NULL"
            func entry(where condition: String) throws -> JournalEntry? {
                guard let row = try connection.rows("""
                    SELECT id, time, command, summary, state, kind, row_count, tables, \(user) FROM annolink_journal WHERE \(condition)
                    """).first else { return nil }
                var entry = try Self.entry(from: row)
                entry.user = row[8].textValue
                return entry
            }
            let last = try connection.scalarInt("SELECT coalesce(max(id), 0) FROM annolink_journal") ?? 0
            let undo = try entry(where: "state = 'done' ORDER BY id DESC LIMIT 1")
            let redo = try entry(where: "id > \(undo?.id ?? 0) AND state = 'undone' ORDER BY id LIMIT 1")
            return JournalHead(lastEntry: last, undo: undo, redo: redo)
        }
    }
}
