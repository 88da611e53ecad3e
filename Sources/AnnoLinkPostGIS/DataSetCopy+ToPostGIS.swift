import AnnoLinkGeometry
import AnnoLinkStore

/// Copies of a whole data set between a GeoPackage and a PostGIS database (`annolink copy`):
/// feature and annotation tables with every row, the CRS rows, the annotation class registry and
/// the QGIS layer styles. Rows stream (binary COPY on the PostgreSQL side, one prepared
/// statement on the SQLite side), and the destination is written in one transaction — a
/// PostgreSQL transaction, or a new file renamed into place — so that an error leaves nothing
/// half-written. The edit journal is not copied: it records edits of the source store.
public enum DataSetCopy {
    /// Rows between progress reports.
    static let progressInterval = 5_000

    // MARK: GeoPackage → PostGIS

    /// Copies the data set in `package` into the database `connection` is open on (layout in
    /// docs/postgis.md), in one transaction, reading the GeoPackage as one snapshot.
    ///
    /// Tables keep their names, columns, fids and the fid sequence; geometries go as EWKB in
    /// their CRS's SRID (`PostGISLayout.srid(for:on:)`); spatial indexes and extents are
    /// rebuilt; `gpkg_contents`' identifiers, descriptions and `last_change` are kept.
    ///
    /// - Throws: `CopyError.tablesExist` when a table of the data set is in the database already
    ///   and `overwrite` is false (with it, those tables and their classes and styles are
    ///   dropped first, in the same transaction); `CopyError.unconvertibleValue` for a value
    ///   its column's PostgreSQL type cannot hold; `PostgreSQLError`, `StoreError`.
    @discardableResult
    public static func copy(
        from package: GeoPackage, to connection: PostgreSQLConnection, overwrite: Bool = false,
        progress: (CopyProgress) -> Void = { _ in }
    ) throws -> CopySummary {
        try package.connection.read {
            try connection.inTransaction {
                try copyInTransaction(from: package, to: connection, overwrite: overwrite, progress: progress)
            }
        }
    }

