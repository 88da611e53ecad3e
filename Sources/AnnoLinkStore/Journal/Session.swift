import CSQLite

/// Records the rows changed on a connection, as SQLite's session extension does: the only owner
/// of a `sqlite3_session *`.
///
/// The session is attached to every table of the main database; a table filter decides, the
/// first time each table is changed, whether its changes are recorded. SQLite asks the filter
/// again on every change of a table it refused, so the filter must be cheap. Virtual tables
/// (the R-trees) and tables without a primary key are never recorded by SQLite itself.
///
/// The session keeps its database handle alive; it is deleted (`sqlite3session_delete`) when the
/// value goes away. Package-visible so that the benchmarks can time it alone. Not `Sendable`.
package final class Session {
    private let handle: OpaquePointer
    private let database: Database
    /// The filter; the C callback borrows it through an unretained pointer, so the session
    /// keeps it alive for as long as the handle exists.
    private let filter: TableFilter

    /// Starts recording changes of every table of the main database for which `records`
    /// returns true when given the table's name (a NUL-terminated C string, valid only during
    /// the call). Wraps `sqlite3session_create`, `sqlite3session_attach(NULL)` and
    /// `sqlite3session_table_filter`.
    ///
    /// - Throws: `SQLiteError` when SQLite cannot create or attach the session.
    package init(connection: Connection, records: @escaping (UnsafePointer<CChar>) -> Bool) throws {
        var session: OpaquePointer?
        let rc = sqlite3session_create(connection.handle, "main", &session)
        guard rc == SQLITE_OK, let session else { throw connection.lastError(code: rc) }
        self.handle = session
        self.database = connection.database
        self.filter = TableFilter(records: records)
        sqlite3session_table_filter(session, { context, name in
            guard let context, let name else { return 0 }
            let filter = Unmanaged<TableFilter>.fromOpaque(context).takeUnretainedValue()
            return filter.records(name) ? 1 : 0
        }, Unmanaged.passUnretained(filter).toOpaque())
        let attach = sqlite3session_attach(session, nil)
        guard attach == SQLITE_OK else { throw SQLiteError(code: attach, message: "cannot attach the session to the database") }
    }

    deinit { sqlite3session_delete(handle) }

    /// Whether changes are being recorded. Wraps `sqlite3session_enable`.
    var isEnabled: Bool {
        get { sqlite3session_enable(handle, -1) != 0 }
        set { sqlite3session_enable(handle, newValue ? 1 : 0) }
    }

    /// Runs `body` with recording switched off, for writes the session must not see (and must
    /// not pay for, one filter call per row, on large copies).
    func withoutRecording<T>(_ body: () throws -> T) rethrows -> T {
        let was = isEnabled
        isEnabled = false
        defer { isEnabled = was }
        return try body()
    }

    /// Whether nothing has been recorded. Wraps `sqlite3session_isempty`.
    package var isEmpty: Bool { sqlite3session_isempty(handle) != 0 }

    /// The changes recorded so far, as a changeset: for each changed row its primary key and
    /// the values before and after. Wraps `sqlite3session_changeset`.
    ///
    /// - Throws: `SQLiteError` when SQLite cannot build it (out of memory, a table's schema
    ///   changed while recording).
    package func changeset() throws -> Changeset {
        var size: Int32 = 0
        var buffer: UnsafeMutableRawPointer?
        let rc = sqlite3session_changeset(handle, &size, &buffer)
        defer { sqlite3_free(buffer) }
        guard rc == SQLITE_OK else { throw SQLiteError(code: rc, message: "cannot build the changeset: \(String(cString: sqlite3_errstr(rc)))") }
        guard let buffer, size > 0 else { return Changeset(bytes: []) }
        return Changeset(bytes: Array(UnsafeRawBufferPointer(start: buffer, count: Int(size))))
    }
}

@available(*, unavailable)
extension Session: Sendable {}

/// What the session's C table filter calls.
private final class TableFilter {
    let records: (UnsafePointer<CChar>) -> Bool

    init(records: @escaping (UnsafePointer<CChar>) -> Bool) { self.records = records }
}
