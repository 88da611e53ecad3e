import AnnoLinkGeometry
import AnnoLinkSketch

/// The view drawn in characters for `sketch`'s `draw` command: the sketch's segments as
/// dots, vertices as `o`, the selected vertex as `*`, the reticle as `+` (`@` when a vertex
/// lies under it). While an element is picked up, the preview of dropping it is drawn.
struct SketchDrawing {
    /// Characters across and down; a character cell is about twice as high as it is wide.
    static let columns = 61
    static let rows = 21

    var viewport: MapViewport
    var sketch: SketchGeometry?
    var selected: GeometryEditorElement?
    var preview: SketchGeometry?

    /// The framed picture and a legend.
    var lines: [String] {
        var grid = [[Character]](repeating: [Character](repeating: " ", count: Self.columns), count: Self.rows)
        func cell(_ location: Point) -> (Int, Int)? {
            let s = viewport.screenPoint(fromLocation: location)
            let c = Int((s.x / viewport.width * Double(Self.columns)).rounded(.down))
            let r = Int((s.y / viewport.height * Double(Self.rows)).rounded(.down))
            return (0..<Self.columns).contains(c) && (0..<Self.rows).contains(r) ? (c, r) : nil
        }
        func mark(_ location: Point, _ character: Character, over: Set<Character> = [" ", "."]) {
            guard let (c, r) = cell(location), over.contains(grid[r][c]) else { return }
            grid[r][c] = character
        }
        let shown = preview ?? sketch
        if let shown, shown.type.hasSegments {
            let step = viewport.unitsPerPoint * viewport.width / Double(Self.columns) / 2
            for p in shown.parts.indices {
                for s in 0..<shown.segmentCount(inPart: p) {
                    let (a, b) = shown.segment(part: p, segment: s)
                    let steps = min(Int(a.distance(to: b) / step) + 1, 10_000)
                    for i in 0...steps {
                        let t = Double(i) / Double(steps)
                        mark(Point(x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t), ".", over: [" "])
                    }
                }
            }
        }
        for part in shown?.parts ?? [] { for vertex in part { mark(vertex, "o") } }
        if preview == nil, let point = selected?.point, selected?.isVertex == true { mark(point, "*", over: [" ", ".", "o"]) }
        let center = (Self.columns / 2, Self.rows / 2)
        grid[center.1][center.0] = grid[center.1][center.0] == " " || grid[center.1][center.0] == "." ? "+" : "@"
        let frame = "+" + String(repeating: "-", count: Self.columns) + "+"
        return [frame] + grid.map { "|" + String($0) + "|" } + [frame,
            "+ reticle  o vertex  * selected vertex  @ vertex under the reticle  . segment" + (preview == nil ? "" : "  (preview of the drop)")]
    }
}
