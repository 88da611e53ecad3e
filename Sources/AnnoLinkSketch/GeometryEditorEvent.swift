import AnnoLinkGeometry

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
