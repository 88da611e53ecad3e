import AnnoLinkGeometry
import AnnoLinkStore

extension PostGISStore {
    /// The bulk move as set-based SQL: the selection in a temporary table, then one `UPDATE`
    /// per table — the features' `ST_Translate`, and for each annotation table its rows of the
    /// selected features moved rigidly in one statement (footprint by `ST_Translate`, anchor
    /// by adding) — each table's keys written into the journal by one `INSERT … SELECT` before
    /// it (`annolink.journal_move_rows`). The journal keeps the vector and the keys; a row's
    /// before-image only when moving it back would not give it back bit for bit. One
    /// transaction for all of it.
    ///
    /// - Throws: `StoreError.unknownFeature` (a fid in `.fids` that does not exist),
    ///   `SQLCondition.Refusal`, `PostgreSQLError`.
    public func translate(_ table: FeatureTable, selection: FeatureSelection, annotation: [String: [Int64]], dx: Double, dy: Double,
                          dryRun: Bool, command: String, summary: (Int) -> String, progress: (Int, Int) -> Void) throws -> BulkMoveCounts {
        try connection.inTransaction {
            let count = try select(selection, of: table)
            var result = BulkMoveCounts(features: count)
            if dryRun {
                for (name, classIDs) in annotation {
                    result.annotationRows += Int(try connection.query("""
                        SELECT count(*) FROM \(PostGISLayout.qualified(name)) a
                        WHERE a."FeatureID" IN (SELECT fid FROM annolink_selection) AND a."AnnotationClassID" = ANY($1::text::bigint[])
                        """, [.text(Self.array(classIDs))]).scalar?.integerValue ?? 0)
                }
                return result
            }
            guard count > 0 else { return result }
            let journal = try editJournal()
            let entry = try journal.beginEntry(command: command, summary: summary(count), kind: .bulk, rowCount: 0,
                                               tables: [table.name] + annotation.keys.sorted())
            let pk = quoteIdentifier(table.primaryKey), g = quoteIdentifier(table.geometryColumn)
            var rows = try moveAndJournal(qualified(table), key: pk, geometry: g, anchors: false,
                                          where: "o.\(pk) IN (SELECT fid FROM annolink_selection)", extra: [],
                                          dx: dx, dy: dy, entry: entry, tableName: table.name)
            try connection.query("INSERT INTO annolink.journal_moves (entry_id, table_name, dx, dy, annotation) VALUES ($1, $2, $3, $4, false)",
                                 [.int8(entry), .text(table.name), .float8(dx), .float8(dy)])
            progress(count / 2, count)
            for (name, classIDs) in annotation.sorted(by: { $0.key < $1.key }) {
                // The labels move rigidly with their features: footprint and anchor in one statement.
                let moved = try moveAndJournal(PostGISLayout.qualified(name), key: "fid", geometry: "geom", anchors: true,
                                               where: "o.\"FeatureID\" IN (SELECT fid FROM annolink_selection) AND o.\"AnnotationClassID\" = ANY($5::text::bigint[])",
                                               extra: [.text(Self.array(classIDs))], dx: dx, dy: dy, entry: entry, tableName: name)
                try connection.query("INSERT INTO annolink.journal_moves (entry_id, table_name, dx, dy, annotation) VALUES ($1, $2, $3, $4, true)",
                                     [.int8(entry), .text(name), .float8(dx), .float8(dy)])
                result.annotationRows += moved
                rows += moved
            }
            try connection.query("UPDATE annolink.journal SET row_count = $1 WHERE id = $2", [.int8(Int64(rows)), .int8(entry)])
            result.journalEntry = entry
            progress(count, count)
            return result
        }
    }

