/// What went wrong with a GeoPackage or its contents, in the user's words.
public enum StoreError: Error, Equatable, Sendable {
    /// The file does not exist.
    case missingFile(path: String)
    /// The file exists but is not a GeoPackage (or not a SQLite database at all).
    case notAGeoPackage(path: String, reason: String)
    /// A file is already there and would be overwritten.
    case fileExists(path: String)
    /// The file would be replaced, but another process has it open through SQLite (`annolink
    /// serve` or `sketch`, QGIS, …): replacing it would lose what that process writes next.
    case fileInUse(path: String)
    /// A new file cannot be made there (no such folder, no name, the system refused).
    case cannotCreate(path: String, reason: String)
    /// No feature table of that name.
    case unknownTable(String)
    /// The table exists already.
    case tableExists(String)
    /// No column of that name in the table.
    case unknownColumn(table: String, column: String)
    /// No feature with that fid in the table.
    case unknownFeature(table: String, fid: Int64)
    /// A value that does not fit its column.
    case invalidValue(table: String, column: String, reason: String)
    /// A stored geometry blob could not be read.
    case corruptGeometry(table: String, fid: Int64, reason: String)
    /// A geometry of the wrong kind for the table's geometry column.
    case wrongGeometryKind(table: String, expected: String, got: String)
    /// The geometry's spatial reference is not registered in `gpkg_spatial_ref_sys`.
    case unknownSpatialReference(srsID: Int64)
    /// A where clause that is not a single read-only condition.
    case invalidWhereClause(String, reason: String)
    /// Something about the data that is not covered above.
    case invalidData(String)
    /// What was asked is not built for this kind of store (the text says what and where).
    case notSupported(String)
}

extension StoreError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .missingFile(let path): "no such file: \(path)"
        case .notAGeoPackage(let path, let reason): "\(path) is not a GeoPackage: \(reason)"
        case .fileExists(let path): "\(path) exists already; remove it or choose another name"
        case .fileInUse(let path):
            "\(path) is open in another process (annolink serve or sketch, QGIS, …); it is not replaced: stop that process first"
        case .cannotCreate(let path, let reason): "cannot create \(path): \(reason)"
        case .unknownTable(let name): "no feature table named '\(name)'"
        case .tableExists(let name): "a table named '\(name)' exists already"
        case .unknownColumn(let table, let column): "table '\(table)' has no column '\(column)'"
        case .unknownFeature(let table, let fid): "table '\(table)' has no feature with fid \(fid)"
        case .invalidValue(let table, let column, let reason): "invalid value for \(table).\(column): \(reason)"
        case .corruptGeometry(let table, let fid, let reason): "the geometry of \(table) fid \(fid) cannot be read: \(reason)"
        case .wrongGeometryKind(let table, let expected, let got): "table '\(table)' holds \(expected) geometries, not \(got)"
        case .unknownSpatialReference(let id): "spatial reference system \(id) is not registered in gpkg_spatial_ref_sys"
        case .invalidWhereClause(let clause, let reason): "invalid where clause '\(clause)': \(reason)"
        case .invalidData(let text): text
        case .notSupported(let text): text
        }
    }
}
