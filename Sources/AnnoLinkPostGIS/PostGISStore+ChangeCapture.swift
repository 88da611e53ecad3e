import AnnoLinkStore

/// The change capture of a PostGIS data set (docs/follow.md, docs/postgis.md): a PL/pgSQL row
/// trigger on every linked table records each insert, update and delete that another session
/// makes — psql, QGIS, GDAL — in `annolink.changes`, with the row as it was (`OLD::text`, the
/// form the journal's row images have), and wakes listeners with `pg_notify('annolink_changes',
/// table)`. annolink's own sessions say `annolink.writing = on` (`PostGISLayout.isInstalled`,
/// run as a store opens), and the trigger's `WHEN` passes over their rows before any function
/// is called. A row added without a GlobalID gets one (`annolink.fill_global_id`).
extension PostGISStore {
    /// The channel the capture's triggers notify on, with the table's name as the payload.
    public static let changesChannel = "annolink_changes"

    /// The advisory lock key that makes one follower at a time take the recorded changes, so
    /// that several servers on one database follow each change once.
    static let followLock: Int64 = 0x616E_6E6F_666C

    static let changesDDL = """
        CREATE TABLE IF NOT EXISTS annolink.changes (
          id bigserial PRIMARY KEY,
          table_name text NOT NULL,
          fid bigint NOT NULL,
          operation text NOT NULL CHECK (operation IN ('insert', 'update', 'delete')),
          before text,
          time text NOT NULL);
        CREATE INDEX IF NOT EXISTS changes_row ON annolink.changes (table_name, fid);
        CREATE TABLE IF NOT EXISTS annolink.changes_tables (table_name text PRIMARY KEY);
        CREATE OR REPLACE FUNCTION annolink.fill_global_id() RETURNS trigger LANGUAGE plpgsql AS $fill$
        BEGIN
          RETURN jsonb_populate_record(NEW, jsonb_build_object(TG_ARGV[0], \(newGlobalID)));
        END
        $fill$;
        """

    /// A new GlobalID as annolink and ArcGIS write them: `{` upper-case GUID `}`.
    static let newGlobalID = "'{' || upper(gen_random_uuid()::text) || '}'"

    /// The settings the capture's functions run with, so that a before image reads back the
    /// same whatever the editing session set: ISO dates, floats in their shortest exact digits,
    /// hex bytea, and no search path to be tricked by.
    static let functionSettings = """
        SET datestyle = 'ISO, YMD' SET intervalstyle = 'postgres' SET extra_float_digits = 1 SET bytea_output = 'hex' \
        SET search_path = pg_catalog, pg_temp
        """

    /// The trigger functions of `table`: its name in `annolink` (the table's name when it fits
    /// PostgreSQL's 63 bytes with the prefix, else a hash of it).
    static func captureFunction(_ table: String) -> String {
        let name = "changes_" + table
        if name.utf8.count <= PostGISLayout.maximumIdentifierLength { return "annolink." + quoteIdentifier(name) }
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in table.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return "annolink." + quoteIdentifier("changes_" + String(hash, radix: 16))
    }

    /// The function and triggers that record the outside edits of `table`, one statement each.
    static func captureDDL(_ table: FeatureTable) -> [String] {
        let relation = PostGISLayout.qualified(table.name), function = captureFunction(table.name)
        let name = "'" + table.name.replacingOccurrences(of: "'", with: "''") + "'"
        let key = quoteIdentifier(table.primaryKey)
        let record = "INSERT INTO annolink.changes (table_name, fid, operation, before, time) VALUES"
        let now = PostGISJournal.now
        var ddl = [
            """
            CREATE OR REPLACE FUNCTION \(function)() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER \(functionSettings) AS $capture$
            BEGIN
              IF TG_OP = 'INSERT' THEN
                \(record) (\(name), NEW.\(key), 'insert', NULL, \(now));
              ELSIF TG_OP = 'UPDATE' THEN
                \(record) (\(name), OLD.\(key), 'update', OLD::text, \(now));
                IF NEW.\(key) IS DISTINCT FROM OLD.\(key) THEN \(record) (\(name), NEW.\(key), 'insert', NULL, \(now)); END IF;
              ELSE
                \(record) (\(name), OLD.\(key), 'delete', OLD::text, \(now));
              END IF;
              PERFORM pg_notify('\(changesChannel)', \(name));
              RETURN NULL;
            END
            $capture$
            """,
            """
            CREATE OR REPLACE TRIGGER annolink_changes AFTER INSERT OR UPDATE OR DELETE ON \(relation) FOR EACH ROW
            WHEN (current_setting('annolink.writing', true) IS DISTINCT FROM 'on') EXECUTE FUNCTION \(function)()
            """,
        ]
        if let globalID = table.globalIDColumn {
            let column = quoteIdentifier(globalID.name)
            ddl += [
                "ALTER TABLE \(relation) ALTER COLUMN \(column) SET DEFAULT (\(newGlobalID))",
                """
                CREATE OR REPLACE TRIGGER annolink_global_id BEFORE INSERT ON \(relation) FOR EACH ROW WHEN (NEW.\(column) IS NULL)
                EXECUTE FUNCTION annolink.fill_global_id('\(globalID.name.replacingOccurrences(of: "'", with: "''"))')
                """,
            ]
        }
        return ddl
    }

