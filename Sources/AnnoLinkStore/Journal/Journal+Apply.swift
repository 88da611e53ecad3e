extension Journal {
    // MARK: Applying an entry

    /// Undoes or redoes `stored`: checks first, then writes. Runs in the caller's transaction;
    /// any throw leaves the rollback to it.
    func apply(_ stored: StoredEntry, action: JournalError.Action) throws {
        let entry = stored.entry.id
        let changeset: Changeset
        do {
            changeset = action == .undo ? try stored.changeset.inverted() : stored.changeset
        } catch {
            throw JournalError.corrupt(entry: entry, reason: "its changeset cannot be read (\(error))")
        }
        let tables: [Changeset.Table]
        do {
            tables = try changeset.tables()
        } catch {
            throw JournalError.corrupt(entry: entry, reason: "its changeset cannot be read (\(error))")
        }
        let images = stored.entry.kind == .bulk ? try BulkImage.load(entry: entry, on: connection) : []
        let moves = stored.entry.kind == .bulk ? try MoveImage.load(entry: entry, on: connection) : []
        let indexImages = stored.entry.kind == .bulk ? try IndexImage.load(entry: entry, on: connection) : []

        // Checks: the tables still fit the changeset (SQLite would skip a table that does not,
        // silently), and the rows of every image are as the entry left them.
        for table in tables { try checkShape(of: table, entry: entry, action: action) }
        for image in images.reversed() + moves.reversed().map(\.exceptions) {
            let expected = action == .undo ? image.afterTable : image.beforeTable
            guard let found = try image.firstDifference(from: expected, on: connection) else { continue }
            let reason = found.deleted
                ? "was deleted \(Self.since(entry, action))"
                : "was changed \(Self.since(entry, action))\(detail(found.difference, columns: image.target.columns, entry: entry, action: action))"
            throw JournalError.conflict(action: action, entry: entry, table: image.target.table, fid: found.key, reason: reason)
        }
        for move in moves.reversed() {
            guard let block = try move.firstDifferentBlock(from: action == .undo ? move.afterDigests : move.beforeDigests, on: connection) else { continue }
            if block.deleted {
                throw JournalError.conflict(
                    action: action, entry: entry, table: move.table, fid: block.first, reason: "was deleted \(Self.since(entry, action))")
            }
            throw JournalError.conflict(
                action: action, entry: entry, table: move.table, fid: nil,
                reason: "has a row among fids \(block.first)–\(block.last) that was changed \(Self.since(entry, action))")
        }
        // The declared entries of a spatial index must be as the entry left them: the index
        // was set right (or wrong) by hand since otherwise, and writing it back would undo that.
        for image in indexImages.reversed() {
            guard let id = try image.firstDifference(from: action == .undo ? .after : .before, on: connection) else { continue }
            throw JournalError.conflict(
                action: action, entry: entry, table: image.table, fid: id,
                reason: "has a spatial index entry (\(image.rtree)) that was changed \(Self.since(entry, action))")
        }

        // gpkg_contents holds each table's extent and last change, which other tools rewrite
        // whenever they write: a difference there is no reason to refuse; the extent is
        // recomputed instead.
        var contentsToRefresh: [String] = []
        var refusal: ChangesetConflict?
        do {
            try changeset.apply(on: connection) { conflict in
                if conflict.table == "gpkg_contents", case .data = conflict.kind, let name = conflict.primaryKey.first?.textValue {
                    contentsToRefresh.append(name)
                    return .omit
                }
                refusal = conflict
                return .abort
            }
        } catch ChangesetApplyError.aborted {
            guard let refusal else { throw JournalError.corrupt(entry: entry, reason: "applying its changeset stopped") }
            throw try conflictError(refusal, entry: entry, action: action)
        }

        for image in images.reversed() {
            let source = action == .undo ? image.beforeTable : image.afterTable
            try writingRows(of: image.target.table, count: image.rowCount, columns: image.target.columns) {
                _ = try image.restore(from: source, on: connection)
            }
        }
        for move in moves.reversed() {
            try writingRows(of: move.table, count: move.rowCount, columns: move.columns.map(\.name), refitting: true) {
                try move.move(action == .undo ? -1 : 1, on: connection)
                try move.exceptions.restore(from: action == .undo ? move.exceptions.beforeTable : move.exceptions.afterTable, on: connection)
            }
            // Moving back must give exactly the rows as they were: refused (and rolled back) otherwise.
            if try move.firstDifferentBlock(from: action == .undo ? move.beforeDigests : move.afterDigests, on: connection) != nil {
                throw JournalError.corrupt(
                    entry: entry, reason: "moving \(move.table) \(action == .undo ? "back" : "again") would not give its rows exactly as they were")
            }
        }
        // After the rows: their triggers set the entries of every row the changeset touched,
        // and the image then puts the declared entries back exactly.
        for image in indexImages.reversed() {
            try image.restore(action == .undo ? .before : .after, on: connection)
        }
        for name in contentsToRefresh {
            guard let table = try? package.featureTable(name) else { continue }
            try package.refreshContents(of: table)
        }
    }

    /// Runs `body`, which writes `count` rows of `table` back, with the table's R-tree triggers
    /// suspended and the index rebuilt in one pass when `columns` hold the geometry column and
    /// the store's rule says so (`GeoPackage.suspendsSpatialIndex(writing:of:)`).
    ///
    /// `refitting`: the rows all move by one vector (a move image), so the index may keep its
    /// shape.
    func writingRows(of name: String, count: Int, columns: [String], refitting: Bool = false, _ body: () throws -> Void) throws {
        let table = try? package.featureTable(name)
        if let table, table.hasSpatialIndex, columns.contains(where: { $0.lowercased() == table.geometryColumn.lowercased() }) {
            let rows = try connection.scalarInt("SELECT count(*) FROM \(quoteIdentifier(table.name))") ?? 0
            try package.withSpatialIndexSuspended(table: table.name, writing: count, of: rows, refitting: refitting, body)
            return
        }
        try body()
    }

    /// Refuses when a table of the changeset is gone or no longer has the columns and primary
    /// key the changeset was recorded with.
    func checkShape(of table: Changeset.Table, entry: Int64, action: JournalError.Action) throws {
        let info = try connection.rows("SELECT pk FROM pragma_table_info(?) ORDER BY cid", [.text(table.name)])
        guard !info.isEmpty else {
            throw JournalError.conflict(
                action: action, entry: entry, table: table.name, fid: nil, reason: "no longer exists: it was dropped \(Self.since(entry, action))")
        }
        let key = info.map { ($0[0].integerValue ?? 0) > 0 }
        guard key.count >= table.columnCount, Array(key.prefix(table.columnCount)) == table.primaryKey else {
            throw JournalError.conflict(
                action: action, entry: entry, table: table.name, fid: nil, reason: "had its columns changed \(Self.since(entry, action))")
        }
    }
}
