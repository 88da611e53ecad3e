import AnnoLinkAnnotation
import AnnoLinkGeometry
import AnnoLinkStore
internal import CCairo
import Foundation

/// A problem `check` found, as a picture needs it: what is wrong and which rows it concerns.
/// (Mirrors `AnnoLinkChecks.Problem`, which this target does not depend on.)
public struct ProblemSubject: Hashable, Sendable {
    /// The problem's stable code, e.g. `stale-placement`.
    public var code: String
    public var message: String
    public var annotationTable: String?
    public var annotationFid: Int64?
    public var classID: Int64?
    public var originTable: String?
    public var originFid: Int64?
    /// For an overlap: the other annotation row of the pair, drawn with the first.
    public var overlappedTable: String?
    public var overlappedFid: Int64?

    public init(code: String, message: String, annotationTable: String? = nil, annotationFid: Int64? = nil, classID: Int64? = nil,
                originTable: String? = nil, originFid: Int64? = nil, overlappedTable: String? = nil, overlappedFid: Int64? = nil) {
        self.code = code
        self.message = message
        self.annotationTable = annotationTable
        self.annotationFid = annotationFid
        self.classID = classID
        self.originTable = originTable
        self.originFid = originFid
        self.overlappedTable = overlappedTable
        self.overlappedFid = overlappedFid
    }

