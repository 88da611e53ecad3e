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
