import CLibPQ
import Foundation

/// One open connection to a PostgreSQL server: the only owner of its libpq `PGconn`.
///
/// A connection is used from one thread at a time and is not `Sendable`. Statements with
/// parameters are prepared once per SQL text and parameter types (server-side, `PQprepare`)
/// and run with binary parameters and binary results (`PQexecPrepared`); `execute(_:)` runs
/// SQL without parameters (several statements allowed) through the simple protocol. Writes are
/// grouped with `inTransaction(_:)`. Whole tables stream in and out with binary COPY
/// (`copyIn(_:_:)`, `copyOut(query:_:)`).
public final class PostgreSQLConnection {
    let handle: ConnectionHandle
    var pointer: OpaquePointer { handle.pointer }
    /// The connection string as given, parsed.
    public let connectionString: ConnectionString
    private var prepared: [PreparedKey: String] = [:]
    private var nextStatementNumber = 1

    struct PreparedKey: Hashable {
        var sql: String
        var types: [UInt32]
    }

    /// Connects to the database `text` names: a `postgresql://` URI, GDAL's `PG:` form or a
    /// libpq key/value string (`ConnectionString`). The client encoding is UTF-8 and the
    /// server's notices (`NOTICE: … skipping`) are not printed.
    ///
    /// - Throws: `PostgreSQLError` when the string cannot be read or the server cannot be
    ///   reached or refuses the login; its message is libpq's, with the password left out.
    public convenience init(_ text: String) throws {
        try self.init(try ConnectionString(text))
    }

