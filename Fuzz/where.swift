// libFuzzer entry point (scripts/fuzz where): text → `Connection.condition(_:on:)`, the SQL guard
// every class where clause, `--where` and service filter passes, checked against table `t` of a
// file that also holds what a hostile clause would reach for: another table (`secret`), an FTS3
// table (whose `fts3_tokenizer` is issue 16's D1), an R-tree, a view over `t` that calls a
// function outside the allow-list, and a view over `secret`.
//
// The guard must accept nothing that reaches beyond `t` and the allowed functions, and nothing
// whose work is not bounded by the row (issue 25). The oracles, none of them the guard's own
// authorizer, run every accepted condition on a second, raw SQLite connection to the same file,
// in the shapes annolink embeds conditions in:
// - the compiled program (EXPLAIN): every b-tree it opens is `t` or one of `t`'s indexes, it
//   opens no virtual table, writes nothing, and every function it calls is allowed;
// - the query plan (EXPLAIN QUERY PLAN): nothing but scans and searches of `t` (and SQLite's
//   multi-index OR and sort), so no subquery, list subquery, co-routine or constant rows;
// - the run: every function of SQLite outside the allow-list (`PRAGMA function_list`) is
//   replaced on that connection by one that aborts, so calling one crashes the fuzzer; and the
//   run may neither make a value longer than 1,000,000 bytes (SQLITE_TOOBIG) nor take more than
//   100,000 virtual-machine steps over `t`'s 64 rows (a condition of at most a few thousand
//   characters on rows of a few bytes needs far less of both).
// A refused condition is fine whatever it is; an accepted one that fails an oracle aborts.
import AnnoLinkStore
import CSQLite
import Foundation

/// Aborts: an accepted condition reached something it may not.
private func escaped(_ what: String, _ condition: String) -> Never {
    fatalError("the SQL guard accepted a condition that \(what): \(condition.debugDescription)")
}

/// A raw connection, the guard's connection on the same file, and what `t` may open.
private final class Fixture: @unchecked Sendable {
    let folder: String
    let raw: OpaquePointer
    let guarded: Connection
    /// Root pages of `t` and its indexes.
    let allowedPages: Set<Int64>
    /// The guard's allow-list, and `count`, which the first shape calls itself (`SELECT
    /// count(*) … AND (cond)`); the guard refuses it in a condition, where without a subquery
    /// it cannot compile anyway.
    let allowed = SQLCondition.allowedFunctions.union(["count"])
    /// Conditions checked by the guard, and accepted.
    var checked = 0
    var accepted = 0

