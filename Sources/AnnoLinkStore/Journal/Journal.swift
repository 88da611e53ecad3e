/// The edit journal of a GeoPackage: every edit recorded as one entry in the file itself, so
/// that `undo`, `redo` and `log` work across processes (docs/journal.md; the tables in docs/format.md, "Edit journal").
///
/// An edit runs in `record(command:summary:_:)`: the body's changes and the entry commit in
/// one transaction, or neither does. Ordinary edits are recorded by SQLite's session extension
/// as a changeset; bulk edits declare their rows and columns and are recorded as before and
/// after images in image tables (`JournalRecorder.captureImages`).
///
/// - `undo()` reverts the newest entry that is done; `redo()` re-applies the oldest undone one
///   (the one undone last). Either refuses, changing nothing, when a row the entry changed was
///   changed again since (`JournalError.conflict`).
/// - A new entry discards every undone entry: what was undone can no longer be redone.
///
/// Use one `Journal` per `GeoPackage` (nested `record` calls on it join the outer entry).
/// Schema changes (new tables, columns) and tables without a primary key (`gpkg_extensions`,
/// `sqlite_sequence`) are not journaled. Not `Sendable`.
public final class Journal {
    /// The GeoPackage the journal lives in.
    public let package: GeoPackage
    var connection: Connection { package.connection }
    /// Whether the journal tables were seen committed; checked once, so that an ordinary edit
    /// does no schema work.
    var schemaIsKnown: Bool
    private var recording: JournalRecorder?
    /// The user new entries record (`annolink serve` sets it per request from the caller's
    /// token); nil records none, as the command line does.
    public var user: String?

    /// Opens the journal of `package`. The journal tables are created by the first recorded
    /// edit, not here, so that reading a file never writes to it.
    ///
    /// - Throws: `SQLiteError` when the schema cannot be read.
    public init(package: GeoPackage) throws {
        self.package = package
        schemaIsKnown = try !package.connection.isInTransaction && JournalSchema.exists(on: package.connection)
    }

    // MARK: Recording

    /// Runs `body` in one write transaction and records every change it makes as one entry.
    ///
    /// The entry's time is now (UTC); `command` is the command line as the user typed it and
    /// `summary` one line saying what the edit did. When the body throws, nothing it did is
    /// kept and no entry is written. When it changes nothing, no entry is written and undone
    /// entries stay redoable. Otherwise the new entry discards every undone entry.
    ///
    /// Inside a transaction the caller opened, the entry commits with that transaction. A
    /// `record` inside the body of another joins the outer entry.
    ///
    /// - Returns: what `body` returned, and the id of the entry written: nil when the body
    ///   changed nothing, or when this `record` joined an outer one (whose call returns it).
    /// - Throws: whatever `body` throws; `JournalError.unsupportedBulkChange` when a bulk
    ///   image's rules were broken; `SQLiteError`.
    @discardableResult
    public func record<T>(command: String, summary: String, _ body: (JournalRecorder) throws -> T) throws -> (value: T, entry: Int64?) {
        if let recording { return (try body(recording), nil) }
        let ownsTransaction = !connection.isInTransaction
        let recorded = try connection.write { () throws -> (value: T, entry: Int64?) in
            let recorder = try JournalRecorder(journal: self)
            recording = recorder
            defer {
                recording = nil
                recorder.close()
            }
            let value = try body(recorder)
            guard let recorded = try recorder.finish() else { return (value, nil) }
            let entry = try write(recorded.changeset, images: recorded.images, moves: recorded.moves, indexImages: recorded.indexImages,
                                  entry: recorder.entryID, command: command, summary: summary)
            try seal(entry)
            return (value, entry)
        }
        // Only a committed schema can be trusted afterwards: a caller's transaction may still
        // roll back.
        if ownsTransaction, !schemaIsKnown { schemaIsKnown = try JournalSchema.exists(on: connection) }
        return recorded
    }

    /// Runs `body` with the entry being recorded not seeing its writes (`JournalRecorder.
    /// withoutRecording`); outside an entry, just runs it.
    func withoutRecording<T>(_ body: () throws -> T) rethrows -> T {
        guard let recording else { return try body() }
        return try recording.withoutRecording(body)
    }

