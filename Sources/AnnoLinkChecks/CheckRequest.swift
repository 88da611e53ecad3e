import AnnoLinkStore

/// A consistency check as a value (`annolink check`): which annotation to check and how
/// closely. Run with `ConsistencyChecker.run(_:progress:report:)`; it only reads.
public struct Check: Hashable, Sendable {
    /// One annotation table, or the annotation of one origin table; nil: every table.
    public var table: String?
    /// How far annotation may be from the rules before it is stale.
    public var tolerances: CheckTolerances
    /// The kinds of problem to look for (`check --only`): the passes that find none of them do
    /// not run, and problems of other codes are not reported.
    public var codes: Set<ProblemCode>

    /// A check of `table` (nil: the whole file) for `codes`.
    public init(table: String? = nil, tolerances: CheckTolerances = CheckTolerances(), codes: Set<ProblemCode> = ProblemCode.checkedByDefault) {
        self.table = table
        self.tolerances = tolerances
        self.codes = codes
    }
}

/// A check and the repair of what it found, as one transaction and one journal entry
/// (`annolink check --fix`).
public struct CheckFix: Hashable, Sendable {
    public var table: String?
    public var tolerances: CheckTolerances
    /// The kinds of problem to look for and repair (`check --fix --only`); problems of other
    /// codes are neither reported nor repaired.
    public var codes: Set<ProblemCode>
    /// Report what the repair would do and write nothing (`check --fix --dry-run`).
    public var dryRun: Bool
    /// The command line (or request) that asked, kept in the journal entry.
    public var command: String

    public init(
        table: String? = nil, tolerances: CheckTolerances = CheckTolerances(), codes: Set<ProblemCode> = ProblemCode.checkedByDefault,
        dryRun: Bool = false, command: String
    ) {
        self.table = table
        self.tolerances = tolerances
        self.codes = codes
        self.dryRun = dryRun
        self.command = command
    }
}

/// What a check found, and with a fix what the repair did: the `check --json` document,
/// `{"problems": [Problem], "counts": {code: n}}`, with a fix also `"repaired"`, `"left"`
/// (counts by code), `"journalEntry"` and `"dryRun"`.
///
/// `problems` holds the problems only when the check collected them (no `report` callback);
/// a caller that streams them gets them one by one instead and an empty list here.
public struct CheckReport: Sendable, Encodable {
    /// What was checked and how many problems of each code were found.
    public var summary: CheckSummary
    /// The problems, when collected.
    public var problems: [Problem] = []
    /// The repair, for `CheckFix`.
    public var repair: RepairResult?

    public init(summary: CheckSummary, problems: [Problem] = [], repair: RepairResult? = nil) {
        self.summary = summary
        self.problems = problems
        self.repair = repair
    }

    /// Everything after the problems: the counts and the repair's tallies.
    public var totals: Totals { Totals(counts: summary.counts, repair: repair) }

    /// The keys of the report other than `problems`, encodable on their own so that a front end
    /// can stream the problems first and end the document with these.
    public struct Totals: Sendable, Encodable {
        public var counts: [ProblemCode: Int]
        public var repair: RepairResult?

        enum CodingKeys: String, CodingKey { case counts, repaired, left, journalEntry, dryRun }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(ProblemCode.keyed(counts), forKey: .counts)
            if let repair {
                try c.encode(ProblemCode.keyed(repair.repaired), forKey: .repaired)
                try c.encode(ProblemCode.keyed(repair.left), forKey: .left)
                try c.encode(repair.journalEntry, forKey: .journalEntry)
                try c.encode(repair.dryRun, forKey: .dryRun)
            }
        }
    }

    enum CodingKeys: String, CodingKey { case problems }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(problems, forKey: .problems)
        try totals.encode(to: encoder)
    }
}

extension ProblemCode: Codable {
    /// Counts by code as JSON objects have them: keyed by the code's text.
    static func keyed(_ counts: [ProblemCode: Int]) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: counts.map { ($0.key.rawValue, $0.value) })
    }
}

extension Problem: Encodable {
    enum CodingKeys: String, CodingKey { case code, annotationTable, annotationFid, classID, originTable, originFid, message, overlaps }

    /// Encodes the problem with every key present (`null` where the problem names no such
    /// thing), and for `overlapping-annotation` also `"overlaps": {"annotationTable",
    /// "annotationFid", "text"}`, the other row of the pair; `targetClassID` is the repair's
    /// business and not encoded.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(code, forKey: .code)
        try c.encode(annotationTable, forKey: .annotationTable)
        try c.encode(annotationFid, forKey: .annotationFid)
        try c.encode(classID, forKey: .classID)
        try c.encode(originTable, forKey: .originTable)
        try c.encode(originFid, forKey: .originFid)
        try c.encode(message, forKey: .message)
        try c.encodeIfPresent(overlapped, forKey: .overlaps)
    }
}

extension ConsistencyChecker {
    /// Runs `request`: checks, calling `report` with every problem as it is found (nil: the
    /// problems are collected in the report) and `progress` with rows done and rows in all.
    ///
    /// - Throws: as `check(table:progress:report:)`.
    public func run(_ request: Check, progress: (Int, Int) -> Void = { _, _ in }, report: ((Problem) throws -> Void)? = nil) throws -> CheckReport {
        tolerances = request.tolerances
        codes = request.codes
        var problems: [Problem] = []
        let summary = try check(table: request.table, progress: progress, report: report ?? { problems.append($0) })
        return CheckReport(summary: summary, problems: problems)
    }

    /// Runs `request`: checks and repairs in one write transaction, so that nothing can change
    /// the file between what the check saw and what the repair changes; the repair is one
    /// journal entry. `report` and `progress` as for `run(_: Check)`.
    ///
    /// - Throws: as `check(table:progress:report:)` and `repair(_:command:)`; on any error the
    ///   file is as it was.
    ///
    /// A dry run (`request.dryRun`) makes the same repair and rolls it back, journal entry and
    /// all (`Connection.withoutCommitting`): the report is what the repair then does, and the
    /// file's bytes stay as they were.
    public func run(_ request: CheckFix, progress: (Int, Int) -> Void = { _, _ in }, report: ((Problem) throws -> Void)? = nil) throws -> CheckReport {
        tolerances = request.tolerances
        codes = request.codes
        func checkAndRepair() throws -> CheckReport {
            var plan = RepairPlan()
            var problems: [Problem] = []
            let summary = try check(table: request.table, progress: progress) { problem in
                if let report { try report(problem) } else { problems.append(problem) }
                plan.add(problem)
            }
            let repair = try self.repair(plan, command: request.command)
            return CheckReport(summary: summary, problems: problems, repair: repair)
        }
        // On a GeoPackage the check and the repair share one write transaction. On another store
        // the repair is its own edit (the check's reads are not locked), and works every value
        // out again from the rows as they are then.
        guard request.dryRun else { return geoPackage != nil ? try connection.write(checkAndRepair) : try checkAndRepair() }
        var report = try store.withoutCommitting(checkAndRepair)
        report.repair?.journalEntry = nil
        report.repair?.dryRun = true
        return report
    }
}