    init() {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        folder = "\(base)/annolink-fuzz-where-\(getpid())"
        try? FileManager.default.removeItem(atPath: folder)
        try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = "\(folder)/where.sqlite"
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK, let db else { fatalError("cannot open \(path)") }
        raw = db
        Self.exec(db, """
            CREATE TABLE t (fid INTEGER PRIMARY KEY, name TEXT, n INTEGER, x REAL, b BLOB, geom BLOB);
            CREATE INDEX t_name ON t (name);
            INSERT INTO t VALUES (1, 'ELMWOOD', 21505, 5.4, X'00FF', NULL), (2, 'Pohjoisesplanadi', 7, -0.5, NULL, X'4750'),
                                 (3, NULL, NULL, NULL, X'', NULL), (4, 'o''clock', 2, 1e300, X'0102', X'47500001');
            -- More rows, so that a subquery or a join of `t` costs visibly more than the row.
            INSERT INTO t (fid, name, n, x) WITH RECURSIVE c(i) AS (SELECT 5 UNION ALL SELECT i + 1 FROM c WHERE i < 64)
                SELECT i, 'row ' || i, i * 3, i / 4.0 FROM c;
            CREATE TABLE secret (fid INTEGER PRIMARY KEY, name TEXT, n INTEGER);
            INSERT INTO secret VALUES (1, 'password', 42);
            CREATE VIRTUAL TABLE ftsv USING fts3(c, tokenize=simple);
            INSERT INTO ftsv VALUES ('hello world');
            CREATE VIRTUAL TABLE rtree_t_geom USING rtree(id, minx, maxx, miny, maxy);
            INSERT INTO rtree_t_geom VALUES (1, 0, 1, 0, 1);
            CREATE VIEW v AS SELECT fid, hazard(name) AS h FROM t;
            CREATE VIEW vs AS SELECT fid, name FROM secret;
            """, registeringHazard: true)
        var pages: Set<Int64> = []
        Self.each(db, "SELECT rootpage FROM sqlite_schema WHERE tbl_name = 't' AND type IN ('table', 'index')") { pages.insert(sqlite3_column_int64($0, 0)) }
        allowedPages = pages
        // What a run may allocate and how long it may take are oracles (`run`): the guard bounds
        // the work of what it accepts by the row. Checked here with SQLite's own functions,
        // before those outside the allow-list are replaced (printf is one).
        sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1_000_000)
        sqlite3_progress_handler(db, 1000, { _ in
            progressCalls += 1
            return progressCalls > 10_000 ? 1 : 0
        }, nil)
        for (text, code) in [("fid = 1 AND length(zeroblob(1100000)) > 0", SQLITE_TOOBIG), ("(SELECT count(*) FROM t a, t b, t c, t d) > 0", SQLITE_INTERRUPT)] {
            if run("SELECT fid FROM \"t\" WHERE (\(text)\n)", on: db).code != code { fatalError("the run oracle misses \(text)") }
        }
        if run("SELECT fid FROM \"t\" WHERE ((SELECT count(*) FROM t a, t b, t c) > 0\n)", on: db).steps <= Self.stepBudget(forConditionOf: 41) {
            fatalError("the run oracle's step budget misses a join")
        }
        // Every function outside the allow-list aborts when called on the raw connection.
        // Each name with -1 (any number of arguments) and with every arity SQLite lists: a
        // function an extension registered on the connection (fts3_tokenizer) keeps its exact
        // arity over a -1 one.
        var signatures: Set<String> = []
        Self.each(db, "SELECT DISTINCT name, narg FROM pragma_function_list") {
            signatures.insert("\(String(cString: sqlite3_column_text($0, 0)))\t\(sqlite3_column_int($0, 1))")
        }
        for signature in signatures {
            let parts = signature.split(separator: "\t")
            let name = String(parts[0])
            guard !allowed.contains(name.lowercased()) else { continue }
            for arity in Set([Int32(-1), Int32(parts[1])!]) {
                sqlite3_create_function_v2(db, name, arity, SQLITE_UTF8, nil, { context, _, _ in
                    abortCall()
                    sqlite3_result_null(context)
                }, nil, nil, nil)
            }
        }
        guarded = try! Connection(path: path, mode: .readWrite, journalMode: nil)
        checkOracles()
        atexit {
            let f = Fixture.shared
            FileHandle.standardError.write(Data("where: \(f.accepted) of \(f.checked) conditions accepted by the guard and run past every oracle\n".utf8))
            try? FileManager.default.removeItem(atPath: f.folder)
        }
    }

    /// The oracles must see what they are for: each of these escapes, bypassing the guard, is
    /// caught, or the target refuses to run.
    func checkOracles() {
        let escapes = [
            "(SELECT count(*) FROM secret) > 0", "EXISTS (SELECT 1 FROM ftsv)", "fid IN (SELECT h FROM v)", "randomblob(4) IS NOT NULL",
            "fid IN (SELECT id FROM rtree_t_geom)", "EXISTS (SELECT 1 FROM sqlite_master)", "fts3_tokenizer('simple') IS NOT NULL",
        ]
        for text in escapes {
            if violation("SELECT fid FROM \"t\" WHERE (\(text)\n)", fixture: self) == nil { fatalError("the program oracle misses \(text)") }
        }
        // Subqueries of `t` itself and VALUES, which read only `t`: the plan oracle sees them.
        for text in ["fid IN (SELECT n FROM t)", "(SELECT count(*) FROM t a, t b) > 0", "EXISTS (SELECT 1)", "fid IN (VALUES (1), (2))",
                     "(fid, name) IN ((1, 'a'), (2, 'b'))", "fid = (SELECT max(fid) FROM t)", "fid IN (SELECT fid FROM t)"] {
            if planViolation("SELECT fid FROM \"t\" WHERE (\(text)\n) ORDER BY fid", fixture: self) == nil { fatalError("the plan oracle misses \(text)") }
        }
        for text in ["fid < 10", "name LIKE 'row%' AND n IN (3, 6, 9)", "name = 'a' OR fid = 2 OR n > 3"] {
            if let what = planViolation("SELECT fid FROM \"t\" WHERE (\(text)\n) ORDER BY fid", fixture: self) { fatalError("the plan oracle refuses \(text): \(what)") }
        }
        checkingOracles = true
        defer { checkingOracles = false }
        for call in ["randomblob(4)", "fts3_tokenizer('simple')", "hazard(name)", "sqlite_version()", "load_extension('x')", "json('[]')"] {
            replacedFunctionCalled = false
            run("SELECT \(call) FROM t", on: raw)
            if !replacedFunctionCalled { fatalError("the run oracle misses \(call)") }
        }
    }

    /// The virtual-machine steps a condition of `length` bytes may take in one shape over `t`'s
    /// 64 rows: per row at most about one instruction per byte of the condition (every operator
    /// and operand is at least one byte; twice that, to spare), the shape's own loop, and a
    /// start. A join or subquery of `t` costs a multiple of the rows instead.
    static func stepBudget(forConditionOf length: Int) -> Int64 {
        Int64(64 * (2 * length + 100) + 10_000)
    }

    static func exec(_ db: OpaquePointer, _ sql: String, registeringHazard: Bool = false) {
        if registeringHazard {
            // The view `v` calls it; at set-up it only needs to exist.
            sqlite3_create_function_v2(db, "hazard", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, { context, _, _ in
                abortCall()
                sqlite3_result_null(context)
            }, nil, nil, nil)
        }
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &message) == SQLITE_OK else { fatalError("set-up failed: \(String(cString: message!))") }
    }

    static func each(_ db: OpaquePointer, _ sql: String, _ body: (OpaquePointer) -> Void) {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { fatalError(String(cString: sqlite3_errmsg(db))) }
        defer { sqlite3_finalize(statement) }
        while sqlite3_step(statement) == SQLITE_ROW { body(statement) }
    }

    static let shared = Fixture()
}

