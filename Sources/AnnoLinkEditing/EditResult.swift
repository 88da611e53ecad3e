import AnnoLinkAnnotation
import AnnoLinkGeometry
import AnnoLinkStore

/// What one edit changed: the feature, its fields and geometry, and its annotation.
public struct EditResult: Sendable {
    public enum Kind: String, Sendable { case set, move, moveVertex = "move-vertex", add, delete, reshape }

    /// One changed field.
    public struct FieldChange: Sendable {
        public var name: String
        public var old: SQLValue
        public var new: SQLValue
    }

    public var kind: Kind
    public var table: String
    public var fid: Int64
    public var fields: [FieldChange] = []
    public var oldGeometry: Geometry?
    public var newGeometry: Geometry?
    public var annotation: [AnnotationChange] = []
    /// The journal entry that records the edit (for undo), when journaled.
    public var journalEntry: Int64?
}
