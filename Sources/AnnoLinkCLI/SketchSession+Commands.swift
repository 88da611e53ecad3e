import AnnoLinkEditing
import AnnoLinkGeometry
import AnnoLinkSketch
import AnnoLinkStore
import Foundation

extension SketchSession {
    /// One command of the sketch language: its name, other names, usage, summary and action.
    struct LineCommand: Sendable {
        var name: String
        var aliases: [String] = []
        var usage: String
        var summary: String
        var run: @Sendable (SketchSession, [String]) throws -> [String]
    }

    /// Every command, in the order `help` lists them.
    static let commands: [LineCommand] = [
        LineCommand(name: "view", usage: "view [X,Y] [SCALE]", summary: "show the view, or centre it on X,Y (map units) at 1:SCALE", run: { try $0.view($1) }),
        LineCommand(name: "scale", usage: "scale SCALE", summary: "zoom to 1:SCALE, keeping the centre", run: { try $0.setScale($1) }),
        LineCommand(name: "rotation", usage: "rotation DEGREES", summary: "turn the map DEGREES counter-clockwise on the screen",
            run: { try $0.setRotation($1) }),
        LineCommand(name: "pan", usage: "pan DX,DY", summary: "move the reticle DX points right and DY points down over the map", run: { try $0.pan($1) }),
        LineCommand(name: "new", usage: "new TABLE [point|multipoint|polyline|polygon]",
            summary: "start a new geometry for TABLE (the type for GEOMETRY tables)", run: { try $0.new($1) }),
        LineCommand(name: "edit", usage: "edit TABLE FID", summary: "start editing a feature; the view centres on it", run: { try $0.edit($1) }),
        LineCommand(name: "tap", usage: "tap SX,SY",
            summary: "tap the screen at SX,SY points: edit the feature there, or select the vertex there and centre on it", run: { try $0.tap($1) }),
        LineCommand(name: "button", aliases: ["press"], usage: "button", summary: "the sample's button: Insert point, Pick up point or Drop point",
            run: { try $0.button($1) }),
        LineCommand(name: "place", usage: "place", summary: "placeElementAtReticle: drop what is picked up, or insert a vertex at the reticle",
            run: { try $0.place($1) }),
        LineCommand(name: "select", usage: "select", summary: "selectElementAtReticle: select the vertex or mid-vertex under the reticle",
            run: { try $0.selectAtReticle($1) }),
        LineCommand(name: "pickup", aliases: ["pick-up"], usage: "pickup", summary: "pickUpSelectedElement: pick up the selected vertex or mid-vertex",
            run: { try $0.pickUp($1) }),
        LineCommand(name: "cancel", usage: "cancel", summary: "put a picked-up element back (cancelCurrentAction)", run: { try $0.cancel($1) }),
        LineCommand(name: "undo", usage: "undo", summary: "put back a picked-up element, or else undo the last edit", run: { try $0.undo($1) }),
        LineCommand(name: "redo", usage: "redo", summary: "redo the last undone edit", run: { try $0.redo($1) }),
        LineCommand(name: "delete", usage: "delete", summary: "delete the selected element", run: { try $0.delete($1) }),
        LineCommand(name: "geometry", usage: "geometry WKT|GEOJSON|ESRIJSON",
            summary: "replace the sketch with a geometry typed as text (JSON in single quotes; Esri JSON's spatialReference is honoured)",
            run: { try $0.replaceGeometry($1) }),
        LineCommand(name: "clear", usage: "clear", summary: "empty the sketch (keeps its type)", run: { try $0.clear($1) }),
        LineCommand(name: "select-vertex", usage: "select-vertex PART VERTEX", summary: "select a vertex by index", run: { try $0.selectVertex($1) }),
        LineCommand(name: "select-mid-vertex", usage: "select-mid-vertex PART SEGMENT", summary: "select a mid-vertex by segment index",
            run: { try $0.selectMidVertex($1) }),
        LineCommand(name: "select-part", usage: "select-part PART", summary: "select a part (the geometry when it has one)", run: { try $0.selectPart($1) }),
        LineCommand(name: "select-geometry", usage: "select-geometry", summary: "select the whole geometry", run: { try $0.selectGeometry($1) }),
        LineCommand(name: "deselect", usage: "deselect", summary: "clear the selection", run: { try $0.deselect($1) }),
        LineCommand(name: "move-selection", usage: "move-selection DX,DY", summary: "move the selection by DX,DY map units", run: { try $0.moveSelection($1) }),
        LineCommand(name: "rotate-selection", usage: "rotate-selection DEGREES", summary: "turn the selection counter-clockwise about its centre",
            run: { try $0.rotateSelection($1) }),
        LineCommand(name: "scale-selection", usage: "scale-selection FX[,FY]", summary: "scale the selection about its centre",
            run: { try $0.scaleSelection($1) }),
        LineCommand(name: "freehand", usage: "freehand SX,SY SX,SY ...", summary: "draw a freehand stroke through screen points: a new part",
            run: { try $0.freehand($1) }),
        LineCommand(name: "shape", usage: "shape arrow|ellipse|rectangle|triangle SX,SY SX,SY [uniform]",
            summary: "drag a shape from one screen point to another", run: { try $0.shape($1) }),
        LineCommand(name: "vertex-creation", usage: "vertex-creation on|off", summary: "the sample's 'Allow vertex creation' switch",
            run: { try $0.vertexCreation($1) }),
        LineCommand(name: "status", usage: "status", summary: "show the status line (it follows every command anyway)", run: { try $0.none($1) }),
        LineCommand(name: "show", usage: "show", summary: "list the sketch's vertices and its WKT", run: { try $0.show($1) }),
        LineCommand(name: "draw", usage: "draw", summary: "draw the view around the reticle in characters", run: { try $0.draw($1) }),
        LineCommand(name: "save", usage: "save [FIELD=VALUE...]", summary: "write the sketch through the edit service (a new feature takes the fields)",
            run: { try $0.save($1) }),
        LineCommand(name: "discard", aliases: ["stop"], usage: "discard", summary: "stop editing without saving", run: { try $0.discard($1) }),
        LineCommand(name: "help", usage: "help", summary: "list the commands", run: { _, _ in helpLines }),
        LineCommand(name: "quit", aliases: ["exit"], usage: "quit", summary: "end the session (an unsaved sketch is discarded)", run: { try $0.quit($1) }),
    ]

