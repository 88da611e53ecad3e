import AnnoLinkEditing
import AnnoLinkGeometry
import AnnoLinkSketch
import AnnoLinkStore
import Foundation

/// One sketch session of the map editor (docs/serve.md, "Sketch sessions"): a
/// `GeometryEditor` on the server, its map view kept in step with the browser's, driven by
/// actions over HTTP, so that the browser and `annolink sketch` share one editor's behaviour.
///
/// The session edits one geometry for one feature table: a new feature, or an existing one's
/// new shape. Nothing is written until `save`, which goes through the edit service as one
/// transaction and one journal entry (`AddFeature` or `ReplaceGeometry`).
///
/// Not `Sendable` by itself: `SketchSessions` hands it to one request at a time.
final class ServedSketch {
    /// The tools a session switches between.
    enum Mode: String {
        /// Esri's programmatic reticle tool: the map moves under a crosshair; one button.
        case reticle
        /// Esri's vertex tool: taps select, drags move vertices and insert at mid-vertices.
        case vertex
    }

    /// What a save writes: a new feature of `table`, or feature `fid`'s new geometry.
    let table: FeatureTable
    let fid: Int64?
    /// The user the session belongs to (nil: anonymous); only that caller may drive it.
    let owner: String?
    let editor: GeometryEditor
    let reticle = ProgrammaticReticleTool()
    let vertexTool = VertexTool()
    private(set) var mode: Mode
    /// What the last action did, in words (the browser's message line).
    var message = ""

    /// A started session: editing `geometry` (nil: a new, empty one of `type`) for `table`,
    /// with `viewport` as the browser's map view.
    init(table: FeatureTable, fid: Int64?, geometry: Geometry?, type: SketchGeometryType, viewport: MapViewport, mode: Mode, owner: String?) throws {
        self.table = table
        self.fid = fid
        self.owner = owner
        self.mode = mode
        editor = GeometryEditor(tool: reticle, viewport: viewport)
        if let geometry { try editor.start(withInitial: geometry) } else { try editor.start(withType: type) }
        if mode == .vertex { editor.tool = vertexTool }
    }

    var viewport: MapViewport { editor.viewport! }

    /// Switches the tool; a picked-up element is put back.
    func use(_ mode: Mode) {
        guard mode != self.mode else { return }
        self.mode = mode
        editor.tool = mode == .reticle ? reticle : vertexTool
    }

    // MARK: Actions