/// While the fixture checks its own oracles, a replaced function records the call instead of
/// aborting.
nonisolated(unsafe) private var checkingOracles = false
nonisolated(unsafe) private var replacedFunctionCalled = false

/// The body of every function the oracle replaced: reaching it is the finding.
private func abortCall() {
    if checkingOracles {
        replacedFunctionCalled = true
        return
    }
    fatalError("a condition the SQL guard accepted called a function outside the allow-list (current input: see the crash file)")
}

/// Opcodes a read of `t` never needs: virtual tables, writes to the file, schema changes,
/// triggers.
private let forbiddenOpcodes: Set<String> = [
    "VOpen", "VFilter", "VColumn", "VNext", "VUpdate", "VBegin", "VCreate", "VDestroy", "VRename", "VCheck", "VInitIn",
    "OpenWrite", "ParseSchema", "SqlExec", "Destroy", "Clear", "CreateBtree", "Vacuum", "IncrVacuum", "JournalMode",
    "Program", "Pagecount", "MaxPgcnt", "Expire", "LoadAnalysis", "DropTable", "DropIndex", "DropTrigger", "TableLock",
]
private let functionOpcodes: Set<String> = ["Function", "PureFunc", "AggStep", "AggStep1", "AggFinal", "AggValue", "AggInverse"]

/// What the program SQLite compiles for `sql` does that a condition on `t` may not, or nil.
private func violation(_ sql: String, fixture: Fixture) -> String? {
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(fixture.raw, "EXPLAIN " + sql, -1, &statement, nil) == SQLITE_OK, let statement else {
        // The guard compiled it on `SELECT 1 FROM t WHERE (…)`; the same text must compile here.
        return "does not compile where annolink embeds it (\(String(cString: sqlite3_errmsg(fixture.raw))))"
    }
    defer { sqlite3_finalize(statement) }
    while true {
        let rc = sqlite3_step(statement)
        if rc == SQLITE_DONE { return nil }
        guard rc == SQLITE_ROW else { return "cannot be explained (\(rc))" }
        let opcode = String(cString: sqlite3_column_text(statement, 1))
        let p2 = sqlite3_column_int64(statement, 3)
        let p3 = sqlite3_column_int64(statement, 4)
        let p4 = sqlite3_column_text(statement, 5).map { String(cString: $0) } ?? ""
        if forbiddenOpcodes.contains(opcode) { return "compiles to \(opcode) \(p4)" }
        if opcode == "OpenRead" || opcode == "ReopenIdx" {
            if p3 != 0 || !fixture.allowedPages.contains(p2) { return "opens b-tree \(p2) of database \(p3), which is not t's" }
        }
        if functionOpcodes.contains(opcode) {
            let name = String(p4.prefix { $0 != "(" }).lowercased()
            if !fixture.allowed.contains(name) { return "calls \(p4)" }
        }
    }
}

