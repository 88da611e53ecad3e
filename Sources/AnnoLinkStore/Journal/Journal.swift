/// The edit journal of a GeoPackage: every edit recorded as one entry in the file itself, so
/// that `undo`, `redo` and `log` work across processes (SPEC §2, §5; docs/journal.md).
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
    private var connection: Connection { package.connection }
    /// Whether the journal tables were seen committed; checked once, so that an ordinary edit
    /// does no schema work.
    private var schemaIsKnown: Bool
    private var recording: JournalRecorder?

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
            return (value, entry)
        }
        // Only a committed schema can be trusted afterwards: a caller's transaction may still
        // roll back.
        if ownsTransaction, !schemaIsKnown { schemaIsKnown = try JournalSchema.exists(on: connection) }
        return recorded
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
        if let entry {
            try connection.run("""
                UPDATE annolink_journal SET time = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), command = ?, summary = ?,
                  row_count = ?, tables = ?, changeset = ? WHERE id = ?
                """, values + [.integer(entry)])
            return entry
        } else {
            try prepareNewEntry()
            try connection.run("""
                INSERT INTO annolink_journal (time, command, summary, state, kind, row_count, tables, changeset)
                VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?, ?, 'done', 'ordinary', ?, ?, ?)
                """, values)
            return connection.lastInsertRowID
        }
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
        try connection.execute("""
            DELETE FROM annolink_journal_images WHERE entry_id IN (SELECT id FROM annolink_journal WHERE state = 'undone');
            DELETE FROM annolink_journal WHERE state = 'undone';
            """)
    }

    // MARK: Undo and redo

    /// Reverts the newest entry that is done, in one transaction, and marks it undone.
    ///
    /// Ordinary entries apply the inverted changeset (the R-tree triggers keep the spatial index
    /// in step); bulk entries check the after-images and write the before-images back, with the
    /// spatial index rebuilt in one pass when many rows move (docs/journal.md).
    ///
    /// - Returns: the entry, now undone.
    /// - Throws: `JournalError.nothingToUndo`; `JournalError.conflict` when a row the entry
    ///   changed was changed since, or a table it changed is gone (nothing is changed then);
    ///   `JournalError.corrupt` when its undo data cannot be read.
    public func undo() throws -> JournalEntry {
        try connection.write {
            guard try hasSchema(), let stored = try storedEntry(where: "state = 'done' ORDER BY id DESC LIMIT 1") else {
                throw JournalError.nothingToUndo
            }
            try apply(stored, action: .undo)
            try connection.run("UPDATE annolink_journal SET state = 'undone' WHERE id = ?", [.integer(stored.entry.id)])
            var entry = stored.entry
            entry.state = .undone
            return entry
        }
    }

    /// Re-applies the entry undone last (the oldest undone entry), in one transaction, and
    /// marks it done.
    ///
    /// - Returns: the entry, now done.
    /// - Throws: `JournalError.nothingToRedo`; `JournalError.conflict` when a row the entry
    ///   changed was changed after it was undone (nothing is changed then);
    ///   `JournalError.corrupt`.
    public func redo() throws -> JournalEntry {
        try connection.write {
            guard try hasSchema(), let stored = try storedEntry(where: """
                id > coalesce((SELECT id FROM annolink_journal WHERE state = 'done' ORDER BY id DESC LIMIT 1), 0)
                ORDER BY id LIMIT 1
                """), stored.entry.state == .undone else {
                throw JournalError.nothingToRedo
            }
            try apply(stored, action: .redo)
            try connection.run("UPDATE annolink_journal SET state = 'done' WHERE id = ?", [.integer(stored.entry.id)])
            var entry = stored.entry
            entry.state = .done
            return entry
        }
    }

    /// The entries, newest first: at most `limit` of them, all when nil.
    ///
    /// - Throws: `JournalError.corrupt` when a row cannot be read; `SQLiteError`.
    public func entries(limit: Int? = nil) throws -> [JournalEntry] {
        guard try hasSchema() else { return [] }
        return try connection.read {
            try connection.rows("""
                SELECT id, time, command, summary, state, kind, row_count, tables FROM annolink_journal ORDER BY id DESC LIMIT ?
                """, [.integer(Int64(limit ?? -1))]).map(Self.entry(from:))
        }
    }

    private func hasSchema() throws -> Bool {
        try schemaIsKnown || JournalSchema.exists(on: connection)
    }

    private struct StoredEntry {
        var entry: JournalEntry
        var changeset: Changeset
    }

    private func storedEntry(where condition: String) throws -> StoredEntry? {
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

    private static func entry(from row: [SQLValue]) throws -> JournalEntry {
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

    // MARK: Applying an entry

    /// Undoes or redoes `stored`: checks first, then writes. Runs in the caller's transaction;
    /// any throw leaves the rollback to it.
    private func apply(_ stored: StoredEntry, action: JournalError.Action) throws {
        let entry = stored.entry.id
        let changeset: Changeset
        do {
            changeset = action == .undo ? try stored.changeset.inverted() : stored.changeset
        } catch {
            throw JournalError.corrupt(entry: entry, reason: "its changeset cannot be read (\(error))")
        }
        let tables: [Changeset.Table]
        do {
            tables = try changeset.tables()
        } catch {
            throw JournalError.corrupt(entry: entry, reason: "its changeset cannot be read (\(error))")
        }
        let images = stored.entry.kind == .bulk ? try BulkImage.load(entry: entry, on: connection) : []
        let moves = stored.entry.kind == .bulk ? try MoveImage.load(entry: entry, on: connection) : []
        let indexImages = stored.entry.kind == .bulk ? try IndexImage.load(entry: entry, on: connection) : []

        // Checks: the tables still fit the changeset (SQLite would skip a table that does not,
        // silently), and the rows of every image are as the entry left them.
        for table in tables { try checkShape(of: table, entry: entry, action: action) }
        for image in images.reversed() + moves.reversed().map(\.exceptions) {
            let expected = action == .undo ? image.afterTable : image.beforeTable
            guard let found = try image.firstDifference(from: expected, on: connection) else { continue }
            let reason = found.deleted
                ? "was deleted \(Self.since(entry, action))"
                : "was changed \(Self.since(entry, action))\(detail(found.difference, columns: image.target.columns, entry: entry, action: action))"
            throw JournalError.conflict(action: action, entry: entry, table: image.target.table, fid: found.key, reason: reason)
        }
        for move in moves.reversed() {
            guard let block = try move.firstDifferentBlock(from: action == .undo ? move.afterDigests : move.beforeDigests, on: connection) else { continue }
            if block.deleted {
                throw JournalError.conflict(action: action, entry: entry, table: move.table, fid: block.first, reason: "was deleted \(Self.since(entry, action))")
            }
            throw JournalError.conflict(
                action: action, entry: entry, table: move.table, fid: nil,
                reason: "has a row among fids \(block.first)–\(block.last) that was changed \(Self.since(entry, action))")
        }
        // The declared entries of a spatial index must be as the entry left them: the index
        // was set right (or wrong) by hand since otherwise, and writing it back would undo that.
        for image in indexImages.reversed() {
            guard let id = try image.firstDifference(from: action == .undo ? .after : .before, on: connection) else { continue }
            throw JournalError.conflict(
                action: action, entry: entry, table: image.table, fid: id,
                reason: "has a spatial index entry (\(image.rtree)) that was changed \(Self.since(entry, action))")
        }

        // gpkg_contents holds each table's extent and last change, which other tools rewrite
        // whenever they write: a difference there is no reason to refuse; the extent is
        // recomputed instead.
        var contentsToRefresh: [String] = []
        var refusal: ChangesetConflict?
        do {
            try changeset.apply(on: connection) { conflict in
                if conflict.table == "gpkg_contents", case .data = conflict.kind, let name = conflict.primaryKey.first?.textValue {
                    contentsToRefresh.append(name)
                    return .omit
                }
                refusal = conflict
                return .abort
            }
        } catch ChangesetApplyError.aborted {
            guard let refusal else { throw JournalError.corrupt(entry: entry, reason: "applying its changeset stopped") }
            throw try conflictError(refusal, entry: entry, action: action)
        }

        for image in images.reversed() {
            let source = action == .undo ? image.beforeTable : image.afterTable
            try writingRows(of: image.target.table, count: image.rowCount, columns: image.target.columns) {
                _ = try image.restore(from: source, on: connection)
            }
        }
        for move in moves.reversed() {
            try writingRows(of: move.table, count: move.rowCount, columns: move.columns.map(\.name), refitting: true) {
                try move.move(action == .undo ? -1 : 1, on: connection)
                try move.exceptions.restore(from: action == .undo ? move.exceptions.beforeTable : move.exceptions.afterTable, on: connection)
            }
            // Moving back must give exactly the rows as they were: refused (and rolled back) otherwise.
            if try move.firstDifferentBlock(from: action == .undo ? move.beforeDigests : move.afterDigests, on: connection) != nil {
                throw JournalError.corrupt(entry: entry, reason: "moving \(move.table) \(action == .undo ? "back" : "again") would not give its rows exactly as they were")
            }
        }
        // After the rows: their triggers set the entries of every row the changeset touched,
        // and the image then puts the declared entries back exactly.
        for image in indexImages.reversed() {
            try image.restore(action == .undo ? .before : .after, on: connection)
        }
        for name in contentsToRefresh {
            guard let table = try? package.featureTable(name) else { continue }
            try package.refreshContents(of: table)
        }
    }

    /// Runs `body`, which writes `count` rows of `table` back, with the table's R-tree triggers
    /// suspended and the index rebuilt in one pass when `columns` hold the geometry column and
    /// the store's rule says so (`GeoPackage.suspendsSpatialIndex(writing:of:)`).
    ///
    /// `refitting`: the rows all move by one vector (a move image), so the index may keep its
    /// shape.
    private func writingRows(of name: String, count: Int, columns: [String], refitting: Bool = false, _ body: () throws -> Void) throws {
        let table = try? package.featureTable(name)
        if let table, table.hasSpatialIndex, columns.contains(where: { $0.lowercased() == table.geometryColumn.lowercased() }) {
            let rows = try connection.scalarInt("SELECT count(*) FROM \(quoteIdentifier(table.name))") ?? 0
            try package.withSpatialIndexSuspended(table: table.name, writing: count, of: rows, refitting: refitting, body)
            return
        }
        try body()
    }

    /// Refuses when a table of the changeset is gone or no longer has the columns and primary
    /// key the changeset was recorded with.
    private func checkShape(of table: Changeset.Table, entry: Int64, action: JournalError.Action) throws {
        let info = try connection.rows("SELECT pk FROM pragma_table_info(?) ORDER BY cid", [.text(table.name)])
        guard !info.isEmpty else {
            throw JournalError.conflict(action: action, entry: entry, table: table.name, fid: nil, reason: "no longer exists: it was dropped \(Self.since(entry, action))")
        }
        let key = info.map { ($0[0].integerValue ?? 0) > 0 }
        guard key.count >= table.columnCount, Array(key.prefix(table.columnCount)) == table.primaryKey else {
            throw JournalError.conflict(action: action, entry: entry, table: table.name, fid: nil, reason: "had its columns changed \(Self.since(entry, action))")
        }
    }

    /// "after edit #5" or "after edit #5 was undone".
    private static func since(_ entry: Int64, _ action: JournalError.Action) -> String {
        action == .undo ? "after edit #\(entry)" : "after edit #\(entry) was undone"
    }

    private func conflictError(_ conflict: ChangesetConflict, entry: Int64, action: JournalError.Action) throws -> JournalError {
        let when = Self.since(entry, action)
        var fid: Int64?
        var prefix = ""
        if conflict.primaryKey.count == 1, case .integer(let value) = conflict.primaryKey[0] {
            fid = value
        } else if !conflict.primaryKey.isEmpty {
            prefix = "row (\(conflict.primaryKey.map(Self.describe).joined(separator: ", "))) "
        }
        let reason: String
        switch conflict.kind {
        case .data:
            let columns = try connection.rows("SELECT name FROM pragma_table_info(?) ORDER BY cid", [.text(conflict.table)]).compactMap { $0[0].textValue }
            reason = "was changed \(when)\(detail(conflict.difference, columns: columns, entry: entry, action: action))"
        case .notFound:
            reason = "was deleted \(when)"
        case .conflict:
            reason = action == .undo ? "exists again: it was added \(when), which deleted it" : "was added again \(when)"
        case .constraint:
            reason = "cannot be written back: it would break a NOT NULL, UNIQUE or CHECK constraint of the table as it is now"
        case .foreignKey(let violations):
            reason = "it would leave \(violations) foreign key reference\(violations == 1 ? "" : "s") broken"
        }
        return .conflict(action: action, entry: entry, table: conflict.table, fid: fid, reason: prefix + reason)
    }

    /// " (Name is 'Oak St' now; edit #5 left 'Elm St')", or "" without a known difference.
    private func detail(_ difference: ChangesetConflict.Difference?, columns: [String], entry: Int64, action: JournalError.Action) -> String {
        guard let difference, difference.column < columns.count else { return "" }
        let column = columns[difference.column]
        let left = action == .undo ? "edit #\(entry) left" : "its undo left"
        if case .blob = difference.found {
            return " (its \(column) is not the one \(left))"
        }
        if case .blob = difference.expected {
            return " (its \(column) is not the one \(left))"
        }
        return " (\(column) is \(Self.describe(difference.found)) now; \(left) \(Self.describe(difference.expected)))"
    }

    private static func describe(_ value: SQLValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let v): String(v)
        case .real(let v): String(v)
        case .text(let s): "'" + (s.count > 40 ? s.prefix(40) + "…" : s) + "'"
        case .blob(let b): "\(b.count) bytes"
        }
    }
}

@available(*, unavailable)
extension Journal: Sendable {}