    /// The command list, for `help` and `annolink sketch --help`.
    static var helpLines: [String] {
        commands.flatMap { ["  \($0.usage)", "      \($0.summary)"] }
    }

    // MARK: Arguments

    private func expect(_ words: [String], count: ClosedRange<Int>, _ usage: String) throws {
        guard count.contains(words.count) else { throw CommandError.usage("usage: \(usage)") }
    }

    private func number(_ text: String, _ what: String) throws -> Double {
        guard let value = decimalNumber(text), value.isFinite else { throw CommandError.usage("\(what) must be a number, not '\(text)'") }
        return value
    }

    private func index(_ text: String, _ what: String) throws -> Int {
        guard let value = Int(text) else { throw CommandError.usage("\(what) must be a whole number, not '\(text)'") }
        return value
    }

    private func screenPoint(_ text: String) throws -> ScreenPoint {
        let point = try EditOutput.coordinate(text, option: "a screen point")
        return ScreenPoint(x: point.x, y: point.y)
    }

    private func scale(_ text: String) throws -> Double {
        let digits = text.hasPrefix("1:") ? String(text.dropFirst(2)) : text
        guard let value = decimalNumber(digits), value.isFinite, value > 0 else {
            throw CommandError.usage("the scale must be a positive number (1:SCALE), not '\(text)'")
        }
        return value
    }

    // MARK: The view

