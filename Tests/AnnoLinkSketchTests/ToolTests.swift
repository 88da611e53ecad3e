import AnnoLinkGeometry
import AnnoLinkSketch
import AnnoLinkTestSupport
import Testing

/// Twice the signed area of a ring (vertices without the closing one): negative when it runs
/// clockwise on a map with y up, positive on a screen with y down.
func signedDoubleArea(_ ring: [(Double, Double)]) -> Double {
    var sum = 0.0
    for i in ring.indices {
        let a = ring[i], b = ring[(i + 1) % ring.count]
        sum += a.0 * b.1 - b.0 * a.1
    }
    return sum
}

func s(_ x: Double, _ y: Double) -> ScreenPoint { ScreenPoint(x: x, y: y) }

@Suite("shape tool (6.1 #18)")
struct ShapeToolTests {
    func editor(_ type: SketchGeometryType, _ kind: ShapeTool.Kind) throws -> (GeometryEditor, ShapeTool) {
        let tool = ShapeTool(kind: kind)
        let editor = GeometryEditor(tool: tool, viewport: try viewport())
        try editor.start(withType: type)
        return (editor, tool)
    }

    @Test("a zero-length drag draws nothing and says why", arguments: ShapeTool.Kind.allCases)
    func zeroLengthDrag(kind: ShapeTool.Kind) throws {
        let (editor, tool) = try editor(.polygon, kind)
        #expect(throws: SketchError.degenerateShape("the drag has no length: drag to draw a \(kind.rawValue)")) {
            try tool.drag(from: s(40, 40), to: s(40, 40))
        }
        #expect(editor.isEmpty)
        #expect(!editor.canUndo)
    }

    @Test("rectangles: the drag's ends are opposite corners in every quadrant; rings run clockwise on the map")
    func rectangleQuadrants() throws {
        for end in [s(140, 80), s(60, 80), s(60, 20), s(140, 20)] {
            let outline = try ShapeTool.outline(.rectangle, from: s(100, 50), to: end, scaleMode: .stretch)
            #expect(outline.count == 4)
            #expect(Set(outline.map(\.x)) == [min(100, end.x), max(100, end.x)])
            #expect(Set(outline.map(\.y)) == [min(50, end.y), max(50, end.y)])
            // Clockwise as seen: positive area with screen y down.
            #expect(signedDoubleArea(outline.map { ($0.x, $0.y) }) > 0)
        }
        let (editor, tool) = try editor(.polygon, .rectangle)
        try tool.drag(from: s(100, 50), to: s(140, 80))
        let ring = editor.part(0)
        #expect(ring == [p(0, 0), p(40, 0), p(40, -30), p(0, -30)])
        #expect(signedDoubleArea(ring.map { ($0.x, $0.y) }) < 0)
        #expect(editor.selectedElement?.kind == .geometry)
    }

    @Test("uniform rectangles are squares on the longer side; a flat stretch drag is refused")
    func uniformRectangle() throws {
        let square = try ShapeTool.outline(.rectangle, from: s(0, 0), to: s(40, -10), scaleMode: .uniform)
        #expect(square == [s(0, -40), s(40, -40), s(40, 0), s(0, 0)])
        #expect(throws: SketchError.self) { try ShapeTool.outline(.rectangle, from: s(0, 0), to: s(40, 0), scaleMode: .stretch) }
        #expect(try ShapeTool.outline(.rectangle, from: s(0, 0), to: s(40, 0), scaleMode: .uniform).count == 4)
    }

    @Test("ellipses have 64 vertices; uniform is the circle through the drag's end, stretch passes through it at 45°")
    func ellipses() throws {
        let circle = try ShapeTool.outline(.ellipse, from: s(100, 50), to: s(130, 90), scaleMode: .uniform)
        #expect(circle.count == ShapeTool.ellipseVertexCount && circle.count == 64)
        for point in circle { #expect(abs(point.distance(to: s(100, 50)) - 50) < 1e-9) }
        let ellipse = try ShapeTool.outline(.ellipse, from: s(100, 50), to: s(130, 90), scaleMode: .stretch)
        let rx = 30 * 2.0.squareRoot(), ry = 40 * 2.0.squareRoot()
        #expect(abs(ellipse[0].x - (100 + rx)) < 1e-9 && abs(ellipse[0].y - 50) < 1e-9)
        #expect(abs(ellipse[16].y - (50 + ry)) < 1e-9)
        // The drag's end satisfies the ellipse's equation.
        #expect(abs((30 / rx) * (30 / rx) + (40 / ry) * (40 / ry) - 1) < 1e-12)
        #expect(signedDoubleArea(ellipse.map { ($0.x, $0.y) }) > 0)
    }

    @Test("triangles point away from the drag: down-drags point up, up-drags down; stretch puts a corner at the end")
    func triangles() throws {
        for (end, apexUp) in [(s(130, 80), true), (s(70, 80), true), (s(70, 20), false), (s(130, 20), false)] {
            let triangle = try ShapeTool.outline(.triangle, from: s(100, 50), to: end, scaleMode: .stretch)
            #expect(triangle.count == 3)
            let apex = triangle[0]
            #expect(apex.x == 100)
            #expect(apexUp ? apex.y < 50 : apex.y > 50)
            #expect(triangle.contains(end))
            // The drag's start is the centroid.
            #expect(abs(triangle.map(\.x).reduce(0, +) / 3 - 100) < 1e-9 && abs(triangle.map(\.y).reduce(0, +) / 3 - 50) < 1e-9)
            #expect(signedDoubleArea(triangle.map { ($0.x, $0.y) }) > 0)
        }
        let equilateral = try ShapeTool.outline(.triangle, from: s(100, 50), to: s(130, 90), scaleMode: .uniform)
        let sides = (0..<3).map { equilateral[$0].distance(to: equilateral[($0 + 1) % 3]) }
        #expect(abs(sides[0] - sides[1]) < 1e-9 && abs(sides[1] - sides[2]) < 1e-9)
        #expect(abs(equilateral[0].distance(to: s(100, 50)) - 50) < 1e-9)
        #expect(equilateral[0].y < 50)
        #expect(throws: SketchError.self) { try ShapeTool.outline(.triangle, from: s(0, 0), to: s(30, 0), scaleMode: .stretch) }
    }

    @Test("arrows are horizontal and point the way the drag went: seven vertices, the tip at mid-height")
    func arrows() throws {
        for (end, right) in [(s(160, 70), true), (s(160, 30), true), (s(40, 70), false), (s(40, 30), false)] {
            let arrow = try ShapeTool.outline(.arrow, from: s(100, 50), to: end, scaleMode: .stretch)
            #expect(arrow.count == 7)
            let tip = try #require(right ? arrow.max { $0.x < $1.x } : arrow.min { $0.x < $1.x })
            #expect(tip.x == end.x)
            #expect(tip.y == (50 + end.y) / 2)
            #expect(Set(arrow.map(\.y)).isSuperset(of: [50, end.y]))
            #expect(signedDoubleArea(arrow.map { ($0.x, $0.y) }) > 0)
        }
        // Uniform: half as high as long, below the start for a down-drag.
        let uniform = try ShapeTool.outline(.arrow, from: s(0, 0), to: s(60, 5), scaleMode: .uniform)
        #expect(uniform.map(\.y).max() == 30 && uniform.map(\.y).min() == 0)
        #expect(throws: SketchError.self) { try ShapeTool.outline(.arrow, from: s(0, 0), to: s(0, 40), scaleMode: .stretch) }
    }

    @Test("a polyline shape is a closed path; a polygon shape an implicitly closed ring")
    func polylineShapesAreClosed() throws {
        let (line, lineTool) = try editor(.polyline, .rectangle)
        try lineTool.drag(from: s(100, 50), to: s(120, 60))
        #expect(line.part(0).count == 5)
        #expect(line.part(0).first == line.part(0).last)
        let (area, areaTool) = try editor(.polygon, .triangle)
        try areaTool.drag(from: s(100, 50), to: s(120, 60))
        #expect(area.part(0).count == 3)
    }

    @Test("[decision] a second shape replaces the first unless part creation is on; points cannot be shapes")
    func partCreation() throws {
        let (editor, tool) = try editor(.polygon, .rectangle)
        try tool.drag(from: s(100, 50), to: s(120, 60))
        try tool.drag(from: s(10, 10), to: s(20, 20))
        #expect(editor.sketch?.parts.count == 1)
        #expect(editor.part(0)[0] == p(-90, 40))
        tool.configuration.allowPartCreation = true
        try tool.drag(from: s(100, 50), to: s(120, 60))
        #expect(editor.sketch?.parts.count == 2)
        #expect(editor.selectedElement?.kind == .part(partIndex: 1))
        editor.undo()
        #expect(editor.sketch?.parts.count == 1)

        let (points, pointTool) = try self.editor(.multipoint, .ellipse)
        #expect(throws: SketchError.self) { try pointTool.drag(from: s(0, 0), to: s(10, 10)) }
        #expect(points.isEmpty)
    }

    @Test("shapes stand upright on the screen when the map is turned")
    func rotatedView() throws {
        let tool = ShapeTool(kind: .rectangle)
        let editor = GeometryEditor(tool: tool, viewport: try viewport(rotation: 90))
        try editor.start(withType: .polygon)
        try tool.drag(from: s(100, 50), to: s(110, 70))
        // 10 points right is 10 m south on a map turned 90° counter-clockwise; 20 down is 20 m west.
        let ring = editor.part(0)
        #expect(close(ring[0], p(0, 0)) && close(ring[1], p(0, -10)) && close(ring[2], p(-20, -10)) && close(ring[3], p(-20, 0)))
    }
}

