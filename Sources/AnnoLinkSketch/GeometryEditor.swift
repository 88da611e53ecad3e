import AnnoLinkGeometry

/// A headless geometry editor in the manner of Esri's `GeometryEditor`: it holds one
/// geometry being drawn or reshaped, a selection, an element under the reticle and one
/// picked up, with undo and redo, and reports every real change to its observers.
///
/// Start it with a type or an initial geometry, edit through a tool (`tool`) or the
/// programmatic calls here, and `stop()` to take the geometry. Coordinates are in the map's
/// CRS; `viewport` is the map view the reticle tools and `identify` work in.
///
/// Undo steps are atomic: one insert, one drop (a pick-up and its drop together), one
/// delete, one transform, one clear, one stroke or shape. Undo restores the selection the
/// edit started from. Calls that change nothing record nothing and report nothing.
///
/// Not `Sendable`: use an editor from one task.
public final class GeometryEditor {
    /// Whether the editor is editing a geometry.
    public private(set) var isStarted = false
    /// The geometry being edited, in parts; nil when stopped.
    public private(set) var sketch: SketchGeometry?
    /// The map view of the reticle tools and identify; nil when the editor has none.
    /// Changing it (panning, zooming) changes what is hovered.
    public var viewport: MapViewport? {
        didSet { report(from: lastObserved) }
    }
    /// The tool that interprets gestures. Assigning a tool puts back any picked-up element.
    public var tool: GeometryEditorTool {
        willSet {
            if let other = newValue.editor, other !== self { other.tool = VertexTool() }
        }
        didSet {
            if oldValue !== tool, oldValue.editor === self { oldValue.editor = nil }
            tool.editor = self
            changing { pickedUp = nil }
        }
    }

    private var selection: GeometryEditorElement.Kind?
    private var pickedUp: GeometryEditorElement.Kind?
    private var undoStack: [State] = []
    private var redoStack: [State] = []
    private var observers: [Int: (GeometryEditorEvent) -> Void] = [:]
    private var nextObserver = 0
    private var depth = 0
    private var lastObserved: Observed

    /// What an undo step restores.
    private struct State {
        var sketch: SketchGeometry
        var selection: GeometryEditorElement.Kind?
    }

    /// What observers are told about, compared before and after each call.
    private struct Observed: Equatable {
        var isStarted = false
        var sketch: SketchGeometry?
        var selected: GeometryEditorElement?
        var pickedUp: GeometryEditorElement?
        var hovered: GeometryEditorElement?
        var canUndo = false
        var canRedo = false
    }

    /// A stopped editor with a `VertexTool` (Esri's default tool) and no map view.
    public init(tool: GeometryEditorTool = VertexTool(), viewport: MapViewport? = nil) {
        self.tool = tool
        self.viewport = viewport
        lastObserved = Observed()
        if let other = tool.editor, other !== self { other.tool = VertexTool() }
        tool.editor = self
    }

    // MARK: Observing

    /// Calls `handler` with every change from now on, in this order within one call:
    /// started, geometry, selected element, picked-up element, hovered element, can undo,
    /// can redo. Returns a token for `removeObserver(_:)`.
    @discardableResult
    public func addObserver(_ handler: @escaping (GeometryEditorEvent) -> Void) -> Int {
        nextObserver += 1
        observers[nextObserver] = handler
        return nextObserver
    }

    /// Stops calling the observer `token` returned by `addObserver(_:)`.
    public func removeObserver(_ token: Int) {
        observers[token] = nil
    }

    private func observe() -> Observed {
        Observed(isStarted: isStarted, sketch: sketch, selected: selectedElement, pickedUp: pickedUpElement,
                 hovered: hoveredElement, canUndo: canUndo, canRedo: canRedo)
    }