    private static func copyInTransaction(
        from package: GeoPackage, to connection: PostgreSQLConnection, overwrite: Bool, progress: (CopyProgress) -> Void
    ) throws -> CopySummary {
        var summary = CopySummary()
        let tables = try package.featureTableNames().map { try package.featureTable($0) }
        let annotationTables = Set(try package.annotationTableNames())
        for table in tables where table.hasZ || table.hasM {
            throw CopyError.unsupported("table '\(table.name)' has Z or M coordinates, which annolink does not store")
        }
        // PostgreSQL cuts longer names to 63 bytes without a word, so two could become one.
        for table in tables {
            for name in [table.name] + table.columns.map(\.name) where name.utf8.count > PostGISLayout.maximumIdentifierLength {
                throw CopyError.unsupported(
                    "'\(name)' (in table '\(table.name)') is longer than PostgreSQL's \(PostGISLayout.maximumIdentifierLength)-byte names; rename it first")
            }
        }
        let contents = try package.connection.rows("""
            SELECT table_name, data_type, identifier, description, last_change FROM gpkg_contents ORDER BY rowid
            """)
        let contentsByTable = Dictionary(contents.map { ($0[0].textValue ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        let hasStyles = try package.hasLayerStyles
        for row in contents where row[1].textValue != "features" {
            let name = row[0].textValue ?? ""
            if name == GeoPackage.layerStylesTable && hasStyles { continue }
            summary.notCopied.append("\(name): a \(row[1].textValue ?? "non-feature") table (only feature tables, annotation and styles are copied)")
        }
        if try package.connection.hasTable("annolink_journal") {
            summary.notCopied.append("the edit journal: it records edits of the GeoPackage; the copy starts with none")
        }

        try PostGISLayout.install(on: connection)

        // Tables there already: refused, or dropped with everything registered for them.
        var existing: [String] = []
        for table in tables {
            let inSchema = try connection.scalar("SELECT to_regclass($1) IS NOT NULL", [.text(PostGISLayout.qualified(table.name))])?.boolValue ?? false
            let registered = try connection.scalar("SELECT count(*) FROM annolink.contents WHERE table_name = $1", [.text(table.name)])?.integerValue ?? 0
            if inSchema || registered > 0 { existing.append(table.name) }
        }
        if !existing.isEmpty {
            guard overwrite else { throw CopyError.tablesExist(existing) }
            for name in existing { try dropTable(name, on: connection) }
        }

        // CRS: every row of the GeoPackage's table, each mapped to a PostGIS SRID.
        var srids: [Int64: Int32] = [:]
        for id in try package.connection.rows("SELECT srs_id FROM gpkg_spatial_ref_sys ORDER BY srs_id").compactMap({ $0[0].integerValue }) {
            guard let system = try package.spatialReferenceSystem(id) else { continue }
            srids[id] = try PostGISLayout.register(system, on: connection)
            summary.spatialReferenceSystems += 1
        }

        let sequences = try package.connection.hasTable("sqlite_sequence")
            ? Dictionary(
                try package.connection.rows("SELECT name, seq FROM sqlite_sequence").map { ($0[0].textValue ?? "", $0[1].integerValue ?? 0) },
                uniquingKeysWith: max)
            : [:]
        let firstPosition = Int(try connection.scalar("SELECT coalesce(max(position) + 1, 0) FROM annolink.contents")?.integerValue ?? 0)
        for (index, table) in tables.enumerated() {
            guard let srid = srids[table.srsID] else { throw StoreError.unknownSpatialReference(srsID: table.srsID) }
            let row = contentsByTable[table.name]
            try PostGISLayout.createFeatureTable(
                table, srid: srid, description: row?[3].textValue ?? "", identifier: row?[2].textValue, position: firstPosition + index,
                spatialIndex: false, on: connection)
            let count = try copyRows(of: table, from: package, srid: srid, to: connection, progress: progress)
            try PostGISLayout.createSpatialIndex(table: table.name, column: table.geometryColumn, on: connection)
            if annotationTables.contains(table.name) { try PostGISLayout.registerAnnotationTable(table.name, on: connection) }
            try PostGISLayout.refreshContents(table: table.name, geometryColumn: table.geometryColumn, on: connection)
            // The copy is not a change of the data: the GeoPackage's last_change stays.
            if let lastChange = row?[4].textValue {
                try connection.query("UPDATE annolink.contents SET last_change = $1 WHERE table_name = $2", [.text(lastChange), .text(table.name)])
            }
            // The fid sequence continues where the GeoPackage's AUTOINCREMENT would have: fids
            // of deleted rows are not handed out again.
            try connection.query("""
                SELECT setval(pg_get_serial_sequence($1, $2), greatest((SELECT coalesce(max(\(quoteIdentifier(table.primaryKey))), 0) FROM \
                \(PostGISLayout.qualified(table.name))), $3) + 1, false)
                """, [.text(PostGISLayout.qualified(table.name)), .text(table.primaryKey), .int8(sequences[table.name] ?? 0)])
            try connection.execute("ANALYZE \(PostGISLayout.qualified(table.name))")
            summary.tables.append(CopySummary.Table(
                name: table.name, geometryTypeName: table.geometryTypeName, srsID: table.srsID, rows: count,
                isAnnotation: annotationTables.contains(table.name)))
        }

        let copied = Set(tables.map(\.name))
        for c in try package.annotationClasses() where copied.contains(c.annotationTable) {
            try PostGISLayout.insertAnnotationClass(c, on: connection)
            summary.annotationClasses += 1
        }
        if hasStyles {
            summary.layerStyles = try copyStyles(from: package, contents: contentsByTable[GeoPackage.layerStylesTable], to: connection)
        }
        // Outside edits of the linked tables are recorded from the start, as in a GeoPackage
        // annolink makes (docs/follow.md).
        let linked = try package.linkedTableNames().filter(copied.contains).map { try package.featureTable($0) }
        if !linked.isEmpty { try PostGISStore.startCapture(of: linked, connection: connection) }
        return summary
    }

    /// Drops the data table `name` and everything annolink registered for it.
    static func dropTable(_ name: String, on connection: PostgreSQLConnection) throws {
        try connection.execute("DROP TABLE IF EXISTS \(PostGISLayout.qualified(name)) CASCADE")
        try connection.query("DELETE FROM annolink.contents WHERE table_name = $1", [.text(name)])
        try connection.query("DELETE FROM annolink.annotation_classes WHERE annotation_table = $1", [.text(name)])
        try PostGISLayout.unpublishStylesForQGIS(table: name, on: connection)
        try connection.query("DELETE FROM annolink.layer_styles WHERE f_table_name = $1", [.text(name)])
        try PostGISStore.stopCapture(of: [(name, nil)], connection: connection)
    }

    /// Streams the rows of `table` into its PostGIS table with binary COPY. Returns the count.
    private static func copyRows(
        of table: FeatureTable, from package: GeoPackage, srid: Int32, to connection: PostgreSQLConnection,
        progress: (CopyProgress) -> Void
    ) throws -> Int {
        let names = table.columns.map { quoteIdentifier($0.name) }.joined(separator: ", ")
        let total = Int(try package.connection.scalarInt("SELECT count(*) FROM \(quoteIdentifier(table.name))") ?? 0)
        let statement = try package.connection.prepareUncached(
            "SELECT \(names) FROM \(quoteIdentifier(table.name)) ORDER BY \(quoteIdentifier(table.primaryKey))")
        let pkIndex = table.columns.firstIndex { $0.name == table.primaryKey } ?? 0
        let geometryIndex = table.columns.firstIndex { $0.name.lowercased() == table.geometryColumn.lowercased() }
        // Parsed once per table: reading a declared type is string work, too slow per value.
        let affinities = table.columns.map(\.affinity)
        var done = 0
        progress(CopyProgress(table: table.name, rows: 0, totalRows: total))
        try connection.copyIn("COPY \(PostGISLayout.qualified(table.name)) (\(names)) FROM STDIN (FORMAT binary)") { copy in
            while try statement.step() {
                let fid = statement.int64(pkIndex)
                var values: [PostgreSQLValue] = []
                values.reserveCapacity(table.columns.count)
                for (index, column) in table.columns.enumerated() {
                    let value = statement.value(index)
                    if index == geometryIndex {
                        values.append(try geometryValue(value, srid: srid, table: table.name, fid: fid))
                    } else if index == pkIndex {
                        values.append(.int8(fid))
                    } else {
                        values.append(try postgreSQLValue(value, for: column, affinity: affinities[index], table: table.name, fid: fid))
                    }
                }
                try copy.write(values)
                done += 1
                if done % progressInterval == 0 { progress(CopyProgress(table: table.name, rows: done, totalRows: total)) }
            }
        }
        progress(CopyProgress(table: table.name, rows: done, totalRows: total))
        return done
    }

    /// A GeoPackage geometry blob as EWKB in `srid`.
    static func geometryValue(_ value: SQLValue, srid: Int32, table: String, fid: Int64) throws -> PostgreSQLValue {
        switch value {
        case .null: return .null
        case .blob(let blob):
            do {
                let geometry = try GeoPackageGeometry(blob: blob)
                return .binary(oid: 0, bytes: EWKB.encode(geometry.geometry, srid: srid))
            } catch {
                throw StoreError.corruptGeometry(table: table, fid: fid, reason: "\(error)")
            }
        default:
            throw CopyError.unconvertibleValue(table: table, fid: fid, column: "geometry", reason: "a \(value.typeName) where a geometry blob belongs")
        }
    }

    /// A SQLite value as the PostgreSQL type `PostGISLayout.postgreSQLType(for:)` gives its
    /// column. SQLite keeps any value in any column; what the PostgreSQL type cannot hold
    /// (text in an INTEGER column, a real with a fraction in it) is refused, naming the row.
    static func postgreSQLValue(
        _ value: SQLValue, for column: Column, affinity: ColumnAffinity, table: String, fid: Int64
    ) throws -> PostgreSQLValue {
        if value.isNull { return .null }
        func refuse() -> CopyError {
            let shown: String
            switch value {
            case .text(let s): shown = "'\(s.prefix(40))'"
            case .blob(let b): shown = "a \(b.count)-byte blob"
            default: shown = "\(value)"
            }
            return CopyError.unconvertibleValue(
                table: table, fid: fid, column: column.name,
                reason: "\(shown) cannot be stored in a \(column.type) column (PostgreSQL \(PostGISLayout.postgreSQLType(for: column)))")
        }
        switch affinity {
        case .boolean:
            guard let i = value.integerValue, i == 0 || i == 1 else { throw refuse() }
            return .bool(i == 1)
        case .integer:
            guard case .integer(let i) = value else { throw refuse() }
            return .int8(i)
        case .real:
            guard let d = value.doubleValue else { throw refuse() }
            return .float8(d)
        case .text, .date, .dateTime:
            guard case .text(let s) = value else { throw refuse() }
            return .text(s)
        case .blob, .geometry:
            guard case .blob(let b) = value else { throw refuse() }
            return .bytea(b)
        }
    }

    /// Copies the `layer_styles` rows (ids kept where free) and its `gpkg_contents` row.
    private static func copyStyles(from package: GeoPackage, contents: [SQLValue]?, to connection: PostgreSQLConnection) throws -> Int {
        let rows = try package.connection.rows("""
            SELECT id, f_table_catalog, f_table_schema, f_table_name, f_geometry_column, styleName, styleQML, styleSLD, useAsDefault,
                   description, owner, ui, update_time FROM layer_styles ORDER BY id
            """)
        for row in rows {
            func text(_ i: Int) -> PostgreSQLValue { row[i].isNull ? .null : .text(row[i].textValue ?? "\(row[i])") }
            let free = try connection.scalar(
                "SELECT count(*) = 0 FROM annolink.layer_styles WHERE id = $1", [.int8(row[0].integerValue ?? 0)])?.boolValue ?? false
            let values: [PostgreSQLValue] = [
                text(1), text(2), text(3), text(4), text(5), text(6), text(7),
                row[8].isNull ? .null : .bool((row[8].integerValue ?? 0) != 0), text(9), text(10), text(11), text(12),
            ]
            if free {
                try connection.query("""
                    INSERT INTO annolink.layer_styles (id, f_table_catalog, f_table_schema, f_table_name, f_geometry_column, "styleName",
                      "styleQML", "styleSLD", "useAsDefault", description, owner, ui, update_time)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
                    """, [.int8(row[0].integerValue ?? 0)] + values)
            } else {
                try connection.query("""
                    INSERT INTO annolink.layer_styles (f_table_catalog, f_table_schema, f_table_name, f_geometry_column, "styleName",
                      "styleQML", "styleSLD", "useAsDefault", description, owner, ui, update_time)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
                    """, values)
            }
        }
        try connection.execute("""
            SELECT setval(pg_get_serial_sequence('annolink.layer_styles', 'id'), (SELECT coalesce(max(id), 0) + 1 FROM annolink.layer_styles), false)
            """)
        for table in Set(rows.compactMap { $0[3].textValue }).sorted() { try PostGISLayout.publishStylesForQGIS(table: table, on: connection) }
        if let contents {
            try connection.query("""
                INSERT INTO annolink.contents (table_name, data_type, identifier, description, last_change, position)
                VALUES ($1, 'attributes', $2, $3, $4, -1)
                ON CONFLICT (table_name) DO NOTHING
                """, [.text(GeoPackage.layerStylesTable), PostgreSQLValue(contents[2].textValue), PostgreSQLValue(contents[3].textValue),
                      .text(contents[4].textValue ?? ""),
                ])
        }
        return rows.count
    }
}
