/// What the body of `Journal.record` is handed: the entry being recorded.
///
/// Every row the body inserts, updates or deletes is recorded by SQLite's session extension,
/// with nothing to declare. A bulk change (a move of thousands to millions of rows) declares the
/// rows and columns it will change with `captureImages(table:columns:rowsWhere:bindings:)` before
/// changing them: those rows are copied by SQL into image tables instead of being held in a
/// changeset in memory. Rows moved by a vector are recorded more cheaply still, by the vector,
/// their keys and digests (`captureMove`; docs/journal.md). The recorder only records: the body
/// makes every change itself (a move with `GeoPackage.translate`, reporting to the move). Valid only inside the
/// body; not `Sendable`.
public final class JournalRecorder {
    /// The GeoPackage being edited.
    public let package: GeoPackage
    let session: Session
    let filter: JournalTableFilter
    private(set) var images: [BulkImage] = []
    private(set) var indexImages: [IndexImage] = []
    private(set) var moves: [MoveImage] = []
    /// The moves whose rows the body reports.
    private var reportedMoves: [JournalMove] = []
    /// The entry's id, once a bulk image has made the entry row exist.
    private(set) var entryID: Int64?
    private var isOpen = true
    private unowned let journal: Journal

    init(journal: Journal) throws {
        self.journal = journal
        self.package = journal.package
        let filter = JournalTableFilter()
        self.filter = filter
        self.session = try Session(connection: journal.package.connection) { filter.records($0) }
    }

    private var connection: Connection { package.connection }

    /// Runs `body` with the session switched off. SQLite calls the session's hook for every
    /// row written, even to tables it does not record (about a tenth of a bulk move's
    /// instructions, measured with callgrind); a bulk writer that changes only tables it
    /// declared with `captureImages` runs its row loop here. Anything else `body` changes is
    /// not journaled, so it must not change anything else.
    public func withoutRecording<T>(_ body: () throws -> T) rethrows -> T {
        precondition(isOpen, "JournalRecorder used outside the body of Journal.record")
        return try session.withoutRecording(body)
    }

    /// Declares that the body will change `columns` of the rows of `table` selected by the SQL
    /// condition `condition` (with `bindings` for its `?` parameters), and copies their current
    /// values into a before-image table with one `INSERT … SELECT`. At the end of the entry
    /// the same rows are copied again into an after-image table. Undo checks, with one join,
    /// that the rows still hold the after-image and restores the before-image with one `UPDATE …
    /// FROM`; redo does the reverse. Nothing is done per row in Swift, and memory stays flat.
    ///
    /// Call it before the first change to `table` in this entry. The body must change only the
    /// declared columns of the declared rows of `table`, and may not insert or delete rows in it:
    /// the table is no longer recorded by the session, so any other change to it would be
    /// outside the journal. Inserted or deleted rows are detected at the end of the entry (row
    /// count, highest key, every declared row still there) and refused; a change to an
    /// undeclared column or row is not detected. Other tables are still recorded by the session.
    ///
    /// `condition` is evaluated once, now; for example `fid IN (SELECT fid FROM temp.selection)`.
    ///
    /// - Throws: `JournalError.unsupportedBulkChange` when the table has no `INTEGER PRIMARY
    ///   KEY`, a column does not exist or is the key, the table was declared already or changed
    ///   already in this entry, or it is one of the journal's or an R-tree's own tables;
    ///   `SQLiteError` when the condition does not compile.
    /// - Complexity: one pass over the selected rows; the image takes about the size of the
    ///   selected columns on disk.
    public func captureImages(table name: String, columns: [String], rowsWhere condition: String, bindings: [SQLValue] = []) throws {
        let (target, entry) = try declare(table: name, columns: columns)
        let image = try session.withoutRecording {
            try BulkImage.capture(target, entry: entry, sequence: images.count + moves.count + 1, rowsWhere: condition, bindings: bindings, on: connection)
        }
        images.append(image)
    }

