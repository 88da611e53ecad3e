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
