import AnnoLinkGeometry
import AnnoLinkSketch
import AnnoLinkTestSupport
import Testing

/// The edge cases of section 6.1 of the behaviour reference, numbered as there, and the
/// decisions taken where it says [unknown].
@Suite("geometry editor with the programmatic reticle tool")
struct GeometryEditorTests {
    // MARK: 6.1 #1

    @Test("#1 the three reticle calls throw before start, after stop and without a map view")
    func reticleCallsNeedAStartedEditorWithAView() throws {
        let tool = ProgrammaticReticleTool()
        let editor = GeometryEditor(tool: tool, viewport: try viewport())
        #expect(throws: SketchError.notStarted) { try tool.placeElementAtReticle() }
        #expect(throws: SketchError.notStarted) { try tool.selectElementAtReticle() }
        #expect(throws: SketchError.notStarted) { try tool.pickUpSelectedElement() }
        try editor.start(withType: .polygon)
        try tool.placeElementAtReticle()
        #expect(editor.stop() != nil)
        #expect(throws: SketchError.notStarted) { try tool.placeElementAtReticle() }
        #expect(throws: SketchError.notStarted) { try tool.selectElementAtReticle() }
        #expect(throws: SketchError.notStarted) { try tool.pickUpSelectedElement() }

        let blindTool = ProgrammaticReticleTool()
        let blind = GeometryEditor(tool: blindTool)
        try blind.start(withType: .polyline)
        #expect(throws: SketchError.noMapView) { try blindTool.placeElementAtReticle() }
        #expect(throws: SketchError.noMapView) { try blindTool.selectElementAtReticle() }
        #expect(throws: SketchError.noMapView) { try blindTool.pickUpSelectedElement() }
        #expect(blind.isEmpty)

        let loose = ProgrammaticReticleTool()
        #expect(throws: SketchError.toolNotAttached(tool: "programmatic reticle tool")) { try loose.placeElementAtReticle() }
    }

    @Test("[decision] starting an editor that is editing already is refused; stop on a stopped editor returns nil")
    func startTwice() throws {
        let (editor, _) = try reticleEditor(.point)
        #expect(throws: SketchError.alreadyStarted) { try editor.start(withType: .polygon) }
        #expect(editor.sketch?.type == .point)
        #expect(editor.stop() != nil)
        #expect(editor.stop() == nil)
        #expect(editor.geometry == nil)
    }

    // MARK: 6.1 #2, #3, #4, #5

    @Test("#2 point mode: placing twice leaves one point at the second location, selected; undo goes back to the first")
    func pointModeReplaces() throws {
        let (editor, tool) = try reticleEditor(.point)
        try editor.place(tool, 1, 2)
        try editor.place(tool, 5, 6)
        #expect(editor.sketch?.parts == [[p(5, 6)]])
        #expect(editor.selectedElement?.kind == .vertex(partIndex: 0, vertexIndex: 0))
        #expect(editor.geometry == .point(p(5, 6)))
        editor.undo()
        #expect(editor.sketch?.parts == [[p(1, 2)]])
        #expect(editor.selectedElement?.kind == .vertex(partIndex: 0, vertexIndex: 0))
    }

    @Test("#3 empty polyline: the first place is vertex 0 and not yet valid, the second makes it valid; a polygon at its third")
    func validityGrowsWithPlaces() throws {
        let (line, lineTool) = try reticleEditor(.polyline)
        try line.place(lineTool, 0, 0)
        #expect(line.selectedElement?.kind == .vertex(partIndex: 0, vertexIndex: 0))
        #expect(!line.sketchIsValid)
        try line.place(lineTool, 30, 0)
        #expect(line.sketchIsValid)

        let (area, areaTool) = try reticleEditor(.polygon)
        try area.place(areaTool, 0, 0)
        try area.place(areaTool, 0, 30)
        #expect(!area.sketchIsValid)
        try area.place(areaTool, 30, 30)
        #expect(area.sketchIsValid)
    }

    @Test("[decision] a lone vertex counts as its part's last: drawing keeps the order of the places")
    func drawingKeepsOrder() throws {
        let (editor, tool) = try reticleEditor(.polyline)
        try editor.place(tool, 0, 0)
        try editor.place(tool, 30, 0)
        try editor.place(tool, 60, 0)
        #expect(editor.part(0) == [p(0, 0), p(30, 0), p(60, 0)])
        #expect(editor.geometry == .lineString(LineString([p(0, 0), p(30, 0), p(60, 0)])))
    }

