import AnnoLinkGeometry

extension GeoPackage {
    /// Moves every selected feature of `table` by `dx`, `dy` with its annotation rows of the
    /// classes `annotation` names (annotation table → class ids), as one transaction and one
    /// journal entry (`FeatureStore.translate`). The features move with one `UPDATE` per run of
    /// fids, and so do their annotation rows in each annotation table (docs/design.md, "Bulk
    /// moves"): SQLite streams the rows, so memory stays flat whatever the selection's size.
    /// The journal keeps the vector and the rows' keys, not the rows (`JournalRecorder.captureMove`);
    /// the R-trees are refitted rather than rewritten row by row when a move is large
    /// (`withSpatialIndexSuspended`).
    ///
    /// - Throws: `StoreError.unknownFeature` (a fid in `.fids` that does not exist),
    ///   `.corruptGeometry`, `SQLCondition.Refusal` for a where clause that is not one
    ///   read-only condition, `SQLiteError`.
    public func translate(_ table: FeatureTable, selection: FeatureSelection, annotation: [String: [Int64]], dx: Double, dy: Double,
                          dryRun: Bool, command: String, summary: (Int) -> String, progress: (Int, Int) -> Void) throws -> BulkMoveCounts {
        func annotationCondition(_ classIDs: [Int64]) -> String {
            "FeatureID IN (SELECT fid FROM temp.annolink_selection) AND AnnotationClassID IN (\(classIDs.map(String.init).joined(separator: ", ")))"
        }
        return try withSelection(selection, of: table) { count in
            var result = BulkMoveCounts(features: count)
            if dryRun {
                for (annotationTable, classIDs) in annotation {
                    result.annotationRows += Int(try connection.scalarInt(
                        "SELECT count(*) FROM \(quoteIdentifier(annotationTable)) WHERE \(annotationCondition(classIDs))") ?? 0)
                }
            }
            if dryRun || count == 0 { return result }
            result.journalEntry = try editJournal().record(command: command, summary: summary(count)) { recorder in
                // The journal keeps the vector and the rows' keys, and copies only rows whose change
                // is not exactly the move (a translation is undone by moving back). Only the
                // declared tables are written, so the session can rest.
                try recorder.withoutRecording {
                    // The features only move: one UPDATE per run of fids.
                    let features = try recorder.captureMove(table: table.name, columns: [.geometry(table.geometryColumn)], dx: dx, dy: dy)
                    _ = try withSpatialIndexSuspended(table: table.name, writing: count, of: features.tableRowCount, refitting: true) {
                        try translate(
                            table, columns: features.columns,
                            rowsWhere: "\(quoteIdentifier(table.primaryKey)) IN (SELECT fid FROM temp.annolink_selection)", dx: dx, dy: dy,
                            move: features)
                    }
                    progress(count / 2, count)
                    for (annotationTable, classIDs) in annotation.sorted(by: { $0.key < $1.key }) {
                        // The labels move as their features do: footprint and anchor, by the vector.
                        let move = try recorder.captureMove(table: annotationTable, columns: GeoPackage.annotationMovedColumns, dx: dx, dy: dy)
                        // Labels of a quarter of the table or more (about one per feature): one pass
                        // over all of it is cheaper than finding every row through the FeatureID index.
                        let scanning = Int64(count) * 4 >= move.tableRowCount
                        // About one label per feature is written: the same rule as the features'.
                        result.annotationRows += try withSpatialIndexSuspended(
                            table: annotationTable, writing: count, of: move.tableRowCount, refitting: true
                        ) {
                            try translate(
                                try featureTable(annotationTable), columns: move.columns, rowsWhere: annotationCondition(classIDs),
                                scanning: scanning, dx: dx, dy: dy, move: move)
                        }
                    }
                    progress(count, count)
                }
                for name in [table.name] + annotation.keys.sorted() { try refreshContents(of: featureTable(name)) }
            }.entry
            return result
        }
    }