    func view(_ words: [String]) throws -> [String] {
        try expect(words, count: 0...2, "view [X,Y] [SCALE]")
        var viewpoint = viewport.viewpoint
        for word in words {
            if word.contains(",") { viewpoint.center = try EditOutput.coordinate(word, option: "view") } else { viewpoint.scale = try scale(word) }
        }
        editor.viewport?.viewpoint = viewpoint
        let v = viewport
        return [String(format: "view: centre %@ at 1:%@, rotation %g°, %gx%g points, %.4f map units a point (%@)",
                       Self.format(v.reticleLocation, digits: 3), Self.scaleText(v.viewpoint.scale), v.viewpoint.rotation,
                       v.width, v.height, v.unitsPerPoint, crsName)]
    }

    static func scaleText(_ scale: Double) -> String {
        scale == scale.rounded() && abs(scale) < 1e15 ? String(Int64(scale)) : String(scale)
    }

    func setScale(_ words: [String]) throws -> [String] {
        try expect(words, count: 1...1, "scale SCALE")
        return try view(words)
    }

    func setRotation(_ words: [String]) throws -> [String] {
        try expect(words, count: 1...1, "rotation DEGREES")
        let viewpoint = try Viewpoint(center: viewport.viewpoint.center, scale: viewport.viewpoint.scale, rotation: try number(words[0], "the rotation"))
        editor.viewport?.viewpoint = viewpoint
        return try view([])
    }

    func pan(_ words: [String]) throws -> [String] {
        try expect(words, count: 1...1, "pan DX,DY")
        let by = try screenPoint(words[0])
        editor.viewport?.pan(dx: by.x, dy: by.y)
        return ["reticle at \(Self.format(viewport.reticleLocation, digits: 3))"]
    }

    // MARK: Starting and stopping

    func new(_ words: [String]) throws -> [String] {
        try expect(words, count: 1...2, "new TABLE [point|multipoint|polyline|polygon]")
        let table = try editableTable(words[0])
        var type = table.geometryKind.map(SketchGeometryType.init)
        if words.count == 2 {
            guard let given = SketchGeometryType(rawValue: words[1]) else {
                throw CommandError.usage("the type must be point, multipoint, polyline or polygon, not '\(words[1])'")
            }
            if let type, type != given {
                throw CommandError("\(table.name) holds \(table.geometryTypeName) geometries: a \(given.rawValue) cannot be saved there", status: .dataError)
            }
            type = given
        }
        guard let type else {
            throw CommandError.usage("\(table.name) takes any geometry type: say which, e.g. 'new \(table.name) polygon'")
        }
        try startEditing(Target(table: table, fid: nil), geometry: nil, type: type)
        return ["new \(type.rawValue) for \(table.name)"]
    }

    func edit(_ words: [String]) throws -> [String] {
        try expect(words, count: 2...2, "edit TABLE FID")
        let table = try editableTable(words[0])
        let fid = try EditOutput.fid(words[1])
        let feature = try store.feature(table, fid: fid)
        return try startFeature(table, feature)
    }

    private func startFeature(_ table: FeatureTable, _ feature: Feature) throws -> [String] {
        let type = feature.geometry.map { SketchGeometryType($0.kind) } ?? table.geometryKind.map(SketchGeometryType.init) ?? .polygon
        try startEditing(Target(table: table, fid: feature.fid), geometry: feature.geometry, type: type)
        let count = editor.sketch?.vertexCount ?? 0
        return ["editing \(table.name) fid \(feature.fid): \(type.rawValue) of \(count) \(count == 1 ? "vertex" : "vertices"); " +
            "view centred at \(Self.format(viewport.reticleLocation, digits: 3))"]
    }

    func tap(_ words: [String]) throws -> [String] {
        try expect(words, count: 1...1, "tap SX,SY")
        let point = try screenPoint(words[0])
        if editor.isStarted { return try tapElement(point) }
        let location = viewport.location(fromScreenPoint: point)
        guard let (table, feature) = try identifyFeature(at: location, radius: Self.tapTolerance * viewport.unitsPerPoint) else {
            throw CommandError("no feature within \(Int(Self.tapTolerance)) points of \(words[0]) (\(Self.format(location, digits: 3)))", status: .dataError)
        }
        return try startFeature(table, feature)
    }

