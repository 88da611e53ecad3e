/// A failed PostgreSQL call: the server's SQLSTATE and message, or libpq's own message when the
/// failure never reached a server (no connection, a malformed connection string).
public struct PostgreSQLError: Error, Sendable, CustomStringConvertible {
    /// The five-character SQLSTATE (`23505` unique violation, `40001` serialization failure, …);
    /// nil when libpq failed before a server answered.
    public var sqlState: String?
    /// The primary message (`PG_DIAG_MESSAGE_PRIMARY`), or libpq's message.
    public var message: String
    /// The server's detail line, when it gave one.
    public var detail: String?
    /// The server's hint, when it gave one.
    public var hint: String?
    /// The statement that failed, when there was one.
    public var sql: String?
    /// Whether the connection could not be made or was lost (no SQLSTATE, or class 08 but 08P01).
    public var isConnectionFailure: Bool
    /// Whether libpq itself, loaded on first use, cannot be loaded (the message names its package).
    public var isLibraryMissing: Bool

    /// An error with `sqlState` and `message`.
    public init(sqlState: String?, message: String, detail: String? = nil, hint: String? = nil, sql: String? = nil,
                isConnectionFailure: Bool = false, isLibraryMissing: Bool = false) {
        self.isLibraryMissing = isLibraryMissing
        self.sqlState = sqlState
        self.message = message
        self.detail = detail
        self.hint = hint
        self.sql = sql
        // Class 08 is connection exceptions, but 08P01 (protocol violation) is a value sent in
        // the wrong binary form, on a connection that stays up.
        self.isConnectionFailure = isConnectionFailure || (sqlState.map { $0.hasPrefix("08") && $0 != "08P01" } ?? false)
    }

    /// The SQLSTATE's class: its first two characters (`23` integrity constraint violation).
    public var sqlStateClass: String? { sqlState.map { String($0.prefix(2)) } }

    /// What kind of failure this is, in the terms the command line reports (docs/postgis.md).
    public var kind: Kind {
        if isLibraryMissing { return .libraryMissing }
        if isConnectionFailure { return .unavailable }
        guard let sqlState else { return .other }
        switch sqlState {
        case "3D000": return .noSuchDatabase
        case "42P07", "42710", "42P06": return .exists
        case "40001", "40P01", "55P03", "57014": return .conflict
        case "42501": return .permission
        case "08P01", "22P03": return .invalidData
        default: break
        }
        switch sqlStateClass {
        case "28": return .permission
        case "23", "22": return .invalidData
        case "53", "57", "58": return .unavailable
        case "42": return .invalidStatement
        default: return .other
        }
    }

    /// Failure kinds, each with its own exit status in the command line.
    public enum Kind: Sendable {
        /// libpq cannot be loaded: install it.
        case libraryMissing
        /// No server, a lost connection, or the server is out of resources or shutting down: try later.
        case unavailable
        /// The database named in the connection string does not exist (3D000).
        case noSuchDatabase
        /// Login or privilege refused (class 28, 42501).
        case permission
        /// A table, schema or object exists already (42P07, 42710, 42P06).
        case exists
        /// A serialization failure, deadlock, lock timeout or cancelled statement: the same
        /// request may succeed when tried again (40001, 40P01, 55P03, 57014).
        case conflict
        /// A value the column or constraint refuses (classes 22 and 23).
        case invalidData
        /// SQL the server refuses: unknown table or column, syntax (class 42).
        case invalidStatement
        /// Anything else.
        case other
    }

    public var description: String {
        var text = "PostgreSQL"
        if let sqlState { text += " error \(sqlState)" }
        text += ": \(message)"
        if let detail { text += " (\(detail))" }
        if let hint { text += "; hint: \(hint)" }
        if let sql { text += " (in \(sql.prefix(200)))" }
        return text
    }
}