    /// Prepares for a new entry: creates the journal tables when they are missing and
    /// discards the undone entries.
    private func prepareNewEntry() throws {
        if !schemaIsKnown, try !JournalSchema.exists(on: connection) {
            try JournalSchema.create(on: connection)
        }
        try discardUndone()
    }

    /// Creates the entry row of a bulk entry when its first image is declared (the image tables
    /// are named after it); `write` fills in the rest at the end.
    func beginBulkEntry() throws -> Int64 {
        try prepareNewEntry()
        try connection.run("""
            INSERT INTO annolink_journal (time, command, summary, state, kind, row_count, tables)
            VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), '', '', 'done', 'bulk', 0, '')
            """)
        return connection.lastInsertRowID
    }

    /// Fills in the entry row (a bulk entry's, made when its first image was declared) or
    /// inserts it (an ordinary entry's), and returns its id.
    private func write(_ changeset: Changeset, images: [BulkImage], moves: [MoveImage], indexImages: [IndexImage], entry: Int64?,
                       command: String, summary: String) throws -> Int64 {
        let changed = try changeset.tables()
        var tables: [String] = (images.map { ($0.sequence, $0.target.table) } + moves.map { ($0.sequence, $0.table) }).sorted { $0.0 < $1.0 }.map(\.1)
        for table in changed.map(\.name) + indexImages.map(\.rtree) where !tables.contains(table) { tables.append(table) }
        let rowCount = changed.reduce(0) { $0 + $1.changes } + images.reduce(0) { $0 + $1.rowCount } + moves.reduce(0) { $0 + $1.rowCount }
            + indexImages.reduce(0) { $0 + $1.rowCount }
        let values: [SQLValue] = [
            .text(command), .text(summary), .integer(Int64(rowCount)), .text(tables.joined(separator: "\n")),
            changeset.isEmpty ? .null : .blob(changeset.bytes),
        ]
        let id: Int64
        if let entry {
            try connection.run("""
                UPDATE annolink_journal SET time = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), command = ?, summary = ?,
                  row_count = ?, tables = ?, changeset = ? WHERE id = ?
                """, values + [.integer(entry)])
            id = entry
        } else {
            try prepareNewEntry()
            try connection.run("""
                INSERT INTO annolink_journal (time, command, summary, state, kind, row_count, tables, changeset)
                VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?, ?, 'done', 'ordinary', ?, ?, ?)
                """, values)
            id = connection.lastInsertRowID
        }
        if let user {
            try JournalSchema.addUserColumn(on: connection)
            try connection.run("UPDATE annolink_journal SET user = ? WHERE id = ?", [.text(user), .integer(id)])
        }
        return id
    }

    /// Deletes the undone entries and their image tables. Undone entries are always the newest,
    /// so looking at the newest entry tells whether there are any.
    private func discardUndone() throws {
        guard try connection.scalarText("SELECT state FROM annolink_journal ORDER BY id DESC LIMIT 1") == "undone" else { return }
        let images = try connection.rows("""
            SELECT before_table, after_table FROM annolink_journal_images
            WHERE entry_id IN (SELECT id FROM annolink_journal WHERE state = 'undone')
            """)
        var imageTables = images
        if try JournalSchema.hasMoves(on: connection) {
            imageTables += try connection.rows("""
                SELECT exceptions_before, exceptions_after FROM annolink_journal_moves
                WHERE entry_id IN (SELECT id FROM annolink_journal WHERE state = 'undone')
                """)
            try connection.execute("DELETE FROM annolink_journal_moves WHERE entry_id IN (SELECT id FROM annolink_journal WHERE state = 'undone')")
        }
        for image in imageTables {
            guard let before = image[0].textValue, let after = image[1].textValue else { continue }
            try BulkImage.drop(before: before, after: after, on: connection)
        }
        try IndexImage.drop(entriesWhere: "entry_id IN (SELECT id FROM annolink_journal WHERE state = 'undone')", on: connection)
        if try JournalSchema.hasChecksums(on: connection) {
            try connection.execute("DELETE FROM annolink_journal_checksums WHERE entry_id IN (SELECT id FROM annolink_journal WHERE state = 'undone')")
        }
        try connection.execute("""
            DELETE FROM annolink_journal_images WHERE entry_id IN (SELECT id FROM annolink_journal WHERE state = 'undone');
            DELETE FROM annolink_journal WHERE state = 'undone';
            """)
    }
}

@available(*, unavailable)
extension Journal: Sendable {}