    /// Moves the rows of `relation` (aliased `o`) that `condition` picks by (dx, dy) — the
    /// geometry by `ST_Translate`, with `anchors` the annotation's anchor by adding — and writes
    /// their keys into `annolink.journal_move_rows`; returns how many rows moved. `condition`
    /// may use `$5` for `extra[0]`.
    ///
    /// First one aggregate over the rows: their extent and anchors' ranges. When those show
    /// that moving back by the vector gives every coordinate back bit for bit
    /// (`MoveExactness`), the move and its keys are one statement, `WITH moved AS (UPDATE …
    /// RETURNING key) INSERT … SELECT`: nothing is computed per row beyond the move itself.
    /// Otherwise each row's key goes in with the row's image where its move back is not exact
    /// (two `ST_Translate` per row to find out), then the rows move.
    func moveAndJournal(_ relation: String, key: String, geometry g: String, anchors: Bool, where condition: String, extra: [PostgreSQLValue],
                        dx: Double, dy: Double, entry: Int64, tableName: String) throws -> Int {
        let parameters: [PostgreSQLValue] = [.float8(dx), .float8(dy), .int8(entry), .text(tableName)] + extra
        let setAnchors = anchors ? ", \"AnchorX\" = o.\"AnchorX\" + $1, \"AnchorY\" = o.\"AnchorY\" + $2" : ""
        // PostGIS's cached boxes are rounded outwards, so the extent holds every coordinate
        // (empty and null geometries have none, and move to themselves).
        let ranges = anchors ? "min(o.\"AnchorX\") ax0, max(o.\"AnchorX\") ax1, min(o.\"AnchorY\") ay0, max(o.\"AnchorY\") ay1"
            : "NULL::float8 ax0, NULL::float8 ax1, NULL::float8 ay0, NULL::float8 ay1"
        let extent = try connection.query("""
            SELECT ST_XMin(e.b), ST_XMax(e.b), ST_YMin(e.b), ST_YMax(e.b), e.ax0, e.ax1, e.ay0, e.ay1 FROM (
              SELECT ST_Extent(o.\(g)) b, \(ranges)
              FROM \(relation) o WHERE \(condition.replacingOccurrences(of: "$5", with: "$1"))) e
            """, extra).rows.first ?? []
        // Columns i and i + 1 are a range's ends: both null when there are no coordinates (the
        // move restores them trivially); a NaN end (PostGIS's extent of a NaN coordinate) or
        // anything else unreadable gets no promise.
        func restores(_ i: Int, by d: Double) -> Bool {
            guard extent.count > i + 1 else { return false }
            if case .null = extent[i], case .null = extent[i + 1] { return true }
            guard let lo = extent[i].doubleValue, let hi = extent[i + 1].doubleValue, lo <= hi else { return false }
            return MoveExactness.restores(lo...hi, by: d)
        }
        let exact = restores(0, by: dx) && restores(2, by: dy) && (!anchors || (restores(4, by: dx) && restores(6, by: dy)))
        if exact {
            return try connection.query("""
                WITH moved AS (UPDATE \(relation) AS o SET \(g) = ST_Translate(o.\(g), $1, $2)\(setAnchors) WHERE \(condition) RETURNING o.\(key) AS fid)
                INSERT INTO annolink.journal_move_rows (entry_id, table_name, fid, before) SELECT $3, $4, fid, NULL FROM moved
                """, parameters).affectedRows
        }
        let anchorsBack = anchors ? """
             AND (o."AnchorX" + $1) - $1 IS NOT DISTINCT FROM o."AnchorX" AND (o."AnchorY" + $2) - $2 IS NOT DISTINCT FROM o."AnchorY"
            """ : ""
        let rows = try connection.query("""
            INSERT INTO annolink.journal_move_rows (entry_id, table_name, fid, before)
            SELECT $3, $4, o.\(key), CASE WHEN ST_AsEWKB(ST_Translate(ST_Translate(o.\(g), $1, $2), -$1, -$2)) IS NOT DISTINCT FROM ST_AsEWKB(o.\(g))\(anchorsBack)
                                      THEN NULL ELSE o::text END
            FROM \(relation) o WHERE \(condition)
            """, parameters).affectedRows
        try connection.query("""
            UPDATE \(relation) AS o SET \(g) = ST_Translate(o.\(g), $1, $2)\(setAnchors) WHERE \(condition)
            """, parameters)
        return rows
    }

