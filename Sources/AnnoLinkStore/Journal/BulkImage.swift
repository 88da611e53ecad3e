/// The before and after images of one table of a bulk entry: two tables,
/// `annolink_journal_<entry>_<sequence>_before` and `…_after`, each holding the key and the
/// declared columns of the declared rows. Every operation is a set-based SQL statement.
struct BulkImage {
    /// A table and the columns a bulk change declares.
    struct Target {
        /// The table's name as the schema spells it.
        var table: String
        /// Its `INTEGER PRIMARY KEY` column.
        var key: String
        /// The declared columns, as the schema spells them, without the key.
        var columns: [String]

        /// Checks `table` and `columns` against the schema.
        ///
        /// - Throws: `JournalError.unsupportedBulkChange`.
        init(table requested: String, columns requestedColumns: [String], on connection: Connection) throws {
            func refuse(_ reason: String) -> JournalError { .unsupportedBulkChange(table: requested, reason: reason) }
            guard let name = try connection.scalarText(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND lower(name) = lower(?)", [.text(requested)]) else {
                throw refuse("there is no such table")
            }
            guard JournalSchema.isRecorded(name) else { throw refuse("it is a table of the journal or of a spatial index") }
            let info = try connection.rows("SELECT name, type, pk FROM pragma_table_info(?) ORDER BY cid", [.text(name)])
            let keys = info.filter { ($0[2].integerValue ?? 0) > 0 }
            guard keys.count == 1, let key = keys[0][0].textValue, keys[0][1].textValue?.uppercased() == "INTEGER" else {
                throw refuse("it has no INTEGER PRIMARY KEY")
            }
            var columns: [String] = []
            for requestedColumn in requestedColumns {
                guard let column = info.compactMap({ $0[0].textValue }).first(where: { $0.lowercased() == requestedColumn.lowercased() }) else {
                    throw refuse("it has no column '\(requestedColumn)'")
                }
                guard column.lowercased() != key.lowercased() else { throw refuse("its key '\(key)' cannot be changed by a bulk edit") }
                if !columns.contains(column) { columns.append(column) }
            }
            guard !columns.isEmpty else { throw refuse("no column was declared") }
            self.table = name
            self.key = key
            self.columns = columns
        }

        init(table: String, key: String, columns: [String]) {
            self.table = table
            self.key = key
            self.columns = columns
        }
    }

    var target: Target
    var entry: Int64
    var sequence: Int
    var beforeTable: String
    var afterTable: String
    /// The number of rows declared.
    var rowCount: Int
    /// The table's row count and highest key when the image was taken, to detect inserts and
    /// deletes at the end of the entry.
    var tableRowCount: Int64 = 0
    var highestKey: Int64?
    /// For an image of whole rows (`JournalRecorder.captureRows`): the condition that selected
    /// them, evaluated again at the end of the entry to find the rows the edit inserted. Rows
    /// of such an image may be inserted and deleted; nil for an image of declared columns,
    /// whose rows may only change.
    var rowsInsertedWhere: (condition: String, bindings: [SQLValue])?

    private var quotedTable: String { quoteIdentifier(target.table) }
    private var quotedKey: String { quoteIdentifier(target.key) }
    private var columnList: String { target.columns.map(quoteIdentifier).joined(separator: ", ") }

    /// Copies the declared rows into a new before-image table and records the image in
    /// `annolink_journal_images`.
    static func capture(_ target: Target, entry: Int64, sequence: Int, rowsWhere condition: String, bindings: [SQLValue],
                        wholeRows: Bool = false, on connection: Connection) throws -> BulkImage {
        var image = try begin(target, entry: entry, sequence: sequence, on: connection)
        if wholeRows { image.rowsInsertedWhere = (condition, bindings) }
        let copy = try connection.prepareUncached("""
            INSERT INTO \(quoteIdentifier(image.beforeTable)) SELECT \(image.quotedKey), \(image.columnList) FROM \(image.quotedTable)
            WHERE (\(condition)) ORDER BY \(image.quotedKey)
            """)
        try copy.bind(bindings)
        while try copy.step() {}
        image.rowCount = try connection.scalarInt("SELECT count(*) FROM \(quoteIdentifier(image.beforeTable))").map(Int.init) ?? 0
        try connection.run("""
            INSERT INTO annolink_journal_images (entry_id, sequence, table_name, before_table, after_table, row_count)
            VALUES (?, ?, ?, ?, ?, ?)
            """, [.integer(entry), .integer(Int64(sequence)), .text(target.table), .text(image.beforeTable), .text(image.afterTable),
                  .integer(Int64(image.rowCount))])
        return image
    }

