import CSQLite

extension Connection {
    /// Rewrites `columns` of the rows of `table` that `condition` selects with one `UPDATE`
    /// statement, the new values computed in Swift: for each row SQLite evaluates `inputs` (SQL
    /// expressions over the row, which is named `a`, and anything else) and hands them to
    /// `compute`, which returns the row's new values of `columns`, in that order (its current
    /// values, which it can ask for among `inputs`, to leave it as it is). SQLite does the scan
    /// and the writes; there is no statement per row.
    ///
    /// `compute` runs inside an SQL function called for the first of `columns` in the table's
    /// column order, SQLite computing new values in that order; the other columns take what it
    /// returned, checked by key, so another order would fail loudly instead of writing another
    /// row's values. With `scanning` the whole table is read (`NOT INDEXED`) instead of finding
    /// the rows through an index: cheaper when they are most of it.
    ///
    /// - Parameter key: the table's `INTEGER PRIMARY KEY` column.
    /// - Throws: what `compute` throws (the statement stops; the caller's transaction rolls back
    ///   what it did); `SQLiteError`.
    public func updateComputed(
        table: String, key: String, columns: [String], rowsWhere condition: String, scanning: Bool = false, inputs: [String],
        _ compute: (_ key: Int64, _ inputs: FunctionArguments) throws -> [SQLValue]
    ) throws {
        let order = try rows("SELECT lower(name) FROM pragma_table_info(?) ORDER BY cid", [.text(table)]).compactMap { $0[0].textValue }
        let positions = columns.map { order.firstIndex(of: $0.lowercased()) ?? .max }
        guard let first = columns.indices.min(by: { positions[$0] < positions[$1] }) else { return }
        return try withoutActuallyEscaping(compute) { compute in
            let update = ComputedUpdate(compute: compute)
            let computeName = "annolink_computed_row", valueName = "annolink_computed_value"
            let assignments = columns.indices.map { index in
                let k = "a.\(quoteIdentifier(key))"
                let value = index == first
                    ? "\(computeName)(\(index), \(k), \(inputs.joined(separator: ", ")))"
                    : "\(valueName)(\(index), \(k))"
                return "\(quoteIdentifier(columns[index])) = \(value)"
            }
            let computeArguments = Int32(2 + inputs.count)
            try register(computeName, arguments: computeArguments, update, computesRow: true)
            try register(valueName, arguments: 2, update, computesRow: false)
            defer {
                // Deleting the functions releases what they hold.
                sqlite3_create_function_v2(handle, computeName, computeArguments, SQLITE_UTF8, nil, nil, nil, nil, nil)
                sqlite3_create_function_v2(handle, valueName, 2, SQLITE_UTF8, nil, nil, nil, nil, nil)
            }
            let statement = try prepareUncached("""
                UPDATE \(quoteIdentifier(table)) AS a\(scanning ? " NOT INDEXED" : "") SET \(assignments.joined(separator: ", ")) WHERE \(condition)
                """)
            do {
                while try statement.step() {}
            } catch {
                throw update.failure ?? error
            }
        }
    }

    /// Registers `name` to call `update.row` (`computesRow`) or `update.value` while a statement
    /// runs. A thrown error is kept in `update.failure` and stops the statement.
    ///
    /// `SQLITE_DIRECTONLY`: only the statement annolink writes may call it, never a trigger or a
    /// view of the file (a trigger of the annotation table calling it with a column index of
    /// its choosing stopped a bulk `set` with SIGILL, issue 25); SQLite refuses such a trigger
    /// when the statement is prepared ("unsafe use of …").
    private func register(_ name: String, arguments: Int32, _ update: ComputedUpdate, computesRow: Bool) throws {
        let box = Unmanaged.passRetained(ComputedUpdate.Box(update: update, computesRow: computesRow)).toOpaque()
        let rc = sqlite3_create_function_v2(
            handle, name, arguments, SQLITE_UTF8 | SQLITE_DIRECTONLY, box,
            { context, count, values in
                guard let context, let raw = sqlite3_user_data(context), let values else { return }
                let box = Unmanaged<ComputedUpdate.Box>.fromOpaque(raw).takeUnretainedValue()
                let arguments = FunctionArguments(values: values, count: Int(count))
                do {
                    setResult(context, try box.computesRow ? box.update.row(arguments) : box.update.value(arguments))
                } catch {
                    box.update.failure = box.update.failure ?? error
                    sqlite3_result_error(context, "\(error)", -1)
                }
            }, nil, nil, { raw in raw.map { Unmanaged<ComputedUpdate.Box>.fromOpaque($0).release() } })
        guard rc == SQLITE_OK else { throw lastError(sql: name, code: rc) }
    }
}

/// One run of `Connection.updateComputed`: what its two SQL functions share while the
/// statement steps.
private final class ComputedUpdate {
    /// What an SQL function's user data points at.
    final class Box {
        /// The run, which outlives its functions (they are deleted when it ends).
        unowned(unsafe) let update: ComputedUpdate
        let computesRow: Bool
        init(update: ComputedUpdate, computesRow: Bool) {
            self.update = update
            self.computesRow = computesRow
        }
    }

    let compute: (Int64, FunctionArguments) throws -> [SQLValue]
    /// The key of the row whose new values `values` holds.
    var currentKey: Int64?
    var values: [SQLValue] = []
    /// The error that stopped the statement, thrown instead of SQLite's copy of it.
    var failure: Error?

    init(compute: @escaping (Int64, FunctionArguments) throws -> [SQLValue]) {
        self.compute = compute
    }

    /// `annolink_computed_row(column, key, inputs…)`: computes the row and returns its new
    /// value of column `column`.
    func row(_ arguments: FunctionArguments) throws -> SQLValue {
        guard arguments.count >= 2, sqlite3_value_type(arguments.values[1]) == SQLITE_INTEGER else {
            throw SQLiteError(.internalError, message: "annolink_computed_row was called with arguments annolink did not write")
        }
        let key = arguments.int64(1)
        values = try compute(key, arguments.dropFirst(2))
        currentKey = key
        return try value(arguments)
    }

    /// `annolink_computed_value(column, key)`: column `column` of the row computed last.
    ///
    /// Every argument is checked: a call annolink did not write (it is direct-only, so none
    /// should reach here) is an internal error of the statement, never a trap.
    func value(_ arguments: FunctionArguments) throws -> SQLValue {
        guard arguments.count >= 2, sqlite3_value_type(arguments.values[0]) == SQLITE_INTEGER,
              sqlite3_value_type(arguments.values[1]) == SQLITE_INTEGER else {
            throw SQLiteError(.internalError, message: "annolink_computed_value was called with arguments annolink did not write")
        }
        let key = arguments.int64(1)
        guard currentKey == key else {
            throw SQLiteError(.internalError, message: "row \(key) was not computed before its columns were read")
        }
        let column = arguments.int64(0)
        guard column >= 0, column < Int64(values.count) else {
            throw SQLiteError(.internalError, message: "column \(column) of row \(key) was asked for, but \(values.count) were computed")
        }
        return values[Int(column)]
    }
}

/// Sets the result of an SQL function to `value`.
private func setResult(_ context: OpaquePointer, _ value: SQLValue) {
    switch value {
    case .null: sqlite3_result_null(context)
    case .integer(let v): sqlite3_result_int64(context, v)
    case .real(let v): sqlite3_result_double(context, v)
    case .text(let s): sqlite3_result_text(context, s, -1, annolink_sqlite_transient())
    case .blob(let b):
        b.withUnsafeBytes {
            sqlite3_result_blob64(context, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), UInt64($0.count), annolink_sqlite_transient())
        }
    }
}
