import AnnoLinkGeometry
import AnnoLinkRender
import AnnoLinkStore
import Foundation

/// `annolink render`: a picture of the map (PNG, SVG or PDF) through Cairo.
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "draw the features and their annotation as a PNG, SVG or PDF picture",
        discussion: """
            Draws the feature tables in a plain symbology (points as small circles, lines
            dashed as in Esri's Loudoun sample, polygons outlined) and the annotation tables as
            text from their stored columns (TextString, FontName, FontSize, AnchorX/AnchorY,
            Angle, the alignments and offsets) at true map size: FontSize holds at the class's
            reference scale, so at 1:600 text is twice as large as at 1:1200, as ArcGIS draws
            annotation. Text is set with the same font files the footprints are measured with.
            The format follows OUT's extension (.png, .svg, .pdf).

            The view is --bbox, or --center with --scale; without either, the extent of the
            tables drawn, in a picture large enough for the gaps between the features to show
            (see --size), thinned as the map editor's overview is: text under 1 px high is not
            drawn, and features under a pixel are drawn from their spatial index boxes, one per
            pixel (give --bbox for every row read and drawn). Only the rows whose envelope meets
            the view are read (through each table's spatial index); on a terminal the progress
            is shown on standard error. docs/render.md describes views and symbology.

            FILE.gpkg may also be a PostGIS database holding an annolink data set, as a
            connection string: postgresql://USER@HOST/DB or PG:"dbname=DB host=HOST"; the
            same data draws the same picture from either (docs/postgis.md).
            """,
        exitStatus: "0 done, 64 bad usage, 65 not a GeoPackage, no such table or fid, or an unknown CRS, 66 no such file, 69 Cairo is not installed, 73 OUT cannot be written.",
        example: """
            annolink render loudoun.gpkg view.png --center 11750386.2,7040116.2 --scale 1:1200
            annolink render loudoun.gpkg all.pdf --footprints --highlight parcel_lines:12
            """)

    static let output = ArgumentDeclaration.positional("OUT.png|OUT.svg|OUT.pdf")
    static let bbox = ArgumentDeclaration.option("--bbox", value: "MINX,MINY,MAXX,MAXY", help: "the area to show, in the view's CRS; fitted into --size")
    static let center = ArgumentDeclaration.option("--center", value: "X,Y", help: "the map point at the picture's centre (with --scale)")
    static let scale = ArgumentDeclaration.option("--scale", value: "1:N", help: "the scale, e.g. 1:1200 (N alone is taken too)")
    static let size = ArgumentDeclaration.option("--size", value: "W,H", help: """
        the picture's size in pixels, 1 to 20000 each (default 1024,768; with --bbox, 1024
        on the longer side and the other from the area's shape; with no view, as many as put
        6 px between features a typical spacing apart, 1024 to 8192 on the longer side)
        """)
    static let dpi = ArgumentDeclaration.option("--dpi", value: "N", help: "pixels per inch, for the scale and text sizes (default 96)")
    static let rotation = ArgumentDeclaration.option("--rotation", value: "DEG", help: "turn the map counter-clockwise by DEG degrees (default 0)")
    static let crs = ArgumentDeclaration.option("--crs", value: "CRS", help: "draw in this CRS (EPSG:3857, WKT, PROJ string); default the data's")
    static let tables = ArgumentDeclaration.option("--tables", value: "T1,T2,…", help: "draw only these tables (default all)")
    static let footprints = ArgumentDeclaration.flag("--footprints", help: "outline the annotation footprints too")
    static let highlight = ArgumentDeclaration.option("--highlight", value: "TABLE:FID,…", help: "mark these features or annotation (repeatable)")
    static let json = ArgumentDeclaration.flag("--json", help: """
        what was drawn: {"path", "width", "height", "scale", "center": [x, y],
        "features", "featuresFromIndex", "labels", "labelsUnderMinimum", "footprints",
        "highlighted", "seconds", "warnings"}
        """)
    static let arguments = [SetCommand.file, output, bbox, center, scale, size, dpi, rotation, crs, tables, footprints, highlight, json]

    var path: String
    var outputPath: String
    var format: ImageFormat = .png
    var bboxText: String?
    var centerText: String?
    var scaleText: String?
    var sizeText: String?
    var dpiText: String?
    var rotationText: String?
    var crsText: String?
    var tablesText: String?
    var highlightTexts: [String]
    var footprints: Bool
    var json: Bool

    /// Checked forms of the options.
    var box: Envelope?
    var centerPoint: Point?
    var scaleDenominator: Double?
    var pixelSize: (width: Int, height: Int)?
    var dotsPerInch = 96.0
    var degrees = 0.0
    var content = MapContent()

    init(parsing arguments: inout Arguments) throws {
        json = arguments.flag(Self.json)
        footprints = arguments.flag(Self.footprints)
        bboxText = try arguments.option(Self.bbox)
        centerText = try arguments.option(Self.center)
        scaleText = try arguments.option(Self.scale)
        sizeText = try arguments.option(Self.size)
        dpiText = try arguments.option(Self.dpi)
        rotationText = try arguments.option(Self.rotation)
        crsText = try arguments.option(Self.crs)
        tablesText = try arguments.option(Self.tables)
        highlightTexts = try arguments.options(Self.highlight.name)
        path = try arguments.positional(SetCommand.file)
        outputPath = try arguments.positional(Self.output)
    }

    /// Finite numbers separated by commas, exactly `count` of them; nil otherwise.
    static func numbers(_ text: String, count: Int) -> [Double]? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == count else { return nil }
        let values = parts.compactMap { decimalNumber($0.trimmingCharacters(in: .whitespaces)) }
        guard values.count == count, values.allSatisfy(\.isFinite) else { return nil }
        return values
    }

    /// The denominator of `1:N` or `N`, positive and finite; nil otherwise.
    static func scaleDenominator(_ text: String) -> Double? {
        var t = Substring(text.trimmingCharacters(in: .whitespaces))
        if t.hasPrefix("1:") { t = t.dropFirst(2) }
        guard let value = decimalNumber(t), value.isFinite, value > 0 else { return nil }
        return value
    }

    mutating func validate() throws {
        guard let format = ImageFormat(path: outputPath) else {
            throw CommandError.usage("cannot tell the image format of '\(outputPath)': name it .png, .svg or .pdf")
        }
        self.format = format
        if let bboxText {
            guard let v = Self.numbers(bboxText, count: 4) else {
                throw CommandError.usage("--bbox expects MINX,MINY,MAXX,MAXY (four numbers), not '\(bboxText)'")
            }
            guard v[0] < v[2], v[1] < v[3] else { throw CommandError.usage("--bbox needs MINX < MAXX and MINY < MAXY, not '\(bboxText)'") }
            box = Envelope(minX: v[0], minY: v[1], maxX: v[2], maxY: v[3])
        }
        if let centerText {
            guard let v = Self.numbers(centerText, count: 2) else { throw CommandError.usage("--center expects X,Y (two numbers), not '\(centerText)'") }
            centerPoint = Point(x: v[0], y: v[1])
        }
        if let scaleText {
            guard let d = Self.scaleDenominator(scaleText) else { throw CommandError.usage("--scale expects 1:N with N a positive number, not '\(scaleText)'") }
            scaleDenominator = d
        }
        if box != nil, centerPoint != nil { throw CommandError.usage("give either --bbox or --center, not both") }
        if box != nil, scaleDenominator != nil { throw CommandError.usage("--bbox sets the scale itself: leave out --scale (or use --center)") }
        if centerPoint != nil, scaleDenominator == nil { throw CommandError.usage("--center needs --scale") }
        if let sizeText {
            guard let v = Self.numbers(sizeText, count: 2), v.allSatisfy({ $0 == $0.rounded() && (1...20_000).contains($0) }) else {
                throw CommandError.usage("--size expects W,H, two whole numbers of pixels from 1 to 20000, not '\(sizeText)'")
            }
            pixelSize = (Int(v[0]), Int(v[1]))
        }
        if let dpiText {
            guard let d = decimalNumber(dpiText), d.isFinite, d >= 1, d <= 2400 else {
                throw CommandError.usage("--dpi expects a number from 1 to 2400, not '\(dpiText)'")
            }
            dotsPerInch = d
        }
        if let rotationText {
            guard let d = decimalNumber(rotationText), d.isFinite else { throw CommandError.usage("--rotation expects degrees, not '\(rotationText)'") }
            degrees = d
        }
        if let crsText, crsText.trimmingCharacters(in: .whitespaces).isEmpty { throw CommandError.usage("--crs needs a CRS, e.g. EPSG:3857") }
        content.footprints = footprints
        if let tablesText {
            let names = tablesText.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !names.isEmpty else { throw CommandError.usage("--tables needs at least one table name") }
            content.tables = names
        }
        for text in highlightTexts {
            guard let colon = text.lastIndex(of: ":") else {
                throw CommandError.usage("--highlight expects TABLE:FID,…, not '\(text)'")
            }
            let table = String(text[..<colon])
            let fids = text[text.index(after: colon)...].split(separator: ",", omittingEmptySubsequences: false)
                .map { Int64($0.trimmingCharacters(in: .whitespaces)) }
            guard !table.isEmpty, !fids.isEmpty, fids.allSatisfy({ $0 != nil }) else {
                throw CommandError.usage("--highlight expects TABLE:FID,… with whole-number fids, not '\(text)'")
            }
            content.highlights[table, default: []] += fids.map { $0! }
        }
    }

    /// The view the options ask for, in the renderer's CRS.
    func view(_ renderer: MapRenderer) throws -> MapView {
        let unit = renderer.metresPerUnit
        if let centerPoint, let scaleDenominator {
            let size = pixelSize ?? (1024, 768)
            return MapView(center: centerPoint, scale: scaleDenominator, width: size.width, height: size.height, dpi: dotsPerInch,
                           rotation: degrees, metresPerUnit: unit)
        }
        var area = box
        if area == nil {
            guard let extent = try renderer.extent(content) else { throw RenderError.noExtent }
            // A margin of 2 % around the data; a single point gets a 100-unit square.
            let margin = max(extent.width, extent.height) * 0.02
            let pad = margin > 0 ? margin : 50
            area = Envelope(minX: extent.minX - pad, minY: extent.minY - pad, maxX: extent.maxX + pad, maxY: extent.maxY + pad)
        }
        let envelope = area!
        let size: (width: Int, height: Int)
        if let pixelSize {
            size = pixelSize
        } else if box == nil {
            // The whole data: large enough for the gaps between features to show (docs/render.md).
            let longerSide = MapView.overviewLongerSide(of: envelope, features: try renderer.featureCount(content))
            size = MapView.size(of: envelope, longerSide: longerSide)
        } else {
            size = MapView.size(of: envelope, longerSide: MapView.defaultLongerSide)
        }
        var view = MapView.fitting(envelope, width: size.width, height: size.height, dpi: dotsPerInch, rotation: degrees, metresPerUnit: unit)
        if let scaleDenominator { view.scale = scaleDenominator }
        return view
    }

    /// What `--json` prints.
    struct Report: Encodable {
        var path: String
        var width: Int
        var height: Int
        var scale: Double
        var center: [Double]
        var features: Int
        /// Of `features`, those drawn from their index box (no view given: the overview's thinning).
        var featuresFromIndex: Int
        var labels: Int
        /// Annotation not drawn because its text would be under 1 px high (no view given).
        var labelsUnderMinimum: Int
        var footprints: Int
        var highlighted: Int
        /// From opening the file to the picture written.
        var seconds: Double
        var warnings: [String]
    }

    func run() throws -> ExitStatus {
        let started = Date()
        let renderer = try MapRenderer(store: try StoreTarget.open(path, readOnly: true), crs: crsText)
        let view = try view(renderer)
        // Refused before the output file is made.
        if let reason = view.undrawableReason { throw RenderError.invalidView(reason) }
        var content = content
        if box == nil, centerPoint == nil {
            // The whole data at once: bounded work per pixel, as the editor's overview (MapContent).
            content.minimumTextPixels = 1
            content.subPixelFeaturesFromIndex = true
        }
        let canvas = try CairoCanvas(format: format, width: view.width, height: view.height, dpi: view.dpi, path: outputPath)
        let progress = StageProgress()
        let summary = try renderer.render(view, on: canvas, content: content) { progress.update("drawing \($0)", $1) }
        try canvas.finish { progress.update("writing \(outputPath) (bytes)", $0) }
        progress.finish()
        for warning in renderer.warnings { Output.diagnostic("warning: \(warning)") }
        if json {
            Output.line(try Output.json(Report(
                path: outputPath, width: view.width, height: view.height, scale: view.scale, center: [view.center.x, view.center.y],
                features: summary.features, featuresFromIndex: summary.featuresFromIndex, labels: summary.labels,
                labelsUnderMinimum: summary.labelsUnderMinimum, footprints: summary.footprints, highlighted: summary.highlighted,
                seconds: Date().timeIntervalSince(started), warnings: renderer.warnings)))
        } else {
            var thinned = ""
            if summary.featuresFromIndex > 0 || summary.labelsUnderMinimum > 0 {
                thinned = " (\(summary.featuresFromIndex) features under a pixel drawn from the index, "
                    + "\(summary.featuresSharingPixels) more sharing their pixel, \(summary.labelsUnderMinimum) labels under 1 px not drawn)"
            }
            Output.line("wrote \(outputPath): \(view.width)×\(view.height) px at 1:\(String(format: "%.0f", view.scale)), "
                + "\(summary.features) features, \(summary.labels) labels" + thinned)
        }
        return .success
    }
}
