import AnnoLinkChecks
import AnnoLinkEditing
import AnnoLinkGeometry
import AnnoLinkStore
import Foundation

/// `annolink check`: does every annotation still tell the truth about its feature; with
/// `--fix`, repair what can be repaired as one journal entry.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "report annotation out of step with its features (and repair it with --fix)",
        discussion: """
            Compares every annotation row with what its class's label expression and placement
            rules give now, and every spatial index with its table, and reports each problem with
            a stable code:
              orphan            the annotation's origin feature is gone (or has no geometry)
              missing           a feature its class selects has no annotation of that class
              duplicate         more than one annotation for one feature and class (the best
                                match is kept; the others are reported)
              stale-text        the text differs from the expression's value now
              stale-placement   what the label was placed from changed: the rule placement
                                its PlacedFrom records is not the one the feature gives now
                                (beyond the tolerances), unless Override says a person placed
                                it; where ArcGIS or a person put a label is not a problem
              wrong-class       the class's where clause no longer selects the feature
              footprint         the footprint polygon does not match the text, font and placement
              invalid-geometry  the origin geometry is invalid (GEOS's reason) or cannot be placed
              index             a spatial index entry is missing, extra or has the wrong box
              unknown-class     the annotation's class is not registered for its table
            and what a reviewer sees on the map:
              overlapping-annotation
                                two placed labels (Status 0) whose footprints intersect or
                                touch, in one table or two; reported once, on the row with
                                the lower (table, fid), naming the other
              unplaced-annotation
                                a label stored unplaced (Status 1), which ArcGIS does not draw
            and, only when asked with --only, as information:
              off-rule          a label placed away from its rule position (by ArcGIS, a
                                person or the placement), as PlacedFrom records
            --only CODE,... runs only the checks of those codes (with --fix: repairs only
            those). --fix places overlapping and unplaced labels again, conflict-aware. The file is read in one pass per table, in bounded memory, except that the
            overlap check holds the placed labels' footprints (some 300 bytes a label);
            progress is shown on a terminal. docs/checks.md says how each problem is found.

            FILE.gpkg may also be a PostGIS database holding an annolink data set, as a
            connection string: postgresql://USER@HOST/DB or PG:"dbname=DB host=HOST"; there
            the spatial index is the database's own and is not checked (docs/postgis.md).
            """,
        exitStatus: """
            0 no problems (with --fix: none left), 1 problems found (with --fix: some
            left), 64 bad usage (an unknown --only code among them), 65 not a GeoPackage, annotation tables without classes, unknown
            --table, a class that does not compile, 66 no such file, 69 Cairo is not installed
            (--render).
            """,
        note: """
            A file without annotation tables or classes has nothing to check: it says so and exits
            0. A file with annotation tables but no annotation classes is an error (65).
            """,
        example: "annolink check loudoun.gpkg --table ParcelLinesAnno_1 --position-tolerance 2")

    static let table = ArgumentDeclaration.option("--table", value: "TABLE", help: """
        only this annotation table, or the annotation of this
        origin table
        """)
    static let json = ArgumentDeclaration.flag("--json", help: """
        {"problems": [{"code", "annotationTable", "annotationFid",
        "classID", "originTable", "originFid", "message"}],
        "counts": {"<code>": n}}; with --fix also "repaired",
        "left" (counts by code), "journalEntry" and "dryRun"
        """)
    static let dryRun = ArgumentDeclaration.flag("--dry-run", help: """
        with --fix: list the problems and what the repair would
        change, and write nothing
        """)
    static let all = ArgumentDeclaration.flag("--all", help: "list every problem (default: the first 20)")
    static let fix = ArgumentDeclaration.flag("--fix", help: """
        repair in one transaction, as one journal entry that
        'annolink undo' reverts: regenerate stale text, placement
        and footprints (keeping what Override marks), create
        missing annotation, delete orphans and duplicates, move
        annotation to the right class, rebuild broken spatial
        indexes; invalid-geometry, unknown-class,
        overlapping-annotation and unplaced-annotation are left
        """)
    static let only = ArgumentDeclaration.option("--only", value: "CODE,...", help: """
        only the checks of these problem codes (comma-separated,
        as listed above); with --fix, repair only those
        """)
    static let positionTolerance = ArgumentDeclaration.option("--position-tolerance", value: "PT", help: """
        anchor distance allowed, in points at the reference
        scale (default 1; at 1:1200 in US feet 1 pt = 1.39 ft)
        """)
    static let angleTolerance = ArgumentDeclaration.option("--angle-tolerance", value: "DEG", help: "angle difference allowed, in degrees (default 1)")
    static let footprintTolerance = ArgumentDeclaration.option("--footprint-tolerance", value: "PT",
        help: "footprint corner distance allowed, in points (default 1)")
    static let render = ArgumentDeclaration.option("--render", value: "DIR", help: """
        also draw one picture per problem into DIR
        (<code>-<table>-<fid>.png) and an index.html listing
        them; not with --fix (docs/render.md)
        """)
    static let arguments = [SetCommand.file, table, only, json, all, fix, dryRun, positionTolerance, angleTolerance, footprintTolerance, render]

    /// Problems listed without `--all`.
    static let listed = 20

    var json: Bool
    var all: Bool
    var fix: Bool
    var dryRun: Bool
    var table: String?
    /// The problem codes to check for (`--only`); every code without it.
    var codes: Set<ProblemCode>
    var tolerances: CheckTolerances
    var path: String
    var renderDirectory: String?

    init(parsing arguments: inout Arguments) throws {
        json = arguments.flag(Self.json)
        all = arguments.flag(Self.all)
        fix = arguments.flag(Self.fix)
        dryRun = arguments.flag(Self.dryRun)
        renderDirectory = try arguments.option(Self.render)
        if fix, renderDirectory != nil { throw CommandError.usage("--render draws the problems as found: leave out --fix") }
        table = try arguments.option(Self.table)
        codes = try (arguments.option(Self.only)).map(Self.codes) ?? ProblemCode.checkedByDefault
        func tolerance(_ declaration: ArgumentDeclaration, _ what: String) throws -> Double? {
            try arguments.option(declaration, as: what) { decimalNumber($0).flatMap { $0 >= 0 && $0.isFinite ? $0 : nil } }
        }
        tolerances = CheckTolerances(
            position: try tolerance(Self.positionTolerance, "a number of points, 0 or more") ?? CheckTolerances.defaultPosition,
            angle: try tolerance(Self.angleTolerance, "a number of degrees, 0 or more") ?? CheckTolerances.defaultAngle,
            footprint: try tolerance(Self.footprintTolerance, "a number of points, 0 or more") ?? CheckTolerances.defaultFootprint)
        path = try arguments.positional(SetCommand.file)
    }

    /// The codes `--only` lists, comma-separated.
    /// - Throws: `CommandError.usage` naming an unknown code and listing the known ones.
    static func codes(_ list: String) throws -> Set<ProblemCode> {
        let words = list.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        var codes = Set<ProblemCode>()
        for word in words {
            guard let code = ProblemCode(rawValue: word) else {
                let what = word.isEmpty ? "an empty code" : "unknown problem code '\(word)'"
                throw CommandError.usage("--only: \(what); the codes are \(ProblemCode.list)")
            }
            codes.insert(code)
        }
        return codes
    }

    mutating func validate() throws {
        if dryRun && !fix { throw CommandError.usage("--dry-run goes with --fix (a check alone writes nothing)") }
    }

    func run() throws -> ExitStatus {
        let store = try StoreTarget.open(path, readOnly: !fix)
        // A repair starts from the file with the outside edits followed, as every edit does.
        if fix, !dryRun { try EditService(store: store).followOutsideEdits(command: EditOutput.commandLine) }
        let checker = ConsistencyChecker(store: store)
        var listing = ProblemListing(json: json, all: all)
        var found: [Problem] = []
        var progress: Progress?
        func tick(_ done: Int, _ total: Int) {
            if progress == nil { progress = Progress("rows checked", total: total) }
            progress?.update(done)
        }
        let report = fix
            ? try checker.run(CheckFix(table: table, tolerances: tolerances, codes: codes, dryRun: dryRun, command: EditOutput.commandLine), progress: tick, report: { try listing.add($0) })
            : try checker.run(Check(table: table, tolerances: tolerances, codes: codes), progress: tick, report: { problem in
                try listing.add(problem)
                if renderDirectory != nil { found.append(problem) }
            })
        let summary = report.summary, repair = report.repair
        if let progress { progress.finish(summary.originFeatures + summary.annotationRows + summary.indexEntries) }
        for warning in checker.engine.warnings { Output.diagnostic("warning: \(warning)") }

        if let renderDirectory { try drawPictures(found, of: store, into: renderDirectory) }
        if json {
            try listing.finishJSON(totals: report.totals)
        } else {
            try Self.printReport(path: path, summary: summary, listing: &listing, repair: repair)
        }
        if let repair { return repair.left.isEmpty ? .success : .findings }
        return summary.problemCount == 0 ? .success : .findings
    }

    static func printReport(path: String, summary: CheckSummary, listing: inout ProblemListing, repair: RepairResult?) throws {
        guard summary.hasAnnotation else {
            Output.line("\(path) has no annotation tables or classes; nothing to check")
            return
        }
        let tables = summary.annotationTables.count, classes = summary.classes
        let scope = "\(summary.annotationRows) annotation rows in \(tables) table\(tables == 1 ? "" : "s"), " +
            "\(classes) class\(classes == 1 ? "" : "es"), \(summary.originFeatures) origin features, \(summary.indexEntries) spatial index entries"
        guard summary.problemCount > 0 else {
            Output.line("\(path): no problems (\(scope))")
            return
        }
        let problemTables = summary.countsByTable.keys.sorted()
        Output.line("\(path): \(summary.problemCount) problem\(summary.problemCount == 1 ? "" : "s") in " +
            "\(problemTables.count) table\(problemTables.count == 1 ? "" : "s") (\(scope))")
        Output.line()
        let codes = summary.counts.keys.sorted()
        let width = max(5, problemTables.map(\.count).max() ?? 0)
        func row(_ first: String, _ cells: [String]) -> String {
            ([first.padding(toLength: width, withPad: " ", startingAt: 0)] + zip(codes, cells).map { code, cell in
                String(repeating: " ", count: max(0, code.rawValue.count - cell.count)) + cell
            }).joined(separator: "  ")
        }
        Output.line(row("table", codes.map(\.rawValue)))
        for table in problemTables { Output.line(row(table, codes.map { String(summary.countsByTable[table]?[$0] ?? 0) })) }
        Output.line(row("total", codes.map { String(summary.counts[$0] ?? 0) }))
        Output.line()
        let shown = listing.all ? summary.problemCount : min(listed, summary.problemCount)
        Output.line(shown == summary.problemCount ? "problems:" : "problems (the first \(shown) of \(summary.problemCount); --all lists every one):")
        try listing.printLines()
        guard let repair else { return }
        Output.line()
        let repaired = repair.repaired.values.reduce(0, +)
        if repaired > 0 {
            var line = "\(repair.dryRun ? "would repair" : "repaired") \(repaired) problem\(repaired == 1 ? "" : "s"): " +
                "\(repair.updated) annotation rows updated, \(repair.deleted) deleted, \(repair.created) created"
            if !repair.rebuiltIndexes.isEmpty { line += "; spatial index of \(repair.rebuiltIndexes.joined(separator: ", ")) rebuilt" }
            if let entry = repair.journalEntry { line += " (journal entry \(entry); 'annolink undo' reverts it)" }
            if repair.dryRun { line += " (dry run: nothing written)" }
            Output.line(line)
        }
        if !repair.left.isEmpty {
            let left = repair.left.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key.rawValue)" }.joined(separator: ", ")
            Output.line("left: \(left) (no repair exists yet: fix the origin geometry, register the class, or place the labels)")
        }
    }
}

