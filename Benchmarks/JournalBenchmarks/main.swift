// Times the edit journal (docs/journal.md has the figures):
//
// - `edit`: one attribute edit in one process, the way `annolink set` runs: in-process costs
//   (plain transaction, session alone, journaled) and whole processes (this binary run once per
//   edit, against the `sqlite3` command-line shell updating the same file).
// - `bulk [ROWS]`: a move of every row of a ROWS-line table (1,000,000 by default): through
//   the R-tree triggers, with the index suspended and rebuilt, journaled with images, and
//   its undo and redo, with the parts of each.
//
// Run with `swift run -c release JournalBenchmarks edit` / `… bulk 1000000`. Files go to
// $TMPDIR and are removed afterwards.
import AnnoLinkGeometry
import AnnoLinkStore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

let clock = ContinuousClock()

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func report(_ label: String, _ duration: Duration, per count: Int = 1, unit: String = "s") {
    let value = seconds(duration) / Double(count)
    let padded = label.padding(toLength: 58, withPad: " ", startingAt: 0)
    switch unit {
    case "µs": print(padded + String(format: "%10.1f µs", value * 1e6))
    case "ms": print(padded + String(format: "%10.2f ms", value * 1e3))
    default: print(padded + String(format: "%10.2f s", value))
    }
}

func scratchDirectory() -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("annolink-journal-bench-\(UUID().uuidString)")
    try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// A line feature table of `rows` two-point lines (EPSG:2924-like coordinates), its spatial
/// index built in one pass, plus `plain_lines`, the same attributes without geometry or
/// triggers, for the `sqlite3` shell (which lacks the ST_ functions the R-tree triggers call).
func makeFile(at path: String, rows: Int) throws -> (GeoPackage, FeatureTable) {
    let package = try GeoPackage.create(path: path)
    var table = try package.createFeatureTable(FeatureTableDefinition(
        name: "parcel_lines", geometryTypeName: "LINESTRING", srsID: -1,
        columns: [Column(name: "Name", type: "TEXT"), Column(name: "Length", type: "REAL")]), spatialIndex: false)
    try package.connection.write {
        let insert = try package.connection.prepare("INSERT INTO parcel_lines (fid, geom, Name, Length) VALUES (?1, ?2, ?3, ?4)")
        for fid in 1...rows {
            let x = 11_800_000 + Double(fid % 1000) * 61.5, y = 7_000_000 + Double(fid / 1000) * 47.25
            let line = Geometry.lineString(LineString([Point(x: x, y: y), Point(x: x + 30.5, y: y + 20.125)]))
            insert.reset()
            try insert.bind(.integer(Int64(fid)), at: 1)
            try insert.bind(.blob(package.encode(line, for: table)), at: 2)
            try insert.bind(.text("Line \(fid)"), at: 3)
            try insert.bind(Double(fid) / 7, at: 4)
            _ = try insert.step()
        }
        try package.connection.execute("CREATE TABLE plain_lines AS SELECT fid, Name, Length FROM parcel_lines WHERE fid <= 1000")
    }
    try package.createSpatialIndex(table: "parcel_lines", column: "geom")
    package.invalidateTableCache()
    table = try package.featureTable("parcel_lines")
    return (package, table)
}

/// Moves the geometry of every row by (dx, dy), one UPDATE per row, as the bulk move does.
func translateAll(_ package: GeoPackage, dx: Double, dy: Double) throws {
    let select = try package.connection.prepareUncached("SELECT fid, geom FROM parcel_lines ORDER BY fid")
    var moved: [(Int64, [UInt8])] = []
    while try select.step() {
        var blob = select.blob(1) ?? []
        try GeoPackageGeometry.translate(blob: &blob, dx: dx, dy: dy)
        moved.append((select.int64(0), blob))
    }
    let update = try package.connection.prepareUncached("UPDATE parcel_lines SET geom = ?1 WHERE fid = ?2")
    for (fid, blob) in moved {
        update.reset()
        try blob.withUnsafeBytes { try update.bind(blob: $0, at: 1) }
        try update.bind(fid, at: 2)
        _ = try update.step()
    }
}

