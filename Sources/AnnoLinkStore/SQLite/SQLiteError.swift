import CSQLite

/// A failed SQLite call: the extended result code, SQLite's message and the SQL being run.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The extended result code (`sqlite3_extended_errcode`), e.g. 2067 for a UNIQUE violation.
    public var code: Int32
    /// SQLite's own message (`sqlite3_errmsg`).
    public var message: String
    /// The statement that failed, when there was one.
    public var sql: String?

    public init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// The primary result code (the low byte of the extended code).
    public var primaryCode: Int32 { code & 0xFF }

    /// Whether the error is a constraint violation (NOT NULL, UNIQUE, CHECK, FOREIGN KEY…).
    public var isConstraintViolation: Bool { primaryCode == SQLITE_CONSTRAINT }

    /// Whether the file is not a database, or is damaged.
    public var isNotADatabase: Bool { primaryCode == SQLITE_NOTADB || primaryCode == SQLITE_CORRUPT }

    public var description: String {
        var text = "SQLite error \(code): \(message)"
        if let sql { text += " (in \(sql.prefix(200)))" }
        return text
    }
}
