extension GeoPackage {
    /// Rewrites the placement of many annotation rows — footprint, text, anchor, angle, status:
    /// `annotationPlacementColumns` — with one `UPDATE` over the rows of `table` that
    /// `condition` selects (an SQL condition on the annotation table), instead of an `UPDATE`
    /// per row (`Connection.updateComputed`). Each row is handed to `regenerate` with the values
    /// of `originColumns` of its origin feature in `originTable` (NULL when there is none; read
    /// in place, valid only during the call); the
    /// row it returns is written, nil leaves the row as it is. Every row written is reported to
    /// `move`, when given, with its values before and after; `progress` is told the count of
    /// rows done every 4,096 rows. With `scanning` the whole table is read rather than the rows
    /// found through an index.
    ///
    /// - Returns: the number of rows written.
    /// - Throws: whatever `regenerate` or `move` throws (the statement stops; the caller's
    ///   transaction rolls back what it did); `SQLiteError`.
    @discardableResult
    public func updateAnnotationPlacements(
        in table: FeatureTable, scanning: Bool = false, rowsWhere condition: String, originTable: FeatureTable, originColumns: [String],
        move: JournalMove?, progress: (Int) -> Void = { _ in },
        _ regenerate: (_ row: AnnotationRow, _ origin: FunctionArguments) throws -> AnnotationRow?
    ) throws -> Int {
        let o = quoteIdentifier(originTable.name), originKey = quoteIdentifier(originTable.primaryKey)
        let inputs = Self.annotationSelectList(table, alias: "a").components(separatedBy: ", ")
            + originColumns.map { "(SELECT o.\(quoteIdentifier($0)) FROM \(o) o WHERE o.\(originKey) = a.FeatureID)" }
        var written = 0
        try connection.updateComputed(
            table: table.name, key: table.primaryKey, columns: Self.annotationPlacementColumns(table).map(\.name), rowsWhere: condition,
            scanning: scanning, inputs: inputs
        ) { fid, row in
            let existing = try annotationRow(from: row, table: table, withFootprint: false)
            let origin = row.dropFirst(Self.annotationColumnCount)
            let before = Self.placementIndices(table).map(row.value)
            guard let regenerated = try regenerate(existing, origin) else { return before }
            let after = placementValues(of: regenerated, in: table)
            try move?.changed(key: fid, before: before, after: after)
            written += 1
            if written % 4096 == 0 { progress(written) }
            return after
        }
        return written
    }

    /// Where the placement columns are among `annotationColumnNames`.
    static func placementIndices(_ table: FeatureTable) -> [Int] {
        annotationPlacementColumns(table).map { column in
            column.name == placedFromColumn ? annotationColumnNames.count : annotationColumnNames.firstIndex(of: column.name)!
        }
    }
}