    /// Runs `body` and reports what changed, once, when the outermost call returns or throws.
    @discardableResult
    func changing<T>(_ body: () throws -> T) rethrows -> T {
        depth += 1
        defer {
            depth -= 1
            if depth == 0 { report(from: lastObserved) }
        }
        return try body()
    }

    private func report(from before: Observed) {
        guard depth == 0 else { return }
        let after = observe()
        lastObserved = after
        guard after != before, !observers.isEmpty else { return }
        var events: [GeometryEditorEvent] = []
        if after.isStarted != before.isStarted { events.append(.isStarted(after.isStarted)) }
        if after.sketch != before.sketch { events.append(.geometry(after.sketch?.geometry)) }
        if after.selected != before.selected { events.append(.selectedElement(after.selected)) }
        if after.pickedUp != before.pickedUp { events.append(.pickedUpElement(after.pickedUp)) }
        if after.hovered != before.hovered { events.append(.hoveredElement(after.hovered)) }
        if after.canUndo != before.canUndo { events.append(.canUndo(after.canUndo)) }
        if after.canRedo != before.canRedo { events.append(.canRedo(after.canRedo)) }
        for token in observers.keys.sorted() {
            for event in events { observers[token]?(event) }
        }
    }

    // MARK: State

    /// The geometry being edited as a simple-feature geometry; nil when stopped. See
    /// `SketchGeometry.geometry` for how parts become rings and polygons.
    public var geometry: Geometry? { sketch?.geometry }

    /// Whether the geometry has enough points for a valid sketch (false when stopped); see
    /// `SketchGeometry.sketchIsValid`.
    public var sketchIsValid: Bool { sketch?.sketchIsValid ?? false }

    /// Whether the geometry has no valid coordinates (true when stopped).
    public var isEmpty: Bool { sketch?.isEmpty ?? true }

    /// Whether there is an edit to undo.
    public var canUndo: Bool { !undoStack.isEmpty }

    /// Whether there is an undone edit to redo.
    public var canRedo: Bool { !redoStack.isEmpty }

    /// The selected element, nil when nothing is selected.
    public var selectedElement: GeometryEditorElement? { selection.map(element) }

    /// The element picked up by a reticle tool, at its place in the geometry (the move is a
    /// preview until it is dropped); nil when nothing is picked up.
    public var pickedUpElement: GeometryEditorElement? { pickedUp.map(element) }

    /// The element under the reticle within the tool's tolerance, vertices first; nil when
    /// the tool is not a reticle tool, there is no map view, or something is picked up (the
    /// reticle then carries it).
    public var hoveredElement: GeometryEditorElement? {
        guard isStarted, pickedUp == nil, tool.isReticleTool, let viewport else { return nil }
        return hits(at: viewport.reticleLocation, radius: tool.reticleTolerance * viewport.unitsPerPoint).first.map(element)
    }

    /// The geometry as it would be if the picked-up element were dropped at the reticle now;
    /// nil when nothing is picked up or there is no map view.
    public var interactionPreview: SketchGeometry? {
        guard let pickedUp, let sketch, let viewport else { return nil }
        return dropping(pickedUp, at: viewport.reticleLocation, in: sketch).0
    }

    // MARK: Lifecycle

    /// Starts drawing a new, empty geometry of `type`.
    /// - Throws: `SketchError.alreadyStarted`.
    public func start(withType type: SketchGeometryType) throws {
        try start(SketchGeometry(type: type))
    }

    /// Starts editing `geometry`: every part editable, nothing selected, so that the first
    /// insert extends the last part. A ring's closing vertex is not a vertex of its own.
    /// - Throws: `SketchError.alreadyStarted`.
    public func start(withInitial geometry: Geometry) throws {
        try start(SketchGeometry(geometry))
    }

    /// Starts editing `sketch`.
    /// - Throws: `SketchError.alreadyStarted`.
    public func start(_ sketch: SketchGeometry) throws {
        guard !isStarted else { throw SketchError.alreadyStarted }
        changing {
            isStarted = true
            self.sketch = sketch
            selection = nil
            pickedUp = nil
            undoStack = []
            redoStack = []
        }
    }

