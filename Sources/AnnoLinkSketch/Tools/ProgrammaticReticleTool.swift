/// The reticle tool driven by buttons rather than taps (Esri's `ProgrammaticReticleTool`):
/// the map is panned so that the reticle, the centre of the view, sits over a spot, and the
/// app calls `placeElementAtReticle()`, `selectElementAtReticle()` or
/// `pickUpSelectedElement()`.
///
/// The element under the reticle within `hoverTolerance` points is the editor's
/// `hoveredElement`. A picked-up element follows the reticle as a preview
/// (`GeometryEditor.interactionPreview`) and changes the geometry only when it is dropped,
/// so a pick-up and its drop are one undo step and a cancelled pick-up records nothing.
public final class ProgrammaticReticleTool: GeometryEditorTool {
    /// Which hovered elements are drawn larger. Display only: stored for a front end.
    public struct GrowEffect: Hashable, Sendable {
        /// Hovered vertices grow.
        public var appliesToVertices = true
        /// Hovered mid-vertices grow.
        public var appliesToMidVertices = true

        /// Both on, as Esri's default style has them.
        public init() {}
    }

    /// Whether the feedback of the vertex a place would create is drawn (and snapping
    /// feedback given) while nothing is picked up. Display only: it does not stop
    /// `placeElementAtReticle()` from inserting.
    public var vertexCreationPreviewIsEnabled = true
    /// Which hovered elements grow.
    public var growEffect = GrowEffect()
    /// The hover radius around the reticle, in points (Esri's default for the reticle: 5).
    public var hoverTolerance: Double = 5

    /// A tool with Esri's defaults.
    public override init() {}

    override var name: String { "programmatic reticle tool" }
    override var isReticleTool: Bool { true }
    override var reticleTolerance: Double { hoverTolerance }

    /// Drops the picked-up element at the reticle (a vertex moves there, a mid-vertex
    /// becomes a new vertex in its segment), or, when nothing is picked up, inserts a vertex
    /// at the reticle as `GeometryEditor.insertVertex(_:)` does, even when a vertex is
    /// hovered. The dropped or new vertex is selected. One undo step.
    /// - Throws: `SketchError.toolNotAttached`, `.notStarted`, `.noMapView`.
    public func placeElementAtReticle() throws {
        let (editor, viewport) = try viewingEditor()
        editor.placeAtReticle(viewport)
    }

    /// Selects the vertex or mid-vertex under the reticle and returns true; returns false,
    /// keeping the selection, when the reticle is over nothing, an edge or a fill, or when
    /// something is picked up.
    /// - Throws: `SketchError.toolNotAttached`, `.notStarted`, `.noMapView`.
    @discardableResult
    public func selectElementAtReticle() throws -> Bool {
        let (editor, viewport) = try viewingEditor()
        return editor.selectAtReticle(viewport)
    }

    /// Picks up the selected vertex or mid-vertex; it follows the reticle until
    /// `placeElementAtReticle()` drops it or `GeometryEditor.cancelCurrentAction()` puts it
    /// back. Changes nothing in the geometry.
    /// - Throws: `SketchError.toolNotAttached`, `.notStarted`, `.noMapView`, `.noSelection`,
    ///   `.cannotPickUp` for a part or the geometry, `.alreadyPickedUp`.
    public func pickUpSelectedElement() throws {
        let (editor, _) = try viewingEditor()
        try editor.pickUpSelection()
    }
}