/// What the query plan of `sql` holds beyond scans and searches of `t`, or nil: a subquery, a
/// list subquery (`IN (SELECT …)`, `IN (VALUES …)`), a co-routine, constant rows, a compound.
private func planViolation(_ sql: String, fixture: Fixture) -> String? {
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(fixture.raw, "EXPLAIN QUERY PLAN " + sql, -1, &statement, nil) == SQLITE_OK, let statement else {
        return "cannot be planned where annolink embeds it (\(String(cString: sqlite3_errmsg(fixture.raw))))"
    }
    defer { sqlite3_finalize(statement) }
    while sqlite3_step(statement) == SQLITE_ROW {
        let detail = String(cString: sqlite3_column_text(statement, 3))
        let allowed = detail.hasPrefix("SCAN t") || detail.hasPrefix("SEARCH t") || detail == "MULTI-INDEX OR"
            || detail.hasPrefix("INDEX ") || detail == "USE TEMP B-TREE FOR ORDER BY"
        if !allowed || detail.contains("IN-OPERATOR") { return "plans \(detail)" }
    }
    return nil
}

/// Calls of the raw connection's progress handler (every 1000 instructions) in this run: past
/// 10,000 (ten million instructions) it interrupts the statement.
nonisolated(unsafe) private var progressCalls = 0

/// Runs `sql` to its end (or its hard stop at ten million instructions) with the aborting
/// functions in place; returns SQLite's last result code and the virtual-machine steps taken.
@discardableResult
private func run(_ sql: String, on db: OpaquePointer) -> (code: Int32, steps: Int64) {
    progressCalls = 0
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { return (sqlite3_errcode(db), 0) }
    defer { sqlite3_finalize(statement) }
    if sqlite3_bind_parameter_count(statement) > 0 { sqlite3_bind_int64(statement, 1, 1) }
    var rc = sqlite3_step(statement)
    while rc == SQLITE_ROW { rc = sqlite3_step(statement) }
    return (rc, Int64(sqlite3_stmt_status(statement, SQLITE_STMTSTATUS_VM_STEP, 0)))
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let fixture = Fixture.shared
    fixture.checked += 1
    guard let condition = try? fixture.guarded.condition(text, on: "t") else { return 0 }
    fixture.accepted += 1
    // The shapes annolink embeds a condition in (AnnotationEngine, GeoPackage.forEachFeature,
    // translate --where, FeatureQuery).
    let shapes = [
        "SELECT count(*) FROM \"t\" WHERE \"fid\" = ? AND \(condition.sql)",
        "SELECT \"fid\", \"name\", \"geom\" FROM \"t\" WHERE \(condition.sql) ORDER BY \"fid\"",
        "SELECT \"fid\" FROM \"t\" WHERE \(condition.sql) AND \"fid\" IN (SELECT id FROM \"rtree_t_geom\" WHERE minx <= 1) LIMIT 5",
    ]
    for (i, sql) in shapes.enumerated() {
        // The third shape reads the R-tree itself; only the condition's part is checked there,
        // by the first two.
        if i < 2, let what = violation(sql, fixture: fixture) ?? planViolation(sql, fixture: fixture) { escaped(what, text) }
        let (code, steps) = run(sql, on: fixture.raw)
        switch code {
        case SQLITE_TOOBIG: escaped("made a value longer than 1,000,000 bytes", text)
        case SQLITE_INTERRUPT: escaped("ran past ten million virtual-machine steps over 64 rows", text)
        default: break
        }
        // The third shape's R-tree subquery is annolink's own.
        if i < 2, steps > Fixture.stepBudget(forConditionOf: text.utf8.count) {
            escaped("took \(steps) virtual-machine steps over 64 rows, more than a condition of its length needs", text)
        }
    }
    return 0
}
