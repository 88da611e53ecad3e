import AnnoLinkGeometry
import AnnoLinkSketch
import Testing

/// The one button of the reticle sample (`ReticleButton`), which `annolink sketch` and the map
/// editor's sketch sessions both ask: its label follows the hover and the pick-up, and a press
/// does what the label said.
@Suite("reticle button")
struct ReticleButtonTests {
    @Test("Insert point over nothing, Pick up point over a vertex or mid-vertex, Drop point while carrying; a press does what it said")
    func labelsAndPresses() throws {
        let tool = ProgrammaticReticleTool()
        let viewport = try MapViewport(viewpoint: Viewpoint(center: Point(x: 0, y: 0), scale: 96 / 0.0254), width: 800, height: 600)
        let editor = GeometryEditor(tool: tool, viewport: viewport)
        #expect(ReticleButton(editor: editor) == nil, "not started")
        try editor.start(withType: .polyline)
        #expect(ReticleButton(editor: editor) == .insert)
        #expect(try tool.pressButton() == .insert)
        #expect(ReticleButton(editor: editor) == .pickUp, "the new vertex is under the reticle")
        editor.viewport?.pan(dx: 100, dy: 0)
        #expect(ReticleButton(editor: editor) == .insert)
        try tool.pressButton()
        // Over the mid-vertex of the segment (50 points back): pick it up, unless vertex creation is off.
        editor.viewport?.pan(dx: -50, dy: 0)
        #expect(ReticleButton(editor: editor) == .pickUp)
        #expect(ReticleButton(editor: editor, allowsVertexCreation: false) == .insert)
        #expect(try tool.pressButton() == .pickUp)
        #expect(editor.pickedUpElement?.isMidVertex == true)
        #expect(ReticleButton(editor: editor) == .drop)
        editor.viewport?.pan(dx: 0, dy: 20)
        #expect(try tool.pressButton() == .drop)
        #expect(editor.sketch?.parts == [[Point(x: 0, y: 0), Point(x: 50, y: -20), Point(x: 100, y: 0)]])
        #expect(editor.pickedUpElement == nil && ReticleButton(editor: editor) == .pickUp)
        // One undo step for the pick-up and its drop.
        editor.undo()
        #expect(editor.sketch?.parts == [[Point(x: 0, y: 0), Point(x: 100, y: 0)]])
    }
}