    @Test("#4 with vertex 0 of a part selected, a place inserts before it")
    func placeBeforeFirstVertex() throws {
        let (editor, tool) = try reticleEditor(editing: .lineString(LineString([p(0, 0), p(30, 0), p(60, 0)])))
        try editor.selectVertexAt(partIndex: 0, vertexIndex: 0)
        try editor.place(tool, -30, 0)
        #expect(editor.part(0) == [p(-30, 0), p(0, 0), p(30, 0), p(60, 0)])
        #expect(editor.selectedElement?.kind == .vertex(partIndex: 0, vertexIndex: 0))
    }

    @Test("#5 with vertex k selected, a place inserts at k + 1 and selects it")
    func placeAfterSelectedVertex() throws {
        let (editor, tool) = try reticleEditor(editing: .lineString(LineString([p(0, 0), p(30, 0), p(60, 0)])))
        try editor.selectVertexAt(partIndex: 0, vertexIndex: 1)
        try editor.place(tool, 45, 20)
        #expect(editor.part(0) == [p(0, 0), p(30, 0), p(45, 20), p(60, 0)])
        #expect(editor.selectedElement?.kind == .vertex(partIndex: 0, vertexIndex: 2))
    }

    @Test("[decision] with nothing selected, a place on an initial geometry appends to its last part (Pinkney's Green)")
    func initialGeometryAppends() throws {
        let green = try SampleGeometries.load("pinkneys-green").geometry
        let tool = ProgrammaticReticleTool()
        let editor = GeometryEditor(tool: tool, viewport: try viewport(center: p(-85_000, 6_714_000), scale: 20_000))
        try editor.start(withInitial: green)
        #expect(editor.sketch?.vertexCount == 8)
        #expect(editor.selectedElement == nil)
        #expect(!editor.canUndo)
        try tool.placeElementAtReticle()
        #expect(editor.part(0).count == 9)
        #expect(editor.part(0)[8] == p(-85_000, 6_714_000))
    }

    // MARK: 6.1 #6

    @Test("#6 picking up the mid-vertex of a polygon's closing segment and dropping it inserts one vertex; undo removes it")
    func midVertexOfClosingSegment() throws {
        let square = try Geometry(wkt: "POLYGON ((0 0, 0 100, 100 100, 100 0, 0 0))")
        let (editor, tool) = try reticleEditor(editing: square)
        editor.moveReticle(50, 0)
        #expect(editor.hoveredElement?.kind == .midVertex(partIndex: 0, segmentIndex: 3))
        #expect(try tool.selectElementAtReticle())
        try tool.pickUpSelectedElement()
        editor.moveReticle(50, -20)
        try tool.placeElementAtReticle()
        #expect(editor.part(0) == [p(0, 0), p(0, 100), p(100, 100), p(100, 0), p(50, -20)])
        #expect(editor.selectedElement?.kind == .vertex(partIndex: 0, vertexIndex: 4))
        #expect(editor.pickedUpElement == nil)
        editor.undo()
        #expect(editor.part(0).count == 4)
        #expect(!editor.canUndo)
    }

    @Test("#6 the same on a polyline's last segment")
    func midVertexOfLastSegment() throws {
        let (editor, tool) = try reticleEditor(editing: .lineString(LineString([p(0, 0), p(100, 0), p(200, 0)])))
        editor.moveReticle(150, 2)
        #expect(editor.hoveredElement?.kind == .midVertex(partIndex: 0, segmentIndex: 1))
        #expect(try tool.selectElementAtReticle())
        try tool.pickUpSelectedElement()
        editor.moveReticle(150, 40)
        try tool.placeElementAtReticle()
        #expect(editor.part(0) == [p(0, 0), p(100, 0), p(150, 40), p(200, 0)])
        editor.undo()
        #expect(editor.part(0) == [p(0, 0), p(100, 0), p(200, 0)])
    }

    // MARK: 6.1 #7, #8, #9

