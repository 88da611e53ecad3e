/// The rows of one table that a bulk entry moves by a vector, as the body of `Journal.record`
/// reports them (`JournalRecorder.captureMove`). Not `Sendable`; valid only inside the body.
public final class JournalMove {
    let image: MoveImage
    private let connection: Connection
    /// What each column's affinity does to a value stored in it, to know whether a reported
    /// `after` value is what a read will find.
    private let affinities: [StorageAffinity]
    /// Every reported row: its key and the digests of its values before and after (nil when
    /// the stored values may differ from the reported ones, and must be read back).
    private var rows: [(key: Int64, before: UInt64, after: UInt64?)] = []
    private var reportsFinished = false

    /// How many rows were reported.
    public private(set) var rowCount = 0

    /// How many rows the table had when the move was declared.
    public var tableRowCount: Int64 { image.exceptions.tableRowCount }

    init(image: MoveImage, affinities: [StorageAffinity], on connection: Connection) {
        self.image = image
        self.affinities = affinities
        self.connection = connection
    }

    /// Reports that row `key` went from `before` to `after`: the declared columns' values, in
    /// the order they were declared, `before` exactly as SQLite handed them over, `after` as
    /// written. When the change is the translation both ways — `after` is `before` moved by
    /// (dx, dy) and `before` is `after` moved back, bit for bit — only the row's key and digests
    /// are kept: undo moves the row back. Otherwise its `before` values are kept in the entry,
    /// and undo writes them back. Report each row once.
    public func changed(key: Int64, before: [SQLValue], after: [SQLValue]) throws {
        precondition(before.count == image.columns.count && after.count == image.columns.count, "one value per declared column")
        precondition(!reportsFinished, "a row reported after the move's reports ended")
        let stored = zip(after, affinities).allSatisfy { $1.keeps($0) }
        rows.append((key, BlockDigests.digest(key: key, values: before), stored ? BlockDigests.digest(key: key, values: after) : nil))
        rowCount += 1
        if image.isTranslation(from: before, to: after) { return }
        try image.keep(key: key, before, on: connection)
    }

    /// Reports that row `key`, on which `statement` stands (its key, then the declared columns
    /// in their order), is about to be moved by (dx, dy) in SQL, with the declared columns'
    /// `UPDATE` assignments (`GeoPackage.translate`). Its digest is taken from the statement,
    /// copying nothing; a row that moving by (dx, dy) and back would not give back bit for bit
    /// is kept as an exception. Its after values are read back at the end of the entry.
    ///
    /// - Throws: `StoreError.corruptGeometry` for a geometry blob that cannot be moved.
    func willMove(row statement: Statement, key: Int64) throws {
        precondition(!reportsFinished, "a row reported after the move's reports ended")
        rows.append((key, BlockDigests.digest(row: statement, key: key, columns: image.columns.count), nil))
        rowCount += 1
        if image.movesBackExactly(row: statement) { return }
        let before = (1...image.columns.count).map(statement.value)
        _ = try image.translated(before, key: key)      // throws for a corrupt geometry
        try image.keep(key: key, before, on: connection)
    }

    /// Ends the reports: the reported rows become the image's keys and digests. Called by
    /// `GeoPackage.translate` before it moves the rows, and at the end of the entry; only the
    /// first call does anything.
    ///
    /// - Throws: `JournalError.unsupportedBulkChange` when a row was reported twice.
    func finishReports() throws {
        guard !reportsFinished else { return }
        reportsFinished = true
        try image.setRows(&rows)
        rows = []
    }

    /// The reported keys, ascending, as runs of consecutive keys (after `finishReports`).
    var keyRanges: [KeyRanges.Range] { image.keys.ranges }

    /// The declared columns, named as the table's schema names them.
    public var columns: [MovedColumn] { image.columns }
}
