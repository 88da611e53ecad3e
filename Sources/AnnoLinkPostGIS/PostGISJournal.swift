import AnnoLinkStore

/// The edit journal of a data set in PostGIS: `annolink.journal` (one row per entry, as the
/// GeoPackage's `annolink_journal`) and `annolink.journal_rows` (the row images of each
/// entry: every row it wrote, as it was before and as the entry left it).
///
/// - An edit runs in `recordEdit`: one PostgreSQL transaction holds the edit's writes, the
///   entry and its images; the rows it read were locked (`FOR UPDATE`), so the images are the
///   rows as they were when it started, whatever other editors do.
/// - `undo()` takes the newest done entry, locks its rows and compares each with the entry's
///   after-image: a row that differs was changed by a later edit (of any user, on any server),
///   and the undo refuses with `JournalError.conflict`, changing nothing — the GeoPackage
///   journal's rule. Otherwise it writes the before-images back. `redo()` does the reverse
///   with the oldest undone entry.
/// - A new entry discards the undone entries. Each committed entry, undo and redo sends
///   `NOTIFY annolink_journal` with the entry's id, for servers that push edits to their maps.
public final class PostGISJournal: EditJournal {
    let store: PostGISStore
    var connection: PostgreSQLConnection { store.connection }
    public var user: String?
    /// Whether the journal's own tables were seen (checked once per journal).
    private var tablesKnown = false

    init(store: PostGISStore) {
        self.store = store
    }

    /// The images table, created by the first recorded edit (the layout's DDL does not have it).
    static let imagesDDL = """
        CREATE TABLE IF NOT EXISTS annolink.journal_rows (
          entry_id bigint NOT NULL REFERENCES annolink.journal (id) ON DELETE CASCADE,
          seq integer NOT NULL,
          table_name text NOT NULL,
          fid bigint NOT NULL,
          before text,
          after text,
          PRIMARY KEY (entry_id, seq));
        CREATE INDEX IF NOT EXISTS journal_rows_row ON annolink.journal_rows (table_name, fid);
        """

    /// The transaction ids the journal keeps, so that an undo or redo of a bulk move can tell
    /// whether its rows were written since (`PostGISStore.moveBack`, docs/postgis.md); added to
    /// a journal made before them. A row's `xmin` is the transaction that last wrote it.
    ///
    /// - `journal.undo_xids`, `redo_xids`: the transactions that undid and redid the entry;
    /// - `journal_rows.before_xmin`, `after_xmin`: the row's `xmin` when the edit read it and
    ///   after the edit wrote it (NULL: no row);
    /// - `journal_moves.created_xid`: the `xmin` the move gave the table's rows;
    ///   `written_xid`: the `xmin` they carry after the entry's latest move, undo or redo;
    ///   `before_xid`: the one `xmin` every moved row carried before the move (NULL when they
    ///   carried several: then each row's is in `journal_move_rows.before_xmin`).
    static let xidDDL = """
        ALTER TABLE annolink.journal ADD COLUMN IF NOT EXISTS undo_xids bigint[] NOT NULL DEFAULT '{}',
          ADD COLUMN IF NOT EXISTS redo_xids bigint[] NOT NULL DEFAULT '{}';
        ALTER TABLE annolink.journal_rows ADD COLUMN IF NOT EXISTS before_xmin bigint, ADD COLUMN IF NOT EXISTS after_xmin bigint;
        ALTER TABLE annolink.journal_moves ADD COLUMN IF NOT EXISTS created_xid bigint, ADD COLUMN IF NOT EXISTS written_xid bigint,
          ADD COLUMN IF NOT EXISTS before_xid bigint;
        ALTER TABLE annolink.journal_move_rows ADD COLUMN IF NOT EXISTS before_xmin bigint;
        """

    /// A new entry marks the undone entries `discarded` rather than deleting them: a row the undo
    /// of a discarded entry put back carries that undo's transaction id, and the undo of a bulk
    /// move before it tells the journal's own write from another program's by the discarded
    /// entry's `undo_xids` and the `xmin`s it had read (`PostGISStore.moveBack`). Discarded
    /// entries are not listed, undone or redone. Added to a journal made before them.
    static let discardedDDL = """
        ALTER TABLE annolink.journal DROP CONSTRAINT IF EXISTS journal_state_check;
        ALTER TABLE annolink.journal ADD CONSTRAINT journal_state_check CHECK (state IN ('done', 'undone', 'discarded'));
        """

