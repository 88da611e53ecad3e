/// How a column's declared type makes SQLite store a value (its type affinity, SQLite's
/// "Datatypes In SQLite" §3.1), to tell whether a value keeps its storage class. Not the
/// GeoPackage data type class (`ColumnAffinity`).
enum StorageAffinity {
    case integer, text, blob, real, numeric

    init(declaredType: String) {
        let type = declaredType.uppercased()
        if type.contains("INT") {
            self = .integer
        } else if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") {
            self = .text
        } else if type.contains("BLOB") || type.isEmpty {
            self = .blob
        } else if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") {
            self = .real
        } else {
            self = .numeric
        }
    }

    /// Whether `value` is stored as it is: blobs and NULL always are; text only in a TEXT or
    /// untyped column; a real in a REAL or untyped column, and never a NaN (stored as NULL); an
    /// integer anywhere but in a TEXT or REAL column.
    func keeps(_ value: SQLValue) -> Bool {
        switch value {
        case .null, .blob: true
        case .text: self == .text || self == .blob
        case .real(let v): !v.isNaN && (self == .real || self == .blob)
        case .integer: self != .text && self != .real
        }
    }
}
