import CSQLite

/// One prepared SQL statement: the only owner of its `sqlite3_stmt *`. It keeps its database
/// handle alive. Get one from `Connection.prepare(_:)`, which caches statements by SQL text.
public final class Statement {
    let handle: OpaquePointer
    private let database: Database
    /// The SQL text.
    public let sql: String

    init(database: Database, sql: String) throws {
        var statement: OpaquePointer?
        // The tail pointer points into the C string, so both are used inside withCString.
        let (rc, hasMore) = sql.withCString { text -> (Int32, Bool) in
            var tail: UnsafePointer<CChar>?
            let rc = sqlite3_prepare_v3(database.pointer, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, &tail)
            let rest = tail.map { String(cString: $0) } ?? ""
            return (rc, !rest.allSatisfy { $0.isWhitespace || $0 == ";" })
        }
        guard rc == SQLITE_OK, let statement else {
            throw database.lastError(sql: sql, code: rc == SQLITE_OK ? SQLITE_MISUSE : nil)
        }
        if hasMore {
            sqlite3_finalize(statement)
            throw SQLiteError(.misuse, message: "only one SQL statement may be given", sql: sql)
        }
        self.handle = statement
        self.database = database
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// Resets the statement for another run and clears its bindings.
    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Whether the statement only reads (`sqlite3_stmt_readonly`).
    public var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }

    /// Number of result columns.
    public var columnCount: Int { Int(sqlite3_column_count(handle)) }

    /// Binds `values` to parameters 1…n.
    public func bind(_ values: [SQLValue]) throws {
        for (i, value) in values.enumerated() { try bind(value, at: i + 1) }
    }

    /// Binds one value to parameter `index` (1-based). Text and blobs are copied
    /// (`SQLITE_TRANSIENT`).
    public func bind(_ value: SQLValue, at index: Int) throws {
        let i = Int32(index)
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(handle, i)
        case .integer(let v): rc = sqlite3_bind_int64(handle, i, v)
        case .real(let v): rc = sqlite3_bind_double(handle, i, v)
        case .text(let s): rc = sqlite3_bind_text(handle, i, s, -1, annolink_sqlite_transient())
        case .blob(let b): rc = bindBlob(b, at: i)
        }
        guard rc == SQLITE_OK else { throw database.lastError(sql: sql, code: rc) }
    }

    /// Binds a double to parameter `index` without building an `SQLValue` (hot loops).
    public func bind(_ value: Double, at index: Int) throws {
        let rc = sqlite3_bind_double(handle, Int32(index), value)
        guard rc == SQLITE_OK else { throw database.lastError(sql: sql, code: rc) }
    }

    /// Binds an integer to parameter `index` without building an `SQLValue` (hot loops).
    public func bind(_ value: Int64, at index: Int) throws {
        let rc = sqlite3_bind_int64(handle, Int32(index), value)
        guard rc == SQLITE_OK else { throw database.lastError(sql: sql, code: rc) }
    }

    /// Binds the bytes of `buffer` as a blob (copied).
    public func bind(blob buffer: UnsafeRawBufferPointer, at index: Int) throws {
        let rc = sqlite3_bind_blob64(handle, Int32(index), buffer.baseAddress, sqlite3_uint64(buffer.count), annolink_sqlite_transient())
        guard rc == SQLITE_OK else { throw database.lastError(sql: sql, code: rc) }
    }

    private func bindBlob(_ bytes: [UInt8], at index: Int32) -> Int32 {
        bytes.withUnsafeBytes { buffer in
            // A zero-length blob needs a non-null pointer, or SQLite binds NULL.
            sqlite3_bind_blob64(handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), sqlite3_uint64(buffer.count), annolink_sqlite_transient())
        }
    }

    /// Advances to the next row. Returns true when a row is available, false when done.
    ///
    /// - Throws: `SQLiteError` on any failure (constraint, busy past the timeout, I/O).
    public func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = database.lastError(sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Whether column `index` of the current row is NULL.
    public func isNull(_ index: Int) -> Bool { sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL }

    public func int64(_ index: Int) -> Int64 { sqlite3_column_int64(handle, Int32(index)) }
    public func double(_ index: Int) -> Double { sqlite3_column_double(handle, Int32(index)) }

    /// Column `index` as text, or nil when NULL.
    public func text(_ index: Int) -> String? {
        guard let p = sqlite3_column_text(handle, Int32(index)) else { return nil }
        return String(cString: p)
    }

    /// Calls `body` with the bytes of blob column `index` without copying them. The buffer is
    /// valid only inside `body`. A NULL column gives an empty buffer.
    public func withBlob<T>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let pointer = sqlite3_column_blob(handle, Int32(index))
        let count = Int(sqlite3_column_bytes(handle, Int32(index)))
        return try body(UnsafeRawBufferPointer(start: pointer, count: pointer == nil ? 0 : count))
    }

    /// Column `index` as bytes, or nil when NULL.
    public func blob(_ index: Int) -> [UInt8]? {
        if isNull(index) { return nil }
        return withBlob(index) { Array($0) }
    }

    /// Column `index` as an `SQLValue`.
    public func value(_ index: Int) -> SQLValue {
        switch sqlite3_column_type(handle, Int32(index)) {
        case SQLITE_INTEGER: .integer(int64(index))
        case SQLITE_FLOAT: .real(double(index))
        case SQLITE_TEXT: .text(text(index) ?? "")
        case SQLITE_BLOB: .blob(blob(index) ?? [])
        default: .null
        }
    }
}

@available(*, unavailable)
extension Statement: Sendable {}
