import AnnoLinkGeometry
import AnnoLinkStore

/// What `annolink serve` reads from a PostGIS data set besides the `FeatureStore` protocol:
/// features by ids, envelope and where clause (the envelope through the GiST index with `&&`
/// on `ST_MakeEnvelope`), the tables' recorded extents, and where the journal stands.
extension PostGISStore {
    /// Which rows a served read takes: all of them must hold.
    public struct ServedFilter {
        /// A condition this store checked (`checkedCondition`) on the table.
        public var condition: SQLCondition?
        /// Only these fids (nil: any).
        public var fids: [Int64]?
        /// Only rows whose geometry's bounding box meets this one (table CRS units).
        public var envelope: Envelope?

        public init(condition: SQLCondition? = nil, fids: [Int64]? = nil, envelope: Envelope? = nil) {
            self.condition = condition
            self.fids = fids
            self.envelope = envelope
        }
    }

    /// One row of a served read: the fid, the geometry (nil when not read or NULL) and the
    /// asked columns' values, in the GeoPackage layout's terms.
    public struct ServedRow {
        public var fid: Int64
        public var geometry: Geometry?
        public var values: [SQLValue]
    }

    private func whereClause(_ table: FeatureTable, _ filter: ServedFilter, _ parameters: inout [PostgreSQLValue]) throws -> String {
        var parts: [String] = []
        if let condition = filter.condition { parts.append(condition.sql) }
        if let fids = filter.fids {
            // One text parameter read as an array: the list never becomes SQL text.
            parameters.append(.text(Self.array(fids)))
            parts.append("u.\(quoteIdentifier(table.primaryKey)) = ANY($\(parameters.count)::text::bigint[])")
        }
        if let e = filter.envelope {
            let srid = try srid(of: table)
            parameters += [.float8(e.minX), .float8(e.minY), .float8(e.maxX), .float8(e.maxY)]
            let n = parameters.count
            parts.append("u.\(quoteIdentifier(table.geometryColumn)) && ST_MakeEnvelope($\(n - 3), $\(n - 2), $\(n - 1), $\(n), \(srid))")
        }
        return parts.isEmpty ? "" : " WHERE " + parts.joined(separator: " AND ")
    }

    /// The rows of `table` that `filter` selects, ordered by `order` (column, descending) and
    /// then the key, from `offset`, at most `limit` (nil: all), with `columns` (as the table
    /// spells them) and the geometry when `geometry`.
    ///
    /// - Throws: `SQLCondition.Refusal.doesNotRun` for a condition PostgreSQL cannot run;
    ///   `PostgreSQLError` (a statement timeout is SQLSTATE 57014); `StoreError.corruptGeometry`.
    public func servedRows(_ table: FeatureTable, filter: ServedFilter, columns: [String], geometry: Bool,
                           order: [(column: String, descending: Bool)], offset: Int, limit: Int?) throws -> [ServedRow] {
        try flush(table.name)
        var parameters: [PostgreSQLValue] = []
        var list = ["u." + quoteIdentifier(table.primaryKey)]
        if geometry { list.append("u." + quoteIdentifier(table.geometryColumn)) }
        list += columns.map { "u." + quoteIdentifier($0) }
        var sql = "SELECT \(list.joined(separator: ", ")) FROM \(qualified(table)) AS u" + (try whereClause(table, filter, &parameters))
        let pk = table.primaryKey.lowercased()
        var terms = order.map { "u.\(quoteIdentifier($0.column)) \($0.descending ? "DESC" : "ASC")" }
        if !order.contains(where: { $0.column.lowercased() == pk }) { terms.append("u." + quoteIdentifier(table.primaryKey)) }
        sql += " ORDER BY " + terms.joined(separator: ", ")
        if let limit {
            parameters.append(.int8(Int64(limit)))
            sql += " LIMIT $\(parameters.count)"
        }
        if offset > 0 {
            parameters.append(.int8(Int64(offset)))
            sql += " OFFSET $\(parameters.count)"
        }
        let first = geometry ? 2 : 1
        return try query(sql, parameters, filter).rows.map { row in
            let fid = row[0].integerValue ?? 0
            return ServedRow(fid: fid, geometry: geometry ? try Self.geometry(row[1], table: table, fid: fid) : nil,
                             values: row[first...].map(Self.sqlValue))
        }
    }

