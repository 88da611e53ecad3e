/// The one button of Esri's "Edit geometries with programmatic reticle tool" sample, whose
/// label says what the next press does: **Insert point** when nothing is under the reticle,
/// **Pick up point** when a vertex (or a mid-vertex, with vertex creation allowed) is,
/// **Drop point** while something is picked up.
///
/// Every front end asks this type, so `annolink sketch` and the map editor's sketch sessions
/// label and press the button the same way.
public enum ReticleButton: String, Hashable, Sendable, CaseIterable {
    /// Nothing under the reticle: a press inserts a vertex there (after the selection).
    case insert = "Insert point"
    /// A vertex or mid-vertex under the reticle: a press selects it and picks it up.
    case pickUp = "Pick up point"
    /// Something picked up: a press drops it at the reticle.
    case drop = "Drop point"

    /// What the button of `editor` does next; nil when the editor is not started.
    /// `allowsVertexCreation` is the sample's "Allow vertex creation" switch: off, a hovered
    /// mid-vertex cannot be picked up.
    public init?(editor: GeometryEditor, allowsVertexCreation: Bool = true) {
        guard editor.isStarted else { return nil }
        if editor.pickedUpElement != nil {
            self = .drop
        } else if let hovered = editor.hoveredElement, hovered.isVertex || (hovered.isMidVertex && allowsVertexCreation) {
            self = .pickUp
        } else {
            self = .insert
        }
    }
}

extension ProgrammaticReticleTool {
    /// Presses the sample's button, as the sample does: **Pick up point** selects the element
    /// under the reticle and picks it up (`selectElementAtReticle()`, `pickUpSelectedElement()`);
    /// **Drop point** and **Insert point** call `placeElementAtReticle()`. Returns the label
    /// the button had. The caller refuses an insert when its vertex-creation switch is off.
    /// - Throws: `SketchError.toolNotAttached`, `.notStarted`, `.noMapView`.
    @discardableResult
    public func pressButton(allowsVertexCreation: Bool = true) throws -> ReticleButton {
        let (editor, _) = try viewingEditor()
        guard let button = ReticleButton(editor: editor, allowsVertexCreation: allowsVertexCreation) else { throw SketchError.notStarted }
        switch button {
        case .pickUp:
            try editor.changing {
                _ = try selectElementAtReticle()
                try pickUpSelectedElement()
            }
        case .drop, .insert:
            try placeElementAtReticle()
        }
        return button
    }
}