    /// As the sample: a tapped vertex (or mid-vertex, when vertex creation is allowed) is
    /// selected and the view centred on it.
    private func tapElement(_ point: ScreenPoint) throws -> [String] {
        let elements = try editor.identify(at: point, tolerance: Self.tapTolerance)
        guard let element = elements.first(where: { $0.isVertex || ($0.isMidVertex && allowsVertexCreation) }), let location = element.point else {
            throw CommandError("no vertex\(allowsVertexCreation ? " or mid-vertex" : "") within \(Int(Self.tapTolerance)) points of the tap",
                status: .dataError)
        }
        editor.viewport?.viewpoint.center = location
        switch element.kind {
        case .vertex(let p, let v): try editor.selectVertexAt(partIndex: p, vertexIndex: v)
        case .midVertex(let p, let s): try editor.selectMidVertexAt(partIndex: p, segmentIndex: s)
        default: break
        }
        return ["selected \(element.description); view centred on it"]
    }

    /// The topmost feature within `radius` of `location` in a table of the map's CRS: points
    /// above lines above polygons, the nearest first within a rank, then table order and fid
    /// (`Identify`'s order).
    private func identifyFeature(at location: Point, radius: Double) throws -> (FeatureTable, Feature)? {
        for hit in try service.run(Identify(location: location, tolerance: radius)).features {
            let table = try store.featureTable(hit.table)
            guard table.srsID == srs.srsID else { continue }
            return (table, try store.feature(table, fid: hit.fid))
        }
        return nil
    }

    func discard(_ words: [String]) throws -> [String] {
        try expect(words, count: 0...0, "discard")
        _ = try editing()
        discard()
        return ["discarded the sketch; nothing was written"]
    }

    func quit(_ words: [String]) throws -> [String] {
        try expect(words, count: 0...0, "quit")
        finish()
        if editor.isStarted {
            discard()
            return ["discarded the unsaved sketch", "bye"]
        }
        return ["bye"]
    }

    // MARK: The reticle

    func button(_ words: [String]) throws -> [String] {
        try expect(words, count: 0...0, "button")
        _ = try editing()
        switch buttonState {
        case .pickUp?:
            try reticle.pressButton(allowsVertexCreation: allowsVertexCreation)
            return ["Pick up point: picked up \(editor.pickedUpElement?.description ?? "nothing")"]
        case .drop?:
            return ["Drop point: " + (try place([]).first ?? "")]
        case .insert?, nil:
            guard allowsVertexCreation else {
                throw CommandError("vertex creation is off: pan the reticle onto a vertex to pick it up", status: .dataError)
            }
            return ["Insert point: " + (try place([]).first ?? "")]
        }
    }

    func place(_ words: [String]) throws -> [String] {
        try expect(words, count: 0...0, "place")
        _ = try editing()
        let dropping = editor.pickedUpElement
        try reticle.placeElementAtReticle()
        let placed = editor.selectedElement?.description ?? "a vertex"
        let at = Self.format(viewport.reticleLocation, digits: 3)
        if let dropping {
            return [dropping.isMidVertex ? "dropped the \(dropping.description) as \(placed) at \(at)" : "dropped \(placed) at \(at)"]
        }
        return ["inserted \(placed) at \(at)"]
    }

    func selectAtReticle(_ words: [String]) throws -> [String] {
        try expect(words, count: 0...0, "select")
        _ = try editing()
        if editor.pickedUpElement != nil { throw CommandError("an element is picked up: drop it or cancel first", status: .dataError) }
        guard try reticle.selectElementAtReticle() else {
            throw CommandError("no vertex or mid-vertex under the reticle", status: .dataError)
        }
        return ["selected \(editor.selectedElement?.description ?? "")"]
    }

    func pickUp(_ words: [String]) throws -> [String] {
        try expect(words, count: 0...0, "pickup")
        _ = try editing()
        if editor.selectedElement?.isMidVertex == true, !allowsVertexCreation {
            throw CommandError("vertex creation is off: a mid-vertex cannot be picked up", status: .dataError)
        }
        try reticle.pickUpSelectedElement()
        return ["picked up \(editor.pickedUpElement?.description ?? "")"]
    }

