/// A field of a geodatabase table, as its XML definition (`GPFieldInfoEx`) describes it.
public struct EsriField: Hashable, Sendable {
    /// The column name.
    public var name: String
    /// The name shown to users, if the definition gives one.
    public var aliasName: String?
    /// The Esri field type.
    public var type: EsriFieldType
    /// Whether the field accepts NULL.
    public var isNullable: Bool
    /// Maximum characters of a string field, when known (the XML of mobile geodatabases leaves
    /// it out; `applyDeclaredType(_:)` takes it from the SQLite declaration).
    public var length: Int?
    /// The attribute domain the field uses (e.g. `HorizontalAlignment`), if any.
    public var domainName: String?
    /// The column type declared in SQLite (`text(255)`, `int32`, …), once applied.
    public var declaredType: String?

    /// Creates a field.
    public init(
        name: String, aliasName: String? = nil, type: EsriFieldType, isNullable: Bool, length: Int? = nil,
        domainName: String? = nil, declaredType: String? = nil
    ) {
        self.name = name
        self.aliasName = aliasName
        self.type = type
        self.isNullable = isNullable
        self.length = length
        self.domainName = domainName
        self.declaredType = declaredType
    }

    /// Records the SQLite declaration of the column (as `PRAGMA table_info` gives it) and, for
    /// `text(n)`, its length.
    ///
    /// - Throws: `GeodatabaseDefinitionError.unknownFieldType` when the declaration is unknown.
    public mutating func applyDeclaredType(_ declared: String) throws(GeodatabaseDefinitionError) {
        let columnType = try GeoPackageColumnType(declaredType: declared)
        declaredType = declared
        if type == .string, case .text(let maxLength?) = columnType {
            length = maxLength
        }
    }

    /// The GeoPackage column type for the field: from the SQLite declaration when applied
    /// (it carries the exact width), otherwise from the Esri type and `length`.
    public var geoPackageColumnType: GeoPackageColumnType {
        if let declaredType, let declared = try? GeoPackageColumnType(declaredType: declaredType) {
            return declared
        }
        return type.geoPackageColumnType(length: length)
    }
}
