import AnnoLinkGeometry

/// What regeneration did to one annotation row.
public struct AnnotationChange: Hashable, Sendable {
    public enum Kind: String, Sendable {
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
    public var oldText: String?
    public var newText: String?
    public var oldAnchor: Point?
    public var newAnchor: Point?
}
