import AnnoLinkAnnotation
import AnnoLinkEngine
import AnnoLinkGeometry
import AnnoLinkStore
import Foundation

/// What a check looked at and what it found.
public struct CheckSummary: Sendable {
    /// The annotation tables checked, in registry order.
    public var annotationTables: [String] = []
    /// The origin tables of the classes checked.
    public var originTables: [String] = []
    /// The number of annotation classes checked.
    public var classes = 0
    /// Rows read: origin features, annotation rows, spatial index entries.
    public var originFeatures = 0
    public var annotationRows = 0
    public var indexEntries = 0
    /// Problems found, by code.
    public var counts: [ProblemCode: Int] = [:]
    /// Problems found, by table (`Problem.table`) and code.
    public var countsByTable: [String: [ProblemCode: Int]] = [:]

    /// Whether the file has annotation to check at all.
    public var hasAnnotation: Bool { !annotationTables.isEmpty }
    /// The number of problems found.
    public var problemCount: Int { counts.values.reduce(0, +) }

    mutating func count(_ problem: Problem) {
        counts[problem.code, default: 0] += 1
        countsByTable[problem.table, default: [:]][problem.code, default: 0] += 1
    }
}

/// Compares the stored annotation of a GeoPackage with what its classes' label expressions and
/// placement rules give now, and the spatial indexes with their tables (docs/checks.md,
/// "Problems": each problem and how it is found).
///
/// A check only reads. It streams: each origin table, each annotation table (joined to its
/// origin) and each spatial index is read by one statement in key order, so memory holds one
/// feature's annotation at a time, plus the ids of invalid origin features and the index
/// problems of one table. Problems go to the caller as they are found; `repair(_:command:)`
/// fixes what can be fixed, as one journal entry.
///
/// On another store than a GeoPackage (PostGIS) the same judgement runs through the store's
/// protocol instead (`checkThroughStore`): no spatial index pass (the database keeps its own
/// index) and no repair yet.
///
/// Not `Sendable`: one checker per store and task.
public final class ConsistencyChecker {
    /// The store checked.
    public let store: any FeatureStore
    /// The store when it is a GeoPackage: the set-based passes and the repair are SQL over
    /// its tables and R-trees.
    public let geoPackage: GeoPackage?
    /// The GeoPackage, on the paths only a GeoPackage takes.
    var package: GeoPackage { geoPackage! }
    /// The annotation engine that computes the expected text, placement and footprints.
    public let engine: AnnotationEngine
    /// The tolerances of the placement and footprint comparisons; `run(_:)` sets those of its
    /// request.
    public var tolerances: CheckTolerances
    /// The kinds of problem a check looks for (all, unless `check --only` says); `run(_:)` sets
    /// those of its request. A pass that finds none of them is not run.
    public var codes: Set<ProblemCode> = ProblemCode.checkedByDefault
    var connection: Connection { package.connection }

    /// The codes the origin and annotation passes find, which run together: the annotation
    /// pass judges only what the origin pass found readable.
    static let annotationPassCodes: Set<ProblemCode> = [
        .orphan, .missing, .duplicate, .staleText, .stalePlacement, .wrongClass, .footprint, .invalidGeometry, .offRule,
    ]

    /// A checker for `package` with `tolerances`.
    public init(package: GeoPackage, tolerances: CheckTolerances = CheckTolerances()) {
        self.store = package
        self.geoPackage = package
        self.engine = AnnotationEngine(package: package)
        self.tolerances = tolerances
    }

    /// A checker for any store with `tolerances`.
    public init(store: any FeatureStore, tolerances: CheckTolerances = CheckTolerances()) {
        self.store = store
        self.geoPackage = store as? GeoPackage
        self.engine = AnnotationEngine(store: store)
        self.tolerances = tolerances
    }

