extension GeoPackage {
    /// The tables whose outside edits the file records, by `annolink_changes_tables`.
    public func changeCaptureTables() throws -> [String] {
        guard try connection.hasTable(ChangeCapture.tables) else { return [] }
        return try connection.rows("SELECT table_name FROM annolink_changes_tables ORDER BY table_name").compactMap { $0[0].textValue }
    }

    /// Records outside edits of exactly `tables` from now on: their triggers made again for
    /// their columns as they are now, every other table's removed; an empty list removes the
    /// capture, its tables and what they had recorded but not followed. One transaction.
    ///
    /// A GlobalID column is filled in with a new GUID when a row comes without one
    /// (`ChangeCapture.newGlobalID`), so that a feature QGIS or GDAL adds has one; its `NOT
    /// NULL`, which would refuse the row before any trigger could fill it in, is taken out.
    ///
    /// - Throws: `StoreError.unknownTable` for a name that is not a feature table.
    public func installChangeCapture(on tables: [String]) throws {
        let wanted = try tables.map { try featureTable($0) }
        try connection.write {
            for table in wanted where table.globalIDColumn?.isNotNull == true { try letGlobalIDBeFilledIn(table) }
            for name in try changeCaptureTables() {
                for suffix in ChangeCapture.triggerSuffixes {
                    try connection.execute("DROP TRIGGER IF EXISTS \(quoteIdentifier(ChangeCapture.triggerName(name, suffix)))")
                }
            }
            guard !wanted.isEmpty else {
                for table in [ChangeCapture.changes, ChangeCapture.tables, ChangeCapture.state] {
                    try connection.execute("DROP TABLE IF EXISTS \(table)")
                }
                return
            }
            try connection.execute(ChangeCapture.schema)
            try connection.execute("DELETE FROM annolink_changes_tables")
            for table in try tables.map({ try featureTable($0) }) {
                let columns = table.columns.map(\.name).filter { $0 != table.primaryKey }
                let triggers = ChangeCapture.triggers(table: table.name, key: table.primaryKey, columns: columns, globalID: table.globalIDColumn?.name)
                for trigger in triggers {
                    try connection.execute(trigger)
                }
                try connection.run("INSERT INTO annolink_changes_tables (table_name, columns) VALUES (?, ?)",
                                   [.text(table.name), .text(columns.joined(separator: "\n"))])
            }
        }
    }

