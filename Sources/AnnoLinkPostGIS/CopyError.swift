/// Why `annolink copy` refused or stopped; nothing was written to the destination.
public enum CopyError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The destination has tables of these names already (copy with `--overwrite` to replace them).
    case tablesExist([String])
    /// The destination GeoPackage file exists (copy with `--overwrite` to replace it).
    case destinationExists(String)
    /// A value of the source that the destination's column cannot hold.
    case unconvertibleValue(table: String, fid: Int64, column: String, reason: String)
    /// The PostGIS database holds no annolink data set.
    case notADataSet(String)
    /// Something the copy does not carry (Z or M geometries, a table without a CRS row).
    case unsupported(String)

    public var description: String {
        switch self {
        case .tablesExist(let names):
            "the destination has tables named \(names.map { "'\($0)'" }.joined(separator: ", ")) already; copy with --overwrite to replace them"
        case .destinationExists(let path):
            "\(path) exists already; copy with --overwrite to replace it, or choose another name"
        case .unconvertibleValue(let table, let fid, let column, let reason):
            "\(table) fid \(fid), column \(column): \(reason)"
        case .notADataSet(let reason): reason
        case .unsupported(let reason): reason
        }
    }
}

/// How far a copy has come: `rows` of `totalRows` rows of `table` copied.
public struct CopyProgress: Sendable {
    public var table: String
    public var rows: Int
    public var totalRows: Int
}

/// What a copy carried: each table with its row count, and the classes, styles and CRS rows.
public struct CopySummary: Sendable {
    /// One copied table.
    public struct Table: Sendable {
        public var name: String
        public var geometryTypeName: String
        public var srsID: Int64
        public var rows: Int
        public var isAnnotation: Bool
    }

    public var tables: [Table] = []
    public var annotationClasses = 0
    public var layerStyles = 0
    public var spatialReferenceSystems = 0
    /// What the source holds that was not copied, one line each.
    public var notCopied: [String] = []
}