    /// The classes of one annotation table that label one origin table: the unit the
    /// annotation pass reads with one statement.
    struct Group {
        let annotation: FeatureTable
        let origin: FeatureTable
        /// Ordered by class id; bit `i` of a selection mask stands for `classes[i]`.
        let classes: [CompiledClass]
        /// The index in `classes` of each class id.
        let classIndex: [Int64: Int]

        init(annotation: FeatureTable, origin: FeatureTable, classes: [CompiledClass]) {
            self.annotation = annotation
            self.origin = origin
            self.classes = classes.sorted { $0.definition.classID < $1.definition.classID }
            classIndex = Dictionary(uniqueKeysWithValues: self.classes.enumerated().map { ($0.element.definition.classID, $0.offset) })
        }

        var classIDs: String { classes.map { String($0.definition.classID) }.joined(separator: ", ") }
        var allSelected: Int64 { (1 << Int64(classes.count)) - 1 }
    }

    /// What one check covers.
    struct Plan {
        var annotationTables: [FeatureTable] = []
        var originTables: [FeatureTable] = []
        var groups: [Group] = []
        /// Every registered class id of each annotation table (lowercased name), in scope or not.
        var registeredClasses: [String: Set<Int64>] = [:]
    }

    /// Checks the whole file, or with `table` one annotation table or the annotation of one
    /// origin table, calling `report` with every problem as it is found and `progress` with
    /// rows done and rows in all.
    ///
    /// A file without annotation tables and classes gives an empty summary
    /// (`hasAnnotation` false).
    ///
    /// - Throws: `CheckError.noAnnotationClasses` when the file has annotation tables but no
    ///   classes; `StoreError.unknownTable` or `CheckError.notAnnotated` for a `table` that is
    ///   not an annotation or origin table; `AnnotationError` for a class whose expression or
    ///   where clause does not compile, or whose expression fails on a feature; `SQLiteError`.
    public func check(table: String? = nil, progress: (Int, Int) -> Void = { _, _ in }, report: (Problem) throws -> Void) throws -> CheckSummary {
        guard geoPackage != nil else { return try checkThroughStore(table: table, progress: progress, report: report) }
        var summary = CheckSummary()
        // The scan looks every row up in its R-tree, and with SQLite's 2 MB page cache it read
        // the 150 MB sample of 100,000 parcels 4.6 times over (170,693 page reads): 64 MB holds
        // the R-trees' pages between lookups (docs/benchmarks.md, "Check").
        try connection.withPageCache(kibibytes: Self.pageCacheKibibytes) {
            try connection.read {
                let plan = try makePlan(table: table)
                let unfollowed = try unfollowedRows(plan)
                summary.annotationTables = plan.annotationTables.map(\.name)
                summary.originTables = plan.originTables.map(\.name)
                summary.classes = plan.groups.reduce(0) { $0 + $1.classes.count }
                guard !plan.annotationTables.isEmpty else { return }

                let annotationPass = !codes.isDisjoint(with: Self.annotationPassCodes)
                let reviewPass = !codes.isDisjoint(with: Self.reviewCodes)
                let indexed = codes.contains(.index) ? (plan.originTables + plan.annotationTables).filter(\.hasSpatialIndex) : []
                var total = 0
                if annotationPass {
                    for t in plan.originTables { total += try rowCount(t) }
                    for g in plan.groups { total += try rowCount(g.annotation, where: "AnnotationClassID IN (\(g.classIDs))") }
                }
                for t in indexed { total += try rowCount(t) }
                if reviewPass { for t in plan.annotationTables { total += try rowCount(t) } }
                var done = 0
                func tick() {
                    done += 1
                    if done % 4096 == 0 { progress(done, total) }
                }
                func emit(_ problem: Problem) throws {
                    guard codes.contains(problem.code), !unfollowed.hides(problem) else { return }
                    summary.count(problem)
                    try report(problem)
                }
                for problem in unfollowed.problems { try emit(problem) }

                if annotationPass {
                    let read = try checkOriginsAndAnnotation(plan, report: emit, tick: tick)
                    summary.originFeatures = read.features
                    summary.annotationRows = read.rows
                }
                if codes.contains(.unknownClass) {
                    for table in plan.annotationTables {
                        try checkClassesRegistered(table, registered: plan.registeredClasses[table.name.lowercased()] ?? [], report: emit)
                    }
                }
                for table in indexed {
                    summary.indexEntries += try checkIndex(table, isAnnotation: plan.annotationTables.contains(table), report: emit, tick: tick)
                }
                if reviewPass {
                    let rows = try checkPlacedAnnotation(inScope: plan.annotationTables, report: emit, tick: tick)
                    if !annotationPass { summary.annotationRows = rows }
                }
                progress(done, total)
            }
        }
        return summary
    }