    /// The picture's file name, stable across runs: `<code>-<table>-<fid>.png`, with the
    /// annotation table and fid when the problem names an annotation row, else the origin's;
    /// an overlap adds the other row's, `-<table>-<fid>`, as one row may overlap several.
    public var fileName: String {
        func safe(_ table: String) -> String { String(table.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" ? $0 : "_" }) }
        let fid = annotationFid ?? originFid
        var name = "\(code)-\(safe(annotationTable ?? originTable ?? "file"))-\(fid.map(String.init) ?? "none")"
        if let overlappedTable, let overlappedFid { name += "-\(safe(overlappedTable))-\(overlappedFid)" }
        return name + ".png"
    }
}

/// Draws one picture per problem `check` found, and an `index.html` listing them: around the
/// problem, the map in the default symbology, and over it the origin feature (orange), the
/// stored annotation (red text and footprint) and where the class's rules would place the
/// annotation now (blue text and dashed footprint).
public final class ProblemPictures {
    /// Where the problems' rows are read from: a GeoPackage or a PostGIS database.
    public let store: any FeatureStore
    /// The folder the pictures and the index are written to.
    public let directory: URL
    /// Each picture's width and height in pixels.
    public let width: Int, height: Int
    let renderer: MapRenderer
    private let engine: AnnotationEngine
    /// The pictures written so far, for the index.
    public private(set) var written: [(subject: ProblemSubject, file: String)] = []

    static let feature = Colour(0.95, 0.55, 0.05)
    static let stored = Colour(0.85, 0.05, 0.05)
    static let rules = Colour(0.1, 0.3, 0.9)

    /// - Throws: `RenderError.cannotWrite` when the folder cannot be made,
    ///   `StoreError` when the store cannot be read.
    public init(store: any FeatureStore, directory: URL, width: Int = 640, height: Int = 480) throws {
        self.store = store
        self.directory = directory
        self.width = width
        self.height = height
        self.renderer = try MapRenderer(store: store)
        self.engine = AnnotationEngine(store: store)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw RenderError.cannotWrite(path: directory.path, reason: error.localizedDescription)
        }
    }

    /// Writes the picture of `subject` and returns its file name.
    ///
    /// - Throws: `RenderError.cairo` when the picture cannot be written, `StoreError` when the
    ///   file cannot be read. A feature whose label the rules cannot place is drawn without it.
    @discardableResult
    public func write(_ subject: ProblemSubject) throws -> String {
        var envelope: Envelope?
        func include(_ box: Envelope?) {
            guard let box, box.minX.isFinite, box.maxX.isFinite else { return }
            envelope = envelope.map { $0.union(box) } ?? box
        }
        var stored: AnnotationRow?
        if let table = subject.annotationTable, let fid = subject.annotationFid, renderer.isAnnotationTable(table) {
            stored = try? store.annotationRow(try store.featureTable(table), fid: fid, footprintProblem: { _ in })
        }
        var feature: Feature?
        var originTable = subject.originTable
        if originTable == nil, let table = subject.annotationTable {
            originTable = try store.annotationClasses().first { $0.annotationTable.lowercased() == table.lowercased() }?.originTable
        }
        let originFid = subject.originFid ?? stored?.featureID
        if let originTable, let originFid {
            feature = try? store.feature(try store.featureTable(originTable), fid: originFid)
        }
        // Where the rules would place the annotation now.
        var placed: AnnotationRow?
        var placedTable: String?
        let wantedClass = subject.classID ?? stored?.classID
        if let feature, let originTable, let compiled = try? engine.classes(labelling: originTable).first(where: { candidate in
            (subject.annotationTable == nil || candidate.definition.annotationTable.lowercased() == subject.annotationTable!.lowercased())
                && (wantedClass == nil || candidate.definition.classID == wantedClass)
        }) {
            placed = try? engine.freshRow(for: feature, compiled)
            placedTable = compiled.definition.annotationTable
        }
        include(stored?.footprint.flatMap { Geometry.polygon($0).envelope })
        include(stored?.anchor.map(Envelope.init))
        include(placed?.footprint.flatMap { Geometry.polygon($0).envelope })
        include(feature?.geometry?.envelope)
        let overlapped = overlappedRow(of: subject)
        include(overlapped?.row.footprint.flatMap { Geometry.polygon($0).envelope })

        var view: MapView
        if let box = envelope {
            // At least 60 map units across, and a margin of half the box around it.
            let size = max(box.width, box.height, 60)
            let pad = size * 0.5
            let padded = Envelope(minX: box.minX - pad, minY: box.minY - pad, maxX: box.maxX + pad, maxY: box.maxY + pad)
            view = MapView.fitting(padded, width: width, height: height, metresPerUnit: renderer.metresPerUnit)
        } else if let extent = try renderer.extent(MapContent()) {
            view = MapView.fitting(extent, width: width, height: height, metresPerUnit: renderer.metresPerUnit)
        } else {
            throw RenderError.noExtent
        }
        view.scale = view.scale.rounded(.up)
        let file = subject.fileName
        let canvas = try CairoCanvas(format: .png, width: width, height: height, path: directory.appendingPathComponent(file).path)
        try renderer.render(view, on: canvas, content: MapContent())
        if let geometry = feature?.geometry {
            try renderer.draw(geometry, project: { $0 }, view: view, on: canvas, colour: Self.feature)
        }
        if let stored, let table = subject.annotationTable {
            try renderer.drawFootprint(of: stored, table: table, view: view, on: canvas, colour: Self.stored, lineWidth: 1.5)
            try renderer.drawText(of: stored, table: table, view: view, on: canvas, colour: Self.stored)
        }
        if let overlapped { try drawOverlap(stored: stored, overlapped, view: view, on: canvas) }
        if let placed, let placedTable {
            try renderer.drawFootprint(of: placed, table: placedTable, view: view, on: canvas, colour: Self.rules, lineWidth: 1.5, dashed: true)
            try renderer.drawText(of: placed, table: placedTable, view: view, on: canvas, colour: Self.rules)
        }
        legend(on: canvas, subject: subject, scale: view.scale)
        try canvas.finish()
        written.append((subject, file))
        return file
    }

    /// The problem's code and the colour key, top left; the scale, bottom left.
    private func legend(on canvas: CairoCanvas, subject: ProblemSubject, scale: Double) {
        let context = canvas.context
        cairo_save(context)
        defer { cairo_restore(context) }
        cairo_select_font_face(context, TextMetrics.fallbackFamily, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD)
        cairo_set_font_size(context, 13)
        let lines: [(String, Colour)] = [
            ("\(subject.code): \(subject.annotationTable ?? subject.originTable ?? "") \(subject.annotationFid ?? subject.originFid ?? 0)", .text),
            ("feature", Self.feature), ("stored annotation", Self.stored), ("where the rules place it", Self.rules),
        ] + (subject.overlappedFid == nil ? [] : Self.overlapLegend)
        cairo_set_source_rgba(context, 1, 1, 1, 0.85)
        cairo_rectangle(context, 4, 4, 300, Double(lines.count) * 17 + 6)
        cairo_fill(context)
        for (i, line) in lines.enumerated() {
            cairo_set_source_rgb(context, line.1.red, line.1.green, line.1.blue)
            cairo_move_to(context, 10, 20 + Double(i) * 17)
            cairo_show_text(context, line.0)
        }
        cairo_set_font_size(context, 11)
        cairo_set_source_rgb(context, 0.2, 0.2, 0.2)
        cairo_move_to(context, 10, Double(height) - 10)
        cairo_show_text(context, "1:\(Int(scale))")
    }

    /// Writes `index.html`: a table of the pictures with each problem's code, table, fid and
    /// message, every text escaped.
    ///
    /// - Throws: `RenderError.cannotWrite` when the file cannot be written.
    public func writeIndex(title: String) throws {
        func html(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
        }
        var rows = ""
        for (subject, file) in written {
            let fid = (subject.annotationFid ?? subject.originFid).map(String.init) ?? ""
            rows += """
                <tr><td><code>\(html(subject.code))</code></td><td>\(html(subject.annotationTable ?? subject.originTable ?? ""))</td>\
                <td>\(fid)</td><td>\(html(subject.message))</td>\
                <td><a href="\(html(file))"><img src="\(html(file))" width="320" alt="\(html(file))"></a></td></tr>

                """
        }
        let page = """
            <!DOCTYPE html>
            <html lang="en">
            <head><meta charset="utf-8"><title>\(html(title))</title>
            <style>body{font-family:sans-serif}td{vertical-align:top;padding:4px;border-bottom:1px solid #ccc}</style></head>
            <body>
            <h1>\(html(title))</h1>
            <p>\(written.count) problem\(written.count == 1 ? "" : "s"). In each picture: the feature in orange, the stored
            annotation in red, where the class's rules would place it in blue (dashed footprint).</p>
            <table>
            <tr><th>code</th><th>table</th><th>fid</th><th>message</th><th>picture</th></tr>
            \(rows)</table>
            </body>
            </html>

            """
        let url = directory.appendingPathComponent("index.html")
        do {
            try Data(page.utf8).write(to: url, options: .atomic)
        } catch {
            throw RenderError.cannotWrite(path: url.path, reason: error.localizedDescription)
        }
    }
}

@available(*, unavailable)
extension ProblemPictures: Sendable {}