    /// The advisory lock key that serializes making the journal tables.
    static let ddlLock: Int64 = 0x616E_6E6F_6C6B

    static let now = "to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"

    public func recordEdit<T>(command: String, summary: String, _ body: () throws -> T) throws -> (value: T, entry: Int64?) {
        if store.recording != nil { return (try body(), nil) }
        return try connection.inTransaction {
            let recording = EditRecording()
            store.recording = recording
            defer { store.recording = nil }
            let value = try body()
            try store.flushAll()
            let changed = recording.changed
            guard !changed.isEmpty else { return (value, nil) }
            let entry = try beginEntry(command: command, summary: summary, kind: .ordinary, rowCount: changed.count,
                                       tables: changed.map(\.key.table))
            // The images in one binary COPY: one round trip for the whole edit, not one per row.
            let columns = "entry_id, seq, table_name, fid, before, after, before_xmin, after_xmin"
            try connection.copyIn("COPY annolink.journal_rows (\(columns)) FROM STDIN (FORMAT binary)") { copy in
                for (seq, row) in changed.enumerated() {
                    try copy.write([.int8(entry), .int4(Int32(seq)), .text(row.key.table), .int8(row.key.fid), PostgreSQLValue(row.image.before),
                                    PostgreSQLValue(row.image.after), row.image.beforeXmin.map { .int8($0) } ?? .null,
                                    row.image.afterXmin.map { .int8($0) } ?? .null,
                    ])
                }
            }
            // By name, so that two edits widening the same tables lock their rows in one order.
            for (table, box) in recording.written.sorted(by: { $0.key < $1.key }) { try store.noteWritten(table, within: box) }
            return (value, entry)
        }
    }

    /// Discards the undone entries and writes a new entry's row (inside the edit's transaction);
    /// returns its id.
    func beginEntry(command: String, summary: String, kind: JournalEntry.Kind, rowCount: Int, tables: [String]) throws -> Int64 {
        try makeTables()
        try connection.execute("UPDATE annolink.journal SET state = 'discarded' WHERE state = 'undone'")
        var distinct: [String] = []
        for t in tables where !distinct.contains(t) { distinct.append(t) }
        guard let id = try connection.query("""
            INSERT INTO annolink.journal (time, command, summary, state, kind, row_count, tables, "user")
            VALUES (\(Self.now), $1, $2, 'done', $3, $4, $5, $6) RETURNING id
            """, [.text(command), .text(summary), .text(kind.rawValue), .int8(Int64(rowCount)), .text(distinct.joined(separator: "\n")),
                  PostgreSQLValue(user)]).scalar?.integerValue
        else { throw StoreError.invalidData("annolink.journal returned no id") }
        try connection.execute("NOTIFY annolink_journal, '\(id)'")
        return id
    }

    /// Makes the journal's own tables and columns when they are missing (inside a transaction).
    /// Made by the first edit of a data set (the layout's DDL does not have them); two first
    /// edits at once take turns (an advisory lock for this transaction), since CREATE TABLE IF
    /// NOT EXISTS is not safe against itself.
    func makeTables() throws {
        guard !tablesKnown else { return }
        if try connection.query(Self.tablesMissing).scalar?.boolValue == true {
            try connection.execute("SELECT pg_advisory_xact_lock(\(Self.ddlLock))")
            if try connection.query(Self.tablesMissing).scalar?.boolValue == true {
                try connection.execute(Self.imagesDDL + PostGISStore.movesDDL + Self.xidDDL + PostGISStore.keysDDL + Self.discardedDDL)
            }
        }
        tablesKnown = true
    }

    /// True when a table, column, view or state of the journal is missing (`discardedDDL` adds the last).
    static let tablesMissing = """
        SELECT to_regclass('annolink.journal_moves') IS NULL OR to_regclass('annolink.journal_rows') IS NULL
            OR NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('annolink.journal_move_rows') AND attname = 'before_xmin')
            OR to_regclass('annolink.journal_moved_rows') IS NULL
            OR NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = to_regclass('annolink.journal') AND conname = 'journal_state_check'
                           AND pg_get_constraintdef(oid) LIKE '%discarded%')
        """

