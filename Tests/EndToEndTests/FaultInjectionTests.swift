import AnnoLinkTestSupport
import Foundation
import Synchronization
import Testing

/// Faults injected at every write (issue 16): the real `annolink` binary runs with a VFS shim
/// (Tests/FaultInjection/faultvfs.c, loaded with LD_PRELOAD) that fails its Nth write, sync or
/// truncate, for N = 1, 2, 3, … until the command gets through. At every N the command must
/// say one `error:` line and exit 74, and the file, reopened with SQLite's own VFS, must be
/// exactly as before or exactly as after (dump comparison), pass `integrity_check`, and be
/// clean for `annolink check`.
///
/// Odd N fail once with SQLITE_IOERR; even N fail with SQLITE_FULL from then on (a full disk
/// stays full). By default the first 9 N and 9 more spread over the rest are tried per
/// command (4 and 4 for the 20,000-line translate); `scripts/test --long` (ANNOLINK_LONG_TESTS=1) tries every N.
@Suite("faults injected at every write, end to end")
struct FaultInjectionTests {
    /// One command to break, and how to make the file it runs on.
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        /// Sample size of the file the command edits; 0: the command makes its own output.
        var parcels: Int
        /// annolink commands run on the file first (the file is `F`).
        var setup: [[String]] = []
        /// GDAL SQL run on the file first (to plant a problem for `check --fix`).
        var plant: [String] = []
        /// The command; `F` is the file, `OUT` a new file's path.
        var command: [String]
        /// How many N to try outside the long mode: the first half in a row, the rest spread.
        var tries = 18
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "set", parcels: 20, command: ["set", "F", "address_points", "1", "AD_ADDRESS=7"]),
        Case(name: "move", parcels: 20, command: ["move", "F", "address_points", "1", "--to", "11880100,7020100"]),
        Case(name: "move-vertex", parcels: 20, command: ["move-vertex", "F", "parcel_lines", "1", "--to", "11880010,7020160"]),
        Case(name: "add", parcels: 20, command: ["add", "F", "address_points", "--geometry", "POINT (11880200 7020200)", "AD_ADDRESS=9", "ST_STR_NAM=OAK"]),
        Case(name: "delete", parcels: 20, command: ["delete", "F", "address_points", "2"]),
        Case(name: "translate of 20,000 lines", parcels: 7_750, command: ["translate", "F", "parcel_lines", "--where", "1", "--by", "5,-5"],
             tries: 8),
        Case(name: "annotate --regenerate", parcels: 20, plant: ["UPDATE address_points SET AD_ADDRESS = 1 WHERE fid = 3"],
             command: ["annotate", "F", "--regenerate"]),
        Case(name: "check --fix", parcels: 20, plant: ["UPDATE parcel_lines_anno SET TextString = 'WRONG' WHERE fid = 2",
                                                       "DELETE FROM address_points_anno WHERE fid = 4"],
             command: ["check", "F", "--fix"]),
        Case(name: "undo", parcels: 20, setup: [["translate", "F", "parcel_lines", "--where", "1", "--by", "1,1"]], command: ["undo", "F"]),
        Case(name: "redo", parcels: 20, setup: [["set", "F", "address_points", "1", "AD_ADDRESS=8"], ["undo", "F"]], command: ["redo", "F"]),
        Case(name: "import", parcels: 0, command: ["import", Fixtures.loudoun, "OUT"]),
        Case(name: "sample", parcels: 0, command: ["sample", "OUT", "--parcels", "30"]),
    ]

    /// The shim, compiled once per test run.
    static let library: String = {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("FaultInjection/faultvfs.c").path
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("annolink-fault-\(UUID().uuidString).so").path
        let built = try? Harness.run("/usr/bin/cc", ["-shared", "-fPIC", "-O1", "-o", output, source, "-lsqlite3"])
        precondition(built?.status == 0, "cannot build the fault-injection VFS: \(built?.stderr ?? "cc did not run")")
        return output
    }()

    static let long = ProcessInfo.processInfo.environment["ANNOLINK_LONG_TESTS"] == "1"

    static func journalCount(_ path: String) throws -> String {
        guard FileManager.default.fileExists(atPath: path) else { return "" }
        return try Harness.sqlite(path, "SELECT count(*) || ':' || coalesce(sum(undone), 0) FROM annolink_journal")
    }

    /// Runs the case's command on `work` (a copy of `pristine`; for commands that make a file,
    /// `out`), with the fault at `n` (nil: no fault); returns the result and the shim's counts.
    static func run(_ c: Case, pristine: String, work: String, out: String, fault n: Int?) throws -> (Harness.Result, counted: Int, injected: Int) {
        for path in [work, out] { Harness.removeDatabase(path) }
        if c.parcels > 0 { try FileManager.default.copyItem(atPath: pristine, toPath: work) }
        let report = work + ".report"
        try? FileManager.default.removeItem(atPath: report)
        let arguments = c.command.map { $0 == "F" ? work : $0 == "OUT" ? out : $0 }
        var environment = ["LD_PRELOAD=\(library)", "ANNOLINK_FAULT_REPORT=\(report)", "ANNOLINK_FAULT_AT=\(n ?? Int.max)"]
        if let n, n % 2 == 0 { environment += ["ANNOLINK_FAULT_KIND=full", "ANNOLINK_FAULT_PERSIST=1"] }
        let result = try Harness.run("/usr/bin/env", environment + [Harness.binary] + arguments)
        let counts = (try? String(contentsOfFile: report, encoding: .utf8))?.split(separator: " ")
            .compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? []
        return (result, counts.first ?? -1, counts.count > 1 ? counts[1] : -1)
    }

    @Test("every write, sync and truncate that fails leaves the file before or after", arguments: cases)
    func faults(_ c: Case) throws {
        // ANNOLINK_FAULT_ONLY='set;move;…': only these cases, by name (the long mode's
        // translate alone is about 12,000 runs).
        if let only = ProcessInfo.processInfo.environment["ANNOLINK_FAULT_ONLY"],
           !only.split(separator: ";").map({ $0.trimmingCharacters(in: .whitespaces) }).contains(c.name) {
            print("fault injection: \(c.name): skipped (ANNOLINK_FAULT_ONLY)")
            return
        }
        let directory = try Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pristine = directory.appendingPathComponent("pristine.gpkg").path
        let work = directory.appendingPathComponent("work.gpkg").path
        let out = directory.appendingPathComponent("out.gpkg").path
        if c.parcels > 0 {
            #expect(try Harness.annolink("sample", pristine, "--parcels", String(c.parcels)).status == 0)
            for sql in c.plant { try Harness.gdalSQL(pristine, sql) }
            for setup in c.setup {
                let done = try Harness.annolink(setup.map { $0 == "F" ? pristine : $0 })
                #expect(done.status == 0, "\(setup): \(done.stderr)")
            }
        }
        let target = c.parcels > 0 ? work : out
        // Before: the pristine file (or no file); after: a run without faults.
        try? FileManager.default.removeItem(atPath: work)
        if c.parcels > 0 { try FileManager.default.copyItem(atPath: pristine, toPath: work) }
        let before = try Harness.dumpIgnoringTimes(target), journalBefore = try Self.journalCount(target)
        let beforeHash = try Self.contentHash(target)
        if c.parcels > 0 && c.plant.isEmpty {
            // The file as before is clean; a fault that leaves its content unchanged leaves it so.
            let check = try Harness.annolink("check", target)
            #expect(check.status == 0, "check before: \(check.stdout.suffix(400))\(check.stderr)")
        }
        let clean = try Self.run(c, pristine: pristine, work: work, out: out, fault: nil)
        try #require(clean.0.status == 0 || (c.command[0] == "check" && clean.0.status == 1), "\(clean.0.stderr)")
        let after = try Harness.dumpIgnoringTimes(target), journalAfter = try Self.journalCount(target)
        // What `check` says of the file as after (the Loudoun import has ArcGIS's own 21 problems).
        let checkAfter = try Harness.annolink("check", target).status
        #expect(after != before)
        let total = clean.counted
        try #require(total > 0, "the shim counted no writes: is it loaded?")

        let first = c.tries / 2
        var tried: [Int] = Array(1...min(first, total))
        if Self.long {
            tried = Array(1...total)
        } else if total > first {
            let step = max(1, (total - first) / (c.tries - first))
            tried += stride(from: first + 1, through: total, by: step)
        }
        let states = States(before: before, beforeHash: beforeHash, after: after,
                            journalBefore: journalBefore, journalAfter: journalAfter, checkAfter: checkAfter)
        // The long mode runs one probe per core (each in its own files); the bounded one, one.
        let workers = Self.long ? max(1, ProcessInfo.processInfo.activeProcessorCount) : 1
        let points = tried, next = Mutex(0)
        let probes = Mutex([Probe]())
        DispatchQueue.concurrentPerform(iterations: workers) { slot in
            let files = (work: directory.appendingPathComponent("work-\(slot).gpkg").path,
                         out: directory.appendingPathComponent("out-\(slot).gpkg").path)
            while true {
                let index = next.withLock { index in defer { index += 1 }; return index }
                guard index < points.count else { return }
                let probe: Probe
                do {
                    probe = try Self.probe(c, fault: points[index], of: total, pristine: pristine, files: files, states: states)
                } catch {
                    probe = Probe(n: points[index], problems: ["fault at write \(points[index]): \(error)"])
                }
                let done = probes.withLock { probes in probes.append(probe); return probes.count }
                if Self.long, done % 500 == 0 { print("fault injection: \(c.name): \(done) of \(points.count) points") }
            }
        }
        let outcomes = probes.withLock { $0 }.sorted { $0.n < $1.n }
        for problem in outcomes.flatMap(\.problems) { Issue.record("\(c.name), \(problem)") }
        let faultsInjected = outcomes.filter { $0.ended != nil }.count
        let endedBefore = outcomes.filter { $0.ended == .before }.count
        let endedAfter = outcomes.filter { $0.ended == .after }.count
        #expect(faultsInjected > 0)
        print("fault injection: \(c.name): \(total) writes, syncs and truncates; \(tried.count) faults tried, \(faultsInjected) injected; " +
            "file as before \(endedBefore), as after \(endedAfter)")
    }

    /// The file's two states a fault may leave, and what is known of them.
    struct States: Sendable {
        var before: String, beforeHash: String, after: String
        var journalBefore: String, journalAfter: String
        /// `annolink check`'s exit status on the file as after.
        var checkAfter: Int32
    }

    /// What one fault did: the state the file ended in (nil: the command finished before the
    /// Nth write, so no fault was injected) and what was wrong.
    struct Probe: Sendable {
        enum Ended: Sendable { case before, after }
        var n: Int
        var ended: Ended?
        var problems: [String] = []
    }

    /// SQLite's own hash of every table's content and the schema (`.sha3sum --schema` of the
    /// `sqlite3` shell). Equal hashes mean equal content, so a file whose hash is the before
    /// file's is as before without the slower dump; any other file is compared by dump.
    static func contentHash(_ path: String) throws -> String {
        guard FileManager.default.fileExists(atPath: path) else { return "(no file)" }
        return try Harness.sqlite(path, ".sha3sum --schema")
    }

    /// Runs the case's command with the fault at write `n` in `files` and checks the file it leaves.
    static func probe(_ c: Case, fault n: Int, of total: Int, pristine: String, files: (work: String, out: String),
                      states: States) throws -> Probe {
        let target = c.parcels > 0 ? files.work : files.out
        let (result, _, injected) = try run(c, pristine: pristine, work: files.work, out: files.out, fault: n)
        let label = "fault at write \(n) of \(total)"
        var probe = Probe(n: n)
        func expect(_ condition: Bool, _ problem: @autoclosure () -> String) {
            if !condition { probe.problems.append("\(label): \(problem())") }
        }
        let unchanged = try contentHash(target) == states.beforeHash
        let state = unchanged ? states.before : try Harness.dumpIgnoringTimes(target)
        if injected == 0 {
            expect(result.status == 0 || result.status == 1, "exit \(result.status): \(result.stderr)")
            expect(state == states.after, "finished, but the file is not as after")
            return probe
        }
        let failed = result.status == 74 && result.stderrLines.count == 1 && result.stderrLines[0].hasPrefix("error: ")
        if state == states.before {
            probe.ended = .before
            expect(failed, "the edit did not happen, but annolink said: exit \(result.status): \(result.stderr)")
            expect(try unchanged || journalCount(target) == states.journalBefore, "the journal changed")
        } else if state == states.after {
            // A fault after the commit (the checkpoint when the file is closed) does not
            // undo the edit, and SQLite rightly ignores it: success. A fault in the
            // commit's own sync may still leave the commit in the WAL: an error then is
            // honest too (SQLite cannot know), as long as it is the one error line.
            probe.ended = .after
            expect(failed || result.status == 0 || result.status == 1, "exit \(result.status): \(result.stderr)")
            expect(try journalCount(target) == states.journalAfter, "the journal is not as after")
        } else {
            expect(false, "the file is neither as before nor as after")
            return probe
        }
        guard FileManager.default.fileExists(atPath: target) else { return probe }
        expect(try Harness.sqlite(target, "PRAGMA integrity_check") == "ok", "integrity_check")
        // A file whose content is the before file's checks as that file did (clean: checked
        // once before the probes); any other is checked.
        if !unchanged, probe.ended == .after || c.plant.isEmpty {
            let check = try Harness.annolink("check", target)
            let expected = probe.ended == .after ? states.checkAfter : 0
            expect(check.status == expected, "check: \(check.stdout.suffix(400))\(check.stderr)")
        }
        return probe
    }
}
