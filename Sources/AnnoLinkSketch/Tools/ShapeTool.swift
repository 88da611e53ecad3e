#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The shape tool (Esri's `ShapeTool`): one drag draws one arrow, ellipse, rectangle or
/// triangle as a part of a polygon or polyline.
///
/// Shapes are laid out on the screen, so they stand upright in the view however the map is
/// turned. Rings run clockwise as seen on the map (Esri's winding for exteriors). A polygon
/// gets the outline as a ring; a polyline gets it as a closed path (its first point repeated
/// at the end), so that the line shows the whole outline. The scale mode of `configuration`
/// always applies: `.uniform` draws squares, circles, equilateral triangles and arrows twice
/// as long as they are wide.
public final class ShapeTool: GeometryEditorTool {
    /// The shapes the tool draws.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// An arrow in the bounding box of the drag, pointing the way the drag went (left or
        /// right): a shaft over the first 60 % of the length, half the box's height thick,
        /// and a head the full height of the box: seven vertices.
        case arrow
        /// An ellipse centred on the drag's start, axis-aligned, through the drag's end: with
        /// `.stretch` the end lies on it at 45° (radii √2 |dx| and √2 |dy|), with `.uniform`
        /// it is the circle through the end. Straight segments: `ellipseVertexCount` vertices.
        case ellipse
        /// The rectangle with the drag's start and end as opposite corners (with `.uniform`,
        /// the square on the longer side).
        case rectangle
        /// A triangle with a vertical axis, centred (centroid) on the drag's start, with a
        /// corner at the drag's end and its apex pointing the opposite way up or down (with
        /// `.uniform`, equilateral, its circumradius the drag's length).
        case triangle
    }

    /// The number of vertices of an ellipse (Esri does not document its own).
    public static let ellipseVertexCount = 64

    /// The shape this tool draws, fixed when the tool is made.
    public let kind: Kind
    /// What drags may do. Part creation is off by default: a shape replaces a non-empty
    /// geometry; with it on, each shape is added as a new part.
    public var configuration = InteractionConfiguration()

    /// A tool that draws `kind`.
    public init(kind: Kind) {
        self.kind = kind
    }

    override var name: String { "shape tool" }
    override var allowsDeleting: Bool { configuration.allowDeletingSelectedElement }
    override var allowsMoving: Bool { configuration.allowMovingSelectedElement }
    override var allowsRotating: Bool { configuration.allowRotatingSelectedElement }
    override var allowsScaling: Bool { configuration.allowScalingSelectedElement }

    /// Draws the shape of a drag from `start` to `end` (screen points) and selects it, as one
    /// undo step.
    /// - Throws: `SketchError.toolNotAttached`, `.notStarted`, `.noMapView`,
    ///   `.unsupportedGeometryType` for points and multipoints, `.degenerateShape` for a drag
    ///   whose shape would have no width or height.
    public func drag(from start: ScreenPoint, to end: ScreenPoint) throws {
        let (editor, viewport) = try viewingEditor()
        let sketch = try editor.started()
        guard sketch.type.hasSegments else {
            throw SketchError.unsupportedGeometryType("the shape tool draws polygons and polylines, not a \(sketch.type.rawValue)")
        }
        var outline = try Self.outline(kind, from: start, to: end, scaleMode: configuration.scaleMode).map(viewport.location(fromScreenPoint:))
        if sketch.type == .polyline { outline.append(outline[0]) }
        editor.addPart(outline, newPart: configuration.allowPartCreation)
    }

    /// The outline of `kind` for a drag from `start` to `end`, in screen points, clockwise
    /// as seen, without a closing point.
    /// - Throws: `SketchError.degenerateShape` when the drag has no length, or the shape
    ///   would have no width or height.
    public static func outline(_ kind: Kind, from start: ScreenPoint, to end: ScreenPoint, scaleMode: ScaleMode) throws -> [ScreenPoint] {
        guard start.isFinite, end.isFinite else { throw SketchError.degenerateShape("a shape needs finite screen points") }
        let dx = end.x - start.x, dy = end.y - start.y
        guard dx != 0 || dy != 0 else { throw SketchError.degenerateShape("the drag has no length: drag to draw a \(kind.rawValue)") }
        let uniform = scaleMode == .uniform
        func flat(_ what: String) -> SketchError {
            SketchError.degenerateShape("a \(kind.rawValue) from this drag would have no \(what): drag diagonally, or use uniform scale")
        }
        // The direction of a coordinate difference, with 0 counting as positive.
        func sign(_ value: Double) -> Double { value < 0 ? -1 : 1 }
        switch kind {
        case .rectangle:
            var corner = end
            if uniform {
                let side = max(abs(dx), abs(dy))
                corner = ScreenPoint(x: start.x + sign(dx) * side, y: start.y + sign(dy) * side)
            }
            let x0 = min(start.x, corner.x), x1 = max(start.x, corner.x)
            let y0 = min(start.y, corner.y), y1 = max(start.y, corner.y)
            guard x1 > x0 else { throw flat("width") }
            guard y1 > y0 else { throw flat("height") }
            return [ScreenPoint(x: x0, y: y0), ScreenPoint(x: x1, y: y0), ScreenPoint(x: x1, y: y1), ScreenPoint(x: x0, y: y1)]
        case .ellipse:
            let length = (dx * dx + dy * dy).squareRoot()
            let rx = uniform ? length : abs(dx) * 2.0.squareRoot()
            let ry = uniform ? length : abs(dy) * 2.0.squareRoot()
            guard rx > 0 else { throw flat("width") }
            guard ry > 0 else { throw flat("height") }
            // Angles grow clockwise as seen, because screen y points down.
            return (0..<ellipseVertexCount).map { k in
                let t = 2 * Double.pi * Double(k) / Double(ellipseVertexCount)
                return ScreenPoint(x: start.x + rx * cos(t), y: start.y + ry * sin(t))
            }
        case .triangle:
            let apex: ScreenPoint, left: ScreenPoint, right: ScreenPoint
            let down = sign(dy)
            if uniform {
                let r = (dx * dx + dy * dy).squareRoot()
                let half = r * 3.0.squareRoot() / 2
                apex = ScreenPoint(x: start.x, y: start.y - down * r)
                left = ScreenPoint(x: start.x - half, y: start.y + down * r / 2)
                right = ScreenPoint(x: start.x + half, y: start.y + down * r / 2)
            } else {
                guard dx != 0 else { throw flat("width") }
                guard dy != 0 else { throw flat("height") }
                // The centroid is a third of the way from the base to the apex.
                apex = ScreenPoint(x: start.x, y: start.y - 2 * dy)
                left = ScreenPoint(x: start.x - abs(dx), y: end.y)
                right = ScreenPoint(x: start.x + abs(dx), y: end.y)
            }
            return down > 0 ? [apex, right, left] : [apex, left, right]
        case .arrow:
            let width = abs(dx)
            guard width > 0 else { throw flat("length") }
            let height = uniform ? width / 2 : abs(dy)
            guard height > 0 else { throw flat("height") }
            let top = uniform ? (dy < 0 ? start.y - height : start.y) : min(start.y, end.y)
            let pointsRight = dx > 0
            let unit: [(Double, Double)] = [(0, 0.25), (0.6, 0.25), (0.6, 0), (1, 0.5), (0.6, 1), (0.6, 0.75), (0, 0.75)]
            let outline = unit.map { u, v in
                ScreenPoint(x: pointsRight ? start.x + u * width : start.x - u * width, y: top + v * height)
            }
            // Mirroring left turns the ring the other way; reverse it to keep it clockwise.
            return pointsRight ? outline : Array(outline.reversed())
        }
    }
}

extension ScreenPoint {
    /// Whether both coordinates are finite.
    var isFinite: Bool { x.isFinite && y.isFinite }
}