    /// Connects to the database `connectionString` names; see `init(_:)`.
    public init(_ connectionString: ConnectionString) throws {
        self.connectionString = connectionString
        // libpq is loaded on first use (Sources/CLibPQ): a missing library is a typed error here.
        guard annolink_pq_load() == 0 else {
            let reason = annolink_pq_load_error().map { String(cString: $0) } ?? "cannot load libpq (install libpq5)"
            throw PostgreSQLError(sqlState: nil, message: reason, isConnectionFailure: true, isLibraryMissing: true)
        }
        guard let connection = PQconnectdb(connectionString.conninfo) else {
            throw PostgreSQLError(sqlState: nil, message: "out of memory", isConnectionFailure: true)
        }
        handle = ConnectionHandle(pointer: connection)
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.trimmed(String(cString: PQerrorMessage(connection)))
            // A missing database is not a connection failure: libpq reports it as a FATAL
            // message (the SQLSTATE is not available before a connection exists).
            let missing = message.contains("database \"") && message.contains("does not exist")
            throw PostgreSQLError(
                sqlState: missing ? "3D000" : nil,
                message: "cannot connect to \(connectionString.redacted): \(message)", isConnectionFailure: !missing)
        }
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        guard PQsetClientEncoding(connection, "UTF8") == 0 else { throw lastError() }
    }

    static func trimmed(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespacesAndNewlines).split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// The server's version as `PQserverVersion` gives it (150018 for 15.18).
    public var serverVersion: Int { Int(PQserverVersion(pointer)) }

    /// The error of a failed result (its SQLSTATE, message, detail and hint), or the
    /// connection's message when there is no result.
    func error(of result: OpaquePointer?, sql: String?) -> PostgreSQLError {
        guard let result else { return lastError(sql: sql) }
        func field(_ code: UInt8) -> String? {
            PQresultErrorField(result, Int32(code)).map { String(cString: $0) }
        }
        let message = field(UInt8(ascii: "M")) ?? Self.trimmed(String(cString: PQresultErrorMessage(result)))
        let state = field(UInt8(ascii: "C"))
        return PostgreSQLError(
            sqlState: state, message: message.isEmpty ? Self.trimmed(String(cString: PQerrorMessage(pointer))) : message,
            detail: field(UInt8(ascii: "D")), hint: field(UInt8(ascii: "H")), sql: sql,
            isConnectionFailure: state == nil && PQstatus(pointer) != CONNECTION_OK)
    }

    /// The connection's last error message as an error (for calls that return no result).
    func lastError(sql: String? = nil) -> PostgreSQLError {
        PostgreSQLError(sqlState: nil, message: Self.trimmed(String(cString: PQerrorMessage(pointer))), sql: sql,
                        isConnectionFailure: PQstatus(pointer) != CONNECTION_OK)
    }

    /// Checks `result` for success (`COMMAND_OK`, `TUPLES_OK`, or `expected`), clearing it and
    /// throwing when it failed.
    private func check(_ result: OpaquePointer?, sql: String, expected: ExecStatusType? = nil) throws -> OpaquePointer {
        guard let result else { throw lastError(sql: sql) }
        let status = PQresultStatus(result)
        if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == expected { return result }
        let error = error(of: result, sql: sql)
        PQclear(result)
        throw error
    }

    // MARK: Statements

    /// Runs one or more SQL statements without parameters (schema changes, `BEGIN`, …) through
    /// the simple protocol. Returns the last statement's affected-row count.
    ///
    /// - Throws: `PostgreSQLError` with the server's SQLSTATE when a statement fails; the
    ///   statements before it in `sql` stay done unless a transaction surrounds them.
    @discardableResult
    public func execute(_ sql: String) throws -> Int {
        let result = try check(PQexec(pointer, sql), sql: sql)
        defer { PQclear(result) }
        return Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    /// Runs `sql` with `parameters` (`$1`, `$2`, … in the SQL), prepared once per SQL text and
    /// parameter types, binary parameters and binary results, and returns every row.
    ///
    /// A parameter's type is its case's (`PostgreSQLValue.typeOID`); NULL and
    /// `.binary(oid: 0, …)` let the server infer the type from the statement, which is how a
    /// geometry is sent (`EWKB`). Write casts in the SQL where the inference needs help.
    ///
    /// - Throws: `PostgreSQLError` when the statement fails.
    @discardableResult
    public func query(_ sql: String, _ parameters: [PostgreSQLValue] = []) throws -> PostgreSQLResult {
        let name = try preparedName(sql, parameters)
        let result = try withParameters(parameters) { values, lengths, formats in
            try check(PQexecPrepared(pointer, name, Int32(parameters.count), values, lengths, formats, 1), sql: sql)
        }
        defer { PQclear(result) }
        return try PostgreSQLResult(reading: result, binary: true)
    }

    /// Runs `sql` with `parameters` once, unprepared (`PQexecParams`), binary both ways: for
    /// SQL built once (a table's DDL with a literal, a one-off catalogue query).
    @discardableResult
    public func queryOnce(_ sql: String, _ parameters: [PostgreSQLValue] = []) throws -> PostgreSQLResult {
        let types = parameters.map(\.typeOID)
        let result = try withParameters(parameters) { values, lengths, formats in
            try check(PQexecParams(pointer, sql, Int32(parameters.count), types, values, lengths, formats, 1), sql: sql)
        }
        defer { PQclear(result) }
        return try PostgreSQLResult(reading: result, binary: true)
    }

    /// The first value of the first row of `sql`, or nil when it returns no row.
    public func scalar(_ sql: String, _ parameters: [PostgreSQLValue] = []) throws -> PostgreSQLValue? {
        try query(sql, parameters).scalar
    }

    /// The most prepared statements a connection keeps.
    public static let preparedLimit = 256

    /// The name of the server-side prepared statement for `sql` with these parameter types,
    /// preparing it the first time.
    private func preparedName(_ sql: String, _ parameters: [PostgreSQLValue]) throws -> String {
        let types = parameters.map(\.typeOID)
        let key = PreparedKey(sql: sql, types: types)
        if let name = prepared[key] { return name }
        // Statements differ by their text, and a where clause a client sent is part of the
        // text: without a bound the cache, here and in the server, would grow with every new
        // clause. Past the bound the server forgets them all and the cache starts again.
        if prepared.count >= Self.preparedLimit {
            PQclear(try check(PQexec(pointer, "DEALLOCATE ALL"), sql: "DEALLOCATE ALL"))
            prepared.removeAll()
        }
        let name = "annolink_\(nextStatementNumber)"
        nextStatementNumber += 1
        let result = try check(PQprepare(pointer, name, sql, Int32(types.count), types), sql: sql)
        PQclear(result)
        prepared[key] = name
        return name
    }

    /// Calls `body` with libpq's parameter arrays for `parameters`: values, lengths and formats
    /// (all binary), kept alive for the call.
    private func withParameters<T>(
        _ parameters: [PostgreSQLValue],
        _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) throws -> T
    ) throws -> T {
        let encoded = parameters.map(\.binaryBytes)
        let lengths = encoded.map { Int32($0?.count ?? 0) }
        let formats = [Int32](repeating: 1, count: parameters.count)
        // One buffer for all values, so that the pointers stay valid through the call.
        var storage: [UInt8] = []
        var offsets: [Int?] = []
        for bytes in encoded {
            if let bytes {
                offsets.append(storage.count)
                storage.append(contentsOf: bytes)
            } else {
                offsets.append(nil)
            }
        }
        if storage.isEmpty { storage.append(0) }
        return try storage.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            let pointers: [UnsafePointer<CChar>?] = offsets.map { $0.map { base + $0 } }
            return try body(pointers, lengths, formats)
        }
    }

    // MARK: Transactions

    /// Whether a transaction is open (in progress or failed).
    public var isInTransaction: Bool {
        let status = PQtransactionStatus(pointer)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    /// How concurrent transactions see each other's writes (PostgreSQL's isolation levels).
    public enum IsolationLevel: String, Sendable {
        case readCommitted = "READ COMMITTED"
        case repeatableRead = "REPEATABLE READ"
        case serializable = "SERIALIZABLE"
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws
    /// (the error is rethrown). A call inside another transaction runs in a savepoint of it,
    /// rolled back to on a throw, so that services compose; `isolation` applies only to the
    /// outermost call.
    ///
    /// - Throws: what `body` throws; `PostgreSQLError` when BEGIN or COMMIT fails (a commit the
    ///   server turned into a rollback, because a statement failed and its error was caught
    ///   inside `body`, throws too: nothing was written).
    @discardableResult
    public func inTransaction<T>(isolation: IsolationLevel = .readCommitted, _ body: () throws -> T) throws -> T {
        if isInTransaction {
            let savepoint = "annolink_savepoint_\(nextStatementNumber)"
            nextStatementNumber += 1
            try execute("SAVEPOINT \(savepoint)")
            do {
                let result = try body()
                try execute("RELEASE SAVEPOINT \(savepoint)")
                return result
            } catch {
                _ = try? execute("ROLLBACK TO SAVEPOINT \(savepoint); RELEASE SAVEPOINT \(savepoint)")
                throw error
            }
        }
        try execute("BEGIN ISOLATION LEVEL \(isolation.rawValue)")
        let result: T
        do {
            result = try body()
        } catch {
            if isInTransaction { _ = try? execute("ROLLBACK") }
            throw error
        }
        let commit = try check(PQexec(pointer, "COMMIT"), sql: "COMMIT")
        let status = String(cString: PQcmdStatus(commit))
        PQclear(commit)
        guard status == "COMMIT" else {
            throw PostgreSQLError(sqlState: "25P02", message: "the transaction was rolled back: a statement in it failed", sql: "COMMIT")
        }
        return result
    }

    // MARK: COPY

    /// Streams rows into the server with `COPY … FROM STDIN (FORMAT binary)`: `sql` is the COPY
    /// statement, and `body` writes the rows through the `CopyIn` it is given, each value of
    /// the case matching its column's type (`.int8` for bigint, `.binary(oid: 0, bytes:)` with
    /// EWKB for geometry, …). Rows are sent in blocks of about a megabyte while `body` runs.
    /// Returns the number of rows the server stored.
    ///
    /// When `body` throws, the COPY is abandoned (`PQputCopyEnd` with an error message): the
    /// server stores none of its rows, and the error is rethrown.
    ///
    /// - Throws: `PostgreSQLError` when the server refuses the COPY or a row (a value of the
    ///   wrong binary form, a constraint), with the server's SQLSTATE and context.
    @discardableResult
    public func copyIn(_ sql: String, _ body: (CopyIn) throws -> Void) throws -> Int {
        let started = try check(PQexec(pointer, sql), sql: sql, expected: PGRES_COPY_IN)
        PQclear(started)
        let stream = CopyIn(connection: self)
        var failure: (any Error)?
        do {
            try body(stream)
            try stream.finish()
        } catch {
            failure = error
        }
        let endStatus = failure == nil ? PQputCopyEnd(pointer, nil) : PQputCopyEnd(pointer, "annolink abandoned the copy")
        if endStatus != 1, failure == nil { failure = lastError(sql: sql) }
        var rows = 0
        var serverError: PostgreSQLError?
        while let result = PQgetResult(pointer) {
            let status = PQresultStatus(result)
            if status == PGRES_COMMAND_OK {
                rows = Int(String(cString: PQcmdTuples(result))) ?? 0
            } else if serverError == nil {
                serverError = error(of: result, sql: sql)
            }
            PQclear(result)
        }
        // A stream error the server caused is better told by the server's own error.
        if let failure, !(failure is PostgreSQLError) { throw failure }
        if let serverError { throw serverError }
        if let failure { throw failure }
        return rows
    }

    /// Sends `bytes` as COPY data (`PQputCopyData`).
    func putCopyData(_ bytes: [UInt8]) throws {
        let status = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                PQputCopyData(pointer, $0, Int32(buffer.count))
            }
        }
        guard status == 1 else { throw lastError(sql: "COPY") }
    }

    /// The column type OIDs `query` returns, asked of the server without running it
    /// (`PQprepare` of the query, `PQdescribePrepared`).
    public func columnTypes(of query: String) throws -> [UInt32] {
        let name = "annolink_describe_\(nextStatementNumber)"
        nextStatementNumber += 1
        PQclear(try check(PQprepare(pointer, name, query, 0, nil), sql: query))
        defer { _ = try? execute("DEALLOCATE \(name)") }
        let description = try check(PQdescribePrepared(pointer, name), sql: query)
        defer { PQclear(description) }
        return (0..<PQnfields(description)).map { UInt32(PQftype(description, $0)) }
    }

    /// Streams the rows of `query` (a SELECT, or a table name in parentheses' stead: any query
    /// COPY accepts) out of the server with `COPY (query) TO STDOUT (FORMAT binary)`, calling
    /// `row` with each row's values decoded by the column types the server describes. Returns
    /// the number of rows.
    ///
    /// - Throws: `PostgreSQLError` when the query fails or the stream cannot be read; what
    ///   `row` throws (the rest of the stream is then read and dropped, so the connection stays
    ///   usable).
    @discardableResult
    public func copyOut(query: String, _ row: ([PostgreSQLValue]) throws -> Void) throws -> Int {
        let types = try columnTypes(of: query)
        let sql = "COPY (\(query)) TO STDOUT (FORMAT binary)"
        PQclear(try check(PQexec(pointer, sql), sql: sql, expected: PGRES_COPY_OUT))
        let reader = BinaryCopy.Reader(columnTypes: types)
        var count = 0
        var failure: (any Error)?
        while true {
            var buffer: UnsafeMutablePointer<CChar>?
            let length = PQgetCopyData(pointer, &buffer, 0)
            if length == -1 { break }
            if length == -2 { failure = failure ?? lastError(sql: sql); break }
            guard let buffer else { continue }
            defer { PQfreemem(buffer) }
            if failure != nil { continue }
            do {
                try reader.consume(UnsafeRawBufferPointer(start: buffer, count: Int(length))) { values in
                    try row(values)
                    count += 1
                }
            } catch {
                failure = error
            }
        }
        var serverError: PostgreSQLError?
        while let result = PQgetResult(pointer) {
            if PQresultStatus(result) != PGRES_COMMAND_OK, serverError == nil { serverError = error(of: result, sql: sql) }
            PQclear(result)
        }
        if let serverError { throw serverError }
        if let failure { throw failure }
        guard reader.finished else { throw BinaryCopy.Reader.malformed("the stream ended without its trailer") }
        return count
    }
}

