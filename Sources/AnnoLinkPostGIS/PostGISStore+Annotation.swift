import AnnoLinkGeometry
import AnnoLinkStore

/// Registering annotation on PostGIS (`annotate`'s first form): the class registry
/// (`annolink.annotation_classes`), new annotation tables (`annolink.contents`,
/// `annolink.geometry_columns`, `annolink.columns`, `annolink.annotation_tables`, as `annolink
/// copy` lays a copied one out) and the QGIS style (`annolink.layer_styles`, the rows a copy to
/// a GeoPackage puts into its `layer_styles`).
extension PostGISStore {
    /// - Throws: `StoreError.unknownTable`, `.invalidWhereClause` (checked by the same rules as
    ///   on a GeoPackage, `SQLCondition.checked`); `PostgreSQLError`.
    public func saveAnnotationClass(_ c: AnnotationClass) throws {
        let table = try featureTable(c.annotationTable)
        let origin = try featureTable(c.originTable)
        if let clause = c.selectingClause {
            do {
                _ = try checkedCondition(clause, on: origin.name)
            } catch let refusal as SQLCondition.Refusal {
                throw StoreError.invalidWhereClause(clause, reason: refusal.description)
            }
        }
        try connection.inTransaction {
            try connection.query("DELETE FROM annolink.annotation_classes WHERE annotation_table = $1 AND class_id = $2",
                                 [.text(c.annotationTable), .int8(c.classID)])
            try PostGISLayout.insertAnnotationClass(c, on: connection)
            try writeLayerStyle(of: table)
        }
    }

    /// Writes annolink's QGIS style of `table` as its default style, as a GeoPackage's
    /// `writeLayerStyles(tables:)` does: text labels from the stored columns for an annotation
    /// table with classes, a plain symbol otherwise; annolink's earlier style replaced, others'
    /// kept but no longer the default.
    func writeLayerStyle(of table: FeatureTable) throws {
        let classes = try annotationClasses().filter { $0.annotationTable.lowercased() == table.name.lowercased() }
        let qml = classes.isEmpty
            ? QGISStyle.features(geometryTypeName: table.geometryTypeName)
            : QGISStyle.annotation(classes, metresPerUnit: try spatialReferenceSystem(table.srsID)?.metresPerUnitFromDefinition ?? 1)
        let key: [PostgreSQLValue] = [.text(table.name), .text(table.geometryColumn)]
        try connection.query("UPDATE annolink.layer_styles SET \"useAsDefault\" = false WHERE f_table_name = $1 AND f_geometry_column = $2", key)
        try connection.query("DELETE FROM annolink.layer_styles WHERE f_table_name = $1 AND f_geometry_column = $2 AND \"styleName\" = $3",
                             key + [.text(QGISStyle.styleName)])
        try connection.query("""
            INSERT INTO annolink.layer_styles (f_table_catalog, f_table_schema, f_table_name, f_geometry_column, "styleName", "styleQML",
              "styleSLD", "useAsDefault", description, owner, ui, update_time)
            VALUES ('', '', $1, $2, $3, $4, '', true, $5, '', '', \(PostGISJournal.now))
            """, key + [.text(QGISStyle.styleName), .text(qml), .text("written by annolink")])
        try PostGISLayout.publishStylesForQGIS(table: table.name, on: connection)
    }

    /// One journal entry: the features and annotation rows read `FOR UPDATE`, as an edit reads them.
    public func recordRegeneration<T>(command: String, summary: String, _ body: () throws -> T) throws -> (value: T, entry: Int64?) {
        try journal().recordEdit(command: command, summary: summary, body)
    }

    /// A new table is made as `annolink copy` makes a copied annotation table (the GeoPackage
    /// layout's columns and declared types, `fid` an identity key), its GiST index built once
    /// its rows are in; the extent goes to `annolink.contents`. The rows are not recorded by the
    /// journal: this runs outside any edit.
    public func registeringAnnotation<T>(in name: String, creatingIn srsID: Int64?, description: String,
                                         _ body: (FeatureTable) throws -> T) throws -> T {
        do {
            return try connection.inTransaction {
                if let srsID { try createAnnotationTable(name, srsID: srsID, description: description) }
                let table = try featureTable(name)
                let result = try body(table)
                if srsID != nil { try PostGISLayout.createSpatialIndex(table: table.name, column: table.geometryColumn, on: connection) }
                try PostGISLayout.refreshContents(table: table.name, geometryColumn: table.geometryColumn, on: connection)
                return result
            }
        } catch {
            // The table the cache may hold was rolled back.
            tableCache[name.lowercased()] = nil
            throw error
        }
    }

    /// Makes the empty annotation table `name` (polygons in CRS `srsID`), registered as one.
    private func createAnnotationTable(_ name: String, srsID: Int64, description: String) throws {
        guard name.utf8.count <= PostGISLayout.maximumIdentifierLength else {
            throw StoreError.invalidData(
                "'\(name)' is longer than PostgreSQL's \(PostGISLayout.maximumIdentifierLength)-byte names; choose a shorter name")
        }
        guard let srid = try system(srsID)?.srid else { throw StoreError.unknownSpatialReference(srsID: srsID) }
        let taken = try connection.query("""
            SELECT EXISTS (SELECT 1 FROM annolink.contents WHERE lower(table_name) = lower($1))
              OR EXISTS (SELECT 1 FROM pg_tables WHERE schemaname = $2 AND lower(tablename) = lower($1))
            """, [.text(name), .text(PostGISLayout.dataSchema)]).scalar?.boolValue ?? false
        guard !taken else { throw StoreError.tableExists(name) }
        let columns = [Column(name: "fid", type: "INTEGER", isNotNull: true, isPrimaryKey: true), Column(name: "geom", type: "POLYGON")]
            + GeoPackage.annotationAttributeColumns
        let table = FeatureTable(name: name, geometryColumn: "geom", primaryKey: "fid", geometryTypeName: "POLYGON", srsID: srsID,
                                 hasZ: false, hasM: false, columns: columns, hasSpatialIndex: true)
        let position = Int(try connection.query("SELECT coalesce(max(position) + 1, 0) FROM annolink.contents").scalar?.integerValue ?? 0)
        try PostGISLayout.createFeatureTable(table, srid: srid, description: description.isEmpty ? "feature-linked annotation" : description,
                                             position: position, spatialIndex: false, on: connection)
        try PostGISLayout.registerAnnotationTable(name, on: connection)
        tableCache[name.lowercased()] = nil
    }
}
