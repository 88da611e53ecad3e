import AnnoLinkAnnotation
import AnnoLinkGeometry
import AnnoLinkImport
import AnnoLinkRender
import AnnoLinkStore
import AnnoLinkTestSupport
import Foundation
import Testing

/// The Loudoun data imported once for the suite, read-only afterwards.
private let loudoun: Result<String, any Error> = Result {
    let folder = try ScratchDirectory(prefix: "render")
    let path = folder.path("loudoun.gpkg")
    let source = try Connection(path: Fixtures.loudoun, mode: .readOnly)
    _ = try GeoPackage.build(at: path) { try MobileGeodatabaseImporter.run(source: source, into: $0) }
    // The folder must outlive the suite: keep it for the life of the process.
    keptFolders.append(folder)
    return path
}
nonisolated(unsafe) private var keptFolders: [ScratchDirectory] = []

/// The address point `45759 ELMWOOD` stands on (the Loudoun file's address point fid 834), in
/// EPSG:2924 US survey feet: the centre of the views below.
private let addressPoint = Point(x: 11_790_668.6261131, y: 7_056_461.08703272)

@Suite("render: Loudoun at true map size")
struct LoudounRenderTests {
    func renderer() throws -> MapRenderer {
        try MapRenderer(package: GeoPackage(path: try loudoun.get(), readOnly: true))
    }

    func view(_ renderer: MapRenderer, scale: Double, width: Int = 800, height: Int = 600) -> MapView {
        MapView(center: addressPoint, scale: scale, width: width, height: height, dpi: 96, metresPerUnit: renderer.metresPerUnit)
    }

    /// The opacity of an in-memory picture with only `draw` on it (no background).
    func alpha(_ view: MapView, _ draw: (CairoCanvas) throws -> Void) throws -> [UInt8] {
        let canvas = try CairoCanvas(format: .png, width: view.width, height: view.height)
        try draw(canvas)
        return canvas.alphaValues()
    }

    /// Each label of the view is drawn alone on a transparent picture, and its stored footprint
    /// filled alone on another: at least 95 % of the text's ink pixels (any opacity) must fall
    /// on footprint pixels. The ink is compared pixel by pixel rather than by its axis-aligned
    /// bounding box, since most labels are turned.
    @Test("at 1:1200 around an address point, every label's ink lies inside its stored footprint")
    func inkInsideFootprints() throws {
        let renderer = try renderer()
        let view = view(renderer, scale: 1200)
        var checked = 0
        var failures: [String] = []
        for table in ["Loudoun_Address_PointsAnno_1", "ParcelLinesAnno_1"] {
            var rows: [AnnotationRow] = []
            try renderer.forEachAnnotation(in: table, view: view) { rows.append($0) }
            for row in rows {
                let ink = try alpha(view) { try renderer.drawText(of: row, table: table, view: view, on: $0) }
                let footprint = try alpha(view) {
                    try renderer.drawFootprint(of: row, table: table, view: view, on: $0, colour: .text, lineWidth: 0, fill: true)
                }
                var inkPixels = 0, inside = 0
                for i in ink.indices where ink[i] > 0 {
                    inkPixels += 1
                    if footprint[i] > 0 { inside += 1 }
                }
                guard inkPixels > 0 else { continue }  // wholly outside the picture
                checked += 1
                let share = Double(inside) / Double(inkPixels)
                if share < 0.95 {
                    failures.append("\(table) fid \(row.fid ?? -1) '\(row.text)': \(String(format: "%.1f", share * 100)) % of \(inkPixels) ink pixels inside")
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        // The view holds dozens of address numbers and parcel lengths (57 at 1024 × 768).
        #expect(checked >= 30, "only \(checked) labels in the view")
    }

    /// The extent of a horizontal label's ink across the picture, in pixels: from the left edge
    /// of its leftmost to the right edge of its rightmost column, each column counted by its
    /// strongest coverage (so the antialiased fringe counts as the part of a pixel it covers).
    func inkWidth(_ renderer: MapRenderer, _ view: MapView, _ row: AnnotationRow, _ table: String) throws -> Double {
        let ink = try alpha(view) { try renderer.drawText(of: row, table: table, view: view, on: $0) }
        var columns = [UInt8](repeating: 0, count: view.width)
        for y in 0..<view.height {
            for x in 0..<view.width { columns[x] = max(columns[x], ink[y * view.width + x]) }
        }
        guard let first = columns.firstIndex(where: { $0 > 0 }), let last = columns.lastIndex(where: { $0 > 0 }) else { return 0 }
        return Double(last - first - 1) + Double(columns[first]) / 255 + Double(columns[last]) / 255
    }

    @Test("text at 1:600 is twice as large as at 1:1200 (FontSize holds at the reference scale)")
    func scaleDoubling() throws {
        let renderer = try renderer()
        let table = "Loudoun_Address_PointsAnno_1"
        var label: AnnotationRow?
        try renderer.forEachAnnotation(in: table, view: view(renderer, scale: 600, width: 200, height: 200)) { if $0.text == "45759 ELMWOOD" { label = $0 } }
        let row = try #require(label)
        // The kerned ink of the text in Tahoma, in points, as the metrics measure it.
        let extent = try FontLibrary().textMetrics(family: row.fontName).extent(of: row.text, pointSize: row.fontSize)
        let points = extent.inkEnd - extent.inkStart
        let at1200 = try inkWidth(renderer, view(renderer, scale: 1200), row, table)
        let at600 = try inkWidth(renderer, view(renderer, scale: 600), row, table)
        // 1:1200 is the reference scale: the points print at 96 dpi as 4/3 pixels each. Within
        // 2.5 px: the thin tips of the end glyphs cover little of their pixel columns.
        #expect(abs(at1200 - points * 4 / 3) < 2.5, "\(at1200) px at 1:1200 for \(points) pt")
        #expect(abs(at600 - 2 * points * 4 / 3) < 2.5, "\(at600) px at 1:600 for \(points) pt at 1:1200")
    }

    @Test("the window query reads only what meets the view")
    func windowQuery() throws {
        let renderer = try renderer()
        var near: [Int64] = [], all = 0
        try renderer.forEachAnnotation(in: "Loudoun_Address_PointsAnno_1", view: view(renderer, scale: 600, width: 100, height: 100)) {
            near.append($0.fid ?? -1)
        }
        let wide = MapView.fitting(Envelope(minX: 0, minY: 0, maxX: 2e7, maxY: 2e7), width: 100, height: 100, metresPerUnit: renderer.metresPerUnit)
        try renderer.forEachAnnotation(in: "Loudoun_Address_PointsAnno_1", view: wide) { _ in all += 1 }
        #expect(near == [2], "\(near)")
        #expect(all == 33)
    }
}