@available(*, unavailable)
extension PostgreSQLConnection: Sendable {}

/// The rows of one `COPY … FROM STDIN (FORMAT binary)`, buffered and sent in blocks.
public final class CopyIn {
    private unowned let connection: PostgreSQLConnection
    private var buffer: [UInt8]
    /// The rows written so far.
    public private(set) var rowCount = 0
    static let blockSize = 1 << 20

    init(connection: PostgreSQLConnection) {
        self.connection = connection
        buffer = BinaryCopy.header
        buffer.reserveCapacity(Self.blockSize + (Self.blockSize >> 2))
    }

    /// Writes one row: one value per column of the COPY, in its order.
    ///
    /// - Throws: `PostgreSQLError` when the connection fails while a block is sent.
    public func write(_ values: [PostgreSQLValue]) throws {
        BinaryCopy.appendTuple(values, to: &buffer)
        rowCount += 1
        if buffer.count >= Self.blockSize {
            try connection.putCopyData(buffer)
            buffer.removeAll(keepingCapacity: true)
        }
    }

    /// Sends the trailer and what is left in the buffer.
    func finish() throws {
        buffer.append(contentsOf: BinaryCopy.trailer)
        try connection.putCopyData(buffer)
        buffer.removeAll()
    }
}

@available(*, unavailable)
extension CopyIn: Sendable {}

/// The one owner of a `PGconn *`: closed (`PQfinish`) when the last reference goes.
final class ConnectionHandle {
    let pointer: OpaquePointer

    init(pointer: OpaquePointer) { self.pointer = pointer }

    deinit { PQfinish(pointer) }
}

@available(*, unavailable)
extension ConnectionHandle: Sendable {}
