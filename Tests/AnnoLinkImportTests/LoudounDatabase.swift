import CSQLite
import Foundation

/// A minimal read-only view of the Loudoun geodatabase for tests, until AnnoLinkStore can read
/// it. Opens the file immutable (no locks, no journal), reads whole result sets.
final class LoudounDatabase {
    /// A column value.
    enum Value: Equatable {
        case null
        case integer(Int64)
        case real(Double)
        case text(String)
        case blob([UInt8])

        var blob: [UInt8]? { if case .blob(let b) = self { b } else { nil } }
        var text: String? { if case .text(let t) = self { t } else { nil } }
        var double: Double? {
            switch self {
            case .real(let d): d
            case .integer(let i): Double(i)
            default: nil
            }
        }
        var integer: Int64? { if case .integer(let i) = self { i } else { nil } }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private var handle: OpaquePointer?

    init(path: String) throws {
        let escaped = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
        let status = sqlite3_open_v2("file:\(escaped)?mode=ro&immutable=1", &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nil)
        guard status == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw Failure(description: "cannot open \(path): \(message)")
        }
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Every row of `sql`.
    func rows(_ sql: String) throws -> [[Value]] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else {
            throw Failure(description: "\(String(cString: sqlite3_errmsg(handle))) in \(sql)")
        }
        defer { sqlite3_finalize(statement) }
        var result: [[Value]] = []
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { return result }
            guard step == SQLITE_ROW else {
                throw Failure(description: "\(String(cString: sqlite3_errmsg(handle))) in \(sql)")
            }
            var row: [Value] = []
            for column in 0..<sqlite3_column_count(statement) {
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: row.append(.integer(sqlite3_column_int64(statement, column)))
                case SQLITE_FLOAT: row.append(.real(sqlite3_column_double(statement, column)))
                case SQLITE_TEXT: row.append(.text(String(cString: sqlite3_column_text(statement, column))))
                case SQLITE_BLOB:
                    let count = Int(sqlite3_column_bytes(statement, column))
                    if count == 0 {
                        row.append(.blob([]))
                    } else {
                        let base = sqlite3_column_blob(statement, column)!.assumingMemoryBound(to: UInt8.self)
                        row.append(.blob(Array(UnsafeBufferPointer(start: base, count: count))))
                    }
                default: row.append(.null)
                }
            }
            result.append(row)
        }
    }
}

@available(*, unavailable)
extension LoudounDatabase: Sendable {}