    /// A refusal of an action that is well formed: the editor cannot do it now (HTTP 409).
    struct Refusal: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// A malformed action: unknown, or a parameter missing or of the wrong kind (HTTP 400).
    struct BadAction: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// Runs one action (docs/serve.md lists them) with its JSON members. A `view` member, on
    /// any action, first sets the map view to what the browser shows.
    /// - Throws: `BadAction`, `Refusal`, `SketchError` (a refusal too).
    func run(_ action: String, _ body: [String: JSONInput]) throws {
        if let view = body["view"] { editor.viewport = try Self.viewport(view, metresPerUnit: viewport.metresPerUnit, current: viewport) }
        switch action {
        case "view":
            guard body["view"] != nil else { throw BadAction("the view action needs a \"view\" member: {\"center\": [x, y], \"scale\": S, \"width\": W, \"height\": H}") }
            message = ""
        case "pan":
            let dx = try Self.number(body, "dx"), dy = try Self.number(body, "dy")
            editor.viewport?.pan(dx: dx, dy: dy)
            message = "reticle at \(Self.format(viewport.reticleLocation))"
        case "tool":
            guard case .string(let name)? = body["tool"], let mode = Mode(rawValue: name) else {
                throw BadAction("the tool action needs \"tool\": \"reticle\" or \"vertex\"")
            }
            use(mode)
            message = "\(mode.rawValue) tool"
        case "button":
            try reticleOnly(action)
            let dropping = editor.pickedUpElement
            let pressed = try reticle.pressButton()
            message = "\(pressed.rawValue): " + placed(pressed == .pickUp ? nil : dropping, pickedUp: pressed == .pickUp)
        case "insert":
            if let point = try Self.point(body, optional: true) {
                try editor.insertVertex(point)
                message = "inserted \(editor.selectedElement?.description ?? "a vertex") at \(Self.format(point))"
            } else {
                try reticleOnly(action)
                if editor.pickedUpElement != nil { throw Refusal("an element is picked up: drop it or cancel first") }
                try reticle.placeElementAtReticle()
                message = placed(nil, pickedUp: false)
            }
        case "place":
            try reticleOnly(action)
            let dropping = editor.pickedUpElement
            try reticle.placeElementAtReticle()
            message = placed(dropping, pickedUp: false)
        case "select":
            try reticleOnly(action)
            if editor.pickedUpElement != nil { throw Refusal("an element is picked up: drop it or cancel first") }
            guard try reticle.selectElementAtReticle() else { throw Refusal("no vertex or mid-vertex under the reticle") }
            message = "selected \(editor.selectedElement?.description ?? "")"
        case "pickup":
            try reticleOnly(action)
            if editor.pickedUpElement == nil, editor.hoveredElement.map({ $0.isVertex || $0.isMidVertex }) == true {
                _ = try reticle.selectElementAtReticle()
            }
            try reticle.pickUpSelectedElement()
            message = "picked up \(editor.pickedUpElement?.description ?? "")"
        case "drop":
            try reticleOnly(action)
            guard let dropping = editor.pickedUpElement else { throw Refusal("nothing is picked up") }
            try reticle.placeElementAtReticle()
            message = placed(dropping, pickedUp: false)
        case "cancel":
            guard let element = editor.pickedUpElement else { throw Refusal("nothing is picked up") }
            editor.cancelCurrentAction()
            message = "put \(element.description) back"
        case "undo":
            // As the sample's Undo button and `annolink sketch`: a pick-up is put back first.
            if let element = editor.pickedUpElement {
                editor.cancelCurrentAction()
                message = "put \(element.description) back (nothing to undo: the pick-up had changed nothing)"
            } else {
                guard editor.canUndo else { throw Refusal("nothing to undo") }
                editor.undo()
                message = "undone"
            }
        case "redo":
            guard editor.canRedo else { throw Refusal("nothing to redo") }
            editor.redo()
            message = "redone"
        case "delete":
            guard let element = editor.selectedElement else { throw Refusal("nothing is selected to delete") }
            guard element.canBeDeleted else {
                throw Refusal("the selected \(element.description) cannot be deleted (a mid-vertex exists only in the display)")
            }
            try editor.deleteSelectedElement()
            message = "deleted \(element.description)"
        case "select-vertex":
            try editor.selectVertexAt(partIndex: try Self.index(body, "part"), vertexIndex: try Self.index(body, "vertex"))
            message = "selected \(editor.selectedElement?.description ?? "")"
        case "select-mid-vertex":
            try editor.selectMidVertexAt(partIndex: try Self.index(body, "part"), segmentIndex: try Self.index(body, "segment"))
            message = "selected \(editor.selectedElement?.description ?? "")"
        case "deselect":
            editor.clearSelection()
            message = "nothing selected"
        case "move-vertex":
            let part = try Self.index(body, "part"), vertex = try Self.index(body, "vertex")
            guard let point = try Self.point(body, optional: false) else { return }
            try editor.selectVertexAt(partIndex: part, vertexIndex: vertex)
            try editor.moveSelectedElement(to: point)
            message = "moved \(editor.selectedElement?.description ?? "") to \(Self.format(point))"
        case "insert-mid-vertex":
            let part = try Self.index(body, "part"), segment = try Self.index(body, "segment")
            guard let point = try Self.point(body, optional: false) else { return }
            try editor.selectMidVertexAt(partIndex: part, segmentIndex: segment)
            try editor.insertVertex(point)
            message = "inserted \(editor.selectedElement?.description ?? "a vertex") at \(Self.format(point))"
        case "tap":
            let at = try Self.screenPoint(body, "at")
            switch mode {
            case .vertex:
                guard try vertexTool.tap(at: at) else { throw Refusal("the tap selected and added nothing") }
                message = "tapped: \(editor.selectedElement.map { "selected \($0.description)" } ?? "nothing selected")"
            case .reticle:
                // As the sample: a tapped vertex or mid-vertex is selected and the view centred on it.
                let hits = try editor.identify(at: at, tolerance: Self.tapTolerance)
                guard let element = hits.first(where: { $0.isVertex || $0.isMidVertex }), let location = element.point else {
                    throw Refusal("no vertex or mid-vertex within \(Int(Self.tapTolerance)) points of the tap")
                }
                editor.viewport?.viewpoint.center = location
                switch element.kind {
                case .vertex(let p, let v): try editor.selectVertexAt(partIndex: p, vertexIndex: v)
                case .midVertex(let p, let s): try editor.selectMidVertexAt(partIndex: p, segmentIndex: s)
                default: break
                }
                message = "selected \(element.description); view centred on it"
            }
        case "drag":
            guard mode == .vertex else { throw Refusal("drag is a vertex-tool gesture: switch to the vertex tool first") }
            let from = try Self.screenPoint(body, "from"), to = try Self.screenPoint(body, "to")
            guard try vertexTool.drag(from: from, to: to) else { throw Refusal("nothing to drag there: no vertex, mid-vertex or selected part under the pointer") }
            message = "dragged to \(editor.selectedElement?.description ?? "")"
        case "clear":
            guard !editor.isEmpty else { throw Refusal("the sketch is empty already") }
            try editor.clearGeometry()
            message = "cleared the sketch"
        default:
            throw BadAction("unknown action '\(action)'; the actions are \(Self.actions.joined(separator: ", "))")
        }
    }

