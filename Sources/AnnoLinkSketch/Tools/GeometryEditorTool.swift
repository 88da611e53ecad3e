/// A way of editing with the geometry editor: the reticle tools, the vertex tool, freehand
/// strokes and shapes. Assign one to `GeometryEditor.tool`; its calls act on that editor.
///
/// A tool belongs to one editor at a time: assigning it to another editor detaches it from
/// the first, which falls back to a new `VertexTool`.
public class GeometryEditorTool {
    /// The editor the tool is assigned to.
    weak var editor: GeometryEditor?

    init() {}

    /// The tool's name, for messages.
    var name: String { "tool" }
    /// Whether the tool follows the reticle (the centre of the view), so that the element
    /// under it is the hovered element.
    var isReticleTool: Bool { false }
    /// The hover radius in points, for reticle tools.
    var reticleTolerance: Double { 5 }
    /// Whether a person may delete the selected element (feeds `canBeDeleted`).
    var allowsDeleting: Bool { true }
    /// Whether a person may move the selected element.
    var allowsMoving: Bool { true }
    /// Whether a person may rotate the selected element.
    var allowsRotating: Bool { true }
    /// Whether a person may scale the selected element.
    var allowsScaling: Bool { true }

    /// The editor this tool is assigned to, which must be started.
    /// - Throws: `SketchError.toolNotAttached`, `.notStarted`.
    func startedEditor() throws -> GeometryEditor {
        guard let editor, editor.tool === self else { throw SketchError.toolNotAttached(tool: name) }
        guard editor.isStarted else { throw SketchError.notStarted }
        return editor
    }

    /// The started editor this tool is assigned to, which must have a map view.
    /// - Throws: `SketchError.toolNotAttached`, `.notStarted`, `.noMapView`.
    func viewingEditor() throws -> (GeometryEditor, MapViewport) {
        let editor = try startedEditor()
        guard let viewport = editor.viewport else { throw SketchError.noMapView }
        return (editor, viewport)
    }
}