    public func changeCaptureTables() throws -> [String] {
        guard try connection.scalar("SELECT to_regclass('annolink.changes_tables') IS NOT NULL")?.boolValue == true else { return [] }
        return try connection.query("SELECT table_name FROM annolink.changes_tables ORDER BY table_name").rows.compactMap { $0[0].textValue }
    }

    /// Records outside edits of exactly `tables` from now on: their triggers made again, every
    /// other table's dropped; an empty list drops the capture, its tables and what they had
    /// recorded but not followed. One transaction. A GlobalID column gets a default
    /// (`gen_random_uuid()`) and a trigger that fills in one left NULL, so that a feature psql or
    /// QGIS adds has one; its `NOT NULL` stays.
    ///
    /// - Throws: `StoreError.unknownTable` for a name that is not a feature table.
    public func installChangeCapture(on tables: [String]) throws {
        let wanted = try tables.map { try featureTable($0) }
        let known = try changeCaptureTables().map { name in (name: name, globalID: (try? featureTable(name))?.globalIDColumn?.name) }
        try connection.inTransaction {
            try Self.stopCapture(of: known, connection: connection)
            if wanted.isEmpty {
                try connection.execute("""
                    DROP TABLE IF EXISTS annolink.changes; DROP TABLE IF EXISTS annolink.changes_tables;
                    DROP FUNCTION IF EXISTS annolink.fill_global_id()
                    """)
            } else {
                try Self.startCapture(of: wanted, connection: connection)
                try connection.query("DELETE FROM annolink.changes WHERE NOT (table_name = ANY($1::text[]))", [.text(Self.textArray(tables))])
            }
        }
    }

    /// Records outside edits of `tables` from now on, beside the tables recorded already (what
    /// `annolink copy` does for the tables it made), in the caller's transaction.
    static func startCapture(of tables: [FeatureTable], connection: PostgreSQLConnection) throws {
        try connection.execute(changesDDL)
        for table in tables {
            for statement in captureDDL(table) { try connection.execute(statement) }
            try connection.query("INSERT INTO annolink.changes_tables (table_name) VALUES ($1) ON CONFLICT DO NOTHING", [.text(table.name)])
        }
    }

    /// Takes the triggers, functions and GlobalID defaults off `tables` (name, GlobalID
    /// column), in the caller's transaction; a table no longer there is passed over.
    static func stopCapture(of tables: [(name: String, globalID: String?)], connection: PostgreSQLConnection) throws {
        for table in tables {
            let relation = PostGISLayout.qualified(table.name)
            try connection.execute("DROP FUNCTION IF EXISTS \(captureFunction(table.name))() CASCADE")
            guard try connection.scalar("SELECT to_regclass($1) IS NOT NULL", [.text(relation)])?.boolValue == true else { continue }
            try connection.execute("DROP TRIGGER IF EXISTS annolink_global_id ON \(relation)")
            if let column = table.globalID {
                try connection.execute("ALTER TABLE \(relation) ALTER COLUMN \(quoteIdentifier(column)) DROP DEFAULT")
            }
        }
        if try connection.scalar("SELECT to_regclass('annolink.changes_tables') IS NOT NULL")?.boolValue == true {
            try connection.query("DELETE FROM annolink.changes_tables WHERE table_name = ANY($1::text[])", [.text(textArray(tables.map(\.name)))])
        }
    }

    public func pendingOutsideEdits() throws -> [String: [Int64]] {
        guard try connection.scalar("SELECT to_regclass('annolink.changes') IS NOT NULL")?.boolValue == true else { return [:] }
        var pending: [String: [Int64]] = [:]
        for row in try connection.query("SELECT DISTINCT table_name, fid FROM annolink.changes ORDER BY table_name, fid").rows {
            guard let table = row[0].textValue, let fid = row[1].integerValue else { continue }
            pending[table, default: []].append(fid)
        }
        return pending
    }

