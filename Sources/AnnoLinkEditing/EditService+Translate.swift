import AnnoLinkAnnotation
import AnnoLinkGeometry
import AnnoLinkStore

/// Which features a bulk move takes.
public enum Selection: Sendable {
    /// These fids (unknown ones are an error).
    case fids([Int64])
    /// Every feature whose envelope lies inside the box (table CRS units).
    case boundingBox(Envelope)
    /// Every feature an SQL condition on the table selects (read-only, one condition).
    case condition(String)
}

/// What a bulk move did, or with a dry run would do: `translate --json`,
/// `{"table", "dx", "dy", "features", "annotationRows", "dryRun", "journalEntry"}`.
public struct TranslateResult: Sendable, Encodable {
    public var table: String
    public var dx: Double
    public var dy: Double
    /// The features moved (with a dry run: selected).
    public var features = 0
    /// The annotation rows moved with them (with a dry run: that would move).
    public var annotationRows = 0
    public var dryRun: Bool
    /// The journal entry (for undo), when something was moved.
    public var journalEntry: Int64?

    enum CodingKeys: String, CodingKey { case table, dx, dy, features, annotationRows, dryRun, journalEntry }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(table, forKey: .table)
        try c.encode(dx, forKey: .dx)
        try c.encode(dy, forKey: .dy)
        try c.encode(features, forKey: .features)
        try c.encode(annotationRows, forKey: .annotationRows)
        try c.encode(dryRun, forKey: .dryRun)
        try c.encode(journalEntry, forKey: .journalEntry)
    }
}

extension EditService {
    /// Moves every selected feature of `table` by `dx`, `dy` (CRS units) with all its
    /// annotation, as one transaction and one journal entry. The features move with one
    /// `UPDATE` per run of fids, and so do their annotation rows in each annotation table
    /// (docs/design.md, "Bulk moves"): SQLite streams the rows, so memory stays flat whatever the
    /// selection's size. `progress` is told how many are done. A dry run reports the counts and
    /// writes nothing.
    ///
    /// The annotation is carried rigidly (docs/placement.md, "Rigid moves"): its anchor and
    /// footprint move by exactly the vector, computed as the features' coordinates are
    /// (`x + dx`), and nothing else changes — text, angle, offsets, status, `Override`. No
    /// placement rule runs: a translation changes neither the attributes nor any length a label
    /// expression reads, and the rules give the moved feature the moved placement. Rows are
    /// neither created nor deleted.
    ///
    /// - Throws: `StoreError.unknownTable`, `.unknownFeature` (a fid in `.fids` that does not
    ///   exist), `.corruptGeometry` (a footprint that is not a GeoPackage geometry blob),
    ///   `EditError.invalidSelection` for a where clause that is not one read-only condition,
    ///   `EditError.nonFiniteCoordinate`.
    public func translate(table name: String, selection: Selection, dx: Double, dy: Double, dryRun: Bool, command: String,
                          progress: (Int, Int) -> Void = { _, _ in }) throws -> TranslateResult {
        guard dx.isFinite, dy.isFinite else { throw EditError.nonFiniteCoordinate("\(dx), \(dy)") }
        // A move by nothing would only add a journal entry that undoes nothing.
        guard dx != 0 || dy != 0 else { throw EditError.emptySelection("a translation by 0, 0 moves nothing") }
        let table = try package.featureTable(name)
        let connection = package.connection
        let classes = try annotation.classes(labelling: table.name)
        var result = TranslateResult(table: table.name, dx: dx, dy: dy, dryRun: dryRun)

        try connection.execute("CREATE TEMP TABLE IF NOT EXISTS annolink_selection (fid INTEGER PRIMARY KEY)")
        try connection.execute("DELETE FROM temp.annolink_selection")
        defer { try? connection.execute("DROP TABLE IF EXISTS temp.annolink_selection") }
        try select(selection, of: table)
        result.features = Int(try connection.scalarInt("SELECT count(*) FROM temp.annolink_selection") ?? 0)
        let annotationTables = Dictionary(grouping: classes) { $0.definition.annotationTable }
        func annotationCondition(_ tableClasses: [CompiledClass]) -> String {
            "FeatureID IN (SELECT fid FROM temp.annolink_selection) AND AnnotationClassID IN " +
                "(\(tableClasses.map { String($0.definition.classID) }.joined(separator: ", ")))"
        }
        if dryRun {
            for (annotationTable, tableClasses) in annotationTables {
                result.annotationRows += Int(try connection.scalarInt(
                    "SELECT count(*) FROM \(quoteIdentifier(annotationTable)) WHERE \(annotationCondition(tableClasses))") ?? 0)
            }
        }
        if dryRun || result.features == 0 { return result }

        let summary = "translate \(result.features) features of \(table.name) by \(dx), \(dy)"
        result.journalEntry = try journal().record(command: command, summary: summary) { recorder in
            // The journal keeps the vector and the rows' keys, and copies only rows whose change
            // is not exactly the move (a translation is undone by moving back). Only the
            // declared tables are written, so the session can rest.
            try recorder.withoutRecording {
                // The features only move: one UPDATE per run of fids.
                let features = try recorder.captureMove(table: table.name, columns: [.geometry(table.geometryColumn)], dx: dx, dy: dy)
                _ = try package.withSpatialIndexSuspended(table: table.name, writing: result.features, of: features.tableRowCount, refitting: true) {
                    try package.translate(
                        table, columns: features.columns,
                        rowsWhere: "\(quoteIdentifier(table.primaryKey)) IN (SELECT fid FROM temp.annolink_selection)", dx: dx, dy: dy,
                        move: features)
                }
                progress(result.features / 2, result.features)
                for (annotationTable, tableClasses) in annotationTables.sorted(by: { $0.key < $1.key }) {
                    // The labels move as their features do: footprint and anchor, by the vector.
                    let move = try recorder.captureMove(table: annotationTable, columns: GeoPackage.annotationMovedColumns, dx: dx, dy: dy)
                    // Labels of a quarter of the table or more (about one per feature): one pass
                    // over all of it is cheaper than finding every row through the FeatureID index.
                    let scanning = Int64(result.features) * 4 >= move.tableRowCount
                    // About one label per feature is written: the same rule as the features'.
                    result.annotationRows += try package.withSpatialIndexSuspended(
                        table: annotationTable, writing: result.features, of: move.tableRowCount, refitting: true
                    ) {
                        try package.translate(
                            try package.featureTable(annotationTable), columns: move.columns, rowsWhere: annotationCondition(tableClasses),
                            scanning: scanning, dx: dx, dy: dy, move: move)
                    }
                }
                progress(result.features, result.features)
            }
            for name in [table.name] + annotationTables.keys.sorted() { try package.refreshContents(of: package.featureTable(name)) }
        }.entry
        return result
    }

    /// Fills `temp.annolink_selection` with the fids `selection` names.
    func select(_ selection: Selection, of table: FeatureTable) throws {
        let connection = package.connection
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
                throw EditError.nonFiniteCoordinate("\(box.minX), \(box.minY), \(box.maxX), \(box.maxY)")
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
            let condition: SQLCondition
            do {
                condition = try connection.condition(clause, on: table.name)
            } catch let refusal as SQLCondition.Refusal {
                throw EditError.invalidSelection("the where clause \(refusal)")
            }
            // Copied in one statement rather than a row at a time (the copy was a tenth of a
            // million-row move's instructions).
            let copy = try connection.prepareUncached("INSERT INTO temp.annolink_selection (fid) SELECT \(pk) FROM \(t) WHERE \(condition.sql)")
            while try copy.step() {}
        }
    }
}