    func cancel(_ words: [String]) throws -> [String] {
        try expect(words, count: 0...0, "cancel")
        _ = try editing()
        guard let element = editor.pickedUpElement else { throw CommandError("nothing is picked up", status: .dataError) }
        editor.cancelCurrentAction()
        return ["put \(element.description) back"]
    }

    // MARK: Undo and editing

    func undo(_ words: [String]) throws -> [String] {
        try expect(words, count: 0...0, "undo")
        _ = try editing()
        if let element = editor.pickedUpElement {
            editor.cancelCurrentAction()
            return ["put \(element.description) back (nothing to undo: the pick-up had changed nothing)"]
        }
        guard editor.canUndo else { throw CommandError("nothing to undo", status: .dataError) }
        editor.undo()
        return ["undone"]
    }

    func redo(_ words: [String]) throws -> [String] {
        try expect(words, count: 0...0, "redo")
        _ = try editing()
        guard editor.canRedo else { throw CommandError("nothing to redo", status: .dataError) }
        editor.redo()
        return ["redone"]
    }

    func delete(_ words: [String]) throws -> [String] {
        try expect(words, count: 0...0, "delete")
        _ = try editing()
        guard let element = editor.selectedElement else { throw CommandError("nothing is selected to delete", status: .dataError) }
        guard element.canBeDeleted else {
            throw CommandError("the selected \(element.description) cannot be deleted (a mid-vertex exists only in the display)", status: .dataError)
        }
        try editor.deleteSelectedElement()
        return ["deleted \(element.description)"]
    }

    func clear(_ words: [String]) throws -> [String] {
        try expect(words, count: 0...0, "clear")
        _ = try editing()
        guard !editor.isEmpty else { throw CommandError("the sketch is empty already", status: .dataError) }
        try editor.clearGeometry()
        return ["cleared the sketch"]
    }

    /// As Esri's `replaceGeometry`: the sketch becomes the geometry given as WKT, GeoJSON or
    /// Esri JSON, in the map's CRS or, for Esri JSON with a spatial reference, transformed from
    /// it with PROJ. One undo step.
    func replaceGeometry(_ words: [String]) throws -> [String] {
        guard !words.isEmpty else { throw CommandError.usage("usage: geometry WKT|GEOJSON|ESRIJSON") }
        _ = try editing()
        let input: GeometryInput
        do {
            input = try GeometryInput(text: words.joined(separator: " "))
        } catch {
            throw CommandError.usage("geometry: \(error)")
        }
        let target = srs.projName
        let from = try input.referenceSystem(given: nil)
        try editor.replaceGeometry(try input.geometry(in: target, given: nil))
        let count = editor.sketch?.parts.reduce(0) { $0 + $1.count } ?? 0
        return ["replaced the sketch with the \(input.format.rawValue) geometry\(from.map { " (from \($0))" } ?? ""): " +
            "\(count) \(count == 1 ? "vertex" : "vertices")"]
    }

    func selectVertex(_ words: [String]) throws -> [String] {
        try expect(words, count: 2...2, "select-vertex PART VERTEX")
        _ = try editing()
        try editor.selectVertexAt(partIndex: try index(words[0], "PART"), vertexIndex: try index(words[1], "VERTEX"))
        return ["selected \(editor.selectedElement!.description)"]
    }

    func selectMidVertex(_ words: [String]) throws -> [String] {
        try expect(words, count: 2...2, "select-mid-vertex PART SEGMENT")
        _ = try editing()
        try editor.selectMidVertexAt(partIndex: try index(words[0], "PART"), segmentIndex: try index(words[1], "SEGMENT"))
        return ["selected \(editor.selectedElement!.description)"]
    }

    func selectPart(_ words: [String]) throws -> [String] {
        try expect(words, count: 1...1, "select-part PART")
        _ = try editing()
        try editor.selectPart(partIndex: try index(words[0], "PART"))
        return ["selected \(editor.selectedElement!.description)"]
    }

    func selectGeometry(_ words: [String]) throws -> [String] {
        try expect(words, count: 0...0, "select-geometry")
        _ = try editing()
        try editor.selectGeometry()
        return ["selected the geometry"]
    }

