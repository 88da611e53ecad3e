import AnnoLinkGeometry

/// The GeoPackage store: most requirements are the package's own methods; the rest are here.
extension GeoPackage: FeatureStore {
    public var location: String { path }

    public func checkedCondition(_ clause: String, on table: String) throws -> SQLCondition {
        try connection.condition(clause, on: table)
    }

    /// Runs under the connection's `conditionTimeLimit`, if any.
    ///
    /// - Throws: `SQLiteError` when SQLite cannot evaluate the condition on this row (`.interrupt`
    ///   past the time limit).
    public func feature(_ table: FeatureTable, fid: Int64, meets condition: SQLCondition) throws -> Bool {
        let sql = "SELECT count(*) FROM \(quoteIdentifier(table.name)) WHERE \(quoteIdentifier(table.primaryKey)) = ? AND \(condition.sql)"
        return try connection.withConditionTimeLimit { try connection.scalarInt(sql, [.integer(fid)]) == 1 }
    }

    public func forEachFeature(_ table: FeatureTable, matching condition: SQLCondition?, fields: Set<String>?,
                               _ body: (Feature) throws -> Void) throws {
        try forEachFeature(table, where: condition?.sql, fields: fields, body)
    }

    public func featureIDs(_ table: FeatureTable, selection: FeatureSelection) throws -> [Int64] {
        try withSelection(selection, of: table) { _ in
            try connection.rows("SELECT fid FROM temp.annolink_selection ORDER BY fid").compactMap { $0[0].integerValue }
        }
    }

    public func rowCount(_ table: FeatureTable, matching condition: SQLCondition?) throws -> Int64 {
        try connection.scalarInt("SELECT count(*) FROM \(quoteIdentifier(table.name))" + (condition.map { " WHERE \($0.sql)" } ?? "")) ?? 0
    }

    public func recordedExtent(of table: FeatureTable) throws -> Envelope? {
        guard let row = try connection.rows("SELECT min_x, min_y, max_x, max_y FROM gpkg_contents WHERE table_name = ?", [.text(table.name)]).first,
              !row.contains(where: \.isNull) else { return nil }
        let v = row.compactMap(\.doubleValue)
        return v.count == 4 ? Envelope(minX: v[0], minY: v[1], maxX: v[2], maxY: v[3]) : nil
    }

    /// Nothing to do: an edit of a GeoPackage holds SQLite's write lock on the whole file.
    public func lockFeatures(_ table: FeatureTable, fids: [Int64]) throws {}

    public func refreshExtent(of table: FeatureTable) throws {
        try refreshContents(of: table)
    }

    /// The package's journal, made on first use and shared while anyone holds it, so that every
    /// `record` on this package nests in the same one.
    public func editJournal() throws -> Journal {
        if let journalCache { return journalCache }
        let made = try Journal(package: self)
        journalCache = made
        return made
    }

    public func journal() throws -> any EditJournal {
        try editJournal()
    }

    public func withoutCommitting<T>(_ body: () throws -> T) throws -> T {
        try connection.withoutCommitting(body)
    }

    public func inTransaction<T>(_ body: () throws -> T) throws -> T {
        try connection.write(body)
    }

    public func withStatementTimeLimit<T>(seconds: Double, _ body: () throws -> T) throws -> T {
        try connection.withTimeLimit(seconds: seconds, body)
    }

    /// One journal entry, as any edit (`FeatureStore.recordRegeneration`).
    public func recordRegeneration<T>(command: String, summary: String, _ body: () throws -> T) throws -> (value: T, entry: Int64?) {
        try journal().recordEdit(command: command, summary: summary, body)
    }

    /// A new table gets its R-tree once its rows are in (one pass instead of one trigger call
    /// per row); an existing one has its R-tree triggers suspended while `body` writes
    /// (`withSpatialIndexSuspended`). The extent goes to `gpkg_contents`.
    public func registeringAnnotation<T>(in name: String, creatingIn srsID: Int64?, description: String,
                                         _ body: (FeatureTable) throws -> T) throws -> T {
        try connection.write {
            if let srsID { try createAnnotationTable(name: name, srsID: srsID, description: description, spatialIndex: false) }
            let table = try featureTable(name)
            let result = srsID != nil ? try body(table) : try withSpatialIndexSuspended(table: table.name) { try body(table) }
            if srsID != nil { try createSpatialIndex(table: table.name, column: table.geometryColumn) }
            try refreshContents(of: featureTable(table.name))
            return result
        }
    }
}

extension Journal: EditJournal {
    public func recordEdit<T>(command: String, summary: String, _ body: () throws -> T) throws -> (value: T, entry: Int64?) {
        try record(command: command, summary: summary) { _ in try body() }
    }
}