@Suite("freehand tool")
struct FreehandToolTests {
    func editor(_ type: SketchGeometryType) throws -> (GeometryEditor, FreehandTool) {
        let tool = FreehandTool()
        let editor = GeometryEditor(tool: tool, viewport: try viewport())
        try editor.start(withType: type)
        return (editor, tool)
    }

    @Test("[decision] strokes are thinned with Douglas–Peucker at 1.5 points in screen space")
    func simplification() {
        let wobbly = (0...50).map { s(Double($0) * 2, 10 + ($0 % 2 == 0 ? 0.7 : -0.7)) }
        #expect(FreehandTool.simplified(wobbly, tolerance: 1.5) == [wobbly.first!, wobbly.last!])
        let corner = (0...20).map { s(Double($0), 0) } + (1...20).map { s(20, Double($0)) }
        #expect(FreehandTool.simplified(corner, tolerance: 1.5) == [s(0, 0), s(20, 0), s(20, 20)])
        #expect(FreehandTool.simplified([s(1, 1), s(1, 1), s(1, 1)], tolerance: 1.5) == [s(1, 1)])
    }

    @Test("each stroke is a new part, selected; undo takes it away")
    func strokesMakeParts() throws {
        let (editor, tool) = try editor(.polyline)
        try tool.stroke((0...30).map { s(100 + Double($0), 50) })
        #expect(editor.sketch?.parts == [[p(0, 0), p(30, 0)]])
        #expect(editor.selectedElement?.kind == .geometry)
        try tool.stroke([s(100, 60), s(110, 70), s(120, 60)])
        #expect(editor.sketch?.parts.count == 2)
        #expect(editor.selectedElement?.kind == .part(partIndex: 1))
        #expect(editor.sketchIsValid)
        editor.undo()
        #expect(editor.sketch?.parts.count == 1)
    }