    /// Every action `run` knows.
    static let actions = ["view", "pan", "tool", "button", "insert", "place", "select", "pickup", "drop", "cancel", "undo", "redo",
                          "delete", "select-vertex", "select-mid-vertex", "deselect", "move-vertex", "insert-mid-vertex", "tap", "drag", "clear"]

    /// The identify radius of a tap, in points (the Swift sample's 10, as `annolink sketch`).
    static let tapTolerance = 10.0

    private func reticleOnly(_ action: String) throws {
        guard mode == .reticle else { throw Refusal("\(action) is a reticle-tool action: switch to the reticle tool first") }
    }

    /// What a place at the reticle did, in the words of `annolink sketch`.
    private func placed(_ dropping: GeometryEditorElement?, pickedUp: Bool) -> String {
        if pickedUp { return "picked up \(editor.pickedUpElement?.description ?? "nothing")" }
        let placed = editor.selectedElement?.description ?? "a vertex"
        let at = Self.format(viewport.reticleLocation)
        if let dropping {
            return dropping.isMidVertex ? "dropped the \(dropping.description) as \(placed) at \(at)" : "dropped \(placed) at \(at)"
        }
        return "inserted \(placed) at \(at)"
    }

    // MARK: Saving

    /// Why the sketch cannot be saved now, or nil.
    var unsavable: String? {
        guard let sketch = editor.sketch else { return "the session has ended" }
        if editor.pickedUpElement != nil { return "a vertex is picked up: drop it or cancel before saving" }
        guard sketch.sketchIsValid else {
            switch sketch.type {
            case .point: return "the sketch is not valid yet: a point needs its vertex"
            case .multipoint: return "the sketch is not valid yet: a multipoint needs at least one point"
            case .polyline, .polygon:
                let needed = sketch.type == .polyline ? 2 : 3
                let short = sketch.parts.indices.filter { sketch.parts[$0].count < needed }
                return "the sketch is not valid yet: every part of a \(sketch.type.rawValue) needs at least \(needed) vertices" +
                    (sketch.parts.isEmpty ? "" : "; " + short.map { "part \($0) has \(sketch.parts[$0].count)" }.joined(separator: ", "))
            }
        }
        return nil
    }