    public func entries(limit: Int?) throws -> [JournalEntry] {
        try connection.query("""
            SELECT id, time, command, summary, state, kind, row_count, tables, "user" FROM annolink.journal
            WHERE state <> 'discarded' ORDER BY id DESC \(limit.map { "LIMIT \($0)" } ?? "")
            """).rows.map(Self.entry)
    }

    static func entry(_ r: [PostgreSQLValue]) -> JournalEntry {
        JournalEntry(
            id: r[0].integerValue ?? 0, time: r[1].textValue ?? "", command: r[2].textValue ?? "", summary: r[3].textValue ?? "",
            state: JournalEntry.State(rawValue: r[4].textValue ?? "") ?? .done, kind: JournalEntry.Kind(rawValue: r[5].textValue ?? "") ?? .ordinary,
            rowCount: Int(r[6].integerValue ?? 0), tables: (r[7].textValue ?? "").split(separator: "\n").map(String.init), user: r[8].textValue)
    }

    public func undo() throws -> JournalEntry {
        try move(.undo)
    }

    public func redo() throws -> JournalEntry {
        try move(.redo)
    }

    /// Undoes the newest done entry or redoes the oldest undone one, in one transaction.
    private func move(_ action: JournalError.Action) throws -> JournalEntry {
        try connection.inTransaction {
            try makeTables()
            let (state, order) = action == .undo ? ("done", "DESC") : ("undone", "ASC")
            guard let row = try connection.query("""
                SELECT id, time, command, summary, state, kind, row_count, tables, "user" FROM annolink.journal
                WHERE state = $1 ORDER BY id \(order) LIMIT 1 FOR UPDATE
                """, [.text(state)]).rows.first
            else { throw action == .undo ? JournalError.nothingToUndo : JournalError.nothingToRedo }
            var entry = Self.entry(row)
            if entry.kind == .bulk {
                try store.moveBack(entry: entry.id, action: action)
            } else {
                try applyImages(entry: entry.id, action: action)
            }
            entry.state = action == .undo ? .undone : .done
            try connection.query("UPDATE annolink.journal SET state = $1 WHERE id = $2", [.text(entry.state.rawValue), .int8(entry.id)])
            try connection.execute("NOTIFY annolink_journal, '\(entry.id)'")
            return entry
        }
    }