/// Where the problems go while the check streams: JSON lines to standard output as they
/// come (buffered); for a person, the first few kept to print after the summary table, or with
/// `--all` every one spooled to a temporary file, so that memory stays flat however many there
/// are.
struct ProblemListing {
    let json: Bool
    let all: Bool
    private var count = 0
    private var kept: [String] = []
    private var spool: FileHandle?
    private var spoolURL: URL?
    /// Output not written yet: one write per 64 kB, not per problem.
    private var buffer: [UInt8] = []

    init(json: Bool, all: Bool) {
        self.json = json
        self.all = all
    }

    mutating func add(_ problem: Problem) throws {
        count += 1
        if json {
            buffer.append(contentsOf: (count == 1 ? "{\"problems\": [\n" : ",\n").utf8)
            buffer.append(contentsOf: try Self.encoder.encode(problem))
            if buffer.count >= 1 << 16 { flush(to: FileHandle.standardOutput) }
            return
        }
        let line = Self.text(problem)
        if !all {
            if kept.count < CheckCommand.listed { kept.append(line) }
            return
        }
        if spool == nil {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("annolink-check-\(UUID().uuidString)")
            _ = FileManager.default.createFile(atPath: url.path, contents: nil)
            spool = try FileHandle(forWritingTo: url)
            spoolURL = url
        }
        buffer.append(contentsOf: (line + "\n").utf8)
        if buffer.count >= 1 << 16, let spool { flush(to: spool) }
    }