    /// Ends the session and returns the final geometry (nil when the editor was not started).
    /// The selection, the picked-up element and the undo history go with it.
    @discardableResult
    public func stop() -> Geometry? {
        guard isStarted else { return nil }
        let result = geometry
        changing {
            isStarted = false
            sketch = nil
            selection = nil
            pickedUp = nil
            undoStack = []
            redoStack = []
        }
        return result
    }

    /// Empties the geometry, keeping its type, as one undo step (nothing when it is empty
    /// already).
    /// - Throws: `SketchError.notStarted`.
    public func clearGeometry() throws {
        let current = try started()
        changing { commit(SketchGeometry(type: current.type), selection: nil) }
    }

    /// Replaces the geometry being edited with `geometry`, as one undo step, as Esri's
    /// `GeometryEditor.replaceGeometry(_:)` does: nothing selected afterwards, any picked-up
    /// element put back.
    /// - Throws: `SketchError.notStarted`, `.unsupportedGeometryType` when `geometry` is not of
    ///   the sketch's type (a polygon for a polyline sketch).
    public func replaceGeometry(_ geometry: Geometry) throws {
        let current = try started()
        let replacement = SketchGeometry(geometry)
        guard replacement.type == current.type else {
            throw SketchError.unsupportedGeometryType("the sketch is a \(current.type.rawValue); a \(replacement.type.rawValue) cannot replace it")
        }
        changing { commit(replacement, selection: nil) }
    }

    // MARK: Undo

    /// Undoes the newest edit, restoring the geometry and the selection before it, and puts
    /// back any picked-up element. Nothing happens when there is nothing to undo.
    public func undo() {
        guard isStarted, let state = undoStack.popLast() else {
            changing { pickedUp = nil }
            return
        }
        changing {
            redoStack.append(State(sketch: sketch!, selection: selection))
            sketch = state.sketch
            selection = state.selection
            pickedUp = nil
        }
    }

    /// Redoes the newest undone edit, and puts back any picked-up element. Nothing happens
    /// when there is nothing to redo.
    public func redo() {
        guard isStarted, let state = redoStack.popLast() else {
            changing { pickedUp = nil }
            return
        }
        changing {
            undoStack.append(State(sketch: sketch!, selection: selection))
            sketch = state.sketch
            selection = state.selection
            pickedUp = nil
        }
    }

    /// Cancels the move in progress: a picked-up element goes back where it was. The
    /// geometry and the undo history are unchanged.
    public func cancelCurrentAction() {
        changing { pickedUp = nil }
    }

    // MARK: Selection

    /// Selects vertex `vertexIndex` of part `partIndex`, and puts back any picked-up element.
    /// - Throws: `SketchError.notStarted`, `.indexOutOfRange`.
    public func selectVertexAt(partIndex: Int, vertexIndex: Int) throws {
        let sketch = try started()
        guard sketch.parts.indices.contains(partIndex) else { throw outOfRange("part", partIndex, sketch.parts.count) }
        guard sketch.parts[partIndex].indices.contains(vertexIndex) else {
            throw outOfRange("vertex", vertexIndex, sketch.parts[partIndex].count, of: "part \(partIndex)")
        }
        select(.vertex(partIndex: partIndex, vertexIndex: vertexIndex))
    }

