/// A column type of a GeoPackage user table (GeoPackage 1.3, table 1 "GeoPackage Data Types").
public enum GeoPackageColumnType: Hashable, Sendable {
    case boolean
    case tinyInt
    case smallInt
    case mediumInt
    case integer
    case float
    case double
    case text(maxLength: Int?)
    case blob(maxSize: Int?)
    case date
    case dateTime
    /// The geometry column; its type name comes from the geometry kind, not from here.
    case geometry

    /// The type as written in `CREATE TABLE` (`MEDIUMINT`, `TEXT(255)`, …); nil for `.geometry`.
    public var sqlName: String? {
        switch self {
        case .boolean: "BOOLEAN"
        case .tinyInt: "TINYINT"
        case .smallInt: "SMALLINT"
        case .mediumInt: "MEDIUMINT"
        case .integer: "INTEGER"
        case .float: "FLOAT"
        case .double: "DOUBLE"
        case .text(let length): length.map { "TEXT(\($0))" } ?? "TEXT"
        case .blob(let size): size.map { "BLOB(\($0))" } ?? "BLOB"
        case .date: "DATE"
        case .dateTime: "DATETIME"
        case .geometry: nil
        }
    }

    /// The GeoPackage type for a column type declared in a mobile geodatabase's `CREATE TABLE`
    /// (as `PRAGMA table_info` reports it): `int16`, `int32`, `int64`, `float32`, `float64`,
    /// `text(n)`, `uuidtext`, `realdate`, `blob(n)`, `geometryblob`, `xmltext`, and the plain
    /// SQLite names the system tables use (`INTEGER`, `INT`, `REAL`, `TEXT(n)`, `CLOB`, `BLOB`).
    /// Case does not matter.
    ///
    /// - Throws: `GeodatabaseDefinitionError.unknownFieldType` for any other declaration.
    public init(declaredType: String) throws(GeodatabaseDefinitionError) {
        let declared = declaredType.lowercased().filter { $0 != " " }
        var base = declared
        var size: Int?
        if let open = declared.firstIndex(of: "("), declared.last == ")" {
            base = String(declared[..<open])
            let digits = declared[declared.index(after: open)..<declared.index(before: declared.endIndex)]
            guard let value = Int(digits), value > 0 else { throw .unknownFieldType(declaredType) }
            size = value
        }
        switch (base, size) {
        case ("int16", nil): self = .smallInt
        case ("int32", nil): self = .mediumInt
        case ("int64", nil), ("integer", nil), ("int", nil): self = .integer
        case ("float32", nil): self = .float
        case ("float64", nil), ("real", nil), ("double", nil): self = .double
        case ("text", _): self = .text(maxLength: size)
        case ("uuidtext", nil): self = .text(maxLength: 38)
        case ("realdate", nil): self = .dateTime
        case ("xmltext", nil), ("clob", nil): self = .text(maxLength: nil)
        case ("blob", _): self = .blob(maxSize: size)
        case ("geometryblob", nil): self = .geometry
        default: throw .unknownFieldType(declaredType)
        }
    }
}