    /// Takes the changes recorded, one per row (the first before image a row has is the row
    /// before them all; the row now is after them all), into the entry being recorded: each
    /// row's image before it is the recorded one, so that undo writes it back.
    ///
    /// One follower at a time (an advisory lock to the end of the transaction), and the changed
    /// rows are locked (`FOR UPDATE`) before their records are taken: no outside edit of them
    /// can commit between reading the records and reading the rows, and a second server finds
    /// the records gone. Records of rows changed after the lock wait for the next call.
    ///
    /// - Throws: `StoreError.invalidData` when a record names a table the data set does not have.
    public func takeOutsideEdits() throws -> [OutsideEdit] {
        guard let recording,
              try connection.scalar("SELECT to_regclass('annolink.changes') IS NOT NULL")?.boolValue == true else { return [] }
        try connection.execute("SELECT pg_advisory_xact_lock(\(Self.followLock))")
        let keys = try connection.query("SELECT table_name, fid FROM annolink.changes GROUP BY table_name, fid ORDER BY min(id)").rows
        var fidsByTable: [String: [Int64]] = [:]
        for key in keys {
            guard let name = key[0].textValue, let fid = key[1].integerValue else { continue }
            fidsByTable[name, default: []].append(fid)
        }
        // The rows now, locked, by table in name order (two followers lock in one order).
        var now: [EditRecording.Key: (text: String, xmin: Int64?)] = [:]
        for (name, fids) in fidsByTable.sorted(by: { $0.key < $1.key }) {
            let table: FeatureTable
            do { table = try featureTable(name) } catch StoreError.unknownTable {
                throw StoreError.invalidData("annolink.changes names a table the data set does not have: \(name)")
            }
            try flush(table.name)
            let pk = quoteIdentifier(table.primaryKey)
            for row in try connection.query(
                "SELECT u.\(pk), u::text, \(Self.xmin) FROM \(qualified(table)) AS u WHERE u.\(pk) = ANY($1::int8[]) ORDER BY u.\(pk) FOR UPDATE",
                [.text(Self.array(fids))]).rows {
                guard let fid = row[0].integerValue, let text = row[1].textValue else { continue }
                now[.init(table: table.name, fid: fid)] = (text, row[2].integerValue)
            }
        }
        // The records of those rows, taken; the first of each row holds the row before them all.
        var before: [EditRecording.Key: String?] = [:]
        for (name, fids) in fidsByTable {
            let table = try featureTable(name)
            for row in try connection.query("""
                WITH taken AS (DELETE FROM annolink.changes WHERE table_name = $1 AND fid = ANY($2::int8[]) RETURNING id, fid, before)
                SELECT DISTINCT ON (fid) fid, before FROM taken ORDER BY fid, id
                """, [.text(name), .text(Self.array(fids))]).rows {
                guard let fid = row[0].integerValue else { continue }
                before[.init(table: table.name, fid: fid)] = .some(row[1].textValue)
            }
        }
        var edits: [OutsideEdit] = []
        for key in keys {
            guard let name = key[0].textValue, let fid = key[1].integerValue, let table = try? featureTable(name) else { continue }
            let row = EditRecording.Key(table: table.name, fid: fid)
            guard let recorded = before[row] else { continue }
            let current = now[row]
            if recorded == nil, current == nil { continue }  // inserted and deleted again
            // The image before the edit is the recorded row, xmin unknown: an undo of an earlier
            // bulk move then counts the row as changed outside its journal (docs/postgis.md).
            recording.before(row, recorded, xmin: nil)
            recording.after(row, current?.text, xmin: current?.xmin)
            var edit = OutsideEdit(table: table.name, fid: fid, before: nil, after: nil)
            do {
                edit.before = try recorded.map { try feature(table, image: $0) }
                edit.after = current == nil ? nil : try feature(table, fid: fid)
            } catch let error as StoreError {
                guard case .corruptGeometry = error else { throw error }
                edit.unreadable = error.description
            }
            edits.append(edit)
        }
        return edits
    }

    /// `values` as a PostgreSQL text array literal (`{"a","b"}`), for `$1::text[]`.
    static func textArray(_ values: [String]) -> String {
        let quoted = values.map { value in
            "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        return "{" + quoted.joined(separator: ",") + "}"
    }

    /// A row image (`row::text` of `table`) read as a feature, by PostgreSQL's own cast back.
    func feature(_ table: FeatureTable, image: String) throws -> Feature {
        let attributes = table.attributeColumns
        guard let row = try connection.query(
            "SELECT \(selectList(table, attributes)) FROM (SELECT ($1::text::\(qualified(table))).*) AS u", [.text(image)]).rows.first
        else { throw StoreError.invalidData("a before image in annolink.changes cannot be read as a row of \(table.name)") }
        return try feature(from: row, table, attributes)
    }
}