    @Test("#7 cancelling a pick-up leaves the geometry and the undo history as they were")
    func cancelPickUp() throws {
        let (editor, tool) = try reticleEditor(.polyline)
        try editor.place(tool, 0, 0)
        try editor.place(tool, 100, 0)
        let before = editor.sketch
        #expect(try tool.selectElementAtReticle())
        try tool.pickUpSelectedElement()
        #expect(editor.pickedUpElement?.kind == .vertex(partIndex: 0, vertexIndex: 1))
        editor.moveReticle(100, 50)
        #expect(editor.interactionPreview?.parts == [[p(0, 0), p(100, 50)]])
        editor.cancelCurrentAction()
        #expect(editor.pickedUpElement == nil)
        #expect(editor.sketch == before)
        // Exactly the two places are on the stack.
        editor.undo()
        editor.undo()
        #expect(editor.isEmpty)
        #expect(!editor.canUndo)
    }

    @Test("#8 undo while something is picked up puts it back and undoes the previous edit")
    func undoWhilePickedUp() throws {
        let (editor, tool) = try reticleEditor(.polyline)
        try editor.place(tool, 0, 0)
        try editor.place(tool, 100, 0)
        #expect(try tool.selectElementAtReticle())
        try tool.pickUpSelectedElement()
        editor.undo()
        #expect(editor.pickedUpElement == nil)
        #expect(editor.part(0) == [p(0, 0)])
    }

    @Test("#9 selecting a vertex in code puts back the picked-up element")
    func codeSelectionClearsPickUp() throws {
        let (editor, tool) = try reticleEditor(editing: .lineString(LineString([p(0, 0), p(100, 0)])))
        try editor.selectVertexAt(partIndex: 0, vertexIndex: 0)
        try tool.pickUpSelectedElement()
        #expect(editor.pickedUpElement != nil)
        try editor.selectVertexAt(partIndex: 0, vertexIndex: 1)
        #expect(editor.pickedUpElement == nil)
        #expect(editor.selectedElement?.kind == .vertex(partIndex: 0, vertexIndex: 1))
    }

    @Test("[decision] a pick-up changes nothing, so it does not make undo possible; a drop is one undo step")
    func pickUpIsNotAnEdit() throws {
        let (editor, tool) = try reticleEditor(editing: .lineString(LineString([p(0, 0), p(100, 0)])))
        try editor.selectVertexAt(partIndex: 0, vertexIndex: 0)
        try tool.pickUpSelectedElement()
        #expect(!editor.canUndo)
        editor.moveReticle(-20, 0)
        try tool.placeElementAtReticle()
        #expect(editor.canUndo)
        #expect(editor.part(0) == [p(-20, 0), p(100, 0)])
        editor.undo()
        #expect(editor.part(0) == [p(0, 0), p(100, 0)])
        #expect(!editor.canUndo)
    }

    @Test("[decision] nothing is hovered while an element is picked up: the reticle carries it")
    func noHoverWhilePickedUp() throws {
        let (editor, tool) = try reticleEditor(editing: .lineString(LineString([p(0, 0), p(100, 0)])))
        #expect(editor.hoveredElement?.kind == .vertex(partIndex: 0, vertexIndex: 0))
        #expect(try tool.selectElementAtReticle())
        try tool.pickUpSelectedElement()
        #expect(editor.hoveredElement == nil)
        editor.moveReticle(100, 0)
        #expect(editor.hoveredElement == nil)
        #expect(throws: SketchError.alreadyPickedUp) { try tool.pickUpSelectedElement() }
        try tool.placeElementAtReticle()
        // Dropped on top of the other vertex: it is hovered again (the duplicate is allowed).
        #expect(editor.hoveredElement?.kind == .vertex(partIndex: 0, vertexIndex: 0))
        #expect(editor.part(0) == [p(100, 0), p(100, 0)])
    }

    // MARK: 6.1 #10, #11

    @Test("#10 selecting at the reticle over an edge or a fill, or while picked up, returns false and keeps the selection")
    func selectAtReticleMisses() throws {
        let square = try Geometry(wkt: "POLYGON ((0 0, 0 100, 100 100, 100 0, 0 0))")
        let (editor, tool) = try reticleEditor(editing: square)
        try editor.selectVertexAt(partIndex: 0, vertexIndex: 1)
        editor.moveReticle(0, 25)
        #expect(editor.hoveredElement?.kind == .geometry)
        #expect(try !tool.selectElementAtReticle())
        editor.moveReticle(40, 60)
        #expect(editor.hoveredElement?.kind == .geometry)
        #expect(try !tool.selectElementAtReticle())
        editor.moveReticle(300, 300)
        #expect(editor.hoveredElement == nil)
        #expect(try !tool.selectElementAtReticle())
        #expect(editor.selectedElement?.kind == .vertex(partIndex: 0, vertexIndex: 1))
        try tool.pickUpSelectedElement()
        editor.moveReticle(100, 100)
        #expect(try !tool.selectElementAtReticle())
        #expect(editor.selectedElement?.kind == .vertex(partIndex: 0, vertexIndex: 1))
    }

