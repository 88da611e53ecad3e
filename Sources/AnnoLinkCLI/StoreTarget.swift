import AnnoLinkPostGIS
import AnnoLinkStore

/// What a command's FILE names: a GeoPackage file, or a PostGIS database given as a connection
/// string (`postgresql://…`, `postgres://…`, `PG:…`; docs/postgis.md). The edit commands,
/// `undo`, `redo`, `log`, `show`, `identify`, `info`, `check`, `annotate` and `sketch` take
/// either.
enum StoreTarget {
    /// Opens the store `target` names.
    ///
    /// - Throws: `StoreError` for a file that is missing or not a GeoPackage, or a database
    ///   without an annolink data set; `PostgreSQLError` when the server cannot be reached.
    static func open(_ target: String, readOnly: Bool = false) throws -> any FeatureStore {
        if ConnectionString.isPostgreSQL(target) { return try PostGISStore(target) }
        return try GeoPackage(path: target, readOnly: readOnly)
    }
}
