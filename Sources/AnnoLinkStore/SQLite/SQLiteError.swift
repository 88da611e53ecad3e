/// A failed SQLite call: the result code, SQLite's message and the SQL being run.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The extended result code (`sqlite3_extended_errcode`), e.g. 2067 for a UNIQUE violation.
    public var extendedResultCode: ResultCode
    /// SQLite's own message (`sqlite3_errmsg`).
    public var message: String
    /// The statement that failed, when there was one.
    public var sql: String?

    /// An error with `code`, primary or extended, as a SQLite call returned it.
    public init(code: Int32, message: String, sql: String? = nil) {
        self.init(ResultCode(rawValue: code), message: message, sql: sql)
    }

    /// An error with `code`, primary or extended.
    public init(_ code: ResultCode, message: String, sql: String? = nil) {
        self.extendedResultCode = code
        self.message = message
        self.sql = sql
    }

    /// The primary result code, e.g. `.constraint` for a UNIQUE violation.
    public var resultCode: ResultCode { extendedResultCode.primaryResultCode }

    /// Whether the file is not a database, or is damaged.
    public var isNotADatabase: Bool { resultCode == .notADatabase || resultCode == .corrupt }

    public var description: String {
        var text = "SQLite error \(extendedResultCode.rawValue): \(message)"
        if let sql { text += " (in \(sql.prefix(200)))" }
        return text
    }
}