    /// Declares that the body will change, insert or delete rows of `table` selected by the SQL
    /// condition `condition`, and copies those rows whole (every column) into a before-image
    /// table, as `captureImages` copies declared columns. At the end of the entry the declared
    /// rows still there, and the rows `condition` selects then (those the body inserted), are
    /// copied into the after-image. Undo deletes the rows the body inserted, writes the others
    /// back and inserts the ones it deleted; redo does the reverse. Memory stays flat.
    ///
    /// `condition` is evaluated twice: now, and at the end of the entry, where it must select
    /// every row the body inserted into `table` (for example `FeatureID IN (SELECT fid FROM
    /// temp.selection)` for the annotation of selected features). Rows inserted that it does not
    /// select, or deleted that it did not select, are refused at the end of the entry.
    ///
    /// - Throws: as `captureImages`.
    public func captureRows(table name: String, rowsWhere condition: String, bindings: [SQLValue] = []) throws {
        let columns = try connection.rows("SELECT name FROM pragma_table_info(?) WHERE pk = 0 ORDER BY cid", [.text(name)]).compactMap { $0[0].textValue }
        let (target, entry) = try declare(table: name, columns: columns)
        let image = try session.withoutRecording {
            try BulkImage.capture(target, entry: entry, sequence: images.count + moves.count + 1, rowsWhere: condition, bindings: bindings,
                                  wholeRows: true, on: connection)
        }
        images.append(image)
    }

    /// Declares that the body will move rows of `table` by (`dx`, `dy`), changing `columns` as
    /// each column's role says, and report every row it writes through the returned
    /// `JournalMove`: the move's rows are the rows reported. Instead of copying the rows, as
    /// `captureImages` does, the entry keeps the vector, the rows' keys, digests of the rows
    /// before and after, and copies of just the rows whose change is not exactly the translation
    /// (see `JournalMove.changed`); undo moves the others back. For a million rows that is a
    /// few megabytes instead of hundreds, and nothing is read for it: the digests come from the
    /// reported values (the after values are read back only when a column's type would store
    /// them otherwise).
    ///
    /// Call it before the first change to `table` in this entry. The body must report every row
    /// of `table` it changes, change only the declared columns, and insert and delete nothing
    /// in the table (checked at the end of the entry); a change it does not report is not
    /// journaled. Rows that only move are moved and reported by `GeoPackage.translate(_:columns:
    /// rowsWhere:bindings:dx:dy:move:)`; rows whose values are computed report each change with
    /// `JournalMove.changed(key:before:after:)`.
    ///
    /// - Throws: as `captureImages`.
    public func captureMove(table name: String, columns: [MovedColumn], dx: Double, dy: Double) throws -> JournalMove {
        let (target, entry, named) = try declareMove(table: name, columns: columns)
        return try session.withoutRecording {
            let image = try MoveImage.begin(target, columns: named, dx: dx, dy: dy, entry: entry, sequence: images.count + moves.count + 1, on: connection)
            let types = try connection.rows("SELECT lower(name), type FROM pragma_table_info(?)", [.text(target.table)])
            let affinities = named.map { column in
                StorageAffinity(declaredType: types.first { $0[0].textValue == column.name.lowercased() }?[1].textValue ?? "")
            }
            let move = JournalMove(image: image, affinities: affinities, on: connection)
            moves.append(image)
            reportedMoves.append(move)
            return move
        }
    }

    /// `declare` for a move: also checks the columns, names them as the schema does, and makes
    /// sure the journal has its moves table.
    private func declareMove(table name: String, columns: [MovedColumn]) throws -> (BulkImage.Target, entry: Int64, [MovedColumn]) {
        let (target, entry) = try declare(table: name, columns: columns.map(\.name))
        guard target.columns.count == columns.count else {
            throw JournalError.unsupportedBulkChange(table: target.table, reason: "a column was declared twice")
        }
        let named = zip(columns, target.columns).map { column, name -> MovedColumn in
            switch column {
            case .geometry: .geometry(name)
            case .x: .x(name)
            case .y: .y(name)
            case .kept: .kept(name)
            }
        }
        try session.withoutRecording { try JournalSchema.createMoves(on: connection) }
        return (target, entry, named)
    }