    @Test("a polygon stroke back to its start closes the ring implicitly")
    func polygonStroke() throws {
        let (editor, tool) = try editor(.polygon)
        var square: [ScreenPoint] = []
        for i in 0..<10 { square.append(s(100 + Double(i) * 2, 50)) }
        for i in 0..<10 { square.append(s(120, 50 + Double(i) * 2)) }
        for i in 0..<10 { square.append(s(120 - Double(i) * 2, 70)) }
        for i in 0...10 { square.append(s(100, 70 - Double(i) * 2)) }
        try tool.stroke(square)
        #expect(editor.part(0) == [p(0, 0), p(20, 0), p(20, -20), p(0, -20)])
        #expect(editor.sketchIsValid)
    }

    @Test("strokes too short for a part, and strokes on points, are refused")
    func refusals() throws {
        let (line, lineTool) = try editor(.polyline)
        #expect(throws: SketchError.strokeTooShort(points: 1, needed: 2)) { try lineTool.stroke([s(3, 3), s(3, 3)]) }
        let (area, areaTool) = try editor(.polygon)
        #expect(throws: SketchError.strokeTooShort(points: 2, needed: 3)) { try areaTool.stroke((0...10).map { s(Double($0), 0) }) }
        #expect(line.isEmpty && area.isEmpty)
        let (points, pointTool) = try editor(.multipoint)
        #expect(throws: SketchError.self) { try pointTool.stroke([s(0, 0), s(10, 10)]) }
        #expect(points.isEmpty)
    }
}

@Suite("vertex tool and reticle vertex tool")
struct VertexToolTests {
    @Test("vertex tool: taps add vertices; a tap selects, and tapping the selection widens it to the part, then the geometry")
    func tapCycling() throws {
        let tool = VertexTool()
        let editor = GeometryEditor(tool: tool, viewport: try viewport())
        try editor.start(withType: .polyline)
        #expect(try tool.tap(at: s(100, 50)))
        #expect(try tool.tap(at: s(150, 50)))
        #expect(editor.part(0) == [p(0, 0), p(50, 0)])
        editor.clearSelection()
        #expect(try tool.tap(at: s(101, 51)))
        #expect(editor.selectedElement?.kind == .vertex(partIndex: 0, vertexIndex: 0))
        try tool.tap(at: s(101, 51))
        #expect(editor.selectedElement?.kind == .geometry)
        // A tap on the edge selects the geometry of a one-part line; a mid-vertex tap selects it.
        try tool.tap(at: s(125, 50))
        #expect(editor.selectedElement?.kind == .midVertex(partIndex: 0, segmentIndex: 0))
        tool.configuration.allowVertexCreation = false
        editor.clearSelection()
        #expect(try !tool.tap(at: s(10, 10)))
        #expect(editor.sketch?.vertexCount == 2)
    }

