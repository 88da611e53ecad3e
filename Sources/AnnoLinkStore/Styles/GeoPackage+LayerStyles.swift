import AnnoLinkGeometry

extension GeoPackage {
    /// The table QGIS keeps layer styles in, and reads when it opens a layer of the file.
    public static let layerStylesTable = "layer_styles"

    /// Whether the file has a `layer_styles` table.
    public var hasLayerStyles: Bool {
        get throws { try connection.hasTable(Self.layerStylesTable) }
    }

    /// Creates `layer_styles` with the columns QGIS creates it with, registered in
    /// `gpkg_contents` as an attributes table (as GDAL registers it when QGIS saves a style), so
    /// that GDAL's validator accepts it. Does nothing when it exists.
    public func createLayerStylesTable() throws {
        guard try !hasLayerStyles else { return }
        try connection.write {
            try connection.execute("""
                CREATE TABLE layer_styles (
                  id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, f_table_catalog TEXT(256), f_table_schema TEXT(256),
                  f_table_name TEXT(256), f_geometry_column TEXT(256), styleName TEXT(30), styleQML TEXT, styleSLD TEXT,
                  useAsDefault BOOLEAN, description TEXT, owner TEXT(30), ui TEXT(30),
                  update_time DATETIME DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))
                """)
            try connection.run("""
                INSERT INTO gpkg_contents (table_name, data_type, identifier, description, last_change)
                VALUES ('layer_styles', 'attributes', 'layer_styles', 'QGIS layer styles', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
                """)
        }
    }

    /// Writes annolink's QGIS style (`QGISStyle`) for each of `tables` (default: every feature
    /// table), as the default style QGIS applies when it opens the layer: annotation tables
    /// (those with classes in the registry) get text labels from their stored columns, other
    /// feature tables a plain symbol. A style annolink wrote before is replaced; styles of
    /// others stay in the table but are no longer the default. One transaction.
    ///
    /// A CRS whose unit the file's WKT does not give is taken to be in metres for the text size.
    public func writeLayerStyles(tables: [String]? = nil) throws {
        try connection.write {
            try createLayerStylesTable()
            let classes = Dictionary(grouping: try annotationClasses(), by: { $0.annotationTable.lowercased() })
            for name in try tables ?? featureTableNames() {
                let table = try featureTable(name)
                let qml: String
                if let annotation = classes[table.name.lowercased()], !annotation.isEmpty {
                    let unit = try spatialReferenceSystem(table.srsID)?.metresPerUnitFromDefinition ?? 1
                    qml = QGISStyle.annotation(annotation, metresPerUnit: unit)
                } else {
                    qml = QGISStyle.features(geometryTypeName: table.geometryTypeName)
                }
                let key: [SQLValue] = [.text(table.name), .text(table.geometryColumn)]
                try connection.run("UPDATE layer_styles SET useAsDefault = 0 WHERE f_table_name = ? AND f_geometry_column = ?", key)
                try connection.run(
                    "DELETE FROM layer_styles WHERE f_table_name = ? AND f_geometry_column = ? AND styleName = ?", key + [.text(QGISStyle.styleName)])
                try connection.run("""
                    INSERT INTO layer_styles (f_table_catalog, f_table_schema, f_table_name, f_geometry_column, styleName, styleQML,
                      styleSLD, useAsDefault, description, owner, ui)
                    VALUES ('', '', ?, ?, ?, ?, '', 1, ?, '', '')
                    """, key + [.text(QGISStyle.styleName), .text(qml), .text("written by annolink")])
            }
        }
    }
}