    /// The journal's tables of bulk moves, created by the first move.
    static let movesDDL = """
        CREATE TABLE IF NOT EXISTS annolink.journal_moves (
          entry_id bigint NOT NULL REFERENCES annolink.journal (id) ON DELETE CASCADE,
          table_name text NOT NULL,
          dx double precision NOT NULL,
          dy double precision NOT NULL,
          annotation boolean NOT NULL,
          PRIMARY KEY (entry_id, table_name));
        CREATE TABLE IF NOT EXISTS annolink.journal_move_rows (
          entry_id bigint NOT NULL REFERENCES annolink.journal (id) ON DELETE CASCADE,
          table_name text NOT NULL,
          fid bigint NOT NULL,
          before text,
          PRIMARY KEY (entry_id, table_name, fid));
        """

    /// Undoes (moves back by the vector, writing the kept before-images) or redoes a bulk move
    /// entry, inside the caller's transaction. Refuses when a later entry that is in effect
    /// wrote one of its rows.
    func moveBack(entry: Int64, action: JournalError.Action) throws {
        // A later entry in effect that wrote one of the moved rows: a single edit or a move.
        let later = try connection.query("""
            SELECT m.table_name, m.fid, j.id, j."user" FROM annolink.journal_move_rows m
            JOIN annolink.journal_rows r ON r.table_name = m.table_name AND r.fid = m.fid
            JOIN annolink.journal j ON j.id = r.entry_id
            WHERE m.entry_id = $1 AND j.id > $1 AND j.state = 'done'
            UNION ALL
            SELECT m.table_name, m.fid, j.id, j."user" FROM annolink.journal_move_rows m
            JOIN annolink.journal_move_rows n ON n.table_name = m.table_name AND n.fid = m.fid AND n.entry_id > m.entry_id
            JOIN annolink.journal j ON j.id = n.entry_id
            WHERE m.entry_id = $1 AND j.state = 'done'
            ORDER BY 3 LIMIT 1
            """, [.int8(entry)]).rows.first
        if let later {
            throw JournalError.conflict(
                action: action, entry: entry, table: later[0].textValue ?? "", fid: later[1].integerValue,
                reason: "was changed by edit #\(later[2].integerValue ?? 0)\(later[3].textValue.map { " of \($0)" } ?? "") after edit #\(entry)")
        }
        let sign = action == .undo ? -1.0 : 1.0
        for move in try connection.query("SELECT table_name, dx, dy, annotation FROM annolink.journal_moves WHERE entry_id = $1", [.int8(entry)]).rows {
            let table = try featureTable(move[0].textValue ?? "")
            let dx = sign * (move[1].doubleValue ?? 0), dy = sign * (move[2].doubleValue ?? 0)
            let pk = quoteIdentifier(table.primaryKey), g = quoteIdentifier(table.geometryColumn)
            let anchors = move[3].boolValue == true ? ", \"AnchorX\" = u.\"AnchorX\" + $1, \"AnchorY\" = u.\"AnchorY\" + $2" : ""
            // Rows whose move back is exact move by the vector; the others get their image (undo)
            // or are moved from it (redo), which gives exactly what the move gave.
            try connection.query("""
                UPDATE \(qualified(table)) AS u SET \(g) = ST_Translate(u.\(g), $1, $2)\(anchors)
                FROM annolink.journal_move_rows m WHERE m.entry_id = $3 AND m.table_name = $4 AND m.fid = u.\(pk) AND m.before IS NULL
                """, [.float8(dx), .float8(dy), .int8(entry), .text(table.name)])
            let kept = "SELECT fid, before FROM annolink.journal_move_rows WHERE entry_id = $1 AND table_name = $2 AND before IS NOT NULL"
            try connection.query("DELETE FROM \(qualified(table)) WHERE \(pk) IN (SELECT fid FROM (\(kept)) k)", [.int8(entry), .text(table.name)])
            try connection.query("INSERT INTO \(qualified(table)) SELECT ((k.before)::\(qualified(table))).* FROM (\(kept)) k",
                                 [.int8(entry), .text(table.name)])
            if action == .redo {
                let anchorsAgain = move[3].boolValue == true ? ", \"AnchorX\" = u.\"AnchorX\" + $1, \"AnchorY\" = u.\"AnchorY\" + $2" : ""
                try connection.query("""
                    UPDATE \(qualified(table)) AS u SET \(g) = ST_Translate(u.\(g), $1, $2)\(anchorsAgain)
                    FROM annolink.journal_move_rows m WHERE m.entry_id = $3 AND m.table_name = $4 AND m.fid = u.\(pk) AND m.before IS NOT NULL
                    """, [.float8(dx), .float8(dy), .int8(entry), .text(table.name)])
            }
        }
    }