    @Test("vertex tool on a multipart line: vertex, then part, then geometry; multipoint vertex, then geometry")
    func multipartCycling() throws {
        let tool = VertexTool()
        let editor = GeometryEditor(tool: tool, viewport: try viewport())
        try editor.start(withInitial: try Geometry(wkt: "MULTILINESTRING ((0 0, 40 0), (0 30, 40 30))"))
        try tool.tap(at: s(140, 20))
        #expect(editor.selectedElement?.kind == .vertex(partIndex: 1, vertexIndex: 1))
        try tool.tap(at: s(140, 20))
        #expect(editor.selectedElement?.kind == .part(partIndex: 1))
        try tool.tap(at: s(140, 20))
        #expect(editor.selectedElement?.kind == .geometry)
        _ = editor.stop()
        try editor.start(withInitial: .multiPoint(MultiPoint([p(0, 0), p(40, 0)])))
        try tool.tap(at: s(100, 50))
        try tool.tap(at: s(100, 50))
        #expect(editor.selectedElement?.kind == .geometry)
    }

    @Test("vertex tool drags: a vertex moves, a mid-vertex inserts, a selected geometry moves by the drag")
    func drags() throws {
        let tool = VertexTool()
        let editor = GeometryEditor(tool: tool, viewport: try viewport())
        try editor.start(withInitial: .lineString(LineString([p(0, 0), p(80, 0)])))
        #expect(try tool.drag(from: s(180, 50), to: s(180, 40)))
        #expect(editor.part(0) == [p(0, 0), p(80, 10)])
        #expect(try tool.drag(from: s(140, 45), to: s(140, 70)))
        #expect(editor.part(0) == [p(0, 0), p(40, -20), p(80, 10)])
        try editor.selectGeometry()
        // On the second segment, more than the 10-point tolerance from its vertices and mid-vertex.
        #expect(try tool.drag(from: s(150, 62.5), to: s(150, 52.5)))
        #expect(editor.part(0) == [p(0, 10), p(40, -10), p(80, 20)])
        #expect(try !tool.drag(from: s(0, 0), to: s(10, 10)))
        tool.configuration.requireSelectionBeforeMove = true
        editor.clearSelection()
        #expect(try !tool.drag(from: s(100, 40), to: s(100, 0)))
        #expect(editor.part(0)[0] == p(0, 10))
        editor.undo(); editor.undo(); editor.undo()
        #expect(editor.part(0) == [p(0, 0), p(80, 0)])
    }

    @Test("reticle vertex tool: a tap inserts; a tap on a vertex picks it up and the next drops it; a mid-vertex inserts")
    func reticleVertexTool() throws {
        let tool = ReticleVertexTool()
        let editor = GeometryEditor(tool: tool, viewport: try viewport())
        try editor.start(withType: .polyline)
        try tool.tap()
        editor.moveReticle(60, 0)
        try tool.tap()
        #expect(editor.part(0) == [p(0, 0), p(60, 0)])
        // Over the last vertex: picked up; the next tap drops it.
        try tool.tap()
        #expect(editor.pickedUpElement?.kind == .vertex(partIndex: 0, vertexIndex: 1))
        editor.moveReticle(60, 20)
        try tool.tap()
        #expect(editor.part(0) == [p(0, 0), p(60, 20)])
        #expect(editor.pickedUpElement == nil)
        // Over the mid-vertex: an insert-move.
        editor.moveReticle(30, 10)
        try tool.tap()
        #expect(editor.pickedUpElement?.kind == .midVertex(partIndex: 0, segmentIndex: 0))
        editor.moveReticle(30, -10)
        try tool.tap()
        #expect(editor.part(0) == [p(0, 0), p(30, -10), p(60, 20)])
        // Parts: off by default; on, a tap with nothing selected starts one.
        editor.clearSelection()
        editor.moveReticle(0, 50)
        try tool.tap()
        #expect(editor.sketch?.parts.count == 1)
        editor.undo()
        tool.configuration.allowPartCreation = true
        editor.clearSelection()
        try tool.tap()
        #expect(editor.sketch?.parts.count == 2)
        #expect(editor.selectedElement?.kind == .vertex(partIndex: 1, vertexIndex: 0))
        // Without moving, a vertex tap only selects.
        tool.configuration.allowMovingSelectedElement = false
        editor.moveReticle(0, 0)
        try tool.tap()
        #expect(editor.selectedElement?.kind == .vertex(partIndex: 0, vertexIndex: 0))
        #expect(editor.pickedUpElement == nil)
        #expect(editor.selectedElement?.canMove == false)
    }
}