    /// The edit a save makes: the sketch, wrapped to the table's kind, as a new feature with
    /// `values` (a field a label reads left empty or NULL only with `allowEmpty`) or as feature
    /// `fid`'s geometry.
    /// - Throws: `Refusal` when the sketch cannot be saved as it is.
    func saveEdit(values: [FieldAssignment], allowEmpty: Bool) throws -> @Sendable (EditService) throws -> EditResult {
        if let reason = unsavable { throw Refusal(reason) }
        let geometry = editor.sketch!.geometry(as: table.geometryKind)
        let command = "serve sketch save"
        if let fid {
            guard values.isEmpty else { throw Refusal("save sets fields only on new features; feature \(fid)'s fields are edited through applyEdits") }
            let edit = ReplaceGeometry(table: table.name, fid: fid, geometry: geometry, command: command)
            return { try $0.run(edit) }
        }
        let given = Set(values.map { $0.field.lowercased() })
        if let column = EditService.fieldsAnAddNeeds(table).first(where: { !given.contains($0.name.lowercased()) }) {
            throw Refusal("\(table.name).\(column.name) may not be empty: give it in \"values\"")
        }
        let edit = AddFeature(table: table.name, geometry: geometry, values: values, allowEmpty: allowEmpty, command: command)
        return { try $0.run(edit) }
    }

    // MARK: State

    /// The session's state as JSON: what is edited, the parts and mid-vertices, the
    /// selected, hovered and picked-up elements, the drop preview, the view and reticle, the
    /// button's label, undo/redo, validity, the geometry as GeoJSON and the last message.
    func state(id: String) -> String {
        var json = JSONWriter()
        let sketch = editor.sketch ?? SketchGeometry(type: .point)
        json.object { o in
            o.member("id") { $0.string(id) }
            o.member("table") { $0.string(table.name) }
            o.member("fid") { j in if let fid { j.integer(fid) } else { j.null() } }
            o.member("type") { $0.string(sketch.type.rawValue) }
            o.member("tool") { $0.string(mode.rawValue) }
            o.member("parts") { Self.write(sketch.parts, to: &$0) }
            o.member("midVertices") { j in
                j.array { a in
                    guard sketch.type.hasSegments else { return }
                    for p in sketch.parts.indices {
                        for s in 0..<sketch.segmentCount(inPart: p) {
                            let m = sketch.midVertex(part: p, segment: s)
                            a.object { e in
                                e.member("part") { $0.integer(Int64(p)) }
                                e.member("segment") { $0.integer(Int64(s)) }
                                e.member("point") { Self.write(m, to: &$0) }
                            }
                        }
                    }
                }
            }
            o.member("selected") { Self.write(editor.selectedElement, to: &$0) }
            o.member("hovered") { Self.write(editor.hoveredElement, to: &$0) }
            o.member("pickedUp") { Self.write(editor.pickedUpElement, to: &$0) }
            o.member("preview") { j in if let preview = editor.interactionPreview { Self.write(preview.parts, to: &j) } else { j.null() } }
            o.member("reticle") { Self.write(viewport.reticleLocation, to: &$0) }
            o.member("view") { j in
                j.object { v in
                    v.member("center") { Self.write(viewport.viewpoint.center, to: &$0) }
                    v.member("scale") { $0.number(viewport.viewpoint.scale) }
                    v.member("width") { $0.number(viewport.width) }
                    v.member("height") { $0.number(viewport.height) }
                }
            }
            o.member("button") { j in
                if mode == .reticle, let button = ReticleButton(editor: editor) { j.string(button.rawValue) } else { j.null() }
            }
            // As `annolink sketch`'s status: undo is possible while something is picked up (it puts it back).
            o.member("canUndo") { $0.bool(editor.canUndo || editor.pickedUpElement != nil) }
            o.member("canRedo") { $0.bool(editor.canRedo) }
            o.member("valid") { $0.bool(editor.sketchIsValid) }
            o.member("empty") { $0.bool(editor.isEmpty) }
            o.member("geometry") { j in
                if let text = try? sketch.geometry.geoJSON() { j.raw(text) } else { j.null() }
            }
            o.member("message") { $0.string(message) }
        }
        return json.output
    }

    private static func write(_ point: Point, to json: inout JSONWriter) {
        json.array { a in
            a.number(point.x)
            a.number(point.y)
        }
    }

    private static func write(_ parts: [[Point]], to json: inout JSONWriter) {
        json.array { a in
            for part in parts { a.array { p in for point in part { write(point, to: &p) } } }
        }
    }