    /// Fills the temporary table `annolink_selection` (dropped at commit) with the fids
    /// `selection` picks and returns their count.
    ///
    /// - Throws: `StoreError.unknownFeature`, `SQLCondition.Refusal`, `StoreError.invalidData`
    ///   for a box with a coordinate that is not finite.
    func select(_ selection: FeatureSelection, of table: FeatureTable) throws -> Int {
        try connection.execute("""
            CREATE TEMP TABLE IF NOT EXISTS annolink_selection (fid bigint PRIMARY KEY) ON COMMIT DROP; DELETE FROM annolink_selection
            """)
        let pk = quoteIdentifier(table.primaryKey), g = quoteIdentifier(table.geometryColumn)
        switch selection {
        case .fids(let fids):
            try connection.query("""
                INSERT INTO annolink_selection (fid) SELECT \(pk) FROM \(qualified(table)) WHERE \(pk) = ANY($1::text::bigint[]) ON CONFLICT DO NOTHING
                """, [.text(Self.array(fids))])
            let found = Set(try connection.query("SELECT fid FROM annolink_selection").rows.compactMap { $0[0].integerValue })
            if let missing = fids.first(where: { !found.contains($0) }) { throw StoreError.unknownFeature(table: table.name, fid: missing) }
        case .boundingBox(let box):
            guard [box.minX, box.minY, box.maxX, box.maxY].allSatisfy(\.isFinite) else {
                throw StoreError.invalidData("a box needs finite coordinates: \(box.minX), \(box.minY), \(box.maxX), \(box.maxY)")
            }
            // The GiST index finds the candidates (&&); the exact envelope decides.
            try connection.query("""
                INSERT INTO annolink_selection (fid) SELECT \(pk) FROM \(qualified(table))
                WHERE \(g) && ST_MakeEnvelope($1, $2, $3, $4, $5) AND NOT ST_IsEmpty(\(g))
                  AND ST_XMin(\(g)) >= $1 AND ST_YMin(\(g)) >= $2 AND ST_XMax(\(g)) <= $3 AND ST_YMax(\(g)) <= $4
                """, [.float8(box.minX), .float8(box.minY), .float8(box.maxX), .float8(box.maxY), .int4(try srid(of: table))])
        case .condition(let clause):
            let condition = try checkedCondition(clause, on: table.name)
            try connection.query("INSERT INTO annolink_selection (fid) SELECT \(pk) FROM \(qualified(table)) WHERE \(condition.sql)")
        }
        return Int(try connection.query("SELECT count(*) FROM annolink_selection").scalar?.integerValue ?? 0)
    }

    public func featureIDs(_ table: FeatureTable, selection: FeatureSelection) throws -> [Int64] {
        try connection.inTransaction {
            _ = try select(selection, of: table)
            return try connection.query("SELECT fid FROM annolink_selection ORDER BY fid").rows.compactMap { $0[0].integerValue }
        }
    }

    /// `values` as a PostgreSQL array literal (`{1,2,3}`).
    static func array(_ values: [Int64]) -> String {
        "{" + values.map(String.init).joined(separator: ",") + "}"
    }
}