    func deselect(_ words: [String]) throws -> [String] {
        try expect(words, count: 0...0, "deselect")
        _ = try editing()
        editor.clearSelection()
        return ["nothing selected"]
    }

    func moveSelection(_ words: [String]) throws -> [String] {
        try expect(words, count: 1...1, "move-selection DX,DY")
        _ = try editing()
        let by = try EditOutput.coordinate(words[0], option: "move-selection")
        try editor.moveSelectedElement(byDeltaX: by.x, deltaY: by.y)
        return ["moved \(editor.selectedElement?.description ?? "")"]
    }

    func rotateSelection(_ words: [String]) throws -> [String] {
        try expect(words, count: 1...1, "rotate-selection DEGREES")
        _ = try editing()
        try editor.rotateSelectedElement(angle: try number(words[0], "the angle"))
        return ["rotated \(editor.selectedElement?.description ?? "")"]
    }

    func scaleSelection(_ words: [String]) throws -> [String] {
        try expect(words, count: 1...1, "scale-selection FX[,FY]")
        _ = try editing()
        let factors = words[0].contains(",")
            ? try EditOutput.coordinate(words[0], option: "scale-selection")
            : Point(x: try number(words[0], "the factor"), y: try number(words[0], "the factor"))
        try editor.scaleSelectedElement(scaleX: factors.x, scaleY: factors.y)
        return ["scaled \(editor.selectedElement?.description ?? "")"]
    }

    // MARK: Freehand and shapes

    /// Runs `body` with `tool` as the editor's tool, then gives the reticle tool back.
    private func using<T>(_ tool: GeometryEditorTool, _ body: () throws -> T) rethrows -> T {
        editor.tool = tool
        defer { editor.tool = reticle }
        return try body()
    }

    func freehand(_ words: [String]) throws -> [String] {
        guard words.count >= 2 else { throw CommandError.usage("usage: freehand SX,SY SX,SY ... (at least two screen points)") }
        _ = try editing()
        let points = try words.map(screenPoint)
        let tool = FreehandTool()
        try using(tool) { try tool.stroke(points) }
        let part = (editor.sketch?.parts.count ?? 1) - 1
        return ["drew part \(part) of \(editor.sketch?.parts.last?.count ?? 0) vertices from \(points.count) stroke points"]
    }

    func shape(_ words: [String]) throws -> [String] {
        try expect(words, count: 3...4, "shape arrow|ellipse|rectangle|triangle SX,SY SX,SY [uniform]")
        _ = try editing()
        guard let kind = ShapeTool.Kind(rawValue: words[0]) else {
            throw CommandError.usage("the shape must be arrow, ellipse, rectangle or triangle, not '\(words[0])'")
        }
        let tool = ShapeTool(kind: kind)
        if words.count == 4 {
            guard words[3] == "uniform" || words[3] == "stretch" else {
                throw CommandError.usage("the scale mode must be uniform or stretch, not '\(words[3])'")
            }
            tool.configuration.scaleMode = words[3] == "uniform" ? .uniform : .stretch
        }
        tool.configuration.allowPartCreation = true
        let from = try screenPoint(words[1]), to = try screenPoint(words[2])
        try using(tool) { try tool.drag(from: from, to: to) }
        return ["drew a \(kind.rawValue) of \(editor.sketch?.parts.last?.count ?? 0) vertices as part \((editor.sketch?.parts.count ?? 1) - 1)"]
    }

    func vertexCreation(_ words: [String]) throws -> [String] {
        try expect(words, count: 1...1, "vertex-creation on|off")
        guard words[0] == "on" || words[0] == "off" else { throw CommandError.usage("usage: vertex-creation on|off") }
        setVertexCreation(words[0] == "on")
        return ["vertex creation \(words[0])"]
    }

    // MARK: Looking

    func none(_ words: [String]) throws -> [String] {
        try expect(words, count: 0...0, "status")
        return []
    }