    /// Selects the mid-vertex of segment `segmentIndex` of part `partIndex`, and puts back
    /// any picked-up element.
    /// - Throws: `SketchError.notStarted`, `.unsupportedGeometryType` for a point or
    ///   multipoint, `.indexOutOfRange`.
    public func selectMidVertexAt(partIndex: Int, segmentIndex: Int) throws {
        let sketch = try started()
        guard sketch.type.hasSegments else {
            throw SketchError.unsupportedGeometryType("a \(sketch.type.rawValue) has no segments, so no mid-vertices")
        }
        guard sketch.parts.indices.contains(partIndex) else { throw outOfRange("part", partIndex, sketch.parts.count) }
        let count = sketch.segmentCount(inPart: partIndex)
        guard (0..<count).contains(segmentIndex) else { throw outOfRange("segment", segmentIndex, count, of: "part \(partIndex)") }
        select(.midVertex(partIndex: partIndex, segmentIndex: segmentIndex))
    }

    /// Selects part `partIndex`; for a geometry of one part, a point or a multipoint this
    /// selects the whole geometry, as Esri's editor does. Puts back any picked-up element.
    /// - Throws: `SketchError.notStarted`, `.indexOutOfRange`.
    public func selectPart(partIndex: Int) throws {
        let sketch = try started()
        guard sketch.parts.indices.contains(partIndex) else { throw outOfRange("part", partIndex, sketch.parts.count) }
        select(partKind(partIndex, in: sketch))
    }

    /// Selects the whole geometry, and puts back any picked-up element.
    /// - Throws: `SketchError.notStarted`.
    public func selectGeometry() throws {
        _ = try started()
        select(.geometry)
    }

    /// Clears the selection, and puts back any picked-up element.
    public func clearSelection() {
        changing {
            selection = nil
            pickedUp = nil
        }
    }

    private func select(_ kind: GeometryEditorElement.Kind) {
        changing {
            selection = kind
            pickedUp = nil
        }
    }

    // MARK: Editing

    /// Inserts a vertex at `point` with straight segments and selects it, as one undo step.
    ///
    /// Where it goes: into an empty geometry as its first vertex; a point's vertex is
    /// replaced; with nothing selected, at the end of the last part; with the first vertex
    /// of a part of two or more vertices selected, before it (extending a line at its
    /// start); with a vertex selected otherwise, after it; with a mid-vertex selected, into
    /// its segment; with a part or the geometry selected, at the end of that (or the last)
    /// part. A lone vertex counts as a part's last, so drawing keeps the order of the taps.
    /// - Throws: `SketchError.notStarted`, `.invalidTransform` for a non-finite point.
    public func insertVertex(_ point: Point) throws {
        _ = try started()
        guard point.isFinite else { throw SketchError.invalidTransform("a vertex needs finite coordinates") }
        insert(point, newPart: false)
    }

    /// Deletes the selected element, whatever `canBeDeleted` says, as one undo step.
    ///
    /// A vertex goes (and its part with it when it was the part's last); the previous vertex
    /// of the part is then selected, or the new first one when the first went, or nothing
    /// when the part is gone. A part goes and nothing is selected. The geometry is emptied,
    /// keeping its type. A polygon may be left with parts of fewer than three vertices: the
    /// sketch is then not valid, and cannot be saved, until vertices are added.
    /// - Throws: `SketchError.notStarted`, `.noSelection`, `.midVertexNotEditable`.
    public func deleteSelectedElement() throws {
        var sketch = try started()
        guard let selection else { throw SketchError.noSelection }
        var next: GeometryEditorElement.Kind?
        switch selection {
        case .vertex(let part, let vertex):
            sketch.parts[part].remove(at: vertex)
            if sketch.parts[part].isEmpty {
                sketch.parts.remove(at: part)
            } else {
                next = .vertex(partIndex: part, vertexIndex: max(vertex - 1, 0))
            }
        case .midVertex:
            throw SketchError.midVertexNotEditable(action: "deleted")
        case .part(let part):
            sketch.parts.remove(at: part)
        case .geometry:
            sketch.parts = []
        }
        changing { commit(sketch, selection: next) }
    }