    /// Fills `temp.annolink_selection` with the fids `selection` picks, runs `body` with their
    /// count, and drops the table again. The bulk edits' SQL names the selection as
    /// `(SELECT fid FROM temp.annolink_selection)`.
    ///
    /// - Throws: `SQLCondition.Refusal`, `StoreError.unknownFeature`, `StoreError.invalidData`
    ///   for a box with a coordinate that is not finite.
    public func withSelection<T>(_ selection: FeatureSelection, of table: FeatureTable, _ body: (Int) throws -> T) throws -> T {
        try connection.execute("CREATE TEMP TABLE IF NOT EXISTS annolink_selection (fid INTEGER PRIMARY KEY)")
        try connection.execute("DELETE FROM temp.annolink_selection")
        defer { try? connection.execute("DROP TABLE IF EXISTS temp.annolink_selection") }
        try select(selection, of: table)
        return try body(Int(try connection.scalarInt("SELECT count(*) FROM temp.annolink_selection") ?? 0))
    }

    /// Calls `body` with every fid in `temp.annolink_selection`, in order, reading them a batch
    /// at a time so that no statement stays open over the writes.
    public func forEachSelected(_ body: (Int64) throws -> Void) throws {
        var last = Int64.min
        while true {
            let batch = try connection.rows(
                "SELECT fid FROM temp.annolink_selection WHERE fid > ? ORDER BY fid LIMIT 4096", [.integer(last)]).compactMap { $0[0].integerValue }
            guard let end = batch.last else { return }
            for fid in batch { try body(fid) }
            last = end
        }
    }

    /// Fills `temp.annolink_selection` with the fids `selection` names.
    func select(_ selection: FeatureSelection, of table: FeatureTable) throws {
        let t = quoteIdentifier(table.name), pk = quoteIdentifier(table.primaryKey)
        switch selection {
        case .fids(let fids):
            let insert = try connection.prepare("INSERT OR IGNORE INTO temp.annolink_selection (fid) SELECT \(pk) FROM \(t) WHERE \(pk) = ?")
            for fid in fids {
                insert.reset()
                try insert.bind(fid, at: 1)
                while try insert.step() {}
                if try connection.scalarInt("SELECT count(*) FROM temp.annolink_selection WHERE fid = ?", [.integer(fid)]) != 1 {
                    throw StoreError.unknownFeature(table: table.name, fid: fid)
                }
            }
        case .boundingBox(let box):
            guard [box.minX, box.minY, box.maxX, box.maxY].allSatisfy(\.isFinite) else {
                throw StoreError.invalidData("a box needs finite coordinates: \(box.minX), \(box.minY), \(box.maxX), \(box.maxY)")
            }
            // The R-tree finds the candidates (its boxes are rounded outward to 32-bit floats);
            // the exact envelope in each blob's header decides.
            let g = quoteIdentifier(table.geometryColumn)
            let candidates = table.hasSpatialIndex
                ? "\(pk) IN (SELECT id FROM \(quoteIdentifier(table.spatialIndexName)) WHERE maxx >= ?1 AND minx <= ?3 AND maxy >= ?2 AND miny <= ?4)"
                : "1"
            try connection.run("""
                INSERT INTO temp.annolink_selection (fid) SELECT \(pk) FROM \(t)
                WHERE \(candidates) AND \(g) NOT NULL AND NOT ST_IsEmpty(\(g))
                  AND ST_MinX(\(g)) >= ?1 AND ST_MinY(\(g)) >= ?2 AND ST_MaxX(\(g)) <= ?3 AND ST_MaxY(\(g)) <= ?4
                """, [.real(box.minX), .real(box.minY), .real(box.maxX), .real(box.maxY)])
        case .condition(let clause):
            let condition = try connection.condition(clause, on: table.name)
            // Copied in one statement rather than a row at a time (the copy was a tenth of a
            // million-row move's instructions).
            let copy = try connection.prepareUncached("INSERT INTO temp.annolink_selection (fid) SELECT \(pk) FROM \(t) WHERE \(condition.sql)")
            while try copy.step() {}
        }
    }
}
