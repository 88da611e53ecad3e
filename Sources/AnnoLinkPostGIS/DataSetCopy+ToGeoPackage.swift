import AnnoLinkGeometry
import AnnoLinkStore
import Foundation

extension DataSetCopy {
    // MARK: PostGIS → GeoPackage

    /// Copies the data set in the database `connection` is open on (every table of
    /// `annolink.contents`) into a new GeoPackage at `path`, reading the database as one
    /// snapshot (a read-only repeatable-read transaction).
    ///
    /// The file is written under a temporary name beside `path` and renamed into place only
    /// when everything is in it (`NewFile`), so an error or interruption leaves no file (and,
    /// with `overwrite`, the old file as it was). Tables get the columns with their GeoPackage declared types, fids and
    /// AUTOINCREMENT sequence back; R-trees and extents are rebuilt; `gpkg_contents`'
    /// identifiers, descriptions and `last_change` are the ones the data set had.
    ///
    /// - Throws: `CopyError.destinationExists` when `path` exists and `overwrite` is false;
    ///   `CopyError.notADataSet` when the database has no annolink layout or no tables;
    ///   `PostgreSQLError`, `StoreError`, `GeometryCodecError` for what cannot be read.
    @discardableResult
    public static func copy(
        from connection: PostgreSQLConnection, toGeoPackageAt path: String, overwrite: Bool = false,
        progress: (CopyProgress) -> Void = { _ in }
    ) throws -> CopySummary {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard !isDirectory.boolValue else { throw StoreError.cannotCreate(path: path, reason: "it is a folder") }
            guard overwrite else { throw CopyError.destinationExists(path) }
        }
        guard try PostGISLayout.isInstalled(on: connection) else {
            throw CopyError.notADataSet("the database has no annolink data set (no annolink schema): copy a GeoPackage into it first")
        }
        let summary = try NewFile.write(path, replacing: overwrite) { temporary in
            try connection.inTransaction(isolation: .repeatableRead) {
                try connection.execute("SET TRANSACTION READ ONLY")
                return try writeGeoPackage(at: temporary, from: connection, progress: progress)
            }
        }
        // Written out of WAL for the move (as `GeoPackage.build`); WAL again under its name.
        _ = try Connection(path: path, mode: .readWrite, journalMode: "WAL")
        return summary
    }

    /// Reads the layout's registry and writes the new GeoPackage at `path`; the package is
    /// closed when this returns.
    private static func writeGeoPackage(at path: String, from connection: PostgreSQLConnection, progress: (CopyProgress) -> Void) throws -> CopySummary {
        var summary = CopySummary()
        let tables = try connection.query("""
            SELECT c.table_name, c.identifier, c.description, c.last_change, g.column_name, g.geometry_type_name, g.srs_id, g.z, g.m
            FROM annolink.contents c JOIN annolink.geometry_columns g ON g.table_name = c.table_name
            WHERE c.data_type = 'features' ORDER BY c.position, c.table_name
            """).rows
        guard !tables.isEmpty else {
            throw CopyError.notADataSet("the database's annolink schema lists no feature tables (annolink.contents is empty)")
        }
        let annotationTables = Set(try connection.query("SELECT table_name FROM annolink.annotation_tables").rows.compactMap { $0[0].textValue })
        for row in try connection.query("""
            SELECT f_table_name::text FROM public.geometry_columns WHERE f_table_schema = $1
              AND f_table_name::text NOT IN (SELECT table_name FROM annolink.contents) ORDER BY 1
            """, [.text(PostGISLayout.dataSchema)]).rows {
            summary.notCopied.append("\(row[0].textValue ?? ""): a PostGIS table that is not part of the annolink data set (not in annolink.contents)")
        }

        let package = try GeoPackage.create(path: path)
        try package.connection.write {
            for row in try connection.query("""
                SELECT srs_id, srs_name, organization, organization_coordsys_id, definition, description FROM annolink.spatial_ref_sys ORDER BY srs_id
                """).rows {
                let system = SpatialReferenceSystem(
                    srsID: row[0].integerValue ?? 0, name: row[1].textValue ?? "", organization: row[2].textValue ?? "",
                    organizationCoordsysID: row[3].integerValue ?? 0, definition: row[4].textValue ?? "", description: row[5].textValue)
                try package.connection.run("""
                    INSERT OR REPLACE INTO gpkg_spatial_ref_sys (srs_name, srs_id, organization, organization_coordsys_id, definition, description)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """, [.text(system.name), .integer(system.srsID), .text(system.organization), .integer(system.organizationCoordsysID),
                          .text(system.definition), SQLValue(system.description),
                    ])
                summary.spatialReferenceSystems += 1
            }
            for row in tables {
                let name = row[0].textValue ?? ""
                guard row[7].integerValue == 0, row[8].integerValue == 0 else {
                    throw CopyError.unsupported("table '\(name)' has Z or M coordinates, which annolink does not store")
                }
                let geometryColumn = row[4].textValue ?? "geom", typeName = row[5].textValue ?? "GEOMETRY", srsID = row[6].integerValue ?? 0
                let (columns, selectList) = try tableColumns(name, on: connection)
                guard let primaryKey = columns.first(where: \.isPrimaryKey) else {
                    throw CopyError.notADataSet("annolink.columns has no primary key for table '\(name)'")
                }
                let attributes = columns.filter { !$0.isPrimaryKey && $0.name != geometryColumn }
                let table = try package.createFeatureTable(FeatureTableDefinition(
                    name: name, geometryColumn: geometryColumn, geometryTypeName: typeName, srsID: srsID, columns: attributes,
                    description: row[2].textValue ?? ""), spatialIndex: false)
                let count = try copyRows(
                    of: table, sourceColumns: columns.map(\.name), selectList: selectList, primaryKey: primaryKey.name, from: connection,
                                         into: package, progress: progress)
                if annotationTables.contains(name) { try package.registerAnnotationTable(name) }
                try package.createSpatialIndex(table: name, column: geometryColumn)
                try package.refreshContents(of: try package.featureTable(name))
                try package.connection.run("UPDATE gpkg_contents SET identifier = ?, last_change = ? WHERE table_name = ?",
                                           [SQLValue(row[1].textValue), .text(row[3].textValue ?? ""), .text(name)])
                // The fid sequence: where the PostGIS identity would go on.
                let next = try connection.scalar("""
                    SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END FROM \(pgSequence(of: name, column: primaryKey.name, on: connection))
                    """)?.integerValue ?? 0
                try package.connection.run("UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?", [.integer(next), .text(name)])
                if try package.connection.scalarInt("SELECT count(*) FROM sqlite_sequence WHERE name = ?", [.text(name)]) == 0, next > 0 {
                    try package.connection.run("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", [.text(name), .integer(next)])
                }
                summary.tables.append(CopySummary.Table(name: name, geometryTypeName: typeName, srsID: srsID, rows: count,
                                                        isAnnotation: annotationTables.contains(name)))
            }
            let copied = Set(summary.tables.map(\.name))
            let classes = try connection.query("""
                SELECT annotation_table, class_id, name, origin_table, where_clause, expression, font_name, font_size, horizontal_alignment,
                       vertical_alignment, reference_scale, placement, placement_offset, placement_parameters, auto_create, update_on_shape_change
                FROM annolink.annotation_classes ORDER BY annotation_table, class_id
                """).rows.filter { copied.contains($0[0].textValue ?? "") }
            if !classes.isEmpty || !annotationTables.isEmpty { try package.createAnnotationRegistry() }
            for c in classes {
                try package.connection.run("""
                    INSERT INTO annolink_annotation_classes (annotation_table, class_id, name, origin_table, where_clause, expression, font_name,
                      font_size, horizontal_alignment, vertical_alignment, reference_scale, placement, placement_offset, placement_parameters,
                      auto_create, update_on_shape_change)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, c.map(PostGISStore.sqlValue))
                summary.annotationClasses += 1
            }
            summary.layerStyles = try copyStyles(from: connection, into: package, tables: copied)
        }
        // Edits QGIS or GDAL make in the copy are followed (docs/follow.md).
        try package.captureOutsideEditsOfLinkedTables()
        // Out of WAL for the move: the checkpoint puts every page in the file itself.
        try package.connection.execute("PRAGMA journal_mode = DELETE")
        return summary
    }

    /// The columns of the PostGIS table `name` as the GeoPackage declares them, and the select
    /// expression of each: the columns `annolink.columns` registers that the table still has,
    /// in their order, then any added to the table by other means since (by SQL, by another
    /// program), with a GeoPackage type derived from the PostgreSQL one — integers `INTEGER`,
    /// floating point and numeric `DOUBLE` (numeric read as float8), `BOOLEAN`, `BLOB` for
    /// bytea, and `TEXT` for every other type, read as its text form — so that nothing in the
    /// table is left behind.
    ///
    /// - Throws: `CopyError.notADataSet` when the table is missing.
    private static func tableColumns(_ name: String, on connection: PostgreSQLConnection) throws -> ([Column], [String]) {
        let actual = try connection.query("""
            SELECT a.attname::text, format_type(a.atttypid, a.atttypmod), a.attnotnull FROM pg_attribute a
            WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum
            """, [.text(PostGISLayout.qualified(name))]).rows
        guard !actual.isEmpty else {
            throw CopyError.notADataSet("annolink.contents lists table '\(name)', but the database has no table \(PostGISLayout.qualified(name))")
        }
        let present = Set(actual.compactMap { $0[0].textValue })
        var columns = try connection.query("""
            SELECT column_name, declared_type, not_null, default_sql, primary_key FROM annolink.columns WHERE table_name = $1 ORDER BY position
            """, [.text(name)]).rows.map {
            Column(name: $0[0].textValue ?? "", type: $0[1].textValue ?? "", isNotNull: $0[2].boolValue ?? false,
                   defaultSQL: $0[3].textValue, isPrimaryKey: $0[4].boolValue ?? false)
        }.filter { present.contains($0.name) }
        var selectList = columns.map { quoteIdentifier($0.name) }
        let registered = Set(columns.map(\.name))
        for row in actual {
            guard let column = row[0].textValue, !registered.contains(column), let type = row[1].textValue else { continue }
            let declared: String, expression: String
            switch type.split(separator: "(").first.map(String.init) ?? type {
            case "bigint", "integer", "smallint": (declared, expression) = ("INTEGER", quoteIdentifier(column))
            case "double precision", "real": (declared, expression) = ("DOUBLE", quoteIdentifier(column))
            case "numeric": (declared, expression) = ("DOUBLE", quoteIdentifier(column) + "::float8")
            case "boolean": (declared, expression) = ("BOOLEAN", quoteIdentifier(column))
            case "bytea": (declared, expression) = ("BLOB", quoteIdentifier(column))
            default: (declared, expression) = ("TEXT", quoteIdentifier(column) + "::text")
            }
            columns.append(Column(name: column, type: declared, isNotNull: row[2].boolValue ?? false))
            selectList.append(expression)
        }
        return (columns, selectList)
    }

    /// The quoted name of the identity sequence of `table`.`column`.
    private static func pgSequence(of table: String, column: String, on connection: PostgreSQLConnection) throws -> String {
        guard let name = try connection.scalar("SELECT pg_get_serial_sequence($1, $2)", [.text(PostGISLayout.qualified(table)), .text(column)])?
            .textValue else {
            throw CopyError.notADataSet("table '\(table)' has no identity sequence on '\(column)'")
        }
        return name
    }

    /// Streams the rows of the PostGIS table into the new GeoPackage table with one prepared
    /// INSERT. Returns the count.
    private static func copyRows(
        of table: FeatureTable, sourceColumns: [String], selectList: [String], primaryKey: String, from connection: PostgreSQLConnection,
        into package: GeoPackage,
        progress: (CopyProgress) -> Void
    ) throws -> Int {
        // The source's primary key goes into the new table's (always `fid`); the rest by name.
        let targetColumns = sourceColumns.map { $0 == primaryKey ? table.primaryKey : $0 }
        let insert = try package.connection.prepareUncached("""
            INSERT INTO \(quoteIdentifier(table.name)) (\(targetColumns.map(quoteIdentifier).joined(separator: ", "))) \
            VALUES (\(Array(repeating: "?", count: targetColumns.count).joined(separator: ", ")))
            """)
        let geometryIndex = sourceColumns.firstIndex { $0.lowercased() == table.geometryColumn.lowercased() }
        let pkIndex = sourceColumns.firstIndex(of: primaryKey) ?? 0
        let total = Int(try connection.scalar("SELECT count(*) FROM \(PostGISLayout.qualified(table.name))")?.integerValue ?? 0)
        var done = 0
        progress(CopyProgress(table: table.name, rows: 0, totalRows: total))
        let query = "SELECT \(selectList.joined(separator: ", ")) FROM \(PostGISLayout.qualified(table.name)) " +
            "ORDER BY \(quoteIdentifier(primaryKey))"
        try connection.copyOut(query: query) { values in
            insert.reset()
            for (index, value) in values.enumerated() {
                let converted: SQLValue
                if index == geometryIndex, let bytes = value.bytesValue {
                    let fid = values[pkIndex].integerValue ?? 0
                    do {
                        let (geometry, _) = try EWKB.decode(bytes)
                        converted = .blob(GeoPackageGeometry.encode(geometry, srsID: Int32(truncatingIfNeeded: table.srsID)))
                    } catch {
                        throw StoreError.corruptGeometry(table: table.name, fid: fid, reason: "\(error)")
                    }
                } else {
                    converted = PostGISStore.sqlValue(value)
                }
                try insert.bind(converted, at: index + 1)
            }
            while try insert.step() {}
            done += 1
            if done % progressInterval == 0 { progress(CopyProgress(table: table.name, rows: done, totalRows: total)) }
        }
        progress(CopyProgress(table: table.name, rows: done, totalRows: total))
        return done
    }

    /// Copies `annolink.layer_styles` rows of the copied tables into `layer_styles`, ids kept,
    /// with the table's `gpkg_contents` row as the data set had it.
    private static func copyStyles(from connection: PostgreSQLConnection, into package: GeoPackage, tables: Set<String>) throws -> Int {
        let rows = try connection.query("""
            SELECT id, f_table_catalog, f_table_schema, f_table_name, f_geometry_column, "styleName", "styleQML", "styleSLD", "useAsDefault",
                   description, owner, ui, update_time FROM annolink.layer_styles ORDER BY id
            """).rows.filter { tables.contains($0[3].textValue ?? "") }
        guard !rows.isEmpty else { return 0 }
        try package.createLayerStylesTable()
        for row in rows {
            try package.connection.run("""
                INSERT INTO layer_styles (id, f_table_catalog, f_table_schema, f_table_name, f_geometry_column, styleName, styleQML, styleSLD,
                  useAsDefault, description, owner, ui, update_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, row.map(PostGISStore.sqlValue))
        }
        if let contents = try connection.query("""
            SELECT identifier, description, last_change FROM annolink.contents WHERE table_name = $1
            """, [.text(GeoPackage.layerStylesTable)]).rows.first {
            try package.connection.run("UPDATE gpkg_contents SET identifier = ?, description = ?, last_change = ? WHERE table_name = ?",
                                       contents.map(PostGISStore.sqlValue) + [.text(GeoPackage.layerStylesTable)])
        }
        return rows.count
    }
}
