/// The kinds of problem `check` finds, with the stable codes scripts see (docs/checks.md).
public enum ProblemCode: String, CaseIterable, Hashable, Sendable, Comparable {
    /// An annotation whose origin feature is gone (or has no geometry left to label).
    case orphan
    /// A feature that a class selects has no annotation of that class.
    case missing
    /// More than one annotation of one class for one feature: every one but the best match.
    case duplicate
    /// The text differs from what the label expression gives now.
    case staleText = "stale-text"
    /// The anchor or angle differs from the placement rules beyond the tolerance, and
    /// `Override` does not say a person placed it.
    case stalePlacement = "stale-placement"
    /// The class's where clause no longer selects the feature.
    case wrongClass = "wrong-class"
    /// The footprint polygon does not match the text, font and placement.
    case footprint
    /// The origin geometry is invalid (GEOS's reason), unreadable, or cannot be placed by its
    /// class's rules.
    case invalidGeometry = "invalid-geometry"
    /// A spatial index entry is missing, extra, or has the wrong box.
    case index
    /// An annotation whose class is not registered for its table.
    case unknownClass = "unknown-class"
    /// Two placed annotation rows (`Status` 0) whose footprints intersect, touching included,
    /// in one table or two: reported once, on the row with the lower (table, fid), naming the
    /// other (`Problem.overlapped`).
    case overlappingAnnotation = "overlapping-annotation"
    /// An annotation row stored unplaced (`Status` 1, as ArcGIS keeps a label it could not
    /// place): for a reviewer to place or accept.
    case unplacedAnnotation = "unplaced-annotation"
    /// A row another program (QGIS, GDAL, Python) inserted, updated or deleted, recorded by the
    /// change capture and not followed yet (docs/follow.md): reported instead of the stale
    /// annotation it leaves, which following will regenerate. `check --fix` follows it first.
    case notFollowed = "not-followed"
    /// Information, reported only when asked (`check --only off-rule`): a label placed away
    /// from its rule position — by ArcGIS's label engine, a person or conflict-aware placement —
    /// farther than the position tolerance or turned more than the angle tolerance, as its
    /// `PlacedFrom` records. Not a problem: where they were put is a choice.
    case offRule = "off-rule"

    /// Whether `check --fix` repairs this kind of problem. Overlapping and unplaced annotation
    /// are repaired by placing the reported row again, conflict-aware, among the labels around
    /// it (a label with no room stays unplaced; one set by hand is not moved).
    public var isRepairable: Bool {
        switch self {
        case .invalidGeometry, .unknownClass, .offRule: false
        default: true
        }
    }

    /// The codes as `check --only` lists them, comma-separated, in declaration order.
    public static var list: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// The codes a check looks for unless told (`--only`): every problem; not `off-rule`, which
    /// is information.
    public static var checkedByDefault: Set<ProblemCode> { Set(allCases).subtracting([.offRule]) }

    /// Codes order as declared, so that summaries list them in a fixed order.
    public static func < (lhs: ProblemCode, rhs: ProblemCode) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// One problem `check` found: what, where, and why in the user's words.
///
/// Annotation problems name the annotation row (`annotationTable`, `annotationFid`) and, where
/// known, its class and origin feature. Origin problems (`invalid-geometry`, and `missing`,
/// which has no annotation row yet) name the origin feature. Spatial index problems name the
/// row of the table whose index is wrong: an annotation table's in `annotationTable`, an
/// origin table's in `originTable`.
public struct Problem: Hashable, Sendable {
    public var code: ProblemCode
    public var annotationTable: String?
    public var annotationFid: Int64?
    /// The annotation class (`AnnotationClassID`) the problem concerns.
    public var classID: Int64?
    public var originTable: String?
    public var originFid: Int64?
    /// One line saying what is wrong, e.g. `text is '12 OAK'; the expression gives '12 ELM'`.
    public var message: String
    /// For `wrong-class`: the class the annotation belongs in now; nil when no class of its
    /// table selects the feature, so that the annotation should go.
    public var targetClassID: Int64?
    /// For `overlapping-annotation`: the other row of the pair.
    public var overlapped: AnnotationReference?

    /// A problem with the given fields.
    public init(
        code: ProblemCode, annotationTable: String? = nil, annotationFid: Int64? = nil, classID: Int64? = nil,
        originTable: String? = nil, originFid: Int64? = nil, message: String, targetClassID: Int64? = nil,
        overlapped: AnnotationReference? = nil
    ) {
        self.code = code
        self.annotationTable = annotationTable
        self.annotationFid = annotationFid
        self.classID = classID
        self.originTable = originTable
        self.originFid = originFid
        self.message = message
        self.targetClassID = targetClassID
        self.overlapped = overlapped
    }

    /// The table a summary counts the problem under: the annotation table when there is one,
    /// else the origin table.
    public var table: String { annotationTable ?? originTable ?? "" }
}

/// An annotation row a problem names besides its own: the other label of an overlapping pair.
public struct AnnotationReference: Hashable, Sendable, Encodable {
    public var annotationTable: String
    public var annotationFid: Int64
    /// Its `TextString`, so that a reader knows which label it is without looking it up.
    public var text: String

    public init(annotationTable: String, annotationFid: Int64, text: String) {
        self.annotationTable = annotationTable
        self.annotationFid = annotationFid
        self.text = text
    }
}