    /// The page cache the check's scan may grow to, in KiB.
    static let pageCacheKibibytes = 64 * 1024

    /// The rows of `plan`'s tables that other programs changed and annolink has not followed
    /// yet (`FeatureStore.pendingOutsideEdits`): each a `not-followed` problem, and the other
    /// problems of those rows and their annotation are left out.
    func unfollowedRows(_ plan: Plan) throws -> UnfollowedRows {
        var rows = UnfollowedRows()
        guard codes.contains(.notFollowed) else { return rows }
        let annotation = Set(plan.annotationTables.map { $0.name.lowercased() })
        let inScope = annotation.union(plan.originTables.map { $0.name.lowercased() })
        for (table, fids) in try store.pendingOutsideEdits().sorted(by: { $0.key < $1.key }) where inScope.contains(table.lowercased()) {
            let isAnnotation = annotation.contains(table.lowercased())
            for fid in fids {
                rows.keys.insert(UnfollowedRows.key(table, fid))
                let message = "changed by another program and not followed yet; 'annolink follow' (or any annolink edit) regenerates its annotation"
                rows.problems.append(isAnnotation
                    ? Problem(code: .notFollowed, annotationTable: table, annotationFid: fid, message: message)
                    : Problem(code: .notFollowed, originTable: table, originFid: fid, message: message))
            }
        }
        return rows
    }

    /// What `unfollowedRows` found.
    struct UnfollowedRows {
        var keys: Set<String> = []
        var problems: [Problem] = []

        static func key(_ table: String, _ fid: Int64) -> String { "\(table.lowercased())\u{0}\(fid)" }

        /// Whether `problem` is one that a row not followed yet leaves (about that row or its
        /// annotation), and so not reported beside its `not-followed`.
        func hides(_ problem: Problem) -> Bool {
            guard !keys.isEmpty, problem.code != .notFollowed else { return false }
            if let table = problem.originTable, let fid = problem.originFid, keys.contains(Self.key(table, fid)) { return true }
            if let table = problem.annotationTable, let fid = problem.annotationFid, keys.contains(Self.key(table, fid)) { return true }
            return false
        }
    }

    /// The origin pass of every origin table in `plan`, then the annotation pass of every group.
    ///
    /// - Returns: the origin features and the annotation rows read.
    private func checkOriginsAndAnnotation(_ plan: Plan, report: (Problem) throws -> Void, tick: () -> Void) throws -> (features: Int, rows: Int) {
        var invalid: [String: Set<Int64>] = [:]
        var features = 0, rows = 0
        for origin in plan.originTables {
            let groups = plan.groups.filter { $0.origin.name == origin.name }
            let found = try checkOrigin(origin, groups: groups, report: report, tick: tick)
            invalid[origin.name] = found.invalid
            features += found.features
        }
        for group in plan.groups {
            rows += try checkAnnotation(group, invalid: invalid[group.origin.name] ?? [], report: report, tick: tick)
        }
        return (features, rows)
    }