    @Test("#11 picking up a part, the geometry or nothing throws")
    func pickUpNeedsAVertex() throws {
        let two = try Geometry(wkt: "MULTILINESTRING ((0 0, 100 0), (0 50, 100 50))")
        let (editor, tool) = try reticleEditor(editing: two)
        #expect(throws: SketchError.noSelection) { try tool.pickUpSelectedElement() }
        try editor.selectPart(partIndex: 1)
        #expect(editor.selectedElement?.kind == .part(partIndex: 1))
        #expect(throws: SketchError.cannotPickUp(element: "part")) { try tool.pickUpSelectedElement() }
        try editor.selectGeometry()
        #expect(throws: SketchError.cannotPickUp(element: "geometry")) { try tool.pickUpSelectedElement() }
        #expect(editor.pickedUpElement == nil)
    }

    // MARK: 6.1 #12, #13

    @Test("#12 canBeDeleted: never a mid-vertex; vertices by default; false when the tool forbids it, yet delete still works")
    func canBeDeleted() throws {
        let (editor, _) = try reticleEditor(editing: .lineString(LineString([p(0, 0), p(100, 0), p(200, 0)])))
        try editor.selectMidVertexAt(partIndex: 0, segmentIndex: 0)
        #expect(editor.selectedElement?.canBeDeleted == false)
        #expect(throws: SketchError.midVertexNotEditable(action: "deleted")) { try editor.deleteSelectedElement() }
        // [decision] the programmatic reticle tool, which has no configuration, lets vertices,
        // parts and the geometry be deleted.
        try editor.selectVertexAt(partIndex: 0, vertexIndex: 1)
        #expect(editor.selectedElement?.canBeDeleted == true)
        try editor.selectGeometry()
        #expect(editor.selectedElement?.canBeDeleted == true)

        let vertexTool = VertexTool()
        let configured = GeometryEditor(tool: vertexTool, viewport: try viewport())
        try configured.start(withInitial: .lineString(LineString([p(0, 0), p(100, 0), p(200, 0)])))
        try configured.selectVertexAt(partIndex: 0, vertexIndex: 1)
        #expect(configured.selectedElement?.canBeDeleted == true)
        vertexTool.configuration.allowDeletingSelectedElement = false
        #expect(configured.selectedElement?.canBeDeleted == false)
        try configured.deleteSelectedElement()
        #expect(configured.part(0) == [p(0, 0), p(200, 0)])
    }

    @Test("#13 deleting vertices below three invalidates a polygon; at none the part goes; the previous vertex is selected")
    func deleteDownToNothing() throws {
        let (editor, _) = try reticleEditor(editing: try Geometry(wkt: "POLYGON ((0 0, 0 10, 10 10, 0 0))"))
        try editor.selectVertexAt(partIndex: 0, vertexIndex: 2)
        try editor.deleteSelectedElement()
        #expect(editor.part(0) == [p(0, 0), p(0, 10)])
        #expect(!editor.sketchIsValid)
        #expect(editor.selectedElement?.kind == .vertex(partIndex: 0, vertexIndex: 1))
        try editor.deleteSelectedElement()
        #expect(editor.selectedElement?.kind == .vertex(partIndex: 0, vertexIndex: 0))
        try editor.deleteSelectedElement()
        #expect(editor.sketch?.parts == [])
        #expect(editor.sketch?.type == .polygon)
        #expect(editor.isEmpty)
        #expect(editor.selectedElement == nil)
        #expect(throws: SketchError.noSelection) { try editor.deleteSelectedElement() }
        // Three undo steps bring the triangle back.
        editor.undo(); editor.undo(); editor.undo()
        #expect(editor.part(0).count == 3)
        #expect(!editor.canUndo)
    }

