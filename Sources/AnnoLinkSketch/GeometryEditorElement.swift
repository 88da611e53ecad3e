import AnnoLinkGeometry

/// A piece of the geometry being edited that can be hovered, selected or picked up: a
/// vertex, a mid-vertex, a part or the whole geometry (Esri's `GeometryEditorElement`s).
///
/// Elements are values taken at one moment: after an edit, ask the editor again.
public struct GeometryEditorElement: Hashable, Sendable, CustomStringConvertible {
    /// Which element, by index.
    public enum Kind: Hashable, Sendable {
        /// A vertex of the geometry. Points and multipoints use part 0; a point vertex 0.
        case vertex(partIndex: Int, vertexIndex: Int)
        /// The middle of segment `segmentIndex` (from vertex `segmentIndex` to the next; a
        /// ring's last segment closes it). It exists only in the display, never in the
        /// geometry, and serves to insert a vertex there.
        case midVertex(partIndex: Int, segmentIndex: Int)
        /// A part of a geometry of several parts (a path or a ring).
        case part(partIndex: Int)
        /// The whole geometry: also what selecting the only part of a one-part geometry, or
        /// a part of a point or multipoint, selects.
        case geometry
    }

    /// Which element this is.
    public let kind: Kind
    /// Where a vertex or mid-vertex is, in map units; nil for a part or the geometry.
    public let point: Point?
    /// The element's bounding box (a vertex's has no size); nil for an empty geometry.
    public let extent: Envelope?
    /// Whether the tool lets a person delete the element interactively. Mid-vertices never;
    /// `GeometryEditor.deleteSelectedElement()` deletes vertices, parts and the geometry
    /// regardless of this flag.
    public let canBeDeleted: Bool
    /// Whether the tool lets a person move the element.
    public let canMove: Bool
    /// Whether the tool lets a person rotate the element (parts and geometries of two or
    /// more vertices).
    public let canRotate: Bool
    /// Whether the tool lets a person scale the element (as for rotating).
    public let canScale: Bool

    init(kind: Kind, point: Point?, extent: Envelope?, canBeDeleted: Bool, canMove: Bool, canRotate: Bool, canScale: Bool) {
        self.kind = kind
        self.point = point
        self.extent = extent
        self.canBeDeleted = canBeDeleted
        self.canMove = canMove
        self.canRotate = canRotate
        self.canScale = canScale
    }

    /// Whether the element is a vertex.
    public var isVertex: Bool {
        if case .vertex = kind { return true }
        return false
    }

    /// Whether the element is a mid-vertex.
    public var isMidVertex: Bool {
        if case .midVertex = kind { return true }
        return false
    }

    /// The part the element belongs to; nil for the whole geometry.
    public var partIndex: Int? {
        switch kind {
        case .vertex(let part, _), .midVertex(let part, _), .part(let part): part
        case .geometry: nil
        }
    }

    /// The element in words, e.g. `vertex 3 of part 0`, `mid-vertex of segment 2 of part 0`.
    public var description: String {
        switch kind {
        case .vertex(let part, let vertex): "vertex \(vertex) of part \(part)"
        case .midVertex(let part, let segment): "mid-vertex of segment \(segment) of part \(part)"
        case .part(let part): "part \(part)"
        case .geometry: "geometry"
        }
    }
}
