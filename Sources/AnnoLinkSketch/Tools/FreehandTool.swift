/// The freehand tool (Esri's `FreehandTool`): each stroke draws a new part of a polyline or
/// polygon.
///
/// Headless, a stroke is the list of screen points the pointer passed through. Esri does
/// not document how it thins a stroke; here repeated points are dropped and the path is
/// simplified with Douglas–Peucker in screen space, keeping every point farther than
/// `simplificationTolerance` points from the simplified line, so that the result does not
/// depend on the map's scale. A polygon's ring is closed implicitly: a last point within the
/// tolerance of the first is dropped.
public final class FreehandTool: GeometryEditorTool {
    /// What strokes may do. Part creation is on by default (each stroke a new part); with it
    /// off, a stroke replaces a non-empty geometry.
    public var configuration = InteractionConfiguration(allowPartCreation: true)
    /// The simplification tolerance, in points.
    public var simplificationTolerance: Double = 1.5

    /// A tool with Esri's defaults.
    public override init() {}

    override var name: String { "freehand tool" }
    override var allowsDeleting: Bool { configuration.allowDeletingSelectedElement }
    override var allowsMoving: Bool { configuration.allowMovingSelectedElement }
    override var allowsRotating: Bool { configuration.allowRotatingSelectedElement }
    override var allowsScaling: Bool { configuration.allowScalingSelectedElement }

    /// Draws the stroke through `points` (screen points, in order) as a new part and selects
    /// it, as one undo step.
    /// - Throws: `SketchError.toolNotAttached`, `.notStarted`, `.noMapView`,
    ///   `.unsupportedGeometryType` for points and multipoints, `.strokeTooShort` when the
    ///   simplified stroke has fewer than two points (polyline) or three (polygon).
    public func stroke(_ points: [ScreenPoint]) throws {
        let (editor, viewport) = try viewingEditor()
        let sketch = try editor.started()
        guard sketch.type.hasSegments else {
            throw SketchError.unsupportedGeometryType("the freehand tool draws polylines and polygons, not a \(sketch.type.rawValue)")
        }
        var path = Self.simplified(points, tolerance: simplificationTolerance)
        let needed = sketch.type == .polygon ? 3 : 2
        if sketch.type == .polygon, path.count > 3, let first = path.first, let last = path.last,
           first.distance(to: last) <= simplificationTolerance {
            path.removeLast()
        }
        guard path.count >= needed else { throw SketchError.strokeTooShort(points: path.count, needed: needed) }
        editor.addPart(path.map(viewport.location(fromScreenPoint:)), newPart: configuration.allowPartCreation)
    }

    /// `points` without consecutive repeats, simplified with Douglas–Peucker: the points
    /// kept are the ends and every point more than `tolerance` from the line through its
    /// neighbours kept so far.
    public static func simplified(_ points: [ScreenPoint], tolerance: Double) -> [ScreenPoint] {
        var distinct: [ScreenPoint] = []
        for p in points where p.x.isFinite && p.y.isFinite && distinct.last != p { distinct.append(p) }
        guard distinct.count > 2 else { return distinct }
        var keep = [Bool](repeating: false, count: distinct.count)
        keep[0] = true
        keep[distinct.count - 1] = true
        var ranges = [(0, distinct.count - 1)]
        while let (start, end) = ranges.popLast() {
            guard end > start + 1 else { continue }
            var farthest = start, distance = -1.0
            for i in (start + 1)..<end {
                let d = deviation(distinct[i], distinct[start], distinct[end])
                if d > distance { (farthest, distance) = (i, d) }
            }
            if distance > tolerance {
                keep[farthest] = true
                ranges.append((start, farthest))
                ranges.append((farthest, end))
            }
        }
        return distinct.indices.filter { keep[$0] }.map { distinct[$0] }
    }

    /// The distance from `p` to the segment from `a` to `b`.
    private static func deviation(_ p: ScreenPoint, _ a: ScreenPoint, _ b: ScreenPoint) -> Double {
        let dx = b.x - a.x, dy = b.y - a.y
        let lengthSquared = dx * dx + dy * dy
        guard lengthSquared > 0 else { return p.distance(to: a) }
        let t = max(0, min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / lengthSquared))
        return p.distance(to: ScreenPoint(x: a.x + t * dx, y: a.y + t * dy))
    }
}