    /// Writes back the row images of the single edit `entry` (before-images for undo,
    /// after-images for redo), set-based, a table at a time in name order: every table's rows
    /// locked (`FOR UPDATE`, in fid order) and compared with the images the entry left
    /// first, so that a refusal changes nothing; then each table's rows written back: deleted where
    /// the image is none, updated in place where the row is there, inserted where it is not, each
    /// with one statement reading `annolink.journal_rows`.
    ///
    /// - Throws: `JournalError.conflict` naming the first row (in the edit's order) that is not
    ///   as the entry left it; `JournalError.corrupt` when the entry has no images.
    private func applyImages(entry: Int64, action: JournalError.Action) throws {
        let tables = try connection.query(
            "SELECT DISTINCT table_name FROM annolink.journal_rows WHERE entry_id = $1 ORDER BY table_name", [.int8(entry)]
        ).rows.compactMap { $0[0].textValue }
        guard !tables.isEmpty else {
            throw JournalError.corrupt(
                entry: entry, reason: "its row images are not in annolink.journal_rows (an entry copied from a GeoPackage cannot be undone on PostGIS)")
        }
        let (expected, written) = action == .undo ? ("after", "before") : ("before", "after")
        let mine = "SELECT fid FROM annolink.journal_rows WHERE entry_id = $1 AND table_name = $2"
        var first: (seq: Int64, table: String, fid: Int64, gone: Bool)?
        for name in tables {
            let table = try store.featureTable(name)
            let relation = store.qualified(table), pk = quoteIdentifier(table.primaryKey)
            try connection.query("SELECT u.\(pk) FROM \(relation) AS u WHERE u.\(pk) IN (\(mine)) ORDER BY u.\(pk) FOR UPDATE",
                                 [.int8(entry), .text(name)])
            if let row = try connection.query("""
                SELECT r.seq, r.fid, u.\(pk) IS NULL FROM annolink.journal_rows r LEFT JOIN \(relation) AS u ON u.\(pk) = r.fid
                WHERE r.entry_id = $1 AND r.table_name = $2 AND (CASE WHEN u.\(pk) IS NULL THEN NULL ELSE u::text END) IS DISTINCT FROM r.\(expected)
                ORDER BY r.seq LIMIT 1
                """, [.int8(entry), .text(name)]).rows.first, let seq = row[0].integerValue, let fid = row[1].integerValue,
                seq < first?.seq ?? .max {
                first = (seq, name, fid, row[2].boolValue == true)
            }
        }
        if let first {
            throw JournalError.conflict(action: action, entry: entry, table: first.table, fid: first.fid,
                                        reason: try changedSince(entry: entry, table: first.table, fid: first.fid, gone: first.gone))
        }
        var applied: Int64?
        for name in tables {
            let table = try store.featureTable(name)
            let relation = store.qualified(table), pk = quoteIdentifier(table.primaryKey)
            // A row that is there and has an image is updated in place, never deleted and put
            // back: another editor waiting for its lock (`SELECT … FOR UPDATE` in READ
            // COMMITTED) follows an update to the new version, but finds a deleted row gone
            // ("no feature with fid 2" for a feature that always existed).
            let columns = try connection.query("""
                SELECT quote_ident(attname) FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum
                """, [.text(relation)]).rows.compactMap { $0[0].textValue }
            try connection.query("""
                DELETE FROM \(relation) AS u USING annolink.journal_rows r
                WHERE r.entry_id = $1 AND r.table_name = $2 AND r.\(written) IS NULL AND u.\(pk) = r.fid
                """, [.int8(entry), .text(name)])
            let updated = try connection.query("""
                WITH put AS (UPDATE \(relation) AS u SET (\(columns.joined(separator: ", "))) = ROW((x.image).*)
                             FROM (SELECT r.fid, (r.\(written))::\(relation) AS image FROM annolink.journal_rows r
                                   WHERE r.entry_id = $1 AND r.table_name = $2 AND r.\(written) IS NOT NULL) x
                             WHERE u.\(pk) = x.fid
                             RETURNING \(PostGISStore.xmin) AS x)
                SELECT min(x) FROM put
                """, [.int8(entry), .text(name)]).scalar?.integerValue
            let inserted = try connection.query("""
                WITH put AS (INSERT INTO \(relation) AS u SELECT ((r.\(written))::\(relation)).* FROM annolink.journal_rows r
                             WHERE r.entry_id = $1 AND r.table_name = $2 AND r.\(written) IS NOT NULL
                               AND NOT EXISTS (SELECT 1 FROM \(relation) AS t WHERE t.\(pk) = r.fid) ORDER BY r.seq
                             RETURNING \(PostGISStore.xmin) AS x)
                SELECT min(x) FROM put
                """, [.int8(entry), .text(name)]).scalar?.integerValue
            applied = applied ?? updated ?? inserted
        }
        // The transaction that wrote the rows back, by which an undo or redo of a bulk move
        // knows these rows as the journal left them (`PostGISStore.moveBack`).
        if let applied { try store.noteApplied(action, entry: entry, xid: applied) }
    }

    /// What changed a row since `entry`: the later entry that wrote it, and whose it was.
    private func changedSince(entry: Int64, table: String, fid: Int64, gone: Bool) throws -> String {
        let later = try connection.query("""
            SELECT j.id, j."user" FROM annolink.journal j JOIN annolink.journal_rows r ON r.entry_id = j.id
            WHERE r.table_name = $1 AND r.fid = $2 AND j.id > $3 AND j.state = 'done' ORDER BY j.id LIMIT 1
            """, [.text(table), .int8(fid), .int8(entry)]).rows.first
        let what = gone ? "was deleted" : "was changed"
        guard let later, let id = later[0].integerValue else { return "\(what) after edit #\(entry), outside the journal" }
        return "\(what) by edit #\(id)\(later[1].textValue.map { " of \($0)" } ?? "") after edit #\(entry)"
    }

}

@available(*, unavailable)
extension PostGISJournal: Sendable {}
