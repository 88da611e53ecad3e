/// What `check --fix` will do, gathered from the problems a check reported: compact (no
/// messages), so that a check can feed it while it streams.
///
/// Problems of one annotation row are merged: a row with stale text and a stale placement is
/// regenerated once.
public struct RepairPlan: Sendable {
    /// An annotation row to change or delete.
    struct RowRepair: Sendable {
        var table: String
        var fid: Int64
        var originTable: String?
        var codes: Set<ProblemCode> = []
        var targetClassID: Int64?
        /// For an overlap: the other row of the pair, placed again instead when this one was
        /// placed by hand.
        var partner: AnnotationReference?
    }

    /// An annotation row to create.
    struct Creation: Sendable {
        var table: String
        var classID: Int64
        var originTable: String
        var originFid: Int64
    }

    private(set) var rows: [RowRepair] = []
    private var rowIndex: [String: [Int64: Int]] = [:]
    private(set) var creations: [Creation] = []
    /// The fids whose spatial index entries are wrong, by table.
    private(set) var index: [String: [Int64]] = [:]
    /// The problems no repair exists for, by code.
    public private(set) var left: [ProblemCode: Int] = [:]
    /// The problems the plan repairs, by code.
    public private(set) var repairing: [ProblemCode: Int] = [:]

    /// An empty plan.
    public init() {}

    /// Whether there is nothing to repair.
    public var isEmpty: Bool { rows.isEmpty && creations.isEmpty && index.isEmpty }

    /// The number of annotation rows the plan changes, deletes or creates (each is held in the
    /// journal entry's changeset).
    public var rowChangeCount: Int { rows.count + creations.count }

    /// Adds what repairs `problem`, or counts it as left when nothing can.
    public mutating func add(_ problem: Problem) {
        guard problem.code.isRepairable else {
            left[problem.code, default: 0] += 1
            return
        }
        switch problem.code {
        // Not followed: `check --fix` follows the outside edits before it checks.
        case .invalidGeometry, .unknownClass, .offRule, .notFollowed:
            return
        case .index:
            index[problem.table, default: []].append(problem.annotationFid ?? problem.originFid ?? 0)
        case .missing:
            guard let table = problem.annotationTable, let classID = problem.classID, let origin = problem.originTable,
                let fid = problem.originFid
            else { return }
            creations.append(Creation(table: table, classID: classID, originTable: origin, originFid: fid))
        case .orphan, .duplicate, .wrongClass, .staleText, .stalePlacement, .footprint, .overlappingAnnotation, .unplacedAnnotation:
            guard let table = problem.annotationTable, let fid = problem.annotationFid else { return }
            let position: Int
            if let known = rowIndex[table]?[fid] {
                position = known
            } else {
                position = rows.count
                rows.append(RowRepair(table: table, fid: fid, originTable: problem.originTable))
                rowIndex[table, default: [:]][fid] = position
            }
            rows[position].codes.insert(problem.code)
            if problem.code == .wrongClass { rows[position].targetClassID = problem.targetClassID }
            if problem.code == .overlappingAnnotation { rows[position].partner = problem.overlapped }
        }
        repairing[problem.code, default: 0] += 1
    }
}