    /// Moves the selected element so that a vertex lands on `point`, or a part's or the
    /// geometry's extent centre does, as one undo step.
    /// - Throws: `SketchError.notStarted`, `.noSelection`, `.midVertexNotEditable`,
    ///   `.invalidTransform` for a non-finite point.
    public func moveSelectedElement(to point: Point) throws {
        let sketch = try started()
        guard point.isFinite else { throw SketchError.invalidTransform("the target must have finite coordinates") }
        let (_, indices) = try selectedVertices(in: sketch, action: "moved")
        guard let center = center(of: indices, in: sketch) else { return }
        try moveSelectedElement(byDeltaX: point.x - center.x, deltaY: point.y - center.y)
    }

    /// Moves the selected element by `deltaX`, `deltaY` map units, as one undo step.
    /// - Throws: `SketchError.notStarted`, `.noSelection`, `.midVertexNotEditable`,
    ///   `.invalidTransform` for NaN or infinite deltas.
    public func moveSelectedElement(byDeltaX deltaX: Double, deltaY: Double) throws {
        let sketch = try started()
        guard deltaX.isFinite, deltaY.isFinite else { throw SketchError.invalidTransform("the move must be finite, not \(deltaX), \(deltaY)") }
        let (_, indices) = try selectedVertices(in: sketch, action: "moved")
        transform(indices, in: sketch) { $0.translated(dx: deltaX, dy: deltaY) }
    }

    /// Rotates the selected element by `angle` degrees counter-clockwise (taken modulo 360)
    /// about `origin`, by default the centre of the selection's extent, as one undo step.
    /// Rotating a vertex, or a point geometry, about itself changes nothing.
    /// - Throws: `SketchError.notStarted`, `.noSelection`, `.midVertexNotEditable`,
    ///   `.invalidTransform` for a non-finite angle or origin.
    public func rotateSelectedElement(angle: Double, origin: Point? = nil) throws {
        let sketch = try started()
        guard angle.isFinite, origin?.isFinite ?? true else { throw SketchError.invalidTransform("the rotation must be a finite angle about a finite origin") }
        let (_, indices) = try selectedVertices(in: sketch, action: "rotated")
        guard let pivot = origin ?? center(of: indices, in: sketch) else { return }
        let (sin, cos) = MapViewport.sinCos(Viewpoint.normalized(angle))
        transform(indices, in: sketch) { p in
            let dx = p.x - pivot.x, dy = p.y - pivot.y
            return Point(x: pivot.x + dx * cos - dy * sin, y: pivot.y + dx * sin + dy * cos)
        }
    }

    /// Scales the selected element by `scaleX` and `scaleY` about `origin`, by default the
    /// centre of the selection's extent, as one undo step. A negative factor reflects.
    /// - Throws: `SketchError.notStarted`, `.noSelection`, `.midVertexNotEditable`,
    ///   `.invalidTransform` for a factor that is zero, NaN or infinite.
    public func scaleSelectedElement(scaleX: Double, scaleY: Double, origin: Point? = nil) throws {
        let sketch = try started()
        guard scaleX.isFinite, scaleY.isFinite, scaleX != 0, scaleY != 0 else {
            throw SketchError.invalidTransform("scale factors must be finite and not zero, not \(scaleX), \(scaleY)")
        }
        guard origin?.isFinite ?? true else { throw SketchError.invalidTransform("the origin must have finite coordinates") }
        let (_, indices) = try selectedVertices(in: sketch, action: "scaled")
        guard let pivot = origin ?? center(of: indices, in: sketch) else { return }
        transform(indices, in: sketch) { p in
            Point(x: pivot.x + (p.x - pivot.x) * scaleX, y: pivot.y + (p.y - pivot.y) * scaleY)
        }
    }

    // MARK: Identify