    private mutating func flush(to handle: FileHandle) {
        handle.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }

    /// Ends the JSON document: the problems array, then the keys of `totals`.
    ///
    /// The document is `CheckReport`'s encoding, written in two parts so that the problems
    /// stream: each problem as `JSONEncoder` encodes it, then the totals object's keys after
    /// the array.
    mutating func finishJSON(totals: CheckReport.Totals) throws {
        flush(to: FileHandle.standardOutput)
        let object = String(decoding: try Self.encoder.encode(totals), as: UTF8.self)
        Output.line((count == 0 ? "{\"problems\": [" : "\n") + "],\n" + object.dropFirst())
    }

    /// Prints the kept or spooled lines, and removes the spool.
    mutating func printLines() throws {
        for line in kept { Output.line(line) }
        guard let spool, let url = spoolURL else { return }
        flush(to: spool)
        try spool.close()
        self.spool = nil
        defer { try? FileManager.default.removeItem(at: url) }
        let reader = try FileHandle(forReadingFrom: url)
        defer { try? reader.close() }
        while let chunk = try reader.read(upToCount: 1 << 20), !chunk.isEmpty {
            FileHandle.standardOutput.write(chunk)
        }
    }

    /// Encodes each problem as one line (compact, keys sorted): the problems stream through it.
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static func text(_ p: Problem) -> String {
        var subject: String
        if let table = p.annotationTable, let fid = p.annotationFid {
            subject = "\(table) fid \(fid)"
        } else if let table = p.annotationTable {
            subject = "\(table) class \(p.classID.map(String.init) ?? "?")"
            if let origin = p.originTable, let fid = p.originFid { subject += " for \(origin) fid \(fid)" }
        } else {
            subject = "\(p.originTable ?? "?") fid \(p.originFid.map(String.init) ?? "?")"
        }
        let code = p.code.rawValue
        return "  \(code.padding(toLength: max(16, code.count), withPad: " ", startingAt: 0)) \(subject): \(p.message)"
    }
}
