import AnnoLinkGeometry

/// What regeneration did to one annotation row: its text, anchor and angle before and after.
public struct AnnotationChange: Hashable, Sendable {
    public enum Kind: String, Sendable, Codable {
        case created, updated, deleted
        /// The row moved to another class of the same annotation table.
        case reclassified
        /// Nothing differed.
        case unchanged
    }

    public var kind: Kind
    public var annotationTable: String
    public var annotationFid: Int64
    public var classID: Int64
    /// The text before (nil for a created row) and after (nil for a deleted row).
    public var oldText: String?
    public var newText: String?
    /// The anchor before and after, in the annotation table's CRS.
    public var oldAnchor: Point?
    public var newAnchor: Point?
    /// The angle before and after, in degrees counter-clockwise from east.
    public var oldAngle: Double?
    public var newAngle: Double?

    /// A change with the given fields.
    public init(
        kind: Kind, annotationTable: String, annotationFid: Int64, classID: Int64, oldText: String? = nil, newText: String? = nil,
        oldAnchor: Point? = nil, newAnchor: Point? = nil, oldAngle: Double? = nil, newAngle: Double? = nil
    ) {
        self.kind = kind
        self.annotationTable = annotationTable
        self.annotationFid = annotationFid
        self.classID = classID
        self.oldText = oldText
        self.newText = newText
        self.oldAnchor = oldAnchor
        self.newAnchor = newAnchor
        self.oldAngle = oldAngle
        self.newAngle = newAngle
    }
}

extension AnnotationChange: Encodable {
    enum CodingKeys: String, CodingKey {
        case kind = "change"
        case annotationTable, annotationFid, classID, oldText, newText, oldAnchor, newAnchor, oldAngle, newAngle
    }

    /// Encodes the change with every key present: what a created row lacks before, or a
    /// deleted row after, is `null`. Anchors are GeoJSON positions `[x, y]`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind, forKey: .kind)
        try c.encode(annotationTable, forKey: .annotationTable)
        try c.encode(annotationFid, forKey: .annotationFid)
        try c.encode(classID, forKey: .classID)
        try c.encode(oldText, forKey: .oldText)
        try c.encode(newText, forKey: .newText)
        try c.encode(oldAnchor, forKey: .oldAnchor)
        try c.encode(newAnchor, forKey: .newAnchor)
        try c.encode(oldAngle, forKey: .oldAngle)
        try c.encode(newAngle, forKey: .newAngle)
    }
}
