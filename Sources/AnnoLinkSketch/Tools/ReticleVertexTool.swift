/// The tap-driven reticle tool (Esri's `ReticleVertexTool`): every tap acts at the reticle,
/// wherever it lands on the screen.
///
/// A tap with nothing under the reticle adds a vertex after the selection; a tap on a vertex
/// selects it and starts moving it, and the next tap drops it; a tap on a mid-vertex starts
/// moving a new vertex out of it. Parts and the whole geometry cannot be moved with it.
public final class ReticleVertexTool: GeometryEditorTool {
    /// What taps may do.
    public var configuration = ReticleInteractionConfiguration()
    /// The hover radius around the reticle, in points.
    public var hoverTolerance: Double = 5

    /// A tool with Esri's defaults.
    public override init() {}

    override var name: String { "reticle vertex tool" }
    override var isReticleTool: Bool { true }
    override var reticleTolerance: Double { hoverTolerance }
    override var allowsDeleting: Bool { configuration.allowDeletingSelectedElement }
    override var allowsMoving: Bool { configuration.allowMovingSelectedElement }
    override var allowsRotating: Bool { false }
    override var allowsScaling: Bool { false }

    /// A tap on the map. Returns whether it did something: dropped, selected, picked up or
    /// inserted.
    ///
    /// With an element picked up, drops it at the reticle. Over a vertex (when vertex
    /// selection is allowed), selects it and, when moving is allowed, picks it up. Over a
    /// mid-vertex likewise, picking it up only when vertex creation is allowed too. Over
    /// nothing, inserts a vertex at the reticle when vertex creation is allowed: as a new
    /// part when part creation is allowed, nothing is selected and the line or polygon has
    /// parts already.
    /// - Throws: `SketchError.toolNotAttached`, `.notStarted`, `.noMapView`.
    @discardableResult
    public func tap() throws -> Bool {
        let (editor, viewport) = try viewingEditor()
        if editor.pickedUpElement != nil {
            editor.placeAtReticle(viewport)
            return true
        }
        if let hovered = editor.hoveredElement {
            switch hovered.kind {
            case .vertex(let p, let v) where configuration.allowVertexSelection:
                return try editor.changing {
                    try editor.selectVertexAt(partIndex: p, vertexIndex: v)
                    if configuration.allowMovingSelectedElement { try editor.pickUpSelection() }
                    return true
                }
            case .midVertex(let p, let s) where configuration.allowMidVertexSelection:
                return try editor.changing {
                    try editor.selectMidVertexAt(partIndex: p, segmentIndex: s)
                    if configuration.allowMovingSelectedElement, configuration.allowVertexCreation { try editor.pickUpSelection() }
                    return true
                }
            default:
                break
            }
        }
        guard configuration.allowVertexCreation else { return false }
        let sketch = try editor.started()
        let newPart = configuration.allowPartCreation && editor.selectedElement == nil && !sketch.isEmpty
        editor.insert(viewport.reticleLocation, newPart: newPart)
        return true
    }
}
