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

/// A change the geometry editor reports to its observers (Esri's `$geometry`,
/// `$selectedElement`, … streams). Each is sent only when the value really changed.
public enum GeometryEditorEvent: Sendable {
    /// The editor started or stopped.
    case isStarted(Bool)
    /// The geometry changed (nil: the editor stopped).
    case geometry(Geometry?)
    /// The selection changed, or the selected element moved.
    case selectedElement(GeometryEditorElement?)
    /// An element was picked up, dropped or put back.
    case pickedUpElement(GeometryEditorElement?)
    /// A different element (or none) is under the reticle.
    case hoveredElement(GeometryEditorElement?)
    /// Undo became possible or impossible.
    case canUndo(Bool)
    /// Redo became possible or impossible.
    case canRedo(Bool)
}

/// How scaling keeps proportions: free in x and y, or with the aspect ratio kept.
public enum ScaleMode: String, Hashable, Sendable {
    /// x and y scale independently (Esri's default).
    case stretch
    /// The aspect ratio is kept: shapes are drawn as squares, circles and equilateral
    /// triangles.
    case uniform
}

/// What a person may do with the vertex, freehand and shape tools (Esri's
/// `InteractionConfiguration`). Programmatic calls on the editor ignore these flags.
public struct InteractionConfiguration: Hashable, Sendable {
    /// A tap where nothing is hit adds a vertex.
    public var allowVertexCreation = true
    /// A tap with nothing selected (vertex tool) or a new stroke or shape (freehand and shape
    /// tools) starts a new part instead of extending or replacing the geometry.
    public var allowPartCreation = false
    /// Vertices can be selected.
    public var allowVertexSelection = true
    /// Mid-vertices can be selected (and dragged to insert a vertex).
    public var allowMidVertexSelection = true
    /// Parts can be selected.
    public var allowPartSelection = true
    /// The whole geometry can be selected.
    public var allowGeometrySelection = true
    /// The selection can be moved by dragging.
    public var allowMovingSelectedElement = true
    /// The selection can be rotated.
    public var allowRotatingSelectedElement = true
    /// The selection can be scaled.
    public var allowScalingSelectedElement = true
    /// The selection can be deleted (this feeds `canBeDeleted`).
    public var allowDeletingSelectedElement = true
    /// A drag moves only an element that was selected first.
    public var requireSelectionBeforeMove = false
    /// How scaling (and, always, shape creation) keeps proportions.
    public var scaleMode = ScaleMode.stretch

    /// A configuration with Esri's defaults, part creation as given.
    public init(allowPartCreation: Bool = false) {
        self.allowPartCreation = allowPartCreation
    }
}

/// What a person may do with the reticle vertex tool (Esri's
/// `ReticleInteractionConfiguration`).
public struct ReticleInteractionConfiguration: Hashable, Sendable {
    /// A tap with nothing under the reticle adds a vertex.
    public var allowVertexCreation = true
    /// A tap on a vertex selects it.
    public var allowVertexSelection = true
    /// A tap on a mid-vertex selects it.
    public var allowMidVertexSelection = true
    /// A tap on a vertex or mid-vertex also picks it up, and the next tap drops it.
    public var allowMovingSelectedElement = true
    /// The selection can be deleted (this feeds `canBeDeleted`).
    public var allowDeletingSelectedElement = true
    /// A tap with nothing selected on a non-empty line or polygon starts a new part
    /// (off by default: clear the selection and tap to extend instead).
    public var allowPartCreation = false

    /// A configuration with Esri's defaults.
    public init() {}
}