    /// Checks that `name` may be declared, begins the bulk entry and stops the session from
    /// recording the table.
    private func declare(table name: String, columns: [String]) throws -> (BulkImage.Target, entry: Int64) {
        precondition(isOpen, "JournalRecorder used outside the body of Journal.record")
        let target = try BulkImage.Target(table: name, columns: columns, on: connection)
        func refuse(_ reason: String) -> JournalError { .unsupportedBulkChange(table: target.table, reason: reason) }
        if images.contains(where: { $0.target.table.lowercased() == target.table.lowercased() })
            || moves.contains(where: { $0.table.lowercased() == target.table.lowercased() }) {
            throw refuse("it was declared already in this edit")
        }
        if filter.recorded.contains(target.table.lowercased()) {
            throw refuse("it was changed in this edit before it was declared")
        }
        let entry = try entryID ?? journal.beginBulkEntry()
        entryID = entry
        filter.exclude(target.table)
        return (target, entry)
    }

    /// Declares that the body will set the entries of `ids` in the spatial index of `table`
    /// other than through the table's R-tree triggers (for example by rebuilding an index that
    /// was out of step with its table), and copies those entries as they are now: each id's
    /// box, or that the index has no entry for it. At the end of the entry they are copied
    /// again. Undo writes the entries as they were back into the index, after the changeset
    /// has restored the rows (whose triggers set the entries of every row it touches); redo
    /// writes the entries the edit left.
    ///
    /// Call it before the body changes anything in `table` or its index. Entries of ids not
    /// declared are not recorded: the body must leave them as the triggers keep them.
    ///
    /// - Throws: `StoreError.unknownTable`; `JournalError.unsupportedBulkChange` when the table
    ///   has no spatial index or its index was declared already in this entry.
    /// - Complexity: one insert per id and one join with the index; the image takes about 100
    ///   bytes per id on disk.
    public func captureSpatialIndex(table name: String, ids: some Sequence<Int64>) throws {
        precondition(isOpen, "JournalRecorder used outside the body of Journal.record")
        let table = try package.featureTable(name)
        guard table.hasSpatialIndex else {
            throw JournalError.unsupportedBulkChange(table: table.name, reason: "it has no spatial index")
        }
        if indexImages.contains(where: { $0.table.lowercased() == table.name.lowercased() }) {
            throw JournalError.unsupportedBulkChange(table: table.name, reason: "its spatial index was declared already in this edit")
        }
        let entry = try entryID ?? journal.beginBulkEntry()
        entryID = entry
        let image = try session.withoutRecording {
            try IndexImage.capture(table, ids: ids, entry: entry, sequence: indexImages.count + 1, on: connection)
        }
        indexImages.append(image)
    }

    /// Ends the recording: copies the after-images, checks the bulk rules, and returns what the
    /// entry holds; nil when the body changed nothing.
    func finish() throws -> (changeset: Changeset, images: [BulkImage], moves: [MoveImage], indexImages: [IndexImage])? {
        isOpen = false
        let changeset = try session.changeset()
        guard !changeset.isEmpty || !images.isEmpty || !moves.isEmpty || !indexImages.isEmpty else { return nil }
        try session.withoutRecording {
            for image in images { try image.captureAfter(on: connection) }
            for move in reportedMoves { try move.finishReports() }
            for move in moves { try move.finish(on: connection) }
            for image in indexImages { try image.copyIndex(into: .after, on: connection) }
        }
        return (changeset, images, moves, indexImages)
    }

    /// Marks the recorder as used up (after the body, whether it returned or threw).
    func close() { isOpen = false }
}

@available(*, unavailable)
extension JournalRecorder: Sendable {}
