import AnnoLinkGeometry

/// One row of a feature table: its id, geometry and attribute values.
public struct Feature: Hashable, Sendable {
    public var fid: Int64
    /// The geometry in the table's CRS; nil when the column is NULL.
    public var geometry: Geometry?
    /// Attribute values by column name (every column but the primary key and the geometry).
    public var attributes: [String: SQLValue]

    public init(fid: Int64, geometry: Geometry?, attributes: [String: SQLValue]) {
        self.fid = fid
        self.geometry = geometry
        self.attributes = attributes
    }
}

extension GeoPackage {
    /// Encodes `geometry` as a StandardGeoPackageBinary blob for `table` (its srs id, with an
    /// XY envelope for everything but points).
    public func encode(_ geometry: Geometry, for table: FeatureTable) -> [UInt8] {
        GeoPackageGeometry.encode(geometry, srsID: Int32(truncatingIfNeeded: table.srsID))
    }

    /// Decodes the geometry blob of `table` row `fid`.
    ///
    /// - Throws: `StoreError.corruptGeometry` naming the table, fid and what was wrong.
    func decodeGeometry(_ blob: UnsafeRawBufferPointer, table: FeatureTable, fid: Int64) throws -> Geometry {
        do {
            return try GeoPackageGeometry(blob: blob).geometry
        } catch {
            throw StoreError.corruptGeometry(table: table.name, fid: fid, reason: "\(error)")
        }
    }

    /// The feature `fid` of `table`.
    ///
    /// - Throws: `StoreError.unknownFeature` when there is no such row, `StoreError.corruptGeometry`.
    public func feature(_ table: FeatureTable, fid: Int64) throws -> Feature {
        var found: Feature?
        try forEachFeature(table, where: "\(quoteIdentifier(table.primaryKey)) = ?", bindings: [.integer(fid)]) { found = $0 }
        guard let found else { throw StoreError.unknownFeature(table: table.name, fid: fid) }
        return found
    }

    /// Calls `body` with every feature of `table` matching the optional SQL condition, in fid
    /// order, one row at a time (memory stays flat however large the table is). `fields`, when
    /// given, limits the attributes read to those columns (names matched case-insensitively;
    /// unknown ones are left out).
    public func forEachFeature(_ table: FeatureTable, where condition: String? = nil, bindings: [SQLValue] = [], fields: Set<String>? = nil,
                               _ body: (Feature) throws -> Void) throws {
        let wanted = fields.map { Set($0.map { $0.lowercased() }) }
        let attributes = table.attributeColumns.filter { wanted?.contains($0.name.lowercased()) ?? true }
        let list = ([table.primaryKey, table.geometryColumn] + attributes.map(\.name)).map(quoteIdentifier).joined(separator: ", ")
        var sql = "SELECT \(list) FROM \(quoteIdentifier(table.name))"
        if let condition { sql += " WHERE \(condition)" }
        sql += " ORDER BY \(quoteIdentifier(table.primaryKey))"
        let statement = try connection.prepare(sql)
        try statement.bind(bindings)
        while try statement.step() {
            let fid = statement.int64(0)
            let geometry = statement.isNull(1) ? nil : try statement.withBlob(1) { try decodeGeometry($0, table: table, fid: fid) }
            var values: [String: SQLValue] = [:]
            for (i, column) in attributes.enumerated() { values[column.name] = statement.value(i + 2) }
            try body(Feature(fid: fid, geometry: geometry, attributes: values))
        }
    }

    /// Inserts a feature and returns its fid. `fid` nil lets SQLite choose the next one. The
    /// geometry is written as given: checking it (its kind, GEOS validity) is the edit
    /// service's (`EditService.validate(_:for:)`).
    ///
    /// - Throws: `StoreError.unknownColumn` for an attribute the table lacks, `SQLiteError` for
    ///   constraint violations.
    @discardableResult
    public func insertFeature(_ table: FeatureTable, fid: Int64? = nil, geometry: Geometry?, attributes: [String: SQLValue]) throws -> Int64 {
        let pairs = try attributes.sorted { $0.key < $1.key }.map { name, value -> (String, SQLValue) in
            guard let column = table.column(name) else { throw StoreError.unknownColumn(table: table.name, column: name) }
            return (column.name, value)
        }
        var columns = [table.geometryColumn] + pairs.map(\.0)
        var values: [SQLValue] = [geometry.map { .blob(encode($0, for: table)) } ?? .null] + pairs.map(\.1)
        if let fid {
            columns.insert(table.primaryKey, at: 0)
            values.insert(.integer(fid), at: 0)
        }
        let sql = "INSERT INTO \(quoteIdentifier(table.name)) (\(columns.map(quoteIdentifier).joined(separator: ", "))) " +
            "VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
        try connection.run(sql, values)
        return connection.lastInsertRowID
    }

    /// Sets the geometry and/or attributes of feature `fid`. Attribute names are matched
    /// case-insensitively; the geometry is written as given (see `insertFeature`).
    ///
    /// - Throws: `StoreError.unknownFeature`, `.unknownColumn`, and `SQLiteError` for
    ///   constraint violations.
    public func updateFeature(_ table: FeatureTable, fid: Int64, geometry: Geometry? = nil, attributes: [String: SQLValue] = [:]) throws {
        var assignments: [String] = [], values: [SQLValue] = []
        if let geometry {
            assignments.append("\(quoteIdentifier(table.geometryColumn)) = ?")
            values.append(.blob(encode(geometry, for: table)))
        }
        for (name, value) in attributes.sorted(by: { $0.key < $1.key }) {
            guard let column = table.column(name) else { throw StoreError.unknownColumn(table: table.name, column: name) }
            assignments.append("\(quoteIdentifier(column.name)) = ?")
            values.append(value)
        }
        guard !assignments.isEmpty else { return }
        let changed = try connection.run(
            "UPDATE \(quoteIdentifier(table.name)) SET \(assignments.joined(separator: ", ")) WHERE \(quoteIdentifier(table.primaryKey)) = ?",
            values + [.integer(fid)])
        guard changed == 1 else { throw StoreError.unknownFeature(table: table.name, fid: fid) }
    }

    /// Deletes feature `fid` of `table`.
    ///
    /// - Throws: `StoreError.unknownFeature` when there is no such row.
    public func deleteFeature(_ table: FeatureTable, fid: Int64) throws {
        let changed = try connection.run("DELETE FROM \(quoteIdentifier(table.name)) WHERE \(quoteIdentifier(table.primaryKey)) = ?", [.integer(fid)])
        guard changed == 1 else { throw StoreError.unknownFeature(table: table.name, fid: fid) }
    }
}