    /// An image with an empty before-image table, for rows to be added one by one (the
    /// exceptions of a `MoveImage`); not listed in `annolink_journal_images`.
    static func begin(_ target: Target, entry: Int64, sequence: Int, on connection: Connection) throws -> BulkImage {
        var image = BulkImage(
            target: target, entry: entry, sequence: sequence,
            beforeTable: JournalSchema.imageTable(entry: entry, sequence: sequence, phase: "before"),
            afterTable: JournalSchema.imageTable(entry: entry, sequence: sequence, phase: "after"), rowCount: 0)
        try image.createImageTable(image.beforeTable, on: connection)
        (image.tableRowCount, image.highestKey) = try image.tableShape(on: connection)
        return image
    }

    /// A table with the key as `INTEGER PRIMARY KEY` and the declared columns without a
    /// declared type, so that values are kept exactly as they are (no affinity conversion).
    private func createImageTable(_ name: String, on connection: Connection) throws {
        try connection.execute("CREATE TABLE \(quoteIdentifier(name)) (\(quotedKey) INTEGER PRIMARY KEY, \(columnList))")
        try JournalSchema.register(name, on: connection)
    }

    /// The table's row count and highest key. Two statements: a lone `count(*)` is SQLite's
    /// page-counting fast path and `max(key)` one descent of the b-tree, where the two in one
    /// `SELECT` stepped through every row (6 % of a bulk move's instructions, callgrind).
    private func tableShape(on connection: Connection) throws -> (Int64, Int64?) {
        let count = try connection.scalarInt("SELECT count(*) FROM \(quotedTable)") ?? 0
        let highest = try connection.rows("SELECT max(\(quotedKey)) FROM \(quotedTable)")[0][0].integerValue
        return (count, highest)
    }

    /// Copies the declared rows as they are now into the after-image table, and checks that no
    /// row of the table was inserted or deleted.
    ///
    /// - Throws: `JournalError.unsupportedBulkChange` when rows were inserted or deleted.
    func captureAfter(on connection: Connection) throws {
        func refuse(_ reason: String) -> JournalError { .unsupportedBulkChange(table: target.table, reason: reason) }
        try createImageTable(afterTable, on: connection)
        if let (condition, bindings) = rowsInsertedWhere {
            try captureWholeRowsAfter(condition: condition, bindings: bindings, on: connection)
            return
        }
        let copied = try connection.prepareUncached("""
            INSERT INTO \(quoteIdentifier(afterTable))
            SELECT b.\(quotedKey), \(target.columns.map { "t.\(quoteIdentifier($0))" }.joined(separator: ", "))
            FROM \(quoteIdentifier(beforeTable)) AS b JOIN \(quotedTable) AS t ON t.\(quotedKey) = b.\(quotedKey)
            ORDER BY b.\(quotedKey)
            """)
        while try copied.step() {}
        let after = try connection.scalarInt("SELECT count(*) FROM \(quoteIdentifier(afterTable))") ?? 0
        if after != Int64(rowCount) { throw refuse("\(Int64(rowCount) - after) of the declared rows were deleted, which a bulk edit cannot record") }
        let (count, highest) = try tableShape(on: connection)
        if count != tableRowCount || highest != highestKey {
            throw refuse("rows were inserted or deleted, which a bulk edit cannot record")
        }
    }