    private static func write(_ element: GeometryEditorElement?, to json: inout JSONWriter) {
        guard let element else { return json.null() }
        json.object { e in
            switch element.kind {
            case .vertex(let p, let v):
                e.member("kind") { $0.string("vertex") }
                e.member("part") { $0.integer(Int64(p)) }
                e.member("vertex") { $0.integer(Int64(v)) }
            case .midVertex(let p, let s):
                e.member("kind") { $0.string("midVertex") }
                e.member("part") { $0.integer(Int64(p)) }
                e.member("segment") { $0.integer(Int64(s)) }
            case .part(let p):
                e.member("kind") { $0.string("part") }
                e.member("part") { $0.integer(Int64(p)) }
            case .geometry:
                e.member("kind") { $0.string("geometry") }
            }
            if let point = element.point { e.member("point") { write(point, to: &$0) } }
            e.member("description") { $0.string(element.description) }
            e.member("canBeDeleted") { $0.bool(element.canBeDeleted) }
        }
    }

    // MARK: Parameters

    /// A map view from `{"center": [x, y], "scale": S, "width": W, "height": H, "rotation": R}`;
    /// members left out keep `current`'s values.
    static func viewport(_ value: JSONInput, metresPerUnit: Double, current: MapViewport?) throws -> MapViewport {
        guard let members = value.objectMembers else { throw BadAction("\"view\" must be an object: {\"center\": [x, y], \"scale\": S, \"width\": W, \"height\": H}") }
        func number(_ name: String, _ fallback: Double?) throws -> Double {
            guard let member = members[name] else {
                guard let fallback else { throw BadAction("\"view\" needs \"\(name)\"") }
                return fallback
            }
            guard let v = member.doubleValue, v.isFinite else { throw BadAction("\"view\".\"\(name)\" must be a number, not \(member.jsonText)") }
            return v
        }
        var center = current?.viewpoint.center
        if let given = members["center"] { center = try point(given, "\"view\".\"center\"") }
        guard let center else { throw BadAction("\"view\" needs \"center\": [x, y]") }
        let scale = try number("scale", current?.viewpoint.scale)
        let rotation = try number("rotation", current?.viewpoint.rotation ?? 0)
        do {
            let viewpoint = try Viewpoint(center: center, scale: scale, rotation: rotation)
            return try MapViewport(viewpoint: viewpoint, width: try number("width", current?.width), height: try number("height", current?.height),
                                   metresPerUnit: metresPerUnit)
        } catch let error as SketchError {
            throw BadAction(error.description)
        }
    }

    static func point(_ value: JSONInput, _ what: String) throws -> Point {
        guard case .array(let items) = value, items.count == 2, let x = items[0].doubleValue, let y = items[1].doubleValue, x.isFinite, y.isFinite else {
            throw BadAction("\(what) must be [x, y] with finite numbers, not \(value.jsonText)")
        }
        return Point(x: x, y: y)
    }

    /// The map point of `body`: `"point": [x, y]`.
    private static func point(_ body: [String: JSONInput], optional: Bool) throws -> Point? {
        guard let value = body["point"] else {
            if optional { return nil }
            throw BadAction("this action needs \"point\": [x, y] in map units")
        }
        return try point(value, "\"point\"")
    }

    private static func screenPoint(_ body: [String: JSONInput], _ name: String) throws -> ScreenPoint {
        guard let value = body[name] else { throw BadAction("this action needs \"\(name)\": [x, y] in screen points") }
        let p = try point(value, "\"\(name)\"")
        return ScreenPoint(x: p.x, y: p.y)
    }

    private static func number(_ body: [String: JSONInput], _ name: String) throws -> Double {
        guard let value = body[name], let v = value.doubleValue, v.isFinite else {
            throw BadAction("this action needs \"\(name)\": a finite number")
        }
        return v
    }

    private static func index(_ body: [String: JSONInput], _ name: String) throws -> Int {
        guard let value = body[name], let v = value.integerValue, let i = Int(exactly: v) else {
            throw BadAction("this action needs \"\(name)\": a whole number")
        }
        return i
    }

    static func format(_ point: Point) -> String { String(format: "%.3f,%.3f", point.x, point.y) }
}

@available(*, unavailable)
extension ServedSketch: Sendable {}
