import AnnoLinkStore

/// The Loudoun geodatabase opened read-only through the store's `Connection`, with the
/// accessors these tests use.
final class LoudounDatabase {
    private let connection: Connection

    init(path: String) throws {
        connection = try Connection(path: path, mode: .readOnly)
    }

    /// Every row of `sql`.
    func rows(_ sql: String) throws -> [[SQLValue]] { try connection.rows(sql) }
}

extension SQLValue {
    var blob: [UInt8]? { blobValue }
    var text: String? { textValue }
    var double: Double? { doubleValue }
    var integer: Int64? { if case .integer(let v) = self { v } else { nil } }
}