struct RolledBack: Error {}

/// Runs `body` in a transaction that is rolled back, and returns how long the body took.
func timedAndRolledBack(_ package: GeoPackage, _ body: () throws -> Void) throws -> Duration {
    var elapsed = Duration.zero
    do {
        try package.connection.write {
            elapsed = try clock.measure { try body() }
            throw RolledBack()
        }
    } catch is RolledBack {}
    return elapsed
}

// MARK: One edit

func editBenchmark() throws {
    let directory = scratchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("edit.gpkg").path
    do {
        let (package, _) = try makeFile(at: path, rows: 10_000)
        let journal = try Journal(package: package)
        let c = package.connection
        let iterations = 1_000
        let rounds = 5
        print("One attribute edit in one process (10,000-row table; best of \(rounds) rounds of \(iterations), WAL, synchronous FULL):")
        // The first entry creates the journal tables; time the steady state.
        try journal.record(command: "warm up", summary: "warm up") { _ in try c.run("UPDATE parcel_lines SET Name = 'w' WHERE fid = 1") }
        var best: [Duration] = [.seconds(1_000), .seconds(1_000), .seconds(1_000)]
        var edit = 0
        func nextFid() -> Int64 {
            edit += 1
            return Int64(edit % 10_000 + 1)
        }
        for _ in 0..<rounds {
            best[0] = min(best[0], try clock.measure {
                for _ in 0..<iterations {
                    _ = try c.write { try c.run("UPDATE parcel_lines SET Name = ?1 WHERE fid = ?2", [.text("plain"), .integer(nextFid())]) }
                }
            })
            best[1] = min(best[1], try clock.measure {
                for _ in 0..<iterations {
                    _ = try c.write {
                        let session = try Session(connection: c) { _ in true }
                        try c.run("UPDATE parcel_lines SET Name = ?1 WHERE fid = ?2", [.text("session"), .integer(nextFid())])
                        _ = try session.changeset()
                    }
                }
            })
            best[2] = min(best[2], try clock.measure {
                for _ in 0..<iterations {
                    let fid = nextFid()
                    try journal.record(command: "annolink set edit.gpkg parcel_lines \(fid) Name=journal",
                                       summary: "set Name of parcel_lines fid \(fid)") { _ in
                        try c.run("UPDATE parcel_lines SET Name = ?1 WHERE fid = ?2", [.text("journal"), .integer(fid)])
                    }
                }
            })
        }
        report("  transaction + UPDATE", best[0], per: iterations, unit: "µs")
        report("  … with a session and its changeset", best[1], per: iterations, unit: "µs")
        report("  … journaled (session, changeset, entry row)", best[2], per: iterations, unit: "µs")
        try c.execute("PRAGMA synchronous = OFF")
        var unsynced: [Duration] = [.seconds(1_000), .seconds(1_000), .seconds(1_000)]
        for _ in 0..<rounds {
            unsynced[0] = min(unsynced[0], try clock.measure {
                for _ in 0..<iterations {
                    _ = try c.write { try c.run("UPDATE parcel_lines SET Name = ?1 WHERE fid = ?2", [.text("plain"), .integer(nextFid())]) }
                }
            })
            unsynced[2] = min(unsynced[2], try clock.measure {
                for _ in 0..<iterations {
                    _ = try c.write {
                        let session = try Session(connection: c) { _ in true }
                        try c.run("UPDATE parcel_lines SET Name = ?1 WHERE fid = ?2", [.text("session"), .integer(nextFid())])
                        _ = try session.changeset()
                    }
                }
            })
            unsynced[1] = min(unsynced[1], try clock.measure {
                for _ in 0..<iterations {
                    let fid = nextFid()
                    try journal.record(command: "annolink set edit.gpkg parcel_lines \(fid) Name=journal",
                                       summary: "set Name of parcel_lines fid \(fid)") { _ in
                        try c.run("UPDATE parcel_lines SET Name = ?1 WHERE fid = ?2", [.text("journal"), .integer(fid)])
                    }
                }
            })
        }
        report("  transaction + UPDATE, no fsync", unsynced[0], per: iterations, unit: "µs")
        report("  … with a session and its changeset, no fsync", unsynced[2], per: iterations, unit: "µs")
        report("  … journaled, no fsync", unsynced[1], per: iterations, unit: "µs")
        try c.execute("PRAGMA synchronous = FULL")
        let undo = try clock.measure { for _ in 0..<200 { _ = try journal.undo() } }
        report("  undo of one such edit", undo, per: 200, unit: "µs")
        let redo = try clock.measure { for _ in 0..<200 { _ = try journal.redo() } }
        report("  redo of one such edit", redo, per: 200, unit: "µs")
    }

    // Whole processes: this binary, once per edit, against the sqlite3 shell.
    let runs = 60
    let me = URL(fileURLWithPath: CommandLine.arguments[0]).path
    // posix_spawn directly: Foundation's Process closes every possible descriptor before
    // exec, which costs tens of milliseconds and would hide what is measured.
    func run(_ executable: String, _ arguments: [String]) throws -> Duration {
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let start = clock.now
        guard posix_spawn(&pid, executable, nil, nil, argv, environ) == 0 else { throw StoreError.invalidData("cannot run \(executable)") }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        let elapsed = clock.now - start
        guard status == 0 else { throw StoreError.invalidData("\(executable) \(arguments) failed with status \(status)") }
        return elapsed
    }
    func median(_ label: String, _ body: (Int) throws -> Duration) throws {
        var times: [Duration] = []
        for i in 0..<runs { times.append(try body(i)) }
        times.sort()
        report(label, times[runs / 2], unit: "ms")
    }
    print("Whole processes (median of \(runs)):")
    try median("  sqlite3 shell: UPDATE plain_lines") { i in
        try run("/usr/bin/sqlite3", [path, "UPDATE plain_lines SET Name = 'shell \(i)' WHERE fid = \(i % 1000 + 1)"])
    }
    try median("  open GeoPackage, UPDATE in a transaction") { i in try run(me, ["edit-once", path, String(i % 1000 + 1), "plain", "plain \(i)"]) }
    try median("  open GeoPackage and journal, journaled UPDATE") { i in try run(me, ["edit-once", path, String(i % 1000 + 1), "journal", "journal \(i)"]) }
    try median("  open GeoPackage and journal, undo") { _ in try run(me, ["undo-once", path]) }
}

