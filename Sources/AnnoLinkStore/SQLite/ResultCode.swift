import CSQLite

/// A SQLite result code, primary or extended, with a name for each primary code (as GRDB's
/// `ResultCode` does), so that code reads `case .busy, .locked` rather than `case 5, 6`.
///
/// Compare an extended code (`SQLiteError.extendedResultCode`, e.g. 2067 for a UNIQUE
/// violation) with the primary codes through `primaryResultCode`; `switch` matches on
/// equality, so a `case .constraint` does not match 2067 itself.
public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code as SQLite returns it.
    public var rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The primary code: the low byte of an extended code (2067 → 19, `.constraint`).
    public var primaryResultCode: ResultCode { ResultCode(rawValue: rawValue & 0xFF) }

    /// Whether this is a primary code rather than an extended one.
    public var isPrimary: Bool { self == primaryResultCode }

    /// The number and SQLite's English text for it (`sqlite3_errstr`), e.g. `5 (database is locked)`.
    public var description: String { "\(rawValue) (\(String(cString: sqlite3_errstr(rawValue))))" }

    /// `SQLITE_OK`: success.
    public static let ok = ResultCode(rawValue: SQLITE_OK)
    /// `SQLITE_ERROR`: a generic error, e.g. an SQL syntax error or a missing table.
    public static let error = ResultCode(rawValue: SQLITE_ERROR)
    /// `SQLITE_INTERNAL`: a bug in SQLite or in the code around it.
    public static let internalError = ResultCode(rawValue: SQLITE_INTERNAL)
    /// `SQLITE_PERM`: the access mode of a new database file cannot be provided.
    public static let permission = ResultCode(rawValue: SQLITE_PERM)
    /// `SQLITE_ABORT`: an operation was aborted, e.g. by a callback.
    public static let abort = ResultCode(rawValue: SQLITE_ABORT)
    /// `SQLITE_BUSY`: another connection holds the file locked (after the busy timeout).
    public static let busy = ResultCode(rawValue: SQLITE_BUSY)
    /// `SQLITE_LOCKED`: a conflict inside the same connection or shared cache.
    public static let locked = ResultCode(rawValue: SQLITE_LOCKED)
    /// `SQLITE_NOMEM`: a memory allocation failed.
    public static let noMemory = ResultCode(rawValue: SQLITE_NOMEM)
    /// `SQLITE_READONLY`: a write to a database that is read-only (file or connection).
    public static let readOnly = ResultCode(rawValue: SQLITE_READONLY)
    /// `SQLITE_INTERRUPT`: the operation was interrupted (`sqlite3_interrupt`).
    public static let interrupt = ResultCode(rawValue: SQLITE_INTERRUPT)
    /// `SQLITE_IOERR`: the operating system reported an I/O error.
    public static let ioError = ResultCode(rawValue: SQLITE_IOERR)
    /// `SQLITE_CORRUPT`: the database file is damaged.
    public static let corrupt = ResultCode(rawValue: SQLITE_CORRUPT)
    /// `SQLITE_NOTFOUND`: an unknown opcode in a file control, or similar.
    public static let notFound = ResultCode(rawValue: SQLITE_NOTFOUND)
    /// `SQLITE_FULL`: the disk is full.
    public static let full = ResultCode(rawValue: SQLITE_FULL)
    /// `SQLITE_CANTOPEN`: the file (or its journal) cannot be opened.
    public static let cannotOpen = ResultCode(rawValue: SQLITE_CANTOPEN)
    /// `SQLITE_PROTOCOL`: a problem with the file-locking protocol.
    public static let protocolError = ResultCode(rawValue: SQLITE_PROTOCOL)
    /// `SQLITE_EMPTY`: not used by SQLite today.
    public static let empty = ResultCode(rawValue: SQLITE_EMPTY)
    /// `SQLITE_SCHEMA`: the schema changed under a prepared statement.
    public static let schema = ResultCode(rawValue: SQLITE_SCHEMA)
    /// `SQLITE_TOOBIG`: a string or blob is larger than SQLite's limit.
    public static let tooBig = ResultCode(rawValue: SQLITE_TOOBIG)
    /// `SQLITE_CONSTRAINT`: a NOT NULL, UNIQUE, CHECK, FOREIGN KEY or trigger constraint failed.
    public static let constraint = ResultCode(rawValue: SQLITE_CONSTRAINT)
    /// `SQLITE_MISMATCH`: a value of the wrong type, e.g. a non-integer rowid.
    public static let mismatch = ResultCode(rawValue: SQLITE_MISMATCH)
    /// `SQLITE_MISUSE`: the SQLite API was used wrongly.
    public static let misuse = ResultCode(rawValue: SQLITE_MISUSE)
    /// `SQLITE_NOLFS`: the file is larger than the system supports.
    public static let noLargeFileSupport = ResultCode(rawValue: SQLITE_NOLFS)
    /// `SQLITE_AUTH`: the authorizer refused the statement.
    public static let authorization = ResultCode(rawValue: SQLITE_AUTH)
    /// `SQLITE_FORMAT`: not used by SQLite today.
    public static let format = ResultCode(rawValue: SQLITE_FORMAT)
    /// `SQLITE_RANGE`: a parameter index out of range in a bind call.
    public static let range = ResultCode(rawValue: SQLITE_RANGE)
    /// `SQLITE_NOTADB`: the file is not a SQLite database.
    public static let notADatabase = ResultCode(rawValue: SQLITE_NOTADB)
    /// `SQLITE_NOTICE`: a log message, not an error.
    public static let notice = ResultCode(rawValue: SQLITE_NOTICE)
    /// `SQLITE_WARNING`: a log message, not an error.
    public static let warning = ResultCode(rawValue: SQLITE_WARNING)
    /// `SQLITE_ROW`: `sqlite3_step` has a row ready.
    public static let row = ResultCode(rawValue: SQLITE_ROW)
    /// `SQLITE_DONE`: `sqlite3_step` has finished.
    public static let done = ResultCode(rawValue: SQLITE_DONE)
}
