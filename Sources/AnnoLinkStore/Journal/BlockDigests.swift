import CSQLite

/// 64-bit digests of rows, one per `MoveImage.blockSize` rows: each row's digest (its key and
/// every value with its storage class, mixed 8 bytes at a time) mixed in key order. Meant to
/// notice changes, not to resist forgery.
struct BlockDigests {
    private var digests: [UInt64] = []
    private var state = Mixer()
    private var rowsInBlock = 0

    /// Adds the next row's digest.
    mutating func add(_ rowDigest: UInt64) {
        state.mix(rowDigest)
        rowsInBlock += 1
        if rowsInBlock == MoveImage.blockSize { endBlock() }
    }

    /// The digests, the last block possibly short.
    mutating func finish() -> [UInt64] {
        if rowsInBlock > 0 { endBlock() }
        return digests
    }

    private mutating func endBlock() {
        digests.append(state.value)
        state = Mixer()
        rowsInBlock = 0
    }

    /// The digest of `key` and `values`: the same as `digest(row:key:columns:)` gives for a row
    /// holding them.
    static func digest(key: Int64, values: [SQLValue]) -> UInt64 {
        var state = Mixer()
        state.mix(UInt64(bitPattern: key))
        for value in values {
            switch value {
            case .integer(let v):
                state.mix(1)
                state.mix(UInt64(bitPattern: v))
            case .real(let v):
                state.mix(2)
                state.mix(v.bitPattern)
            case .text(let text):
                var text = text
                text.withUTF8 { state.mix(3, bytes: UnsafeRawBufferPointer($0)) }
            case .blob(let bytes):
                bytes.withUnsafeBytes { state.mix(4, bytes: $0) }
            case .null:
                state.mix(0)
            }
        }
        return state.value
    }

    /// The digest of the row `statement` is on: `key`, then columns 1…`columns`.
    static func digest(row statement: Statement, key: Int64, columns: Int) -> UInt64 {
        var state = Mixer()
        state.mix(UInt64(bitPattern: key))
        for index in 1...columns {
            let i = Int32(index)
            switch sqlite3_column_type(statement.handle, i) {
            case SQLITE_INTEGER:
                state.mix(1)
                state.mix(UInt64(bitPattern: sqlite3_column_int64(statement.handle, i)))
            case SQLITE_FLOAT:
                state.mix(2)
                state.mix(sqlite3_column_double(statement.handle, i).bitPattern)
            case SQLITE_TEXT:
                let pointer = UnsafeRawPointer(sqlite3_column_text(statement.handle, i))
                state.mix(3, bytes: UnsafeRawBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(statement.handle, i))))
            case SQLITE_BLOB:
                let pointer = sqlite3_column_blob(statement.handle, i)
                state.mix(4, bytes: UnsafeRawBufferPointer(start: pointer, count: pointer == nil ? 0 : Int(sqlite3_column_bytes(statement.handle, i))))
            default:
                state.mix(0)
            }
        }
        return state.value
    }
}