    @Test("[decision] deleting a part's first vertex selects the new first; deleting a part selects nothing")
    func selectionAfterDelete() throws {
        let (editor, _) = try reticleEditor(editing: try Geometry(wkt: "MULTILINESTRING ((0 0, 10 0, 20 0), (0 50, 10 50))"))
        try editor.selectVertexAt(partIndex: 0, vertexIndex: 0)
        try editor.deleteSelectedElement()
        #expect(editor.part(0) == [p(10, 0), p(20, 0)])
        #expect(editor.selectedElement?.kind == .vertex(partIndex: 0, vertexIndex: 0))
        try editor.selectPart(partIndex: 1)
        try editor.deleteSelectedElement()
        #expect(editor.sketch?.parts.count == 1)
        #expect(editor.selectedElement == nil)
        try editor.selectGeometry()
        try editor.deleteSelectedElement()
        #expect(editor.isEmpty)
        #expect(editor.sketch?.type == .polyline)
    }

    @Test("#14 a multipart polygon whose part 1 has two points is not a valid sketch")
    func everyPartMustQualify() throws {
        let (editor, _) = try reticleEditor(.polygon)
        _ = editor.stop()
        try editor.start(SketchGeometry(type: .polygon, parts: [[p(0, 0), p(0, 10), p(10, 10)], [p(50, 50), p(60, 60)]]))
        #expect(!editor.sketchIsValid)
        try editor.selectVertexAt(partIndex: 1, vertexIndex: 1)
        try editor.insertVertex(p(50, 60))
        #expect(editor.sketchIsValid)
    }

    // MARK: 6.1 #15, #16

    @Test("#15 clearing keeps the type, empties the geometry and is one undo step")
    func clearGeometry() throws {
        let (editor, tool) = try reticleEditor(.polygon)
        try editor.place(tool, 0, 0)
        try editor.place(tool, 0, 30)
        try editor.place(tool, 30, 30)
        try editor.clearGeometry()
        #expect(editor.sketch?.type == .polygon)
        #expect(editor.isEmpty)
        #expect(editor.geometry == .polygon(Polygon(rings: [])))
        #expect(editor.canUndo)
        #expect(editor.selectedElement == nil)
        editor.undo()
        #expect(editor.part(0).count == 3)
        #expect(editor.canRedo)
        editor.redo()
        #expect(editor.isEmpty)
        // Clearing an empty geometry changes nothing and records nothing.
        editor.undo()
        try editor.clearGeometry()
        editor.undo()
        #expect(editor.part(0).count == 3)
    }

    @Test("#16 selecting out of range, or a mid-vertex of a point or multipoint, throws")
    func selectionRanges() throws {
        let (editor, _) = try reticleEditor(editing: try Geometry(wkt: "POLYGON ((0 0, 0 10, 10 10, 0 0))"))
        #expect(throws: SketchError.self) { try editor.selectVertexAt(partIndex: 0, vertexIndex: 3) }
        #expect(throws: SketchError.self) { try editor.selectVertexAt(partIndex: 1, vertexIndex: 0) }
        #expect(throws: SketchError.self) { try editor.selectVertexAt(partIndex: -1, vertexIndex: 0) }
        try editor.selectMidVertexAt(partIndex: 0, segmentIndex: 2)
        #expect(editor.selectedElement?.point == p(5, 5))
        #expect(throws: SketchError.self) { try editor.selectMidVertexAt(partIndex: 0, segmentIndex: 3) }
        #expect(throws: SketchError.self) { try editor.selectPart(partIndex: 1) }
        #expect(editor.selectedElement?.kind == .midVertex(partIndex: 0, segmentIndex: 2))

        let (points, _) = try reticleEditor(editing: try SampleGeometries.load("tree-markers").geometry)
        #expect(throws: SketchError.unsupportedGeometryType("a multipoint has no segments, so no mid-vertices")) {
            try points.selectMidVertexAt(partIndex: 0, segmentIndex: 0)
        }
        try points.selectPart(partIndex: 0)
        #expect(points.selectedElement?.kind == .geometry)
        let (point, _) = try reticleEditor(editing: try SampleGeometries.load("inis-meain-house").geometry)
        #expect(throws: SketchError.self) { try point.selectMidVertexAt(partIndex: 0, segmentIndex: 0) }