    func show(_ words: [String]) throws -> [String] {
        try expect(words, count: 0...0, "show")
        let (sketch, target) = try editing()
        var lines = ["\(sketch.type.rawValue) for \(target.table.name)\(target.fid.map { " fid \($0)" } ?? " (new)"): " +
            "\(sketch.parts.count) part\(sketch.parts.count == 1 ? "" : "s")"]
        for (p, points) in sketch.parts.enumerated() {
            lines.append("  part \(p): " + points.enumerated().map { "\($0.offset) (\(Self.format($0.element)))" }.joined(separator: " "))
        }
        if let geometry = editor.geometry, let wkt = try? geometry.wkt() { lines.append("  WKT: \(wkt)") }
        return lines
    }

    func draw(_ words: [String]) throws -> [String] {
        try expect(words, count: 0...0, "draw")
        return SketchDrawing(viewport: viewport, sketch: editor.sketch, selected: editor.selectedElement, preview: editor.interactionPreview).lines
    }

    // MARK: Saving

    func save(_ words: [String]) throws -> [String] {
        let (sketch, target) = try editing()
        if editor.pickedUpElement != nil {
            throw CommandError("a vertex is picked up: drop it ('button') or put it back ('cancel') before saving", status: .dataError)
        }
        guard sketch.sketchIsValid else { throw CommandError("the sketch is not valid yet: \(Self.invalidity(of: sketch))", status: .dataError) }
        let values = try EditOutput.assignments(words)
        let geometry = sketch.geometry(as: target.table.geometryKind)
        let command = EditOutput.commandLine + " (save)"
        let result: EditResult
        if let fid = target.fid {
            guard values.isEmpty else { throw CommandError("save sets fields only on new features: use 'annolink set' for feature \(fid)", status: .dataError) }
            result = try service.run(ReplaceGeometry(table: target.table.name, fid: fid, geometry: geometry, command: command))
        } else {
            let given = Set(values.map { $0.field.lowercased() })
            let missing = EditService.fieldsAnAddNeeds(target.table).filter { !given.contains($0.name.lowercased()) }
            if let column = missing.first {
                throw CommandError("\(target.table.name).\(column.name) may not be empty: give it, e.g. 'save \(column.name)=VALUE'", status: .dataError)
            }
            result = try service.run(AddFeature(table: target.table.name, geometry: geometry, values: values, command: command))
        }
        saved()
        return Self.lines(result, warnings: service.annotation.warnings)
    }

    /// Why `sketch` is not a valid sketch, in words.
    static func invalidity(of sketch: SketchGeometry) -> String {
        switch sketch.type {
        case .point: return "a point needs its vertex"
        case .multipoint: return "a multipoint needs at least one point"
        case .polyline, .polygon:
            let needed = sketch.type == .polyline ? 2 : 3
            guard !sketch.parts.isEmpty else { return "a \(sketch.type.rawValue) needs at least \(needed) vertices" }
            let short = sketch.parts.indices.filter { sketch.parts[$0].count < needed }
            return "every part of a \(sketch.type.rawValue) needs at least \(needed) vertices; " +
                short.map { "part \($0) has \(sketch.parts[$0].count)" }.joined(separator: ", ")
        }
    }

    /// What an edit did, as the editing commands print it.
    static func lines(_ result: EditResult, warnings: [String]) -> [String] {
        var lines = warnings.map { "warning: \($0)" }
        var head = "saved: \(result.kind == .add ? "added" : "reshaped") \(result.table) fid \(result.fid)"
        if let entry = result.journalEntry { head += " (journal entry \(entry); undo with 'annolink undo')" }
        lines.append(head)
        if let wkt = try? result.newGeometry?.wkt() { lines.append("  geometry: \(wkt)") }
        for change in result.annotation {
            var text = "  annotation \(change.annotationTable) fid \(change.annotationFid) \(change.kind.rawValue)"
            if let new = change.newText, change.oldText != new { text += ": '\(change.oldText ?? "")' -> '\(new)'" }
            if let anchor = change.newAnchor, change.kind != .deleted { text += String(format: " at %.2f, %.2f", anchor.x, anchor.y) }
            lines.append(text)
        }
        if result.annotation.isEmpty { lines.append("  no linked annotation changed") }
        return lines
    }
}
