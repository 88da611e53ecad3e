extension GeoPackage {
    /// Moves the rows of `table` that `condition` selects (with `bindings` for its `?`
    /// parameters) by (`dx`, `dy`): `.geometry` columns with `annolink_translate`, `.x` and `.y`
    /// columns by adding, `.kept` columns left alone. For rows that only move: the features of a
    /// translate.
    ///
    /// One pass reads the selected rows in whatever order SQLite finds best, handing each to
    /// `move` (which takes its digest and keeps the rows that moving back would not give back
    /// bit for bit, `JournalMove.willMove(row:key:)`); then one `UPDATE` per run of consecutive
    /// keys moves them. The table's spatial index follows through its R-tree triggers unless the
    /// caller suspended them (`withSpatialIndexSuspended(table:writing:of:refitting:_:)`).
    ///
    /// - Parameters:
    ///   - scanning: read the whole table (`NOT INDEXED`) rather than find the rows through an
    ///     index: cheaper when they are most of it.
    ///   - columns: the columns that move and how; with a `move`, its declared columns in the
    ///     same order.
    ///   - move: the journal's record of the move (`JournalRecorder.captureMove` on `table`), to
    ///     which every moved row is reported; one `translate` per move. Nil moves the rows
    ///     without recording them.
    /// - Returns: the number of rows moved.
    /// - Throws: `StoreError.corruptGeometry` for a geometry that is not a GeoPackage blob (with
    ///   a `move`, found before anything is moved); `JournalError.unsupportedBulkChange`;
    ///   `SQLiteError`.
    /// - Complexity: one read of the selected rows and one write of each.
    @discardableResult
    public func translate(_ table: FeatureTable, columns: [MovedColumn], rowsWhere condition: String, bindings: [SQLValue] = [],
                          scanning: Bool = false, dx: Double, dy: Double, move: JournalMove?) throws -> Int {
        if let move {
            precondition(move.image.table.lowercased() == table.name.lowercased(), "the move was declared for another table")
            precondition(move.columns.map { $0.name.lowercased() } == columns.map { $0.name.lowercased() }, "the move was declared with other columns")
        }
        // The move's columns are named as the schema names them.
        let columns = move?.columns ?? columns
        // Read in whatever order SQLite finds best and sorted after: an ORDER BY on the key
        // made SQLite sort every selected row with its values (a second for a million rows
        // selected through an index).
        let read = try connection.prepareUncached("""
            SELECT \(quoteIdentifier(table.primaryKey)), \(columns.map { quoteIdentifier($0.name) }.joined(separator: ", "))
            FROM \(quoteIdentifier(table.name))\(scanning ? " NOT INDEXED" : "") WHERE (\(condition))
            """)
        try read.bind(bindings)
        var keys: [Int64] = []
        var count = 0
        while try read.step() {
            let key = read.int64(0)
            if let move { try move.willMove(row: read, key: key) } else { keys.append(key) }
            count += 1
        }
        let ranges: [KeyRanges.Range]
        if let move {
            try move.finishReports()
            ranges = move.keyRanges
        } else {
            keys.sort()
            var runs = KeyRanges()
            for key in keys { runs.append(key) }
            ranges = runs.ranges
        }
        let assignments = columns.compactMap(\.moveAssignment)
        guard !assignments.isEmpty else { return count }
        let update = try connection.prepareUncached("""
            UPDATE \(quoteIdentifier(table.name)) SET \(assignments.joined(separator: ", "))
            WHERE \(quoteIdentifier(table.primaryKey)) BETWEEN ?1 AND ?2
            """)
        try update.run(over: ranges, dx: dx, dy: dy)
        return count
    }
}
