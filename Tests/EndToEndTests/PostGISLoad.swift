import AnnoLinkGeometry
import AnnoLinkPostGIS
import AnnoLinkStore

/// Puts a GeoPackage's data set into an empty PostGIS database in annolink's layout (tables,
/// rows, annotation registry and classes), for the tests that run the same edits on both
/// stores. A plain row-by-row copy through `PostGISLayout`, not `annolink copy` (the streaming
/// COPY command, built separately).
enum PostGISLoad {
    static func load(_ path: String, into target: String) throws {
        let package = try GeoPackage(path: path, readOnly: true)
        let connection = try PostgreSQLConnection(target)
        try connection.inTransaction {
            try PostGISLayout.install(on: connection)
            let annotationTables = Set(try package.annotationTableNames())
            for (position, name) in try package.featureTableNames().enumerated() {
                let table = try package.featureTable(name)
                guard let system = try package.spatialReferenceSystem(table.srsID) else { throw StoreError.unknownSpatialReference(srsID: table.srsID) }
                let srid = try PostGISLayout.register(system, on: connection)
                try PostGISLayout.createFeatureTable(table, srid: srid, description: "", position: position, on: connection)
                let columns = [table.primaryKey, table.geometryColumn] + table.attributeColumns.map(\.name)
                let insert = "INSERT INTO \(PostGISLayout.qualified(table.name)) (\(columns.map(quoteIdentifier).joined(separator: ", "))) " +
                    "VALUES (\((1...columns.count).map { "$\($0)" }.joined(separator: ", ")))"
                try package.forEachFeature(table) { feature in
                    var values: [PostgreSQLValue] = [.int8(feature.fid), feature.geometry.map { .binary(oid: 0, bytes: EWKB.encode($0, srid: srid)) } ?? .null]
                    for column in table.attributeColumns {
                        values.append(PostGISStore.parameter(feature.attributes[column.name] ?? .null, for: column))
                    }
                    try connection.query(insert, values)
                }
                try connection.execute("""
                    SELECT setval(pg_get_serial_sequence('\(PostGISLayout.qualified(table.name))', '\(table.primaryKey)'),
                                  greatest(1, (SELECT coalesce(max(\(quoteIdentifier(table.primaryKey))), 0) FROM \(PostGISLayout.qualified(table.name)))))
                    """)
                try PostGISLayout.refreshContents(table: table.name, geometryColumn: table.geometryColumn, on: connection)
                if annotationTables.contains(name) { try PostGISLayout.registerAnnotationTable(table.name, on: connection) }
            }
            for c in try package.annotationClasses() {
                try PostGISLayout.insertAnnotationClass(c, on: connection)
            }
        }
    }
}
