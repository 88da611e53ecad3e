import AnnoLinkGeometry
import AnnoLinkSketch
import Foundation
import AnnoLinkTestSupport
import Testing

/// The scale at which one screen point is one metre: 96 / 0.0254.
let metrePerPointScale = 96 / 0.0254

/// A 200 × 100 point view centred on `center`, one point a metre (map units in metres),
/// unless `scale` says otherwise.
func viewport(center: Point = Point(x: 0, y: 0), scale: Double = metrePerPointScale, rotation: Double = 0) throws -> MapViewport {
    try MapViewport(viewpoint: Viewpoint(center: center, scale: scale, rotation: rotation), width: 200, height: 100)
}

/// An editor with a programmatic reticle tool and a view, started with `type`.
func reticleEditor(_ type: SketchGeometryType) throws -> (GeometryEditor, ProgrammaticReticleTool) {
    let tool = ProgrammaticReticleTool()
    let editor = GeometryEditor(tool: tool, viewport: try viewport())
    try editor.start(withType: type)
    return (editor, tool)
}

/// An editor with a programmatic reticle tool and a view, editing `geometry`.
func reticleEditor(editing geometry: Geometry) throws -> (GeometryEditor, ProgrammaticReticleTool) {
    let tool = ProgrammaticReticleTool()
    let editor = GeometryEditor(tool: tool, viewport: try viewport())
    try editor.start(withInitial: geometry)
    return (editor, tool)
}

extension GeometryEditor {
    /// Pans so that the reticle is over `x`, `y`.
    func moveReticle(_ x: Double, _ y: Double) {
        viewport?.viewpoint.center = Point(x: x, y: y)
    }

    /// Pans to `x`, `y` and places an element there.
    func place(_ tool: ProgrammaticReticleTool, _ x: Double, _ y: Double) throws {
        moveReticle(x, y)
        try tool.placeElementAtReticle()
    }

    /// The vertices of part `index`.
    func part(_ index: Int) -> [Point] { sketch?.parts[index] ?? [] }
}

/// Whether two points agree within `tolerance` in both coordinates.
func close(_ a: Point, _ b: Point, _ tolerance: Double = 1e-9) -> Bool {
    abs(a.x - b.x) <= tolerance && abs(a.y - b.y) <= tolerance
}

/// The Esri sample geometries in Tests/AnnoLinkSketchTests/Fixtures (see SOURCE.md there).
enum SampleGeometries {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// The fixture `name`.json decoded with the Esri JSON codec.
    static func load(_ name: String) throws -> EsriJSONGeometry {
        let text = try String(contentsOf: directory.appendingPathComponent(name + ".json"), encoding: .utf8)
        return try EsriJSONGeometry(esriJSON: text)
    }

    static let names = [
        "pinkneys-green", "beech-lodge-boundary", "tree-markers",
        "inis-meain-house", "inis-meain-outbuildings", "inis-meain-road1", "inis-meain-road2", "inis-meain-boundary",
    ]
}
