import AnnoLinkGeometry
import AnnoLinkStore

extension PostGISStore {
    /// The bulk move as set-based SQL: the selection in a temporary table, then one `UPDATE`
    /// per table — the features' `ST_Translate`, and for each annotation table its rows of the
    /// selected features moved rigidly in one statement (footprint by `ST_Translate`, anchor
    /// by adding) — each table's keys written into the journal in the same statement (one
    /// array, `annolink.journal_move_keys`) or by one `INSERT … SELECT` before it, with the
    /// images (`annolink.journal_move_rows`). The journal keeps the vector and the keys; a row's
    /// before-image only when moving it back would not give it back bit for bit. One
    /// transaction for all of it.
    ///
    /// - Throws: `StoreError.unknownFeature` (a fid in `.fids` that does not exist),
    ///   `SQLCondition.Refusal`, `PostgreSQLError`.
    public func translate(_ table: FeatureTable, selection: FeatureSelection, annotation: [String: [Int64]], dx: Double, dy: Double,
                          dryRun: Bool, command: String, summary: (Int) -> String, progress: (Int, Int) -> Void) throws -> BulkMoveCounts {
        try flushAll()
        return try connection.inTransaction {
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
            progress(count / 2, count)
            for (name, classIDs) in annotation.sorted(by: { $0.key < $1.key }) {
                // The labels move rigidly with their features: footprint and anchor in one statement.
                let moved = try moveAndJournal(PostGISLayout.qualified(name), key: "fid", geometry: "geom", anchors: true,
                                               where: "o.\"FeatureID\" IN (SELECT fid FROM annolink_selection) AND o.\"AnnotationClassID\" = ANY($5::text::bigint[])",
                                               extra: [.text(Self.array(classIDs))], dx: dx, dy: dy, entry: entry, tableName: name)
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
    /// geometry by `ST_Translate`, with `anchors` the annotation's anchor by adding — writes
    /// their keys into the journal (`journal_move_keys` or `journal_move_rows`, read together
    /// as `journal_moved_rows`) and the table's move into
    /// `annolink.journal_moves`, and widens the table's recorded extent by where the rows went;
    /// returns how many rows moved. `condition` may use `$5` for `extra[0]`.
    ///
    /// First one aggregate over the rows: their extent, anchors' ranges and `xmin`s. When those
    /// show that moving back by the vector gives every coordinate back bit for bit
    /// (`MoveExactness`) and every row was last written by one transaction, the move and its keys
    /// are one statement, `WITH moved AS (UPDATE … RETURNING key) INSERT … SELECT array_agg`:
    /// nothing is computed or written per row beyond the move itself. Otherwise each row's key goes in with the row's
    /// image where its move back is not exact (two `ST_Translate` per row to find out) and, when
    /// the rows' `xmin`s differ, its `xmin`; then the rows move.
    ///
    /// The rows moved carry this transaction's id as their `xmin` afterwards (`created_xid`): an
    /// undo finds a row written since by its `xmin` (`moveBack`).
    func moveAndJournal(_ relation: String, key: String, geometry g: String, anchors: Bool, where condition: String, extra: [PostgreSQLValue],
                        dx: Double, dy: Double, entry: Int64, tableName: String) throws -> Int {
        let parameters: [PostgreSQLValue] = [.float8(dx), .float8(dy), .int8(entry), .text(tableName)] + extra
        let setAnchors = anchors ? ", \"AnchorX\" = o.\"AnchorX\" + $1, \"AnchorY\" = o.\"AnchorY\" + $2" : ""
        // PostGIS's cached boxes are rounded outwards, so the extent holds every coordinate
        // (empty and null geometries have none, and move to themselves).
        let ranges = anchors ? "min(o.\"AnchorX\") ax0, max(o.\"AnchorX\") ax1, min(o.\"AnchorY\") ay0, max(o.\"AnchorY\") ay1"
            : "NULL::float8 ax0, NULL::float8 ax1, NULL::float8 ay0, NULL::float8 ay1"
        let extent = try connection.query("""
            SELECT ST_XMin(e.b), ST_XMax(e.b), ST_YMin(e.b), ST_YMax(e.b), e.ax0, e.ax1, e.ay0, e.ay1, e.x0, e.x1 FROM (
              SELECT ST_Extent(o.\(g)) b, \(ranges), min(o.xmin::text::int8) x0, max(o.xmin::text::int8) x1
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
        // The one transaction that last wrote every row, when there is one.
        let before: Int64? = extent.count > 9 && extent[8].integerValue != nil && extent[8].integerValue == extent[9].integerValue
            ? extent[8].integerValue : nil
        let rows: Int
        if exact, before != nil {
            rows = try connection.query("""
                WITH moved AS (UPDATE \(relation) AS o SET \(g) = ST_Translate(o.\(g), $1, $2)\(setAnchors) WHERE \(condition) RETURNING o.\(key) AS fid)
                INSERT INTO annolink.journal_move_keys (entry_id, table_name, fids) SELECT $3, $4, coalesce(array_agg(fid), '{}') FROM moved
                RETURNING cardinality(fids)
                """, parameters).scalar?.integerValue.map(Int.init) ?? 0
        } else {
            let anchorsBack = anchors ? """
                 AND (o."AnchorX" + $1) - $1 IS NOT DISTINCT FROM o."AnchorX" AND (o."AnchorY" + $2) - $2 IS NOT DISTINCT FROM o."AnchorY"
                """ : ""
            let image = exact ? "NULL" : """
                CASE WHEN ST_AsEWKB(ST_Translate(ST_Translate(o.\(g), $1, $2), -$1, -$2)) IS NOT DISTINCT FROM ST_AsEWKB(o.\(g))\(anchorsBack)
                     THEN NULL ELSE o::text END
                """
            rows = try connection.query("""
                INSERT INTO annolink.journal_move_rows (entry_id, table_name, fid, before, before_xmin)
                SELECT $3, $4, o.\(key), \(image), \(before == nil ? "o.xmin::text::int8" : "NULL")
                FROM \(relation) o WHERE \(condition)
                """, parameters).affectedRows
            try connection.query("""
                UPDATE \(relation) AS o SET \(g) = ST_Translate(o.\(g), $1, $2)\(setAnchors) WHERE \(condition)
                """, parameters)
        }
        let created = try writtenXid(relation, key: key, entry: entry, tableName: tableName)
        try connection.query("""
            INSERT INTO annolink.journal_moves (entry_id, table_name, dx, dy, annotation, created_xid, written_xid, before_xid)
            VALUES ($1, $2, $3, $4, $5, $6, $6, $7)
            """, [.int8(entry), .text(tableName), .float8(dx), .float8(dy), .bool(anchors), created.map { .int8($0) } ?? .null,
                  before.map { .int8($0) } ?? .null,
            ])
        // Where the rows went: their extent before, moved (rounded outwards, so that it bounds
        // every coordinate however ST_Translate rounds).
        var moved: Envelope?
        if let x0 = extent[0].doubleValue, let x1 = extent[1].doubleValue, let y0 = extent[2].doubleValue, let y1 = extent[3].doubleValue {
            moved = Envelope(minX: (x0 + dx).nextDown, minY: (y0 + dy).nextDown, maxX: (x1 + dx).nextUp, maxY: (y1 + dy).nextUp)
        }
        try noteWritten(tableName, within: moved)
        return rows
    }

    /// The `xmin` the rows of `tableName` moved by `entry` carry now (one of them read: the rows
    /// an action writes are written by one transaction), nil when it moved none.
    private func writtenXid(_ relation: String, key: String, entry: Int64, tableName: String) throws -> Int64? {
        try connection.query("""
            SELECT u.xmin::text::int8 FROM \(relation) AS u WHERE u.\(key) =
              (SELECT fid FROM annolink.journal_moved_rows WHERE entry_id = $1 AND table_name = $2 LIMIT 1)
            """, [.int8(entry), .text(tableName)]).scalar?.integerValue
    }

    /// Widens the recorded extent of `table` in `annolink.contents` by `box` (a bound of
    /// geometries an edit wrote; nil: none) where it does not hold it already, and sets
    /// `last_change` then; so that the recorded extent stays a bound of every feature. An edit
    /// inside the extent writes nothing here: it takes no lock on the table's `contents` row,
    /// which every editor of the table would otherwise wait for. Undo and redo write only rows
    /// as they were before, inside an extent recorded then, and the extent never shrinks; so
    /// they need not widen it.
    func noteWritten(_ table: String, within box: Envelope?) throws {
        guard let box, [box.minX, box.minY, box.maxX, box.maxY].allSatisfy(\.isFinite) else { return }
        try connection.query("""
            UPDATE annolink.contents SET last_change = \(PostGISJournal.now), min_x = LEAST(min_x, $2), min_y = LEAST(min_y, $3),
              max_x = GREATEST(max_x, $4), max_y = GREATEST(max_y, $5)
            WHERE table_name = $1 AND (min_x IS NULL OR min_y IS NULL OR max_x IS NULL OR max_y IS NULL
              OR min_x > $2 OR min_y > $3 OR max_x < $4 OR max_y < $5)
            """, [.text(table), .float8(box.minX), .float8(box.minY), .float8(box.maxX), .float8(box.maxY)])
    }

    /// Notes that an undo or redo of the single edit `entry` wrote its rows in transaction `xid`.
    func noteApplied(_ action: JournalError.Action, entry: Int64, xid: Int64) throws {
        let column = action == .undo ? "undo_xids" : "redo_xids"
        try connection.query("UPDATE annolink.journal SET \(column) = array_append(\(column), $1) WHERE id = $2", [.int8(xid), .int8(entry)])
    }

    /// The journal's tables of bulk moves, created by the first move (`PostGISJournal.xidDDL`
    /// adds the transaction ids).
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

    /// The moved keys of a move that keeps no row image (the fast path), one array per table:
    /// a million keys as rows of `journal_move_rows` cost more than the move itself (a
    /// primary-key entry and a foreign-key check each). `journal_moved_rows` reads both kinds
    /// as rows. Added after `PostGISJournal.xidDDL`, which gives `journal_move_rows` its last column.
    static let keysDDL = """
        CREATE TABLE IF NOT EXISTS annolink.journal_move_keys (
          entry_id bigint NOT NULL REFERENCES annolink.journal (id) ON DELETE CASCADE,
          table_name text NOT NULL,
          fids bigint[] NOT NULL,
          PRIMARY KEY (entry_id, table_name));
        CREATE OR REPLACE VIEW annolink.journal_moved_rows AS
          SELECT entry_id, table_name, fid, before, before_xmin FROM annolink.journal_move_rows
          UNION ALL
          SELECT k.entry_id, k.table_name, f.fid, NULL::text, NULL::bigint
          FROM annolink.journal_move_keys k CROSS JOIN LATERAL unnest(k.fids) AS f(fid);
        """

    /// Undoes (moves back by the vector, writing the kept before-images) or redoes a bulk move
    /// entry, inside the caller's transaction.
    ///
    /// Refuses, changing nothing, when a moved row was written since the entry's latest move,
    /// undo or redo: by its `xmin`. Every row the entry wrote carries that transaction's id
    /// (`journal_moves.written_xid`) until something writes it again. A row that carries another
    /// was rewritten — by a program outside annolink, or by the journal itself putting it back
    /// as it was: the undo of a later edit that had read it as this entry left it (undo), or the
    /// redo of an earlier edit that this entry had read it from (redo); those are recognised by
    /// the `xmin`s the journal keeps (`PostGISJournal.xidDDL`), anything else refuses. Entries
    /// recorded before the journal kept them (`written_xid` NULL) are not checked.
    func moveBack(entry: Int64, action: JournalError.Action) throws {
        let moves = try connection.query("""
            SELECT table_name, dx, dy, annotation, written_xid, before_xid FROM annolink.journal_moves WHERE entry_id = $1 ORDER BY table_name
            """, [.int8(entry)]).rows
        // Every table first, so that a refusal changes nothing.
        for move in moves {
            guard let written = move[4].integerValue else { continue }
            let table = try featureTable(move[0].textValue ?? "")
            if let (fid, gone) = try rowWrittenSince(table, entry: entry, action: action, written: written, before: move[5].integerValue) {
                throw JournalError.conflict(action: action, entry: entry, table: table.name, fid: fid,
                                            reason: "\(gone ? "was deleted" : "was changed") after edit #\(entry), outside the journal")
            }
        }
        let sign = action == .undo ? -1.0 : 1.0
        var xid: Int64?
        for move in moves {
            let table = try featureTable(move[0].textValue ?? "")
            let dx = sign * (move[1].doubleValue ?? 0), dy = sign * (move[2].doubleValue ?? 0)
            let pk = quoteIdentifier(table.primaryKey), g = quoteIdentifier(table.geometryColumn)
            let anchors = move[3].boolValue == true ? ", \"AnchorX\" = u.\"AnchorX\" + $1, \"AnchorY\" = u.\"AnchorY\" + $2" : ""
            // Rows whose move back is exact move by the vector; the others get their image (undo)
            // or are moved from it (redo), which gives exactly what the move gave.
            try connection.query("""
                UPDATE \(qualified(table)) AS u SET \(g) = ST_Translate(u.\(g), $1, $2)\(anchors)
                FROM annolink.journal_moved_rows m WHERE m.entry_id = $3 AND m.table_name = $4 AND m.fid = u.\(pk) AND m.before IS NULL
                """, [.float8(dx), .float8(dy), .int8(entry), .text(table.name)])
            let kept = "SELECT fid, before FROM annolink.journal_moved_rows WHERE entry_id = $1 AND table_name = $2 AND before IS NOT NULL"
            try connection.query("DELETE FROM \(qualified(table)) WHERE \(pk) IN (SELECT fid FROM (\(kept)) k)", [.int8(entry), .text(table.name)])
            try connection.query("INSERT INTO \(qualified(table)) SELECT ((k.before)::\(qualified(table))).* FROM (\(kept)) k",
                                 [.int8(entry), .text(table.name)])
            if action == .redo {
                try connection.query("""
                    UPDATE \(qualified(table)) AS u SET \(g) = ST_Translate(u.\(g), $1, $2)\(anchors)
                    FROM annolink.journal_moved_rows m WHERE m.entry_id = $3 AND m.table_name = $4 AND m.fid = u.\(pk) AND m.before IS NOT NULL
                    """, [.float8(dx), .float8(dy), .int8(entry), .text(table.name)])
            }
            let now = try writtenXid(qualified(table), key: pk, entry: entry, tableName: table.name)
            try connection.query("UPDATE annolink.journal_moves SET written_xid = $1 WHERE entry_id = $2 AND table_name = $3",
                                 [now.map { .int8($0) } ?? .null, .int8(entry), .text(table.name)])
            xid = xid ?? now
        }
        if let xid { try noteApplied(action, entry: entry, xid: xid) }
    }

    /// The first row the bulk move `entry` moved in `table` (by fid) that was written since the
    /// entry's latest action (`written`, the `xmin` that action gave its rows) other than by the
    /// journal putting it back as that action left it; with whether it is gone. `before`: the
    /// one `xmin` the rows carried before the move (nil: each row's is in `before_xmin`).
    private func rowWrittenSince(_ table: FeatureTable, entry: Int64, action: JournalError.Action, written: Int64,
                                 before: Int64?) throws -> (fid: Int64, gone: Bool)? {
        let pk = quoteIdentifier(table.primaryKey)
        let x = "u.xmin::text::int8"
        // A row whose `xmin` is another move's `written_xid` for this table was written by that
        // move's latest action, which wrote only that move's rows here: so it is one of them,
        // and its keys need no lookup (they may be one array, `journal_move_keys`, where a
        // lookup per row would scan them all); only a kept row's own `before_xmin` is read.
        // Undo: the rows must be as the move (or its latest redo) left them — the xmins in `a`.
        // The undo of a later edit (all later ones are undone, or discarded by a new edit since
        // undone too) that had read a row with one of those put it back so. Redo: the rows must be as the undo left them, which is as this
        // move found them: the redo of an earlier edit whose result this move had read put a
        // row back so.
        let excused = action == .undo ? """
            AND NOT EXISTS (SELECT 1 FROM annolink.journal j JOIN annolink.journal_rows r ON r.entry_id = j.id
              WHERE j.id > $1 AND j.state IN ('undone', 'discarded') AND \(x) = ANY(j.undo_xids) AND r.table_name = $2 AND r.fid = m.fid
                AND r.before_xmin = ANY(a.xids))
            AND NOT EXISTS (SELECT 1 FROM annolink.journal j JOIN annolink.journal_moves v ON v.entry_id = j.id
              LEFT JOIN annolink.journal_move_rows n ON n.entry_id = j.id AND n.table_name = v.table_name AND n.fid = m.fid
              WHERE j.id > $1 AND j.state IN ('undone', 'discarded') AND v.table_name = $2 AND \(x) = v.written_xid
                AND coalesce(n.before_xmin, v.before_xid) = ANY(a.xids))
            """ : """
            AND NOT EXISTS (SELECT 1 FROM annolink.journal j JOIN annolink.journal_rows r ON r.entry_id = j.id
              WHERE j.id < $1 AND j.state = 'done' AND \(x) = ANY(j.redo_xids) AND r.table_name = $2 AND r.fid = m.fid
                AND (coalesce(m.before_xmin, $4) = r.after_xmin OR coalesce(m.before_xmin, $4) = ANY(j.redo_xids)))
            AND NOT EXISTS (SELECT 1 FROM annolink.journal j JOIN annolink.journal_moves v ON v.entry_id = j.id
              WHERE j.id < $1 AND j.state = 'done' AND v.table_name = $2 AND \(x) = v.written_xid
                AND (coalesce(m.before_xmin, $4) = v.created_xid OR coalesce(m.before_xmin, $4) = ANY(j.redo_xids)))
            """
        let row = try connection.query("""
            WITH a AS (SELECT array_append(j0.redo_xids, v0.created_xid) AS xids FROM annolink.journal j0
                       JOIN annolink.journal_moves v0 ON v0.entry_id = j0.id WHERE j0.id = $1 AND v0.table_name = $2)
            SELECT m.fid, u.\(pk) IS NULL FROM a, annolink.journal_moved_rows m LEFT JOIN \(qualified(table)) AS u ON u.\(pk) = m.fid
            WHERE m.entry_id = $1 AND m.table_name = $2 AND (u.\(pk) IS NULL OR \(x) <> $3)
            \(excused)
            ORDER BY m.fid LIMIT 1
            """, [.int8(entry), .text(table.name), .int8(written)] + (action == .redo ? [before.map { .int8($0) } ?? .null] : [])).rows.first
        guard let row, let fid = row[0].integerValue else { return nil }
        return (fid, row[1].boolValue == true)
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
        try flush(table.name)
        return try connection.inTransaction {
            _ = try select(selection, of: table)
            return try connection.query("SELECT fid FROM annolink_selection ORDER BY fid").rows.compactMap { $0[0].integerValue }
        }
    }

    /// `values` as a PostgreSQL array literal (`{1,2,3}`).
    static func array(_ values: [Int64]) -> String {
        "{" + values.map(String.init).joined(separator: ",") + "}"
    }
}
