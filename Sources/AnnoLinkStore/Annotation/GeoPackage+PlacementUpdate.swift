import CSQLite

extension GeoPackage {
    /// Rewrites the placement of many annotation rows — footprint, text, anchor, angle, status:
    /// `annotationPlacementColumns` — with one `UPDATE` statement over the rows of `table`
    /// that `condition` selects (an SQL condition on the annotation table, its rows named `a`),
    /// instead of an `UPDATE` per row. Each row is handed to `regenerate` with the values of
    /// `originColumns` of its origin feature in `originTable` (NULL when there is none); the row
    /// it returns is written, nil leaves the row as it is. Every row written is reported to
    /// `move`, when given, with its values before and after; `progress` is told the count of rows
    /// done every 4,096 rows.
    ///
    /// With `scanning` SQLite reads the whole table (`NOT INDEXED`) instead of finding the rows
    /// through an index: cheaper when they are most of it. SQLite does the scan and the writes; `regenerate` runs inside the statement, called
    /// through an SQL function once per row (for the first placement column of the table, SQLite
    /// computing the new columns in the table's column order), and the other columns take what
    /// it returned.
    ///
    /// - Returns: the number of rows written.
    /// - Throws: whatever `regenerate` or `move` throws (the statement stops and nothing it did
    ///   is kept by the caller's transaction rolling back); `SQLiteError`.
    @discardableResult
    public func updateAnnotationPlacements(
        in table: FeatureTable, scanning: Bool = false, rowsWhere condition: String, originTable: FeatureTable, originColumns: [String],
        move: JournalMove?, progress: (Int) -> Void = { _ in },
        _ regenerate: (_ row: AnnotationRow, _ origin: [SQLValue]) throws -> AnnotationRow?
    ) throws -> Int {
        try withoutActuallyEscaping(regenerate) { regenerate in
            try withoutActuallyEscaping(progress) { progress in
                let update = PlacementUpdate(package: self, table: table, move: move, regenerate: regenerate, progress: progress)
                return try update.run(rowsWhere: condition, scanning: scanning, originTable: originTable, originColumns: originColumns)
            }
        }
    }
}

/// One run of `updateAnnotationPlacements`: the state its SQL functions share while the
/// statement steps.
private final class PlacementUpdate {
    let package: GeoPackage
    let table: FeatureTable
    let move: JournalMove?
    let regenerate: (AnnotationRow, [SQLValue]) throws -> AnnotationRow?
    let progress: (Int) -> Void
    /// The annotation fid whose new values `placed` holds.
    var placedFid: Int64?
    var placed: [SQLValue] = []
    var written = 0
    /// The error that stopped the statement, to be thrown instead of SQLite's copy of it.
    var failure: Error?

    init(package: GeoPackage, table: FeatureTable, move: JournalMove?, regenerate: @escaping (AnnotationRow, [SQLValue]) throws -> AnnotationRow?,
         progress: @escaping (Int) -> Void) {
        self.package = package
        self.table = table
        self.move = move
        self.regenerate = regenerate
        self.progress = progress
    }

    static let computeName = "annolink_place_row"
    static let placedName = "annolink_placed_value"

    func run(rowsWhere condition: String, scanning: Bool, originTable: FeatureTable, originColumns: [String]) throws -> Int {
        let connection = package.connection
        let columns = GeoPackage.annotationPlacementColumns.map(\.name)
        // The first of the columns in the table's order computes the row; SQLite evaluates the
        // new values in column order (and `placed` checks the fid, so another order would fail
        // loudly rather than write another row's values).
        let order = try connection.rows("SELECT lower(name) FROM pragma_table_info(?) ORDER BY cid", [.text(table.name)]).compactMap { $0[0].textValue }
        guard let first = columns.indices.min(by: { (order.firstIndex(of: columns[$0].lowercased()) ?? .max) < (order.firstIndex(of: columns[$1].lowercased()) ?? .max) }) else {
            return 0
        }
        let o = quoteIdentifier(originTable.name), key = quoteIdentifier(originTable.primaryKey)
        let origin = originColumns.map { "(SELECT o.\(quoteIdentifier($0)) FROM \(o) o WHERE o.\(key) = a.FeatureID)" }
        let rowArguments = GeoPackage.annotationColumnNames.map { "a." + quoteIdentifier($0) } + origin
        let assignments = columns.indices.map { index in
            let value = index == first
                ? "\(Self.computeName)(\(index), \(rowArguments.joined(separator: ", ")))"
                : "\(Self.placedName)(a.fid, \(index))"
            return "\(quoteIdentifier(columns[index])) = \(value)"
        }

        let computeArguments = Int32(1 + rowArguments.count)
        try register(Self.computeName, arguments: computeArguments) { update, arguments in try update.compute(arguments) }
        try register(Self.placedName, arguments: 2) { update, arguments in try update.placedValue(arguments) }
        defer {
            // Deleting the functions releases their boxes.
            sqlite3_create_function_v2(connection.handle, Self.computeName, computeArguments, SQLITE_UTF8, nil, nil, nil, nil, nil)
            sqlite3_create_function_v2(connection.handle, Self.placedName, 2, SQLITE_UTF8, nil, nil, nil, nil, nil)
        }
        let statement = try connection.prepareUncached("""
            UPDATE \(quoteIdentifier(table.name)) AS a\(scanning ? " NOT INDEXED" : "") SET \(assignments.joined(separator: ", ")) WHERE \(condition)
            """)
        do {
            while try statement.step() {}
        } catch {
            throw failure ?? error
        }
        return written
    }