        let stopped = GeometryEditor()
        #expect(throws: SketchError.notStarted) { try stopped.selectVertexAt(partIndex: 0, vertexIndex: 0) }
    }

    // MARK: 6.1 #17

    @Test("#17 rotating by 540° is rotating by 180°; counter-clockwise; about the extent's centre by default")
    func rotation() throws {
        let line = Geometry.lineString(LineString([p(0, 0), p(10, 0)]))
        let (a, _) = try reticleEditor(editing: line)
        try a.selectGeometry()
        try a.rotateSelectedElement(angle: 540)
        let (b, _) = try reticleEditor(editing: line)
        try b.selectGeometry()
        try b.rotateSelectedElement(angle: 180)
        #expect(a.sketch == b.sketch)
        #expect(a.part(0) == [p(10, 0), p(0, 0)])
        let (c, _) = try reticleEditor(editing: line)
        try c.selectGeometry()
        try c.rotateSelectedElement(angle: 90, origin: p(0, 0))
        #expect(c.part(0) == [p(0, 0), p(0, 10)])
        try c.rotateSelectedElement(angle: -45, origin: p(0, 0))
        #expect(close(c.part(0)[1], p(10 / 2.0.squareRoot(), 10 / 2.0.squareRoot())))
    }

    @Test("#17 rotating a vertex without an origin changes nothing; a mid-vertex cannot be rotated")
    func rotatingAVertex() throws {
        let (editor, _) = try reticleEditor(editing: .lineString(LineString([p(0, 0), p(10, 0)])))
        try editor.selectVertexAt(partIndex: 0, vertexIndex: 1)
        try editor.rotateSelectedElement(angle: 90)
        #expect(editor.part(0) == [p(0, 0), p(10, 0)])
        #expect(!editor.canUndo)
        try editor.rotateSelectedElement(angle: 90, origin: p(0, 0))
        #expect(editor.part(0) == [p(0, 0), p(0, 10)])
        try editor.selectMidVertexAt(partIndex: 0, segmentIndex: 0)
        #expect(throws: SketchError.midVertexNotEditable(action: "rotated")) { try editor.rotateSelectedElement(angle: 10) }
        let (point, _) = try reticleEditor(editing: .point(p(3, 4)))
        try point.selectGeometry()
        try point.rotateSelectedElement(angle: 33)
        #expect(point.geometry == .point(p(3, 4)))
        #expect(throws: SketchError.self) { try point.rotateSelectedElement(angle: .nan) }
    }

    @Test("#17 scaling by 0, NaN or infinity throws; a negative factor reflects")
    func scaling() throws {
        let (editor, _) = try reticleEditor(editing: .lineString(LineString([p(0, 0), p(10, 0), p(10, 20)])))
        try editor.selectGeometry()
        for (x, y) in [(0.0, 1.0), (1, 0), (.nan, 1), (1, .infinity)] {
            #expect(throws: SketchError.self) { try editor.scaleSelectedElement(scaleX: x, scaleY: y) }
        }
        #expect(!editor.canUndo)
        try editor.scaleSelectedElement(scaleX: -1, scaleY: 1)
        // Reflected about x = 5, the centre of the extent.
        #expect(editor.part(0) == [p(10, 0), p(0, 0), p(0, 20)])
        try editor.scaleSelectedElement(scaleX: 2, scaleY: 0.5, origin: p(0, 0))
        #expect(editor.part(0) == [p(20, 0), p(0, 0), p(0, 10)])
        #expect(throws: SketchError.noSelection) {
            editor.clearSelection()
            try editor.scaleSelectedElement(scaleX: 2, scaleY: 2)
        }
    }

    @Test("moving: a vertex to a point, a part by its extent's centre, by deltas; NaN and mid-vertices refused")
    func moving() throws {
        let (editor, _) = try reticleEditor(editing: try Geometry(wkt: "MULTILINESTRING ((0 0, 10 0), (0 50, 10 60))"))
        try editor.selectVertexAt(partIndex: 0, vertexIndex: 1)
        try editor.moveSelectedElement(to: p(12, 3))
        #expect(editor.part(0) == [p(0, 0), p(12, 3)])
        #expect(editor.selectedElement?.point == p(12, 3))
        try editor.selectPart(partIndex: 1)
        try editor.moveSelectedElement(to: p(105, 105))
        #expect(editor.part(1) == [p(100, 100), p(110, 110)])
        try editor.moveSelectedElement(byDeltaX: -100, deltaY: 1)
        #expect(editor.part(1) == [p(0, 101), p(10, 111)])
        #expect(throws: SketchError.self) { try editor.moveSelectedElement(byDeltaX: .nan, deltaY: 0) }
        try editor.selectMidVertexAt(partIndex: 0, segmentIndex: 0)
        #expect(throws: SketchError.midVertexNotEditable(action: "moved")) { try editor.moveSelectedElement(byDeltaX: 1, deltaY: 1) }
    }

    // MARK: 6.1 #19, #20, #21

    @Test("#19 identify: a tolerance over 100 or below 0 is refused, 0 is an exact hit, vertices come before mid-vertices")
    func identifyTolerance() throws {
        let (editor, _) = try reticleEditor(editing: .lineString(LineString([p(0, 0), p(4, 0)])))
        let view = try #require(editor.viewport)
        #expect(throws: SketchError.invalidTolerance(101)) { try editor.identify(at: view.screenCenter, tolerance: 101) }
        #expect(throws: SketchError.invalidTolerance(-1)) { try editor.identify(at: view.screenCenter, tolerance: -1) }
        #expect(throws: SketchError.self) { try editor.identify(at: view.screenCenter, tolerance: .nan) }
        let exact = try editor.identify(at: view.screenPoint(fromLocation: p(4, 0)), tolerance: 0)
        #expect(exact.map(\.kind) == [.vertex(partIndex: 0, vertexIndex: 1), .geometry])
        #expect(try editor.identify(at: view.screenPoint(fromLocation: p(4.5, 0)), tolerance: 0).isEmpty)
        // Half a point from the mid-vertex, two from the vertices: the vertices still come first.
        let near = try editor.identify(at: view.screenPoint(fromLocation: p(2, 0.5)), tolerance: 5)
        #expect(near.map(\.kind) == [.vertex(partIndex: 0, vertexIndex: 0), .vertex(partIndex: 0, vertexIndex: 1),
                                     .midVertex(partIndex: 0, segmentIndex: 0), .geometry])
        #expect(try editor.identify(at: view.screenPoint(fromLocation: p(2, 30)), tolerance: 100).count == 4)
        #expect(try editor.identify(at: view.screenPoint(fromLocation: p(50, 50)), tolerance: 5).isEmpty)
    }

    @Test("#20 the hover radius is in points: a vertex 8 m away is hovered at 2 m a point but not at 1 m")
    func hoverDependsOnScale() throws {
        let (editor, _) = try reticleEditor(editing: .point(p(8, 0)))
        #expect(editor.hoveredElement == nil)
        editor.viewport = try viewport(scale: 2 * metrePerPointScale)
        #expect(editor.hoveredElement?.kind == .vertex(partIndex: 0, vertexIndex: 0))
        // At 1:20 000 a 5-point radius is 26.5 m in Web Mercator.
        let (far, _) = try reticleEditor(editing: .point(p(26, 0)))
        far.viewport = try viewport(scale: 20_000)
        #expect(far.hoveredElement != nil)
        far.moveReticle(-0.5, 0)
        #expect(far.hoveredElement == nil)
    }

    @Test("#21 placing twice without moving the map adds a duplicate vertex, which then is hovered")
    func duplicatePlace() throws {
        let (editor, tool) = try reticleEditor(.polyline)
        try editor.place(tool, 7, 7)
        #expect(editor.hoveredElement?.kind == .vertex(partIndex: 0, vertexIndex: 0))
        try tool.placeElementAtReticle()
        #expect(editor.part(0) == [p(7, 7), p(7, 7)])
        #expect(editor.sketchIsValid)
        #expect(editor.selectedElement?.kind == .vertex(partIndex: 0, vertexIndex: 1))
    }

    // MARK: 6.1 #22, #24

    @Test("#22 editing the Inis Meáin boundary: 23 vertices from 24 coordinates, 23 segments")
    func closedRingInEditor() throws {
        let (editor, _) = try reticleEditor(editing: try SampleGeometries.load("inis-meain-boundary").geometry)
        #expect(editor.sketch?.vertexCount == 23)
        try editor.selectMidVertexAt(partIndex: 0, segmentIndex: 22)
        #expect(close(try #require(editor.selectedElement?.point), p((-1_068_004.43 + -1_067_943.67) / 2, (6_998_409.28 + 6_998_403.86) / 2), 1e-6))
        #expect(throws: SketchError.self) { try editor.selectMidVertexAt(partIndex: 0, segmentIndex: 23) }
    }

    @Test("#24 a new edit after an undo clears the redo stack")
    func newEditClearsRedo() throws {
        let (editor, tool) = try reticleEditor(.multipoint)
        try editor.place(tool, 0, 0)
        try editor.place(tool, 20, 0)
        editor.undo()
        #expect(editor.canRedo)
        editor.redo()
        #expect(editor.part(0) == [p(0, 0), p(20, 0)])
        editor.undo()
        try editor.place(tool, 40, 0)
        #expect(!editor.canRedo)
        #expect(editor.part(0) == [p(0, 0), p(40, 0)])
        editor.redo()
        #expect(editor.part(0) == [p(0, 0), p(40, 0)])
    }

    // MARK: Events

    @Test("a drop reports geometry, selected element, picked-up element, hovered element, then can-undo")
    func dropEventOrder() throws {
        let (editor, tool) = try reticleEditor(editing: .lineString(LineString([p(-100, 0), p(0, 0)])))
        var events: [String] = []
        editor.addObserver { event in
            switch event {
            case .isStarted: events.append("started")
            case .geometry: events.append("geometry")
            case .selectedElement: events.append("selected")
            case .pickedUpElement(let e): events.append(e == nil ? "dropped" : "picked up")
            case .hoveredElement(let e): events.append(e == nil ? "hover off" : "hover")
            case .canUndo(let can): events.append("undo \(can)")
            case .canRedo(let can): events.append("redo \(can)")
            }
        }
        #expect(try tool.selectElementAtReticle())
        #expect(events == ["selected"])
        try tool.pickUpSelectedElement()
        #expect(events == ["selected", "picked up", "hover off"])
        events = []
        editor.moveReticle(10, 10)
        editor.moveReticle(20, 10)
        #expect(events.isEmpty)
        try tool.placeElementAtReticle()
        #expect(events == ["geometry", "selected", "dropped", "hover", "undo true"])
    }

    @Test("events come only on a real change")
    func noEventWithoutChange() throws {
        let (editor, tool) = try reticleEditor(.polygon)
        var count = 0
        let token = editor.addObserver { _ in count += 1 }
        editor.moveReticle(500, 500)
        editor.moveReticle(600, 500)
        try editor.clearGeometry()
        editor.clearSelection()
        editor.cancelCurrentAction()
        editor.undo()
        editor.redo()
        #expect(count == 0)
        try tool.placeElementAtReticle()
        #expect(count > 0)
        let seen = count
        try editor.selectVertexAt(partIndex: 0, vertexIndex: 0)
        #expect(count == seen)
        editor.removeObserver(token)
        try tool.placeElementAtReticle()
        #expect(count == seen)
    }

    @Test("start and stop report started and the geometry")
    func lifecycleEvents() throws {
        let editor = GeometryEditor(tool: ProgrammaticReticleTool(), viewport: try viewport())
        var events: [GeometryEditorEvent] = []
        editor.addObserver { events.append($0) }
        try editor.start(withType: .polyline)
        guard case .isStarted(true) = events.first, case .geometry(let g?) = events.dropFirst().first else {
            Issue.record("unexpected events \(events)"); return
        }
        #expect(g == .lineString(LineString([])))
        events = []
        _ = editor.stop()
        guard case .isStarted(false) = events.first, case .geometry(nil) = events.dropFirst().first else {
            Issue.record("unexpected events \(events)"); return
        }
    }

    @Test("changing the tool puts back a picked-up element")
    func toolChangeCancelsPickUp() throws {
        let (editor, tool) = try reticleEditor(editing: .lineString(LineString([p(0, 0), p(100, 0)])))
        #expect(try tool.selectElementAtReticle())
        try tool.pickUpSelectedElement()
        editor.tool = VertexTool()
        #expect(editor.pickedUpElement == nil)
        #expect(editor.hoveredElement == nil)
        #expect(throws: SketchError.toolNotAttached(tool: "programmatic reticle tool")) { try tool.placeElementAtReticle() }
        // A tool moved to another editor leaves the first with a vertex tool.
        let other = GeometryEditor(tool: tool)
        editor.tool = tool
        #expect(other.tool !== tool)
        #expect(editor.tool === tool)
    }
}
