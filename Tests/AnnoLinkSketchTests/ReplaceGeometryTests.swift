import AnnoLinkGeometry
@testable import AnnoLinkSketch
import Testing

/// `GeometryEditor.replaceGeometry(_:)`, as Esri's: the sketch becomes the geometry given, as
/// one undo step, of the sketch's own type only.
@Suite("GeometryEditor.replaceGeometry")
struct ReplaceGeometryTests {
    @Test("a line replaces a line as one undo step; undo and redo go back and forth; the selection is cleared")
    func replace() throws {
        let original = LineString([Point(x: 0, y: 0), Point(x: 10, y: 0)])
        let (editor, _) = try reticleEditor(editing: .lineString(original))
        try editor.selectVertexAt(partIndex: 0, vertexIndex: 1)
        let replacement = LineString([Point(x: 1, y: 1), Point(x: 2, y: 3), Point(x: 5, y: 8)])
        try editor.replaceGeometry(.lineString(replacement))
        #expect(editor.geometry == .lineString(replacement))
        #expect(editor.selectedElement == nil && editor.canUndo && !editor.canRedo)
        editor.undo()
        #expect(editor.geometry == .lineString(original))
        editor.redo()
        #expect(editor.geometry == .lineString(replacement))
    }

    @Test("another type is refused and the sketch is unchanged; an editor not started refuses")
    func refusals() throws {
        let original = LineString([Point(x: 0, y: 0), Point(x: 10, y: 0)])
        let (editor, _) = try reticleEditor(editing: .lineString(original))
        let square = Polygon(exterior: LineString([Point(x: 0, y: 0), Point(x: 0, y: 1), Point(x: 1, y: 1), Point(x: 0, y: 0)]))
        #expect(throws: SketchError.unsupportedGeometryType("the sketch is a polyline; a polygon cannot replace it")) {
            try editor.replaceGeometry(.polygon(square))
        }
        #expect(editor.geometry == .lineString(original) && !editor.canUndo)
        #expect(throws: SketchError.notStarted) { try GeometryEditor().replaceGeometry(.point(Point(x: 0, y: 0))) }
    }
}
