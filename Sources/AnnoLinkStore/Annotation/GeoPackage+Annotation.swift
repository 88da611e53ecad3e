import Foundation

extension GeoPackage {
    /// Whether the file has the annotation class registry.
    public var hasAnnotationRegistry: Bool {
        get throws {
            try connection.hasTable(AnnotationSchema.registryTable)
        }
    }

    /// Creates the annotation class registry table and registers it, as annolink's extension,
    /// in `gpkg_extensions`. Does nothing when it exists.
    public func createAnnotationRegistry() throws {
        guard try !hasAnnotationRegistry else { return }
        try connection.write {
            try connection.execute(AnnotationSchema.registry)
            try connection.run("""
                INSERT INTO gpkg_extensions (table_name, column_name, extension_name, definition, scope)
                VALUES (?, NULL, ?, ?, 'write-only')
                """, [.text(AnnotationSchema.registryTable), .text(AnnotationSchema.extensionName), .text(AnnotationSchema.extensionDefinition)])
        }
    }

    /// Creates an annotation table (a polygon feature table with the columns of docs/format.md, an index on
    /// `FeatureID`, and the R-tree) and registers it under annolink's extension.
    @discardableResult
    public func createAnnotationTable(name: String, srsID: Int64, description: String = "", spatialIndex: Bool = true) throws -> FeatureTable {
        try connection.write {
            try createAnnotationRegistry()
            let table = try createFeatureTable(FeatureTableDefinition(
                name: name, geometryTypeName: "POLYGON", srsID: srsID, columns: AnnotationSchema.columns,
                description: description.isEmpty ? "feature-linked annotation" : description), spatialIndex: spatialIndex)
            try registerAnnotationTable(name)
            return table
        }
    }

    /// Makes the feature table `name`, which has the annotation columns already, an annotation
    /// table: the registry (when missing), the index on `(FeatureID, AnnotationClassID)` and the
    /// table's row under annolink's extension. For a table copied with its columns as they
    /// were (`annolink copy`); `createAnnotationTable` does this for a new one.
    public func registerAnnotationTable(_ name: String) throws {
        try connection.write {
            try createAnnotationRegistry()
            try connection.execute("CREATE INDEX \(quoteIdentifier("\(name)_FeatureID")) ON \(quoteIdentifier(name)) (FeatureID, AnnotationClassID)")
            try connection.run("""
                INSERT INTO gpkg_extensions (table_name, column_name, extension_name, definition, scope)
                VALUES (?, NULL, ?, ?, 'write-only')
                """, [.text(name), .text(AnnotationSchema.extensionName), .text(AnnotationSchema.extensionDefinition)])
        }
    }

    /// The names of the tables registered as annotation tables: the feature tables registered
    /// under annolink's extension (the registry and the journal's tables are registered under
    /// it too, but are not feature tables).
    public func annotationTableNames() throws -> [String] {
        try connection.rows("""
            SELECT e.table_name FROM gpkg_extensions e JOIN gpkg_contents c ON c.table_name = e.table_name
            WHERE e.extension_name = ? AND c.data_type = 'features' ORDER BY e.rowid
            """, [.text(AnnotationSchema.extensionName)]).compactMap { $0[0].textValue }
    }

    /// Adds or replaces a class in the registry, and (re)writes the annotation table's QGIS
    /// style (`writeLayerStyles(tables:)`).
    ///
    /// - Throws: `StoreError.unknownTable` when the annotation or origin table does not exist,
    ///   `.invalidWhereClause` when the where clause is not one read-only condition on the
    ///   origin table (`Connection.condition(_:on:)`).
    public func saveAnnotationClass(_ c: AnnotationClass) throws {
        try connection.write {
            try createAnnotationRegistry()
            _ = try featureTable(c.annotationTable)
            let origin = try featureTable(c.originTable)
            if let clause = c.selectingClause {
                do {
                    _ = try connection.condition(clause, on: origin.name)
                } catch let refusal as SQLCondition.Refusal {
                    throw StoreError.invalidWhereClause(clause, reason: refusal.description)
                }
            }
            try connection.run("""
                INSERT OR REPLACE INTO annolink_annotation_classes
                (annotation_table, class_id, name, origin_table, where_clause, expression, font_name, font_size,
                 horizontal_alignment, vertical_alignment, reference_scale, placement, placement_offset,
                 placement_parameters, auto_create, update_on_shape_change)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [
                    .text(c.annotationTable), .integer(c.classID), .text(c.name), .text(c.originTable), SQLValue(c.whereClause),
                    .text(c.expression), .text(c.fontName), .real(c.fontSize), SQLValue(c.horizontalAlignment),
                    SQLValue(c.verticalAlignment), .real(c.referenceScale), .text(c.placement.rawValue), .real(c.placementOffset),
                    SQLValue(c.placementParameters), .integer(c.autoCreate ? 1 : 0), .integer(c.updateOnShapeChange ? 1 : 0),
                ])
            // QGIS shows the table's annotation as text by the class's font and reference scale.
            try writeLayerStyles(tables: [c.annotationTable])
        }
    }

    /// Every registered annotation class, ordered by annotation table and class id. Empty when
    /// the file has no registry.
    ///
    /// - Throws: `StoreError.invalidData` when a row of the registry cannot be read.
    public func annotationClasses() throws -> [AnnotationClass] {
        guard try hasAnnotationRegistry else { return [] }
        return try connection.rows("""
            SELECT annotation_table, class_id, name, origin_table, where_clause, expression, font_name, font_size,
                   horizontal_alignment, vertical_alignment, reference_scale, placement, placement_offset,
                   placement_parameters, auto_create, update_on_shape_change
            FROM annolink_annotation_classes ORDER BY annotation_table, class_id
            """).map { row in
            guard let table = row[0].textValue, let classID = row[1].integerValue, let origin = row[3].textValue,
                  let placement = row[11].textValue.flatMap(PlacementStyle.init(rawValue:)) else {
                throw StoreError.invalidData("a row of annolink_annotation_classes cannot be read")
            }
            return AnnotationClass(
                annotationTable: table, classID: classID, name: row[2].textValue ?? "", originTable: origin,
                whereClause: row[4].textValue, expression: row[5].textValue ?? "", fontName: row[6].textValue ?? "",
                fontSize: row[7].doubleValue ?? 0, horizontalAlignment: Int(row[8].integerValue ?? 1),
                verticalAlignment: Int(row[9].integerValue ?? 2), referenceScale: row[10].doubleValue ?? 0,
                placement: placement, placementOffset: row[12].doubleValue ?? 0, placementParameters: row[13].textValue,
                autoCreate: row[14].integerValue == 1, updateOnShapeChange: row[15].integerValue == 1)
        }
    }
}