    /// Through the GiST index (`&&` on `ST_MakeEnvelope`, the served reads' envelope filter), a
    /// page of `indexedPage` rows at a time by key. Each row's exact envelope (`box2d`) is
    /// rounded here as an R-tree rounds it (`Envelope.indexBox`) and the window and size are
    /// decided on that box, so that the rows and boxes are a GeoPackage's; PostgreSQL is asked
    /// for a little more (the window widened, the size loosened, by more than the rounding can
    /// move a side), so the rows it passes over are never ones the rounded box would take.
    ///
    /// - Throws: `PostgreSQLError`; `StoreError.corruptGeometry` (an annotation footprint that
    ///   cannot be decoded is read as none).
    public func forEachIndexedRow(_ table: FeatureTable, meeting box: Envelope?, size: IndexBoxSize, reading: IndexedRowReading,
                                  _ body: (IndexedRow) throws -> Void) throws {
        // Inside an edit, the rows it holds back are written first, so that a placement reading
        // the labels around it sees the edit's own.
        if recording != nil { try flush(table.name) }
        // More than a side's rounding to a float can move it: one part in 2^21 of its magnitude.
        let slack = 1.0 / 2_097_152.0
        let wider = box.map { b in
            let dx = max(abs(b.minX), abs(b.maxX)) * slack, dy = max(abs(b.minY), abs(b.maxY)) * slack
            return Envelope(minX: b.minX - dx, minY: b.minY - dy, maxX: b.maxX + dx, maxY: b.maxY + dy)
        }
        var parameters: [PostgreSQLValue] = []
        let filter = try whereClause(table, ServedFilter(envelope: wider), &parameters)
        let g = "u." + quoteIdentifier(table.geometryColumn), pk = "u." + quoteIdentifier(table.primaryKey)
        var conditions = filter.isEmpty ? [] : [String(filter.dropFirst(" WHERE ".count))]
        conditions.append("\(g) IS NOT NULL")
        let width = "(x.x1 - x.x0)", height = "(x.y1 - x.y0)"
        let widthSlack = "(abs(x.x0) + abs(x.x1)) * \(slack)", heightSlack = "(abs(x.y0) + abs(x.y1)) * \(slack)"
        func limit(_ d: Double) -> String {
            parameters.append(.float8(d))
            return "$\(parameters.count)"
        }
        switch size {
        case .any: break
        case .bothSidesAtLeast(let d):
            let p = limit(d)
            conditions.append("\(width) + \(widthSlack) >= \(p) AND \(height) + \(heightSlack) >= \(p)")
        case .someSideUnder(let d):
            let p = limit(d)
            conditions.append("(\(width) < \(p) OR \(height) < \(p))")
        case .someSideAtLeast(let d):
            let p = limit(d)
            conditions.append("(\(width) + \(widthSlack) >= \(p) OR \(height) + \(heightSlack) >= \(p))")
        case .bothSidesUnder(let d):
            let p = limit(d)
            conditions.append("\(width) < \(p) AND \(height) < \(p)")
        case .notThinAndShort(let across, let along):
            let a = limit(across), l = limit(along)
            let w = "\(width) + \(widthSlack)", h = "\(height) + \(heightSlack)"
            conditions.append("((\(w) >= \(a) AND \(h) >= \(a)) OR \(w) >= \(l) OR \(h) >= \(l))")
        }
        var list = [pk, "x.x0", "x.y0", "x.x1", "x.y1"]
        switch reading {
        case .box: break
        case .geometry: list.append(g)
        case .annotation: list.append(annotationSelectList(table))
        }
        parameters.append(.int8(0))
        let after = parameters.count
        conditions.append("\(pk) > $\(after)")
        // The box computed once a row (`OFFSET 0` keeps PostgreSQL from inlining it into every
        // use, which deserializes the geometry each time: five times slower), its sides once.
        let sql = "SELECT \(list.joined(separator: ", ")) FROM \(qualified(table)) AS u CROSS JOIN LATERAL "
            + "(SELECT ST_XMin(b) AS x0, ST_YMin(b) AS y0, ST_XMax(b) AS x1, ST_YMax(b) AS y1 FROM (SELECT \(g)::box2d AS b OFFSET 0) AS o) AS x"
            + " WHERE " + conditions.joined(separator: " AND ") + " ORDER BY \(pk) LIMIT \(Self.indexedPage)"
        while true {
            // Planned for these values each time: a prepared statement's generic plan, not knowing
            // how much of the table the window holds, takes the GiST index for every page and
            // sorts the whole window each time (a full-extent overview of 258,338 rows read it
            // eight times over); knowing, PostgreSQL walks the key for a large window.
            let rows = try connection.queryOnce(sql, parameters).rows
            for r in rows {
                let fid = r[0].integerValue ?? 0
                guard let minX = r[1].doubleValue, let minY = r[2].doubleValue, let maxX = r[3].doubleValue, let maxY = r[4].doubleValue else { continue }
                var row = IndexedRow(fid: fid, box: Envelope(minX: minX, minY: minY, maxX: maxX, maxY: maxY).indexBox)
                guard row.isTaken(meeting: box, size: size) else { continue }
                switch reading {
                case .box: break
                case .geometry: row.geometry = try Self.geometry(r[5], table: table, fid: fid)
                case .annotation: row.annotation = try annotationRow(from: Array(r[5...]), table: table, footprintProblem: { _ in })
                }
                try body(row)
            }
            guard rows.count == Self.indexedPage, let last = rows.last?[0].integerValue else { return }
            parameters[after - 1] = .int8(last)
        }
    }

