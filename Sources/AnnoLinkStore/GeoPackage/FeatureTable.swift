import AnnoLinkGeometry

/// A row of `gpkg_spatial_ref_sys`.
public struct SpatialReferenceSystem: Hashable, Sendable {
    public var srsID: Int64
    public var name: String
    public var organization: String
    public var organizationCoordsysID: Int64
    /// The CRS as OGC WKT (version 1, as GDAL writes it).
    public var definition: String
    public var description: String?

    public init(srsID: Int64, name: String, organization: String, organizationCoordsysID: Int64, definition: String, description: String? = nil) {
        self.srsID = srsID
        self.name = name
        self.organization = organization
        self.organizationCoordsysID = organizationCoordsysID
        self.definition = definition
        self.description = description
    }
}

/// A column of a table as SQLite declares it.
public struct Column: Hashable, Sendable {
    public var name: String
    /// The declared type, e.g. `INTEGER`, `TEXT(255)`, `DOUBLE`, `MEDIUMINT`.
    public var type: String
    public var isNotNull: Bool
    /// The default as SQL text (`'x'`, `0`, `NULL`), when declared.
    public var defaultSQL: String?
    public var isPrimaryKey: Bool

    public init(name: String, type: String, isNotNull: Bool = false, defaultSQL: String? = nil, isPrimaryKey: Bool = false) {
        self.name = name
        self.type = type
        self.isNotNull = isNotNull
        self.defaultSQL = defaultSQL
        self.isPrimaryKey = isPrimaryKey
    }

    /// The GeoPackage data type class the declared type belongs to.
    public var affinity: ColumnAffinity { ColumnAffinity(declaredType: type) }

    /// The maximum length of a `TEXT(n)` column, when declared.
    public var maximumTextLength: Int? {
        let upper = type.uppercased()
        guard upper.hasPrefix("TEXT("), upper.hasSuffix(")") else { return nil }
        return Int(upper.dropFirst(5).dropLast())
    }
}

/// The kinds of value a GeoPackage column holds, from its declared type (GeoPackage 1.3 table 1).
public enum ColumnAffinity: String, Sendable {
    case boolean, integer, real, text, blob, date, dateTime, geometry

    /// The affinity of a GeoPackage declared type name (case-insensitive; `TEXT(n)` and
    /// `BLOB(n)` lengths are ignored).
    public init(declaredType: String) {
        // The name before any "(", without the spaces around it, trimmed by index: Foundation's
        // trimmingCharacters goes through NSString and CharacterSet, and the standard library's
        // reversed() and drop(while:) make generic types the runtime builds from their mangled
        // names; either cost a one-edit command 0.8–1.6 M instructions the first time.
        let name = declaredType.uppercased().prefix { $0 != "(" }
        var start = name.startIndex
        var end = name.endIndex
        while start < end, name[start] == " " || name[start] == "\t" { start = name.index(after: start) }
        while end > start, name[name.index(before: end)] == " " || name[name.index(before: end)] == "\t" { end = name.index(before: end) }
        switch String(name[start..<end]) {
        case "BOOLEAN": self = .boolean
        case "TINYINT", "SMALLINT", "MEDIUMINT", "INT", "INTEGER": self = .integer
        case "FLOAT", "DOUBLE", "REAL": self = .real
        case "TEXT", "": self = .text
        case "BLOB": self = .blob
        case "DATE": self = .date
        case "DATETIME": self = .dateTime
        case "GEOMETRY", "POINT", "LINESTRING", "POLYGON", "MULTIPOINT", "MULTILINESTRING", "MULTIPOLYGON", "GEOMETRYCOLLECTION": self = .geometry
        default: self = .text
        }
    }
}

/// A GeoPackage feature table as described by `gpkg_geometry_columns` and its schema.
public struct FeatureTable: Hashable, Sendable {
    public var name: String
    public var geometryColumn: String
    /// The INTEGER PRIMARY KEY column (usually `fid`).
    public var primaryKey: String
    /// As in `gpkg_geometry_columns`: `POINT`, `LINESTRING`, `POLYGON`, `MULTI…` or `GEOMETRY`.
    public var geometryTypeName: String
    public var srsID: Int64
    public var hasZ: Bool
    public var hasM: Bool
    /// All columns, the primary key and the geometry column included.
    public var columns: [Column]
    /// Whether the `gpkg_rtree_index` extension indexes the geometry column.
    public var hasSpatialIndex: Bool

    /// A table description as `GeoPackage.featureTable(_:)` reads it; also how another store
    /// (PostGIS) describes a table the same way.
    public init(name: String, geometryColumn: String, primaryKey: String, geometryTypeName: String, srsID: Int64, hasZ: Bool,
                hasM: Bool, columns: [Column], hasSpatialIndex: Bool) {
        self.name = name
        self.geometryColumn = geometryColumn
        self.primaryKey = primaryKey
        self.geometryTypeName = geometryTypeName
        self.srsID = srsID
        self.hasZ = hasZ
        self.hasM = hasM
        self.columns = columns
        self.hasSpatialIndex = hasSpatialIndex
    }

    /// The attribute columns: every column but the primary key and the geometry.
    public var attributeColumns: [Column] {
        columns.filter { !$0.isPrimaryKey && $0.name.lowercased() != geometryColumn.lowercased() }
    }

    /// The column named `name` (case-insensitive).
    public func column(_ name: String) -> Column? {
        columns.first { $0.name.lowercased() == name.lowercased() }
    }

    /// The table's Esri GlobalID: its text column named `GlobalID` (case-insensitive), as an
    /// import from ArcGIS keeps it (`TEXT(38)`, GUIDs as `{XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}`);
    /// nil when it has none. The edit service gives a new feature one (docs/format.md).
    public var globalIDColumn: Column? {
        columns.first { $0.name.lowercased() == "globalid" && $0.affinity == .text && !$0.isPrimaryKey }
    }

    /// The geometry kind the table holds, or nil for `GEOMETRY` (any kind).
    public var geometryKind: Geometry.Kind? { Geometry.Kind(rawValue: geometryTypeName) }

    /// The name of the R-tree virtual table of the geometry column.
    public var spatialIndexName: String { GeoPackageSchema.rtreeName(table: name, column: geometryColumn) }
}

/// What a new feature table needs: its name, geometry column and kind, CRS and attributes.
public struct FeatureTableDefinition: Sendable {
    public var name: String
    public var geometryColumn: String
    public var geometryTypeName: String
    public var srsID: Int64
    /// Attribute columns (the `fid` primary key and the geometry column are added).
    public var columns: [Column]
    public var description: String

    public init(name: String, geometryColumn: String = "geom", geometryTypeName: String, srsID: Int64, columns: [Column], description: String = "") {
        self.name = name
        self.geometryColumn = geometryColumn
        self.geometryTypeName = geometryTypeName
        self.srsID = srsID
        self.columns = columns
        self.description = description
    }
}
