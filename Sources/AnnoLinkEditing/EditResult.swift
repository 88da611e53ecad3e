import AnnoLinkAnnotation
import AnnoLinkGeometry
import AnnoLinkStore

/// What one edit changed: the feature, its fields and geometry before and after, every
/// annotation row regenerated, and the journal entry that records it.
///
/// Encodes as the `--json` output of `set`, `move`, `move-vertex`, `add`, `delete` and the
/// sketch's `save` (docs/cli.md): `{"edit", "table", "fid", "fields", "annotation",
/// "journalEntry", "dryRun"}`, and `"oldGeometry"`, `"newGeometry"` (GeoJSON geometry objects or null)
/// when the edit touched the geometry.
public struct EditResult: Sendable, Encodable {
    public enum Kind: String, Sendable, Codable { case set, move, moveVertex = "move-vertex", add, delete, reshape, place }

    /// One changed field.
    public struct FieldChange: Sendable, Encodable {
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
    /// Whether this is what the edit would do: nothing was written (`EditService.dryRun`).
    public var dryRun = false
    /// Whether the geometry given was the stored one (within the resolution of its CRS:
    /// `GeometryMatch`), so nothing was written and no journal entry made.
    public var unchanged = false

    enum CodingKeys: String, CodingKey {
        case kind = "edit"
        case table, fid, fields, oldGeometry, newGeometry, annotation, journalEntry, dryRun, unchanged
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind, forKey: .kind)
        try c.encode(table, forKey: .table)
        try c.encode(fid, forKey: .fid)
        try c.encode(fields, forKey: .fields)
        try c.encode(annotation, forKey: .annotation)
        try c.encode(journalEntry, forKey: .journalEntry)
        try c.encode(dryRun, forKey: .dryRun)
        // Only when true, so that the answer of an edit that changes something keeps its shape.
        if unchanged { try c.encode(true, forKey: .unchanged) }
        if oldGeometry != nil || newGeometry != nil {
            try c.encode(oldGeometry?.encodableOrNil, forKey: .oldGeometry)
            try c.encode(newGeometry?.encodableOrNil, forKey: .newGeometry)
        }
    }
}

extension Geometry {
    /// The geometry when GeoJSON can hold it (finite coordinates), else nil: a result shows a
    /// geometry it cannot encode as `null` rather than failing after the edit is done.
    var encodableOrNil: Geometry? {
        var finite = true
        forEachPoint { if !$0.isFinite { finite = false } }
        if case .multiPoint(let m) = self, m.points.contains(where: \.isEmpty) { return nil }
        return finite ? self : nil
    }
}
