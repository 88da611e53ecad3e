import CSQLite

/// The values of one row as SQLite hands them over: the current row of a `Statement`, or the
/// arguments of an SQL function (`FunctionArguments`). Indices start at 0.
public protocol SQLRow {
    func isNull(_ index: Int) -> Bool
    func int64(_ index: Int) -> Int64
    func double(_ index: Int) -> Double
    /// The value as text, or nil when NULL.
    func text(_ index: Int) -> String?
    /// Calls `body` with the bytes of a blob without copying them; valid only inside `body`.
    func withBlob<T>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T
    func value(_ index: Int) -> SQLValue
}

extension Statement: SQLRow {}

/// The arguments of an application-defined SQL function while it runs.
public struct FunctionArguments: SQLRow {
    let values: UnsafeMutablePointer<OpaquePointer?>
    /// How many arguments there are.
    public let count: Int

    /// The arguments after the first `k`.
    public func dropFirst(_ k: Int) -> FunctionArguments {
        FunctionArguments(values: values + k, count: count - k)
    }

    public func isNull(_ index: Int) -> Bool { sqlite3_value_type(values[index]) == SQLITE_NULL }
    public func int64(_ index: Int) -> Int64 { sqlite3_value_int64(values[index]) }
    public func double(_ index: Int) -> Double { sqlite3_value_double(values[index]) }

    public func text(_ index: Int) -> String? {
        guard let p = sqlite3_value_text(values[index]) else { return nil }
        return String(cString: p)
    }

    public func withBlob<T>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let pointer = sqlite3_value_blob(values[index])
        let count = Int(sqlite3_value_bytes(values[index]))
        return try body(UnsafeRawBufferPointer(start: pointer, count: pointer == nil ? 0 : count))
    }

    public func value(_ index: Int) -> SQLValue {
        switch sqlite3_value_type(values[index]) {
        case SQLITE_INTEGER: .integer(int64(index))
        case SQLITE_FLOAT: .real(double(index))
        case SQLITE_TEXT: .text(text(index) ?? "")
        case SQLITE_BLOB: .blob(withBlob(index) { Array($0) })
        default: .null
        }
    }
}