    /// Every element within `tolerance` points of `screenPoint`, top first as they are
    /// drawn: vertices (nearest first), then mid-vertices, then the parts whose line passes
    /// within the tolerance or whose area holds the point (for a one-part geometry, the
    /// geometry). Empty when nothing is hit.
    /// - Throws: `SketchError.notStarted`, `.noMapView`, `.invalidTolerance` outside 0…100
    ///   points (0 asks for an exact hit).
    public func identify(at screenPoint: ScreenPoint, tolerance: Double) throws -> [GeometryEditorElement] {
        _ = try started()
        guard let viewport else { throw SketchError.noMapView }
        guard tolerance.isFinite, tolerance >= 0, tolerance <= 100 else { throw SketchError.invalidTolerance(tolerance) }
        return hits(at: viewport.location(fromScreenPoint: screenPoint), radius: tolerance * viewport.unitsPerPoint).map(element)
    }

    /// The elements within `radius` map units of `location`, in identify order.
    func hits(at location: Point, radius: Double) -> [GeometryEditorElement.Kind] {
        guard let sketch else { return [] }
        var vertices: [(Double, GeometryEditorElement.Kind)] = []
        var mids: [(Double, GeometryEditorElement.Kind)] = []
        var parts: [(Double, GeometryEditorElement.Kind)] = []
        for (p, points) in sketch.parts.enumerated() {
            for (v, point) in points.enumerated() {
                let d = point.distance(to: location)
                if d <= radius { vertices.append((d, .vertex(partIndex: p, vertexIndex: v))) }
            }
            guard sketch.type.hasSegments else { continue }
            for s in 0..<sketch.segmentCount(inPart: p) {
                let d = sketch.midVertex(part: p, segment: s).distance(to: location)
                if d <= radius { mids.append((d, .midVertex(partIndex: p, segmentIndex: s))) }
            }
            let closed = sketch.type == .polygon
            var d = HitTest.distance(from: location, toPath: points, closed: closed)
            if closed, HitTest.ringContains(points, location) { d = 0 }
            if d <= radius { parts.append((d, partKind(p, in: sketch))) }
        }
        // Stable sorts by distance keep storage order among equals.
        func sorted(_ list: [(Double, GeometryEditorElement.Kind)]) -> [GeometryEditorElement.Kind] {
            list.enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }.map(\.element.1)
        }
        return sorted(vertices) + sorted(mids) + sorted(parts)
    }

    // MARK: Reticle operations (for the reticle tools)

    /// Drops the picked-up element at the reticle, or inserts a vertex there.
    func placeAtReticle(_ viewport: MapViewport) {
        let sketch = sketch!
        let location = viewport.reticleLocation
        changing {
            if let pickedUp {
                let (result, kind) = dropping(pickedUp, at: location, in: sketch)
                commit(result, selection: kind)
            } else {
                let (result, kind) = inserting(location, into: sketch, after: selection)
                commit(result, selection: kind)
            }
        }
    }

    /// Moves vertex `kind` to `location`, or inserts a vertex there when `kind` is a
    /// mid-vertex, and selects it, as one undo step: a drag of a vertex or mid-vertex.
    func drop(_ kind: GeometryEditorElement.Kind, at location: Point) {
        guard let sketch else { return }
        changing {
            let (result, vertex) = dropping(kind, at: location, in: sketch)
            commit(result, selection: vertex)
        }
    }

    /// Selects the vertex or mid-vertex under the reticle; false, keeping the selection,
    /// when there is none or something is picked up.
    func selectAtReticle(_ viewport: MapViewport) -> Bool {
        guard pickedUp == nil else { return false }
        let candidates = hits(at: viewport.reticleLocation, radius: tool.reticleTolerance * viewport.unitsPerPoint)
        guard let first = candidates.first else { return false }
        switch first {
        case .vertex, .midVertex:
            select(first)
            return true
        case .part, .geometry:
            return false
        }
    }

    /// Picks up the selected vertex or mid-vertex.
    func pickUpSelection() throws {
        guard let selection else { throw SketchError.noSelection }
        guard pickedUp == nil else { throw SketchError.alreadyPickedUp }
        switch selection {
        case .vertex, .midVertex:
            changing { pickedUp = selection }
        case .part:
            throw SketchError.cannotPickUp(element: "part")
        case .geometry:
            throw SketchError.cannotPickUp(element: "geometry")
        }
    }

    /// Inserts a vertex at `point` as `insertVertex(_:)` does, or as the first vertex of a
    /// new part when `newPart` and the geometry is a line or polygon, as one undo step.
    func insert(_ point: Point, newPart: Bool) {
        guard let sketch else { return }
        changing {
            let (result, kind) = inserting(point, into: sketch, after: selection, newPart: newPart)
            commit(result, selection: kind)
        }
    }

    /// Adds `points` as a new part (or, unless `newPart`, replaces every part with it when
    /// the geometry is not empty) and selects it, as one undo step.
    func addPart(_ points: [Point], newPart: Bool) {
        var sketch = sketch!
        if newPart || sketch.isEmpty {
            sketch.parts.append(points)
        } else {
            sketch.parts = [points]
        }
        changing { commit(sketch, selection: partKind(sketch.parts.count - 1, in: sketch)) }
    }

    // MARK: Helpers

    /// The started editor's geometry.
    func started() throws -> SketchGeometry {
        guard isStarted, let sketch else { throw SketchError.notStarted }
        return sketch
    }

    /// Records an edit: the old state goes on the undo stack and the redo stack is cleared,
    /// unless the geometry did not change. Either way the selection is set and any
    /// picked-up element is put down.
    private func commit(_ result: SketchGeometry, selection newSelection: GeometryEditorElement.Kind?) {
        guard let current = sketch else { return }
        if result != current {
            undoStack.append(State(sketch: current, selection: selection))
            redoStack.removeAll()
            sketch = result
        }
        selection = newSelection
        pickedUp = nil
    }

    /// The element kind for part `index`: the geometry when it is the only part or the
    /// geometry is a point or multipoint.
    func partKind(_ index: Int, in sketch: SketchGeometry) -> GeometryEditorElement.Kind {
        sketch.parts.count == 1 || !sketch.type.hasSegments ? .geometry : .part(partIndex: index)
    }

    /// `sketch` with `point` inserted as `insertVertex(_:)` describes, and the new vertex.
    func inserting(
        _ point: Point, into sketch: SketchGeometry, after selection: GeometryEditorElement.Kind?,
        newPart: Bool = false
    ) -> (SketchGeometry, GeometryEditorElement.Kind) {
        var result = sketch
        if sketch.type == .point {
            result.parts = [[point]]
            return (result, .vertex(partIndex: 0, vertexIndex: 0))
        }
        if result.parts.isEmpty || (newPart && sketch.type.hasSegments) {
            result.parts.append([point])
            return (result, .vertex(partIndex: result.parts.count - 1, vertexIndex: 0))
        }
        let part: Int, index: Int
        switch selection {
        case .vertex(let p, let v)?:
            part = p
            index = v == 0 && sketch.parts[p].count > 1 ? 0 : v + 1
        case .midVertex(let p, let s)?:
            part = p
            index = s + 1
        case .part(let p)?:
            part = p
            index = sketch.parts[p].count
        case .geometry?, nil:
            part = sketch.parts.count - 1
            index = sketch.parts[part].count
        }
        result.parts[part].insert(point, at: index)
        return (result, .vertex(partIndex: part, vertexIndex: index))
    }

    /// `sketch` with the picked-up `kind` dropped at `location`: a vertex moves there, a
    /// mid-vertex becomes a new vertex in its segment. Returns the vertex, which is selected.
    func dropping(_ kind: GeometryEditorElement.Kind, at location: Point, in sketch: SketchGeometry) -> (SketchGeometry, GeometryEditorElement.Kind) {
        var result = sketch
        switch kind {
        case .vertex(let p, let v):
            result.parts[p][v] = location
            return (result, kind)
        case .midVertex(let p, let s):
            result.parts[p].insert(location, at: s + 1)
            return (result, .vertex(partIndex: p, vertexIndex: s + 1))
        case .part, .geometry:
            preconditionFailure("only vertices and mid-vertices are picked up")
        }
    }

    /// The element value for `kind` in the current geometry.
    private func element(_ kind: GeometryEditorElement.Kind) -> GeometryEditorElement {
        let sketch = sketch ?? SketchGeometry(type: .point)
        switch kind {
        case .vertex(let p, let v):
            let point = sketch.parts[p][v]
            return GeometryEditorElement(kind: kind, point: point, extent: Envelope(point), canBeDeleted: tool.allowsDeleting,
                                         canMove: tool.allowsMoving, canRotate: false, canScale: false)
        case .midVertex(let p, let s):
            let point = sketch.midVertex(part: p, segment: s)
            return GeometryEditorElement(kind: kind, point: point, extent: Envelope(point), canBeDeleted: false,
                                         canMove: false, canRotate: false, canScale: false)
        case .part(let p):
            let turnable = sketch.parts[p].count > 1
            return GeometryEditorElement(kind: kind, point: nil, extent: SketchGeometry.envelope(of: sketch.parts[p]), canBeDeleted: tool.allowsDeleting,
                                         canMove: tool.allowsMoving, canRotate: turnable && tool.allowsRotating, canScale: turnable && tool.allowsScaling)
        case .geometry:
            let turnable = sketch.type != .point && sketch.vertexCount > 1
            return GeometryEditorElement(kind: kind, point: nil, extent: sketch.extent, canBeDeleted: tool.allowsDeleting,
                                         canMove: tool.allowsMoving, canRotate: turnable && tool.allowsRotating, canScale: turnable && tool.allowsScaling)
        }
    }

    /// The selection and the (part, vertex) indices it covers.
    private func selectedVertices(in sketch: SketchGeometry, action: String) throws -> (GeometryEditorElement.Kind, [(Int, Int)]) {
        guard let selection else { throw SketchError.noSelection }
        switch selection {
        case .vertex(let p, let v):
            return (selection, [(p, v)])
        case .midVertex:
            throw SketchError.midVertexNotEditable(action: action)
        case .part(let p):
            return (selection, sketch.parts[p].indices.map { (p, $0) })
        case .geometry:
            return (selection, sketch.parts.enumerated().flatMap { p, points in points.indices.map { (p, $0) } })
        }
    }

    /// The centre of the extent of the vertices at `indices`.
    private func center(of indices: [(Int, Int)], in sketch: SketchGeometry) -> Point? {
        guard let envelope = SketchGeometry.envelope(of: indices.map { sketch.parts[$0.0][$0.1] }) else { return nil }
        return Point(x: (envelope.minX + envelope.maxX) / 2, y: (envelope.minY + envelope.maxY) / 2)
    }

    /// Applies `body` to the vertices at `indices` as one undo step, keeping the selection.
    private func transform(_ indices: [(Int, Int)], in sketch: SketchGeometry, _ body: (Point) -> Point) {
        var result = sketch
        for (p, v) in indices { result.parts[p][v] = body(sketch.parts[p][v]) }
        changing { commit(result, selection: selection) }
    }

    private func outOfRange(_ what: String, _ index: Int, _ count: Int, of owner: String = "the geometry") -> SketchError {
        SketchError.indexOutOfRange("\(what) \(index) does not exist: \(owner) has \(count) \(what == "vertex" ? "vertices" : what + "s")")
    }
}

extension Viewpoint {
    /// `degrees` taken into [0, 360).
    static func normalized(_ degrees: Double) -> Double {
        let turned = degrees.truncatingRemainder(dividingBy: 360)
        return turned < 0 ? turned + 360 : turned
    }
}

@available(*, unavailable)
extension GeometryEditor: Sendable {}