    /// `annolink_place_row(column, <annotation columns>, <origin columns>)`: regenerates the row
    /// and returns its new value of placement column `column`.
    private func compute(_ arguments: FunctionArguments) throws -> SQLValue {
        let column = Int(arguments.int64(0))
        let row = FunctionArguments(values: arguments.values + 1, count: arguments.count - 1)
        let existing = try package.annotationRow(from: row, table: table, withFootprint: false)
        let fid = existing.fid ?? 0
        let indices = Self.placementIndices
        let before = indices.map(row.value)
        let origin = (GeoPackage.annotationColumnCount..<row.count).map(row.value)
        if let regenerated = try regenerate(existing, origin) {
            placed = package.placementValues(of: regenerated, in: table)
            written += 1
            if written % 4096 == 0 { progress(written) }
            try move?.changed(key: fid, before: before, after: placed)
        } else {
            placed = before
        }
        placedFid = fid
        return placed[column]
    }

    /// `annolink_placed_value(fid, column)`: the new value of a placement column of the row
    /// `annolink_place_row` computed last.
    private func placedValue(_ arguments: FunctionArguments) throws -> SQLValue {
        let fid = arguments.int64(0)
        guard placedFid == fid else {
            throw SQLiteError(code: SQLITE_INTERNAL, message: "annotation row \(fid) of \(table.name) was not placed before its columns were read")
        }
        return placed[Int(arguments.int64(1))]
    }

    /// Where the placement columns are among `annotationColumnNames`.
    static let placementIndices = GeoPackage.annotationPlacementColumns.map { column in
        GeoPackage.annotationColumnNames.firstIndex(of: column.name)!
    }

    private typealias Body = (PlacementUpdate, FunctionArguments) throws -> SQLValue

    /// Registers `name` to call `body` on this run. A thrown error is kept in `failure` and
    /// stops the statement.
    private func register(_ name: String, arguments: Int32, body: @escaping Body) throws {
        let box = Unmanaged.passRetained(FunctionBox(body, update: self)).toOpaque()
        let rc = sqlite3_create_function_v2(
            package.connection.handle, name, arguments, SQLITE_UTF8, box,
            { sqlContext, count, values in
                guard let sqlContext, let raw = sqlite3_user_data(sqlContext) else { return }
                let function = Unmanaged<FunctionBox>.fromOpaque(raw).takeUnretainedValue()
                guard let values else { return }
                let update = function.update
                do {
                    sqlite3_result(sqlContext, try function.body(update, FunctionArguments(values: values, count: Int(count))))
                } catch {
                    update.failure = update.failure ?? error
                    sqlite3_result_error(sqlContext, "\(error)", -1)
                }
            }, nil, nil, { raw in raw.map { Unmanaged<FunctionBox>.fromOpaque($0).release() } })
        guard rc == SQLITE_OK else { throw package.connection.lastError(sql: name, code: rc) }
    }

    /// What an SQL function's user data points at: its body and the run it belongs to.
    private final class FunctionBox {
        let body: Body
        /// The run, which outlives its functions (they are deleted when it ends).
        unowned(unsafe) let update: PlacementUpdate
        init(_ body: @escaping Body, update: PlacementUpdate) {
            self.body = body
            self.update = update
        }
    }
}

/// Sets the result of an SQL function to `value`.
private func sqlite3_result(_ context: OpaquePointer, _ value: SQLValue) {
    switch value {
    case .null: sqlite3_result_null(context)
    case .integer(let v): sqlite3_result_int64(context, v)
    case .real(let v): sqlite3_result_double(context, v)
    case .text(let s): sqlite3_result_text(context, s, -1, annolink_sqlite_transient())
    case .blob(let b): b.withUnsafeBytes { sqlite3_result_blob64(context, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), UInt64($0.count), annolink_sqlite_transient()) }
    }
}