/// One edit, as a process of its own would make it.
func editOnce(path: String, fid: Int64, journaled: Bool, value: String) throws {
    let package = try GeoPackage(path: path)
    let c = package.connection
    if journaled {
        let journal = try Journal(package: package)
        try journal.record(command: "annolink set \(path) parcel_lines \(fid) Name=\(value)", summary: "set Name of parcel_lines fid \(fid)") { _ in
            try c.run("UPDATE parcel_lines SET Name = ?1 WHERE fid = ?2", [.text(value), .integer(fid)])
        }
    } else {
        _ = try c.write { try c.run("UPDATE parcel_lines SET Name = ?1 WHERE fid = ?2", [.text(value), .integer(fid)]) }
    }
}

// MARK: Bulk move

func bulkBenchmark(rows: Int) throws {
    let directory = scratchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("bulk.gpkg").path
    var package: GeoPackage!
    let made = try clock.measure { package = try makeFile(at: path, rows: rows).0 }
    report("make \(rows) lines, index in one pass", made)
    let c = package.connection
    let journal = try Journal(package: package)

    print("Move every line by (10, 10), rolled back (\(rows) rows):")
    report("  per-row UPDATE through the R-tree triggers", try timedAndRolledBack(package) { try translateAll(package, dx: 10, dy: 10) })
    report("  per-row UPDATE, index suspended and rebuilt", try timedAndRolledBack(package) {
        try package.withSpatialIndexSuspended(table: "parcel_lines") { try translateAll(package, dx: 10, dy: 10) }
    })
    report("    of which the rebuild (fillSpatialIndex)", try timedAndRolledBack(package) {
        try package.fillSpatialIndex(table: "parcel_lines", column: "geom")
    })
    report("  … with a session attached that records no table", try timedAndRolledBack(package) {
        let session = try Session(connection: c) { _ in false }
        try package.withSpatialIndexSuspended(table: "parcel_lines") { try translateAll(package, dx: 10, dy: 10) }
        _ = try session.changeset()
    })

    print("Journaled move, index suspended (committed):")
    var capture = Duration.zero, body = Duration.zero
    let recorded = try clock.measure {
        try journal.record(command: "annolink translate bulk.gpkg parcel_lines --where 1 --by 10,10", summary: "translate parcel_lines") { recorder in
            capture = try clock.measure { try recorder.captureImages(table: "parcel_lines", columns: ["geom"], rowsWhere: "1") }
            body = try clock.measure {
                try package.withSpatialIndexSuspended(table: "parcel_lines") { try translateAll(package, dx: 10, dy: 10) }
            }
        }
    }
    report("  whole entry", recorded)
    report("    before-image (one INSERT … SELECT)", capture)
    report("    the move with the session attached", body)
    report("    after-image, checks, entry row, commit", recorded - capture - body)
    let entry = try journal.entries(limit: 1)[0].id
    let before = "annolink_journal_\(entry)_1_before", after = "annolink_journal_\(entry)_1_after"

    print("Undo and redo (committed):")
    report("  undo (check, restore, index rebuilt)", try clock.measure { _ = try journal.undo() })
    report("  redo", try clock.measure { _ = try journal.redo() })
    print("Parts, rolled back:")
    report("  check: one join against the after-image", try timedAndRolledBack(package) {
        _ = try c.rows("""
            SELECT e.fid FROM "\(after)" AS e LEFT JOIN parcel_lines AS t ON t.fid = e.fid
            WHERE t.fid IS NULL OR t.geom IS NOT e.geom ORDER BY e.fid LIMIT 1
            """)
    })
    report("  restore: UPDATE … FROM through the R-tree triggers", try timedAndRolledBack(package) {
        try c.execute("UPDATE parcel_lines SET geom = s.geom FROM \"\(before)\" AS s WHERE parcel_lines.fid = s.fid")
    })
    report("  restore: UPDATE … FROM, index suspended and rebuilt", try timedAndRolledBack(package) {
        try package.withSpatialIndexSuspended(table: "parcel_lines") {
            try c.execute("UPDATE parcel_lines SET geom = s.geom FROM \"\(before)\" AS s WHERE parcel_lines.fid = s.fid")
        }
    })
    let pages = try? c.scalarInt("SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'annolink_journal_%'")
    if let pages = pages ?? nil { print(String(format: "image tables on disk: %.1f MB", Double(pages) / 1e6)) }
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "edit":
    try editBenchmark()
case "edit-once" where arguments.count == 5:
    try editOnce(path: arguments[1], fid: Int64(arguments[2]) ?? 1, journaled: arguments[3] == "journal", value: arguments[4])
case "undo-once" where arguments.count == 2:
    _ = try Journal(package: GeoPackage(path: arguments[1])).undo()
case "bulk":
    try bulkBenchmark(rows: arguments.count > 1 ? Int(arguments[1]) ?? 1_000_000 : 1_000_000)
default:
    print("usage: JournalBenchmarks edit | bulk [ROWS]")
    print("(edit-once FILE FID plain|journal VALUE and undo-once FILE are the processes `edit` times)")
}