    /// How many rows one query of `forEachIndexedRow` reads: a picture of a large table reads
    /// it in few queries (each costs its planning and, for a large window, PostgreSQL's parallel
    /// workers' start), while a page of boxes, geometries or annotation rows stays a few
    /// megabytes.
    static let indexedPage = 32_768

    /// How many rows of `table` `filter` selects.
    public func servedCount(_ table: FeatureTable, filter: ServedFilter) throws -> Int {
        try flush(table.name)
        var parameters: [PostgreSQLValue] = []
        let sql = "SELECT count(*) FROM \(qualified(table)) AS u" + (try whereClause(table, filter, &parameters))
        return Int(try query(sql, parameters, filter).scalar?.integerValue ?? 0)
    }

    /// Runs a served read. When it has a where clause, PostgreSQL refusing the statement (class
    /// 42 but a missing privilege: a function it does not have, a name it does not know; class
    /// 22: a value it will not compare or cast) is the clause's fault, as SQLite's authorizer
    /// refusing it is on a GeoPackage: `SQLCondition.Refusal.doesNotRun` with PostgreSQL's reason.
    private func query(_ sql: String, _ parameters: [PostgreSQLValue], _ filter: ServedFilter) throws -> PostgreSQLResult {
        do {
            return try connection.query(sql, parameters)
        } catch let error as PostgreSQLError where filter.condition != nil && (error.kind == .invalidStatement || error.sqlStateClass == "22") {
            throw SQLCondition.Refusal.doesNotRun("PostgreSQL: \(error.message)")
        }
    }

    /// What `annolink.contents` records of `table`: identifier, description and extent (the copy
    /// wrote the extent; edits do not keep it up to date, docs/postgis.md).
    public func recordedContents(of table: String) throws -> (identifier: String?, description: String, extent: Envelope?) {
        guard let r = try connection.query(
            "SELECT min_x, min_y, max_x, max_y, description, identifier FROM annolink.contents WHERE table_name = $1", [.text(table)]).rows.first
        else { return (nil, "", try computedExtent(of: featureTable(table))) }
        var extent: Envelope?
        if let minX = r[0].doubleValue, let minY = r[1].doubleValue, let maxX = r[2].doubleValue, let maxY = r[3].doubleValue {
            extent = Envelope(minX: minX, minY: minY, maxX: maxX, maxY: maxY)
        } else {
            extent = try computedExtent(of: featureTable(table))
        }
        return (r[5].textValue, r[4].textValue ?? "", extent)
    }

    /// The extent of `table`'s geometries as PostGIS computes it (`ST_Extent`, a scan), for a
    /// table whose loader recorded none in `annolink.contents` (`annolink copy` records one;
    /// other loaders may not); nil when it has no geometry.
    func computedExtent(of table: FeatureTable) throws -> Envelope? {
        let g = quoteIdentifier(table.geometryColumn)
        guard let r = try connection.query(
            "SELECT ST_XMin(e), ST_YMin(e), ST_XMax(e), ST_YMax(e) FROM (SELECT ST_Extent(u.\(g)) AS e FROM \(qualified(table)) AS u) AS s").rows.first,
              let minX = r[0].doubleValue, let minY = r[1].doubleValue, let maxX = r[2].doubleValue, let maxY = r[3].doubleValue
        else { return nil }
        return Envelope(minX: minX, minY: minY, maxX: maxX, maxY: maxY)
    }

    /// Where the journal stands, as `Journal.head()` says it of a GeoPackage: the newest entry's
    /// id, the entry `undo` would take and the one `redo` would take. An empty journal (or none
    /// yet) is entry 0 with neither.
    public func journalHead() throws -> JournalHead {
        guard try connection.query("SELECT to_regclass('annolink.journal') IS NOT NULL").scalar?.boolValue == true else {
            return JournalHead(lastEntry: 0, undo: nil, redo: nil)
        }
        let columns = #"id, time, command, summary, state, kind, row_count, tables, "user""#
        let last = try connection.query("SELECT coalesce(max(id), 0) FROM annolink.journal").scalar?.integerValue ?? 0
        let undo = try connection.query(
            "SELECT \(columns) FROM annolink.journal WHERE state = 'done' ORDER BY id DESC LIMIT 1").rows.first.map(PostGISJournal.entry)
        let redo = try connection.query(
            "SELECT \(columns) FROM annolink.journal WHERE id > $1 AND state = 'undone' ORDER BY id LIMIT 1",
            [.int8(undo?.id ?? 0)]).rows.first.map(PostGISJournal.entry)
        return JournalHead(lastEntry: last, undo: undo, redo: redo)
    }
}

extension PostGISJournal {
    /// The channel every committed, undone or redone entry is announced on (`NOTIFY`, the
    /// entry's id as payload): servers `LISTEN` on it to learn of other processes' edits.
    public static let notificationChannel = "annolink_journal"
}
