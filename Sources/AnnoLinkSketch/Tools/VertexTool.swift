/// The default tool (Esri's `VertexTool`): taps create and select vertices, drags move them.
///
/// Headless, a gesture is a call: `tap(at:)` and `drag(from:to:)` with screen points. A tap
/// on an element selects it, and tapping the selection again widens it (a multipoint's
/// vertex to the geometry; a line's or polygon's vertex to its part, then to the geometry).
/// A tap on nothing adds a vertex after the selection. A drag on a vertex moves it, on a
/// mid-vertex inserts a vertex, on a selected part or geometry moves it.
public final class VertexTool: GeometryEditorTool {
    /// What gestures may do.
    public var configuration = InteractionConfiguration()
    /// How far from an element a tap still hits it, in points (the Swift sample's 10).
    public var tapTolerance: Double = 10

    /// A tool with Esri's defaults: no part creation.
    public override init() {}

    override var name: String { "vertex tool" }
    override var allowsDeleting: Bool { configuration.allowDeletingSelectedElement }
    override var allowsMoving: Bool { configuration.allowMovingSelectedElement }
    override var allowsRotating: Bool { configuration.allowRotatingSelectedElement }
    override var allowsScaling: Bool { configuration.allowScalingSelectedElement }

    /// Whether the configuration lets a tap select `kind`.
    private func selectable(_ kind: GeometryEditorElement.Kind) -> Bool {
        switch kind {
        case .vertex: configuration.allowVertexSelection
        case .midVertex: configuration.allowMidVertexSelection
        case .part: configuration.allowPartSelection
        case .geometry: configuration.allowGeometrySelection
        }
    }

    /// A tap at `screenPoint`; returns whether it selected or added something.
    ///
    /// The top element within `tapTolerance` that may be selected is selected; tapping the
    /// selected vertex, or a vertex of the selected part, widens the selection one step.
    /// Where nothing is hit and vertex creation is allowed, a vertex is inserted there (as a
    /// new part when part creation is allowed, nothing is selected and the line or polygon
    /// has parts already).
    /// - Throws: `SketchError.toolNotAttached`, `.notStarted`, `.noMapView`.
    @discardableResult
    public func tap(at screenPoint: ScreenPoint) throws -> Bool {
        let (editor, viewport) = try viewingEditor()
        let sketch = try editor.started()
        let location = viewport.location(fromScreenPoint: screenPoint)
        let selected = editor.selectedElement?.kind
        if let hit = editor.hits(at: location, radius: tapTolerance * viewport.unitsPerPoint).first(where: selectable) {
            var target = hit
            switch (hit, selected) {
            case (.vertex(let p, _), let s?) where s == hit:
                target = sketch.type.hasSegments ? editor.partKind(p, in: sketch) : .geometry
            case (.vertex(let p, _), .part(let q)?) where p == q:
                target = .geometry
            case (.part, let s?) where s == hit:
                target = .geometry
            default:
                break
            }
            if !selectable(target) { target = hit }
            try editor.changing {
                switch target {
                case .vertex(let p, let v): try editor.selectVertexAt(partIndex: p, vertexIndex: v)
                case .midVertex(let p, let s): try editor.selectMidVertexAt(partIndex: p, segmentIndex: s)
                case .part(let p): try editor.selectPart(partIndex: p)
                case .geometry: try editor.selectGeometry()
                }
            }
            return true
        }
        guard configuration.allowVertexCreation else { return false }
        let newPart = configuration.allowPartCreation && selected == nil && !sketch.isEmpty
        editor.insert(location, newPart: newPart)
        return true
    }

    /// A drag from `start` to `end`; returns whether it moved or inserted something.
    ///
    /// From a vertex: the vertex moves to `end` and is selected. From a mid-vertex: a new
    /// vertex is inserted at `end` (when vertex creation is allowed). From a part or the
    /// geometry: the selected element moves by the drag, or, when nothing there is selected,
    /// the part (or geometry) is selected and moved. With `requireSelectionBeforeMove`, only
    /// an element selected before the drag moves. One undo step.
    /// - Throws: `SketchError.toolNotAttached`, `.notStarted`, `.noMapView`.
    @discardableResult
    public func drag(from start: ScreenPoint, to end: ScreenPoint) throws -> Bool {
        let (editor, viewport) = try viewingEditor()
        let sketch = try editor.started()
        guard configuration.allowMovingSelectedElement else { return false }
        let from = viewport.location(fromScreenPoint: start)
        let to = viewport.location(fromScreenPoint: end)
        let selected = editor.selectedElement?.kind
        guard let hit = editor.hits(at: from, radius: tapTolerance * viewport.unitsPerPoint).first(where: selectable) else { return false }
        switch hit {
        case .vertex, .midVertex:
            if configuration.requireSelectionBeforeMove, selected != hit { return false }
            if case .midVertex = hit, !configuration.allowVertexCreation { return false }
            editor.drop(hit, at: to)
            return true
        case .part(let p):
            let moving: GeometryEditorElement.Kind
            if selected == .geometry || selected == hit {
                moving = selected!
            } else if configuration.requireSelectionBeforeMove {
                return false
            } else {
                moving = editor.partKind(p, in: sketch)
            }
            try move(moving, in: editor, dx: to.x - from.x, dy: to.y - from.y)
            return true
        case .geometry:
            if configuration.requireSelectionBeforeMove, selected != .geometry { return false }
            try move(.geometry, in: editor, dx: to.x - from.x, dy: to.y - from.y)
            return true
        }
    }

    private func move(_ kind: GeometryEditorElement.Kind, in editor: GeometryEditor, dx: Double, dy: Double) throws {
        try editor.changing {
            switch kind {
            case .part(let p): try editor.selectPart(partIndex: p)
            default: try editor.selectGeometry()
            }
            try editor.moveSelectedElement(byDeltaX: dx, deltaY: dy)
        }
    }
}