    /// `captureAfter` for an image of whole rows: the after-image holds the declared rows that
    /// are still there and the rows the condition selects now (those the edit inserted). Every
    /// row inserted into the table must be among them, and the row count must add up.
    private func captureWholeRowsAfter(condition: String, bindings: [SQLValue], on connection: Connection) throws {
        func refuse(_ reason: String) -> JournalError { .unsupportedBulkChange(table: target.table, reason: reason) }
        let b = quoteIdentifier(beforeTable), a = quoteIdentifier(afterTable)
        let copied = try connection.prepareUncached("""
            INSERT INTO \(a) SELECT \(quotedKey), \(columnList) FROM \(quotedTable)
            WHERE \(quotedKey) IN (SELECT \(quotedKey) FROM \(b)) OR (\(condition)) ORDER BY \(quotedKey)
            """)
        try copied.bind(bindings)
        while try copied.step() {}
        let counts = try connection.rows("""
            SELECT (SELECT count(*) FROM \(b) WHERE \(quotedKey) NOT IN (SELECT \(quotedKey) FROM \(a))),
                   (SELECT count(*) FROM \(a) WHERE \(quotedKey) NOT IN (SELECT \(quotedKey) FROM \(b))),
                   (SELECT count(*) FROM \(quotedTable)),
                   (SELECT count(*) FROM \(quotedTable) WHERE \(quotedKey) > ?1 AND \(quotedKey) NOT IN (SELECT \(quotedKey) FROM \(a)))
            """, [.integer(highestKey ?? Int64.min)])[0].map { $0.integerValue ?? 0 }
        let (deleted, inserted, count, strayNew) = (counts[0], counts[1], counts[2], counts[3])
        if count != tableRowCount - deleted + inserted || strayNew != 0 {
            throw refuse("rows outside the declared ones were inserted or deleted, which a bulk edit cannot record")
        }
    }

    /// The rows in image `other` but not in image `source`: those to delete when `source` is
    /// written back. Always none for an image of declared columns (its rows can only change).
    private func keysOnlyIn(_ other: String, notIn source: String) -> String {
        "SELECT \(quotedKey) FROM \(quoteIdentifier(other)) WHERE \(quotedKey) NOT IN (SELECT \(quotedKey) FROM \(quoteIdentifier(source)))"
    }

    /// The image table that is not `name`.
    private func otherImage(than name: String) -> String { name == beforeTable ? afterTable : beforeTable }

    /// Loads the images of `entry` from `annolink_journal_images`, in the order they were taken.
    ///
    /// - Throws: `JournalError.corrupt` when an image table is missing or has no columns.
    static func load(entry: Int64, on connection: Connection) throws -> [BulkImage] {
        try connection.rows("""
            SELECT sequence, table_name, before_table, after_table, row_count FROM annolink_journal_images
            WHERE entry_id = ? ORDER BY sequence
            """, [.integer(entry)]).map { row in
            guard let sequence = row[0].integerValue, let table = row[1].textValue, let before = row[2].textValue,
                  let after = row[3].textValue, let count = row[4].integerValue else {
                throw JournalError.corrupt(entry: entry, reason: "a row of annolink_journal_images cannot be read")
            }
            var columns: [String] = []
            for name in [before, after] {
                let info = try connection.rows("SELECT name FROM pragma_table_info(?) ORDER BY cid", [.text(name)]).compactMap { $0[0].textValue }
                guard info.count >= 2 else { throw JournalError.corrupt(entry: entry, reason: "its image table \(name) is missing") }
                if columns.isEmpty { columns = info } else if info != columns {
                    throw JournalError.corrupt(entry: entry, reason: "its image tables \(before) and \(after) have different columns")
                }
            }
            return BulkImage(
                target: Target(table: table, key: columns[0], columns: Array(columns.dropFirst())), entry: entry,
                sequence: Int(sequence), beforeTable: before, afterTable: after, rowCount: Int(count))
        }
    }