    /// Takes the `NOT NULL` off `table`'s GlobalID column by rewriting the table's definition
    /// in `sqlite_master`: dropping a `NOT NULL` changes no stored row, a kind of change SQLite's
    /// documentation allows this way ("Making Other Kinds Of Table Schema Changes"). The schema
    /// cookie moves, so every connection reads the new definition.
    private func letGlobalIDBeFilledIn(_ table: FeatureTable) throws {
        guard let column = table.globalIDColumn,
              let create = try connection.scalarText("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(table.name)]),
              let changed = ChangeCapture.withoutNotNull(column.name, in: create), changed != create
        else {
            let column = "\(table.name).\(table.globalIDColumn?.name ?? "GlobalID")"
            throw StoreError.invalidData("cannot find the NOT NULL of \(column) to let new rows have it filled in")
        }
        let version = try connection.schemaVersion()
        try connection.setDefensive(false)
        defer { try? connection.setDefensive(true) }
        try connection.execute("PRAGMA writable_schema = ON")
        defer { try? connection.execute("PRAGMA writable_schema = RESET") }
        try connection.run("UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = ?", [.text(changed), .text(table.name)])
        try connection.execute("PRAGMA schema_version = \(version + 1)")
        forgetLayout()
    }

    /// The outside edits recorded and not yet followed, by table, fids in order.
    public func pendingOutsideEdits() throws -> [String: [Int64]] {
        guard try connection.hasTable(ChangeCapture.changes) else { return [:] }
        var pending: [String: [Int64]] = [:]
        for row in try connection.rows("SELECT DISTINCT table_name, fid FROM annolink_changes ORDER BY table_name, fid") {
            guard let table = row[0].textValue, let fid = row[1].integerValue else { continue }
            pending[table, default: []].append(fid)
        }
        return pending
    }

    /// Takes the outside edits recorded, one per row (the first before image a row has is the
    /// row before them all; the row now is after them all), and records each in the entry being
    /// recorded: the row is put back as it was with the entry not looking, then written as it
    /// is now with the entry looking, so that the entry's changeset holds the outside edit and
    /// undo reverts it. The recorded edits are deleted. Call inside `Journal.record`.
    ///
    /// - Throws: `StoreError.invalidData` when a before image cannot be read or names a table
    ///   the capture does not know.
    public func takeOutsideEdits() throws -> [OutsideEdit] {
        guard try connection.hasTable(ChangeCapture.changes) else { return [] }
        let journal = try editJournal()
        var columnsByTable: [String: [String]] = [:]
        for row in try connection.rows("SELECT table_name, columns FROM annolink_changes_tables") {
            guard let table = row[0].textValue, let columns = row[1].textValue else { continue }
            columnsByTable[table] = columns.isEmpty ? [] : columns.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }
        // The first record of each row, in the order the rows were first changed.
        let firsts = try connection.rows("""
            SELECT c.table_name, c.fid, c.before FROM annolink_changes c
            WHERE c.id = (SELECT min(id) FROM annolink_changes f WHERE f.table_name = c.table_name AND f.fid = c.fid)
            ORDER BY c.id
            """)
        var edits: [OutsideEdit] = []
        for first in firsts {
            guard let name = first[0].textValue, let fid = first[1].integerValue, let columns = columnsByTable[name] else {
                throw StoreError.invalidData("annolink_changes names a table whose edits are not recorded: \(first[0])")
            }
            let table = try featureTable(name)
            let before = try first[2].textValue.map { try ChangeCapture.values($0, count: columns.count) }
            let key = quoteIdentifier(table.primaryKey)
            let list = columns.map(quoteIdentifier).joined(separator: ", ")
            let now = try connection.rows("SELECT \(columns.isEmpty ? "1" : list) FROM \(quoteIdentifier(name)) WHERE \(key) = ?",
                                          [.integer(fid)]).first.map { columns.isEmpty ? [] : $0 }
            if before == nil, now == nil { continue }  // inserted and deleted again
            func put(_ values: [SQLValue]?) throws {
                try connection.run("DELETE FROM \(quoteIdentifier(name)) WHERE \(key) = ?", [.integer(fid)])
                guard let values else { return }
                let marks = Array(repeating: "?", count: columns.count + 1).joined(separator: ", ")
                try connection.run("INSERT INTO \(quoteIdentifier(name)) (\(key)\(columns.isEmpty ? "" : ", " + list)) VALUES (\(marks))",
                                   [.integer(fid)] + values)
            }
            func update(_ values: [SQLValue]) throws {
                guard !columns.isEmpty else { return }
                let sets = columns.map { "\(quoteIdentifier($0)) = ?" }.joined(separator: ", ")
                try connection.run("UPDATE \(quoteIdentifier(name)) SET \(sets) WHERE \(key) = ?", values + [.integer(fid)])
            }
            var edit = OutsideEdit(table: name, fid: fid, before: nil, after: nil)
            // The row as a feature; one whose geometry cannot be read is kept without it, and
            // the edit says why, so that one bad row does not hold every later edit up.
            func read() throws -> Feature {
                do {
                    return try feature(table, fid: fid)
                } catch let error as StoreError {
                    guard case .corruptGeometry = error else { throw error }
                    edit.unreadable = error.description
                    return Feature(fid: fid, geometry: nil, attributes: [:])
                }
            }
            // An update stays an update, so that the R-tree and the changeset see one. A row
            // SQLite cannot write again (a geometry annolink's R-tree functions refuse) stays as
            // it is, unjournaled, in a savepoint rolled back.
            do {
                try connection.write {
                    try journal.withoutRecording {
                        if let before, now != nil { try update(before) } else { try put(before) }
                        edit.before = before == nil ? nil : try read()
                    }
                    if let now, before != nil { try update(now) } else { try put(now) }
                    edit.after = now == nil ? nil : try read()
                }
            } catch let error as SQLiteError {
                edit = OutsideEdit(table: name, fid: fid, before: nil, after: nil,
                                   unreadable: "it cannot be written again, so its outside edit is not in the journal (\(error))")
            }
            edits.append(edit)
        }
        try connection.execute("DELETE FROM annolink_changes")
        return edits
    }
}

/// What `Connection.ownWrites` does for a GeoPackage: while annolink writes, the change
/// capture's state says so, looked up again only when the schema changed.
final class OwnWriteMarker {
    private var known: (schema: Int64, captures: Bool)?

    func mark(_ connection: Connection, writing: Bool) throws {
        let schema = try connection.schemaVersion()
        if known?.schema != schema { known = (schema, try connection.hasTable(ChangeCapture.state)) }
        guard known?.captures == true else { return }
        try connection.run("UPDATE annolink_changes_state SET writing = ?", [.integer(writing ? 1 : 0)])
    }
}
