import CSQLite
import Foundation

/// Two core SQL functions held to a bound they do not have in SQLite itself, so that a condition
/// on two large values of one row costs what its values weigh, not their product
/// (docs/reliability.md, "Bounded work"): one call of a function is one step of SQLite's
/// program, and the progress handler that keeps the time limit cannot end it.
///
/// - `LIKE` and `GLOB` patterns are at most `likePatternLimit` bytes
///   (`SQLITE_LIMIT_LIKE_PATTERN_LENGTH`; SQLite's default is 50,000): a longer one fails with
///   "LIKE or GLOB pattern too complex". A pattern from a column of the row, however long the
///   row's values, then costs at most that many steps per byte of the value matched.
/// - `instr(X, Y)` is SQLite's naive search (each place in X compared with Y: two 8 MB values
///   of `a…a` and `a…ab` take hours). It is replaced by the same function over glibc's `memmem`,
///   linear in the two lengths, with SQLite's answers: NULL when an argument is NULL; 1 for an
///   empty Y; else the position of Y's first occurrence in X, counted in characters when either
///   is not a blob (both read as UTF-8 text) and in bytes when both are, or 0.
extension Connection {
    /// The longest `LIKE` or `GLOB` pattern, in bytes.
    public static let likePatternLimit: Int32 = 1000

    /// Applies both bounds to a connection just opened.
    static func boundFunctions(_ db: OpaquePointer) throws {
        sqlite3_limit(db, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, likePatternLimit)
        let rc = sqlite3_create_function_v2(
            db, "instr", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, nil,
            { context, _, arguments in
                guard let context, let arguments else { return }
                Connection.instr(context, arguments[0], arguments[1])
            }, nil, nil, nil)
        guard rc == SQLITE_OK else { throw SQLiteError(code: rc, message: "cannot register instr") }
    }

    /// `instr(haystack, needle)` as SQLite computes it, in linear time.
    private static func instr(_ context: OpaquePointer, _ haystack: OpaquePointer?, _ needle: OpaquePointer?) {
        let types = (sqlite3_value_type(haystack), sqlite3_value_type(needle))
        if types.0 == SQLITE_NULL || types.1 == SQLITE_NULL { return sqlite3_result_null(context) }
        let isText = !(types.0 == SQLITE_BLOB && types.1 == SQLITE_BLOB)
        // A blob read as text beside a text is read from a copy, as SQLite does, so that the
        // argument keeps its type for the rest of the statement.
        let mixed = isText && (types.0 == SQLITE_BLOB || types.1 == SQLITE_BLOB)
        let h = mixed ? sqlite3_value_dup(haystack) : haystack
        let n = mixed ? sqlite3_value_dup(needle) : needle
        defer { if mixed { sqlite3_value_free(h); sqlite3_value_free(n) } }
        let hBytes = isText ? UnsafeRawPointer(sqlite3_value_text(h)) : sqlite3_value_blob(h)
        let nBytes = isText ? UnsafeRawPointer(sqlite3_value_text(n)) : sqlite3_value_blob(n)
        let hCount = Int(sqlite3_value_bytes(h)), nCount = Int(sqlite3_value_bytes(n))
        guard nCount > 0 else { return sqlite3_result_int(context, 1) }
        guard let hBytes, let nBytes else {
            // The text of a value SQLite could not make: out of memory.
            return hCount == 0 ? sqlite3_result_int(context, 0) : sqlite3_result_error_nomem(context)
        }
        guard nCount <= hCount else { return sqlite3_result_int(context, 0) }
        let first = nBytes.load(as: UInt8.self)
        // SQLite tries X's first byte and then only the first bytes of characters; a Y that
        // begins inside a character can match only at the start.
        if isText, first & 0xC0 == 0x80 {
            return sqlite3_result_int(context, memcmp(hBytes, nBytes, nCount) == 0 ? 1 : 0)
        }
        guard let found = memmem(hBytes, hCount, nBytes, nCount) else { return sqlite3_result_int(context, 0) }
        let offset = hBytes.distance(to: UnsafeRawPointer(found))
        guard isText else { return sqlite3_result_int64(context, Int64(offset + 1)) }
        var characters: Int64 = 1
        let bytes = hBytes.assumingMemoryBound(to: UInt8.self)
        for i in 0..<offset where i == 0 || bytes[i] & 0xC0 != 0x80 { characters += 1 }
        sqlite3_result_int64(context, characters)
    }
}