    /// The first declared row whose current values differ from the image `expected` (the
    /// after-image for an undo, the before-image for a redo): its key, whether it is gone, and
    /// the first column that differs. Nil when every row matches. One join, in key order.
    func firstDifference(from expected: String, on connection: Connection) throws -> (key: Int64, deleted: Bool, difference: ChangesetConflict.Difference?)? {
        let e = quoteIdentifier(expected)
        let differs = target.columns.map { "t.\(quoteIdentifier($0)) IS NOT e.\(quoteIdentifier($0))" }.joined(separator: " OR ")
        let rows = try connection.rows("""
            SELECT e.\(quotedKey), t.\(quotedKey) IS NULL FROM \(e) AS e LEFT JOIN \(quotedTable) AS t ON t.\(quotedKey) = e.\(quotedKey)
            WHERE t.\(quotedKey) IS NULL OR \(differs) ORDER BY e.\(quotedKey) LIMIT 1
            """)
        guard let row = rows.first, let key = row[0].integerValue else {
            // A row the edit inserted (for an undo) or deleted (for a redo) must not be there.
            let back = try connection.scalarInt("""
                SELECT t.\(quotedKey) FROM \(quotedTable) AS t WHERE t.\(quotedKey) IN (\(keysOnlyIn(otherImage(than: expected), notIn: expected)))
                ORDER BY 1 LIMIT 1
                """)
            return back.map { ($0, false, nil) }
        }
        if row[1].integerValue == 1 { return (key, true, nil) }
        let values = try connection.rows("""
            SELECT \(target.columns.map { "t.\(quoteIdentifier($0)), e.\(quoteIdentifier($0))" }.joined(separator: ", "))
            FROM \(e) AS e JOIN \(quotedTable) AS t ON t.\(quotedKey) = e.\(quotedKey) WHERE e.\(quotedKey) = ?
            """, [.integer(key)])[0]
        var difference: ChangesetConflict.Difference?
        for index in target.columns.indices where values[2 * index] != values[2 * index + 1] {
            difference = .init(column: index, expected: values[2 * index + 1], found: values[2 * index])
            break
        }
        return (key, false, difference)
    }

    /// Writes the values of image `source` back into the table with one `UPDATE … FROM`.
    /// Returns the number of rows written.
    /// Rows of an image of whole rows that are in the other image only are deleted, and rows
    /// in `source` only are inserted.
    @discardableResult
    func restore(from source: String, on connection: Connection) throws -> Int {
        try connection.execute("DELETE FROM \(quotedTable) WHERE \(quotedKey) IN (\(keysOnlyIn(otherImage(than: source), notIn: source)))")
        let deleted = connection.changeCount
        let assignments = target.columns.map { "\(quoteIdentifier($0)) = s.\(quoteIdentifier($0))" }.joined(separator: ", ")
        let statement = try connection.prepareUncached("""
            UPDATE \(quotedTable) SET \(assignments) FROM \(quoteIdentifier(source)) AS s WHERE \(quotedTable).\(quotedKey) = s.\(quotedKey)
            """)
        while try statement.step() {}
        let updated = connection.changeCount
        try connection.execute("""
            INSERT INTO \(quotedTable) (\(quotedKey), \(columnList)) SELECT \(quotedKey), \(columnList) FROM \(quoteIdentifier(source))
            WHERE \(quotedKey) NOT IN (SELECT \(quotedKey) FROM \(quotedTable)) ORDER BY \(quotedKey)
            """)
        return deleted + updated + connection.changeCount
    }

    /// Drops both image tables and their `gpkg_extensions` rows.
    static func drop(before: String, after: String, on connection: Connection) throws {
        for name in [before, after] {
            try connection.execute("DROP TABLE IF EXISTS \(quoteIdentifier(name))")
            try connection.run("DELETE FROM gpkg_extensions WHERE table_name = ? AND extension_name = ?", [.text(name), .text(AnnotationSchema.extensionName)])
        }
    }
}
