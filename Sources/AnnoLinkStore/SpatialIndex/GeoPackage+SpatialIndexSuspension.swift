extension GeoPackage {
    /// Whether writing the geometry of `count` rows of a table of `tableRows` rows is cheaper with
    /// the R-tree triggers suspended and the index rebuilt (or refitted) in one pass: when
    /// `count` is at least a sixteenth of the table. On a million lines a row costs about 16 µs
    /// through the triggers and the rebuild about 1 µs per row of the table (docs/journal.md).
    ///
    /// The one rule for every bulk writer: a translate's feature and annotation moves, and
    /// undo and redo of bulk entries.
    public static func suspendsSpatialIndex(writing count: Int, of tableRows: Int64) -> Bool {
        Int64(count) * 16 >= tableRows
    }

    /// Runs `body`, which writes the geometry of about `count` rows of `table` (a table of
    /// `tableRows` rows), with the R-tree triggers suspended when `suspendsSpatialIndex(writing:
    /// of:)` says so (`withSpatialIndexSuspended(table:refitting:_:)`), directly otherwise.
    ///
    /// - Throws: as `withSpatialIndexSuspended(table:refitting:_:)`.
    public func withSpatialIndexSuspended<T>(table name: String, writing count: Int, of tableRows: Int64, refitting: Bool = false,
                                             _ body: () throws -> T) throws -> T {
        guard Self.suspendsSpatialIndex(writing: count, of: tableRows) else { return try body() }
        return try withSpatialIndexSuspended(table: name, refitting: refitting, body)
    }

    /// Runs `body` with the R-tree triggers of `table` dropped, then rebuilds the table's
    /// spatial index in one pass (`fillSpatialIndex`, the bulk loader) and recreates the
    /// triggers exactly as they were (GeoPackage 1.3 `_insert`, `_update1`–`_update4`,
    /// `_delete`, or 1.4's set), all in one transaction: the caller's when one is open (as a
    /// savepoint), its own otherwise. When `body` or the rebuild throws, or the process dies,
    /// the file is as before.
    ///
    /// Writing the geometry of many rows through the triggers costs one R-tree update per row
    /// (about 20 s per million rows); rebuilding the whole index costs a pass over the table
    /// (docs/journal.md has the figures). Worth it when a large share of the table moves.
    ///
    /// Inside `body` the R-tree does not follow the table: spatial queries through it see the
    /// old boxes, and rows the body inserts or deletes are indexed only by the rebuild. A
    /// nested call for the same table runs its body directly (the outer call rebuilds).
    /// A table without a spatial index just runs `body`. With `refitting`, the index keeps
    /// its shape when it can (`fillSpatialIndex(table:column:refitting:)`): for a body that
    /// moves rows by one vector.
    ///
    /// - Throws: `StoreError.unknownTable`; whatever `body` throws; `StoreError.corruptGeometry`
    ///   from the rebuild; `SQLiteError`.
    public func withSpatialIndexSuspended<T>(table name: String, refitting: Bool = false, _ body: () throws -> T) throws -> T {
        let table = try featureTable(name)
        guard table.hasSpatialIndex else { return try body() }
        return try connection.write {
            let index = table.spatialIndexName
            let names = GeoPackageSchema.rtreeTriggerSuffixes.map { SQLValue.text("\(index)_\($0)".lowercased()) }
            let triggers = try connection.rows("""
                SELECT name, sql FROM sqlite_master
                WHERE type = 'trigger' AND lower(name) IN (\(Array(repeating: "?", count: names.count).joined(separator: ", ")))
                ORDER BY rowid
                """, names).compactMap { row -> (name: String, sql: String)? in
                guard let name = row[0].textValue, let sql = row[1].textValue else { return nil }
                return (name, sql)
            }
            guard !triggers.isEmpty else { return try body() }
            for trigger in triggers { try connection.execute("DROP TRIGGER \(quoteIdentifier(trigger.name))") }
            let result = try body()
            try fillSpatialIndex(table: table.name, column: table.geometryColumn, refitting: refitting)
            for trigger in triggers { try connection.execute(trigger.sql) }
            return result
        }
    }
}