    /// Works out the tables and classes a check covers.
    func makePlan(table requested: String?) throws -> Plan {
        var plan = Plan()
        let definitions = try store.annotationClasses()
        var annotationNames = try store.annotationTableNames()
        for d in definitions where !annotationNames.contains(where: { $0.lowercased() == d.annotationTable.lowercased() }) {
            annotationNames.append(d.annotationTable)
        }
        for d in definitions { plan.registeredClasses[d.annotationTable.lowercased(), default: []].insert(d.classID) }
        let requestedTable = try requested.map { try store.featureTable($0) }
        if annotationNames.isEmpty { return plan }
        if definitions.isEmpty { throw CheckError.noAnnotationClasses(annotationTables: annotationNames) }

        var scope: (String) -> Bool = { _ in true }
        if let requestedTable {
            let name = requestedTable.name.lowercased()
            let isAnnotation = annotationNames.contains { $0.lowercased() == name }
            guard isAnnotation || definitions.contains(where: { $0.originTable.lowercased() == name }) else {
                throw CheckError.notAnnotated(table: requestedTable.name)
            }
            scope = { $0.lowercased() == name }
        }
        var origins: [String] = []
        for d in definitions where !origins.contains(where: { $0.lowercased() == d.originTable.lowercased() }) {
            origins.append(d.originTable)
        }
        for originName in origins {
            let compiled = try engine.classes(labelling: originName)
            let byTable = Dictionary(grouping: compiled) { $0.definition.annotationTable.lowercased() }
            for (_, classes) in byTable.sorted(by: { $0.key < $1.key }) {
                let d = classes[0].definition
                guard scope(d.annotationTable) || scope(d.originTable) else { continue }
                let group = Group(annotation: try store.featureTable(d.annotationTable), origin: try store.featureTable(d.originTable), classes: classes)
                guard group.classes.count < 63 else {
                    throw StoreError.invalidData(
                        "\(group.annotation.name) has \(group.classes.count) classes labelling \(group.origin.name); "
                            + "a check handles at most 62")
                }
                plan.groups.append(group)
                if !plan.originTables.contains(group.origin) { plan.originTables.append(group.origin) }
            }
        }
        for name in annotationNames {
            let table = try store.featureTable(name)
            if scope(table.name) || plan.groups.contains(where: { $0.annotation == table }) { plan.annotationTables.append(table) }
        }
        return plan
    }

    /// The class's checked where clause (see `CompiledClass.condition`), ready to embed; nil
    /// when it has none.
    static func whereClause(_ c: CompiledClass) -> String? {
        c.condition?.sql
    }

    /// An SQL expression on the origin table's columns (unqualified, as the where clauses are
    /// written) whose bit `i` says whether `classes[i]` selects the row; nil when no class has
    /// a where clause, so that every class selects every row.
    static func selectionMask(_ classes: [CompiledClass]) -> String? {
        guard classes.contains(where: { whereClause($0) != nil }) else { return nil }
        return classes.enumerated().map { i, c in
            let bit = Int64(1) << Int64(i)
            return whereClause(c).map { "(CASE WHEN \($0) THEN \(bit) ELSE 0 END)" } ?? "\(bit)"
        }.joined(separator: " + ")
    }

    /// The origin columns the classes' expressions read, as the table spells them.
    static func fieldColumns(_ origin: FeatureTable, _ classes: [CompiledClass]) -> [Column] {
        var result: [Column] = []
        for c in classes {
            for field in c.expression.referencedFields.sorted() {
                if let column = origin.column(field), !result.contains(column) { result.append(column) }
            }
        }
        return result
    }

    func rowCount(_ table: FeatureTable, where condition: String = "1") throws -> Int {
        Int(try connection.scalarInt("SELECT count(*) FROM \(quoteIdentifier(table.name)) WHERE \(condition)") ?? 0)
    }

    /// Decodes a geometry blob, or says why it cannot be read.
    static func decode(_ blob: UnsafeRawBufferPointer) -> Result<Geometry, Error> {
        Result { try GeoPackageGeometry(blob: blob).geometry }
    }

    /// `value` with two decimals, for messages.
    static func format(_ value: Double) -> String { String(format: "%.2f", value) }
}

@available(*, unavailable)
extension ConsistencyChecker: Sendable {}
