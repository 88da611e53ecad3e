import AnnoLinkAnnotation
import AnnoLinkEngine
import AnnoLinkGeometry
import AnnoLinkStore
internal import CCairo
import Foundation

/// What a picture shows besides the features and their annotation text.
public struct MapContent: Sendable {
    /// The tables drawn (names as in the file, matched case-insensitively); nil for all.
    public var tables: [String]?
    /// Whether the annotation footprints are outlined too.
    public var footprints: Bool
    /// Features and annotation drawn marked: fids by table name (matched case-insensitively).
    public var highlights: [String: [Int64]]
    /// Annotation whose text would be under this many pixels high is not drawn (0: all is).
    /// Decided in the spatial index before a row is read: a row's footprint box is at least as
    /// high and as wide as its text, so a box under the size on either side is passed over unread;
    /// a row that is read is measured by its own `FontSize`. `RenderSummary.labelsUnderMinimum`
    /// counts what was passed over.
    public var minimumTextPixels: Double
    /// Whether a feature whose envelope (its index box) is under a pixel each way is drawn from
    /// the box alone, without reading its row: a point as its symbol at the box's centre, a
    /// line or polygon as a dot of its colour; and a line or polygon (one a row, north up) whose
    /// box is under a pixel across and under 5 px along as the box itself, a strip 0.8 px thick
    /// (its stroke within a pixel). At most one per pixel and table: a pixel goes to the lowest
    /// fid whose mark covers it. So a zoomed-out view does bounded work per pixel however many
    /// features meet it, and the boxes are read by walking the index itself where the store can
    /// (`FeatureStore.forEachIndexBox`). The features read are then drawn in batches (one Cairo
    /// fill or stroke for 512 of them, not one each: where they overlap, their antialiased
    /// edges are blended once). Only for tables with a spatial index of one geometry kind,
    /// drawn in their own CRS; elsewhere every row is read and drawn by itself.
    public var subPixelFeaturesFromIndex: Bool

    public init(tables: [String]? = nil, footprints: Bool = false, highlights: [String: [Int64]] = [:],
                minimumTextPixels: Double = 0, subPixelFeaturesFromIndex: Bool = false) {
        self.tables = tables
        self.footprints = footprints
        self.highlights = highlights
        self.minimumTextPixels = minimumTextPixels
        self.subPixelFeaturesFromIndex = subPixelFeaturesFromIndex
    }
}

/// What `MapRenderer.render(_:on:content:)` drew.
public struct RenderSummary: Hashable, Sendable, Encodable {
    /// Features drawn, over all feature tables (those drawn from the index included).
    public var features = 0
    /// Of `features`, those under a pixel drawn from their spatial index box
    /// (`MapContent.subPixelFeaturesFromIndex`), one per pixel and table.
    public var featuresFromIndex = 0
    /// Sub-pixel features not drawn because another of their table's had marked that pixel.
    public var featuresSharingPixels = 0
    /// Annotation rows meeting the view not drawn because their text would be under
    /// `MapContent.minimumTextPixels` high.
    public var labelsUnderMinimum = 0
    /// Annotation texts drawn.
    public var labels = 0
    /// Footprints outlined.
    public var footprints = 0
    /// Features and annotation marked.
    public var highlighted = 0
}

/// An RGB colour, each channel from 0 to 1.
public struct Colour: Hashable, Sendable {
    public var red: Double, green: Double, blue: Double
    public init(_ red: Double, _ green: Double, _ blue: Double) {
        self.red = red
        self.green = green
        self.blue = blue
    }
    /// Feature outlines and lines.
    public static let feature = Colour(0.35, 0.35, 0.35)
    /// Point symbols.
    public static let point = Colour(0.1, 0.1, 0.1)
    /// Annotation text.
    public static let text = Colour(0, 0, 0)
    /// Footprint outlines.
    public static let footprint = Colour(0.85, 0.2, 0.6)
    /// Marked features and annotation.
    public static let highlight = Colour(0.9, 0.1, 0.1)
}

/// Draws the features and annotation of a store (a GeoPackage or a PostGIS database) on a Cairo
/// canvas: features in a plain symbology (points as small circles, lines dashed as Esri's
/// sample draws parcel lines, polygons outlined) and annotation as text from its stored
/// columns, at true map size.
///
/// Only what intersects the view is read, through the store (`FeatureStore.forEachIndexedRow`):
/// each table's rows are chosen through its spatial index (a GeoPackage's R-tree, PostGIS's
/// GiST index: a window query on the view's envelope in the table's CRS) and drawn one at a
/// time in fid order, so memory stays flat and a small view of a large table is as quick as of
/// a small one. A table without a spatial index is read whole and filtered by envelope. Both
/// stores give the same rows with the same index boxes in the same order, so the same data
/// makes the same picture from either.
///
/// Annotation text is set with the FreeType face the text metrics measure (`FontLibrary`,
/// drawn through `cairo_ft_font_face_create_for_ft_face`), glyph by glyph at the positions the
/// metrics give, kerned as ArcGIS sets the baseline; its size in points holds at the class's
/// reference scale and scales with the view (at 1:600 twice as large as at 1:1200).
///
/// Not `Sendable` (it holds a store, PROJ and FreeType handles).
public final class MapRenderer {
    /// Where the features and annotation are read from.
    public let store: any FeatureStore
    /// The CRS the picture is drawn in (a PROJ definition); nil for the data's own.
    public let crs: String?
    /// The size of the drawing CRS's unit in metres.
    public let metresPerUnit: Double
    /// Messages for the user (a missing font and its fallback), each once.
    public private(set) var warnings: [String] = []

    private let transformer: CoordinateTransformer?
    private var fonts: FontLibrary?
    private var fontsByFamily: [String: (metrics: TextMetrics, cairo: CairoFontFace?)] = [:]
    private let classes: [String: [Int64: AnnotationClass]]
    private var tables: [String: FeatureTable] = [:]
    private var metresPerUnitBySRS: [Int64: Double] = [:]
    /// What `render(_:on:content:progress:)` was given to report to, while it draws.
    private var reportProgress: (_ table: String, _ done: Int) -> Void = { _, _ in }
    /// Rows and index boxes gone through in the table being drawn.
    private var progressCount = 0

    /// Counts one row or index box of `table` and reports every 1024th.
    private func tick(_ table: String) {
        progressCount += 1
        if progressCount & 1023 == 0 { reportProgress(table, progressCount) }
    }

    /// Metres per degree along the equator, used as a geographic CRS's unit size for the scale.
    public static let metresPerDegree = 111_319.490793

    /// A renderer for a GeoPackage (`init(store:crs:)`).
    public convenience init(package: GeoPackage, crs: String? = nil) throws {
        try self.init(store: package, crs: crs)
    }

    /// A renderer for `store`, drawing in `crs` (any definition PROJ reads: `EPSG:3857`, WKT,
    /// a PROJ string) or, when nil, in the CRS of its first feature table.
    ///
    /// - Throws: `EngineError.unknownCRS` for a CRS PROJ does not know, `StoreError` when the
    ///   store cannot be read.
    public init(store: any FeatureStore, crs: String? = nil) throws {
        self.store = store
        self.crs = crs
        var byTable: [String: [Int64: AnnotationClass]] = [:]
        for definition in try store.annotationClasses() {
            byTable[definition.annotationTable.lowercased(), default: [:]][definition.classID] = definition
        }
        self.classes = byTable
        if let crs {
            let transformer = try CoordinateTransformer()
            let system = try transformer.referenceSystem(crs)
            self.transformer = transformer
            self.metresPerUnit = system.isGeographic ? Self.metresPerDegree : (system.metresPerUnit ?? 1)
        } else {
            self.transformer = nil
            let first = try store.featureTableNames().first
            var unit = 1.0
            if let first {
                let table = try store.featureTable(first)
                unit = try Self.metresPerUnit(of: store.spatialReferenceSystem(table.srsID)) ?? 1
            }
            self.metresPerUnit = unit
        }
    }

    /// The size in metres of a CRS's unit: from its WKT, else from PROJ for an EPSG code; degrees
    /// count as `metresPerDegree`; nil when neither says.
    static func metresPerUnit(of srs: SpatialReferenceSystem?) throws -> Double? {
        guard let srs else { return nil }
        if let value = srs.metresPerUnitFromDefinition { return value }
        guard srs.organization.uppercased() == "EPSG", let system = try? CoordinateTransformer().referenceSystem("EPSG:\(srs.organizationCoordsysID)") else {
            return nil
        }
        return system.isGeographic ? metresPerDegree : system.metresPerUnit
    }

    /// The names of the tables `content` asks for, in `gpkg_contents` order: feature tables
    /// first, annotation tables after them (so text is drawn over the features).
    ///
    /// - Throws: `StoreError.unknownTable` for a name the file does not have.
    public func tableNames(_ content: MapContent) throws -> [String] {
        let all = try store.featureTableNames()
        var chosen = all
        if let wanted = content.tables {
            chosen = []
            for name in wanted {
                guard let found = all.first(where: { $0.lowercased() == name.lowercased() }) else {
                    throw StoreError.unknownTable(name)
                }
                if !chosen.contains(found) { chosen.append(found) }
            }
        }
        return chosen.filter { !isAnnotationTable($0) } + chosen.filter { isAnnotationTable($0) }
    }

    /// Whether `name` is an annotation table (it has classes in the registry).
    public func isAnnotationTable(_ name: String) -> Bool { classes[name.lowercased()] != nil }

    private func table(_ name: String) throws -> FeatureTable {
        if let known = tables[name] { return known }
        let table = try store.featureTable(name)
        tables[name] = table
        return table
    }

    /// The CRS of `table` as PROJ reads it: `EPSG:n` when the file says so, else its WKT.
    private func definition(of table: FeatureTable) throws -> String {
        guard let srs = try store.spatialReferenceSystem(table.srsID) else { return "EPSG:\(table.srsID)" }
        return srs.projName
    }

    /// A function from `table`'s coordinates to the drawing CRS's.
    private func projection(of table: FeatureTable) throws -> (Point) throws -> Point {
        guard let crs, let transformer else { return { $0 } }
        let transformation = try transformer.transformation(from: try definition(of: table), to: crs)
        return { try transformation.transform($0) }
    }

    /// The window of `view` in `table`'s CRS: the view's envelope, or, in another CRS, the
    /// envelope of its outline changed into the table's CRS.
    private func window(of view: MapView, in table: FeatureTable) throws -> Envelope {
        guard let crs, let transformer else { return view.envelope }
        let back = try transformer.transformation(from: crs, to: try definition(of: table))
        var envelope: Envelope?
        for point in view.outline(steps: 16) {
            let p = try back.transform(point)
            guard p.isFinite else { continue }
            if envelope == nil { envelope = Envelope(p) } else { envelope!.expand(toInclude: p) }
        }
        guard let envelope else { throw RenderError.invalidView("the view lies outside the area of use of the data's CRS") }
        return envelope
    }

    /// The envelope of the tables `content` asks for, in the drawing CRS; nil when they hold no
    /// geometry. The extents the store records, or where it records none, the union of the
    /// rows' index boxes.
    public func extent(_ content: MapContent) throws -> Envelope? {
        var result: Envelope?
        for name in try tableNames(content) {
            let table = try table(name)
            var box = try store.recordedExtent(of: table)
            if box == nil {
                try store.forEachIndexBox(table, meeting: nil) { _, indexBox in
                    box = box.map { $0.union(indexBox) } ?? indexBox
                }
            }
            guard let box, box.minX <= box.maxX, box.minY <= box.maxY else { continue }
            let project = try projection(of: table)
            for k in 0...8 {
                let t = Double(k) / 8
                let edges = [
                    Point(x: box.minX + box.width * t, y: box.minY), Point(x: box.minX + box.width * t, y: box.maxY),
                    Point(x: box.minX, y: box.minY + box.height * t), Point(x: box.maxX, y: box.minY + box.height * t),
                ]
                for p in edges {
                    let q = try project(p)
                    guard q.isFinite else { continue }
                    if result == nil { result = Envelope(q) } else { result!.expand(toInclude: q) }
                }
            }
        }
        return result
    }

    /// How many rows the feature tables `content` asks for hold, annotation tables not counted
    /// (their text is not drawn where it would be under a pixel): what sets the size of a
    /// picture of the whole data (`MapView.overviewLongerSide`). One `count(*)` a table.
    public func featureCount(_ content: MapContent) throws -> Int {
        var count: Int64 = 0
        for name in try tableNames(content) where !isAnnotationTable(name) {
            count += try store.rowCount(try table(name), matching: nil)
        }
        return Int(count)
    }

    /// Whether `table` can be drawn from its spatial index at this view: indexed, one geometry kind,
    /// in the drawing CRS.
    private func drawsFromIndex(_ table: FeatureTable) -> Bool {
        transformer == nil && table.hasSpatialIndex && table.geometryKind != nil
    }

    /// How many pixels long a thin feature's box may be and still be drawn from the box alone: a
    /// line under 5 px is one dash of the 5/3 pattern, so its stroke is the box's strip.
    static let stripPixels = 5.0

    /// What of a feature an overview draws from its index box alone, in pixels: a dot at the
    /// box's centre (`x1 < x0` marks it: the centre is (`x0`, `y0`)), or the box itself as a
    /// strip at least 0.8 px thick. Floats: a mark is kept for every pixel of the picture.
    private struct IndexMark {
        var x0: Float, y0: Float, x1: Float, y1: Float
        var isDot: Bool { x1 < x0 }
        static func dot(_ x: Double, _ y: Double) -> IndexMark { IndexMark(x0: Float(x), y0: Float(y), x1: -.infinity, y1: 0) }
    }

    /// The mark of a feature whose index box is `box` (map units per pixel `pixel`; `toPixel` the
    /// view's map-to-pixel transform): a dot when the box is under a pixel each way; a strip when
    /// `strips` and the box is under a pixel across and under `stripPixels` along (a connected
    /// line or polygon lies along its whole box, so the strip is its stroke within a pixel); nil
    /// when the feature must be read.
    private func indexMark(_ box: Envelope, pixel: Double, strips: Bool, toPixel: PixelTransform) -> IndexMark? {
        let width = box.maxX - box.minX, height = box.maxY - box.minY
        if width < pixel, height < pixel {
            let p = toPixel((box.minX + box.maxX) / 2, (box.minY + box.maxY) / 2)
            return .dot(p.x, p.y)
        }
        guard strips, min(width, height) < pixel, max(width, height) < pixel * Self.stripPixels else { return nil }
        let a = toPixel(box.minX, box.maxY), b = toPixel(box.maxX, box.minY)
        var x0 = min(a.x, b.x), x1 = max(a.x, b.x), y0 = min(a.y, b.y), y1 = max(a.y, b.y)
        // As thick as a 0.8-px stroke across, as long as the box (butt caps) along.
        if x1 - x0 < 0.8 { let c = (x0 + x1) / 2; (x0, x1) = (c - 0.4, c + 0.4) }
        if y1 - y0 < 0.8 { let c = (y0 + y1) / 2; (y0, y1) = (c - 0.4, c + 0.4) }
        return IndexMark(x0: Float(x0), y0: Float(y0), x1: Float(x1), y1: Float(y1))
    }

    /// `MapView.pixel(of:)` with its sine and cosine worked out once, for millions of boxes.
    private struct PixelTransform {
        let cx: Double, cy: Double, c: Double, s: Double, perUnit: Double, halfWidth: Double, halfHeight: Double
        init(_ view: MapView) {
            let radians = view.rotation * .pi / 180
            (cx, cy, c, s) = (view.center.x, view.center.y, cos(radians), sin(radians))
            perUnit = 1 / view.unitsPerPixel
            (halfWidth, halfHeight) = (Double(view.width) / 2, Double(view.height) / 2)
        }
        func callAsFunction(_ x: Double, _ y: Double) -> (x: Double, y: Double) {
            let dx = x - cx, dy = y - cy
            return (halfWidth + (dx * c - dy * s) * perUnit, halfHeight - (dx * s + dy * c) * perUnit)
        }
    }

    /// Draws the features of `table` whose index box meets `window` and whose mark (`indexMark`)
    /// can be drawn from the box alone, without reading a row, at most one per pixel: a pixel
    /// goes to the lowest fid whose mark covers it (a dot covers the pixel of its centre, a strip
    /// every pixel it touches), and a mark is drawn when it holds a pixel (or lies wholly off the
    /// picture), in fid order. So the picture and the counts do not depend on the order the store
    /// gives the boxes in (a GeoPackage walks its R-tree, PostGIS answers in fid order). One pass
    /// over the index, keeping each pixel's owner and its mark: memory by pixels, not features.
    /// Returns how many were drawn, how many were passed over because their pixels were taken,
    /// and how many must be read (their boxes are too large).
    private func drawFromIndex(_ table: FeatureTable, _ window: Envelope, pixel: Double, strips: Bool, view: MapView,
                               on canvas: CairoCanvas) throws -> (drawn: Int, shared: Int, unread: Int) {
        let width = view.width, height = view.height
        let toPixel = PixelTransform(view)
        var owner = [Int64](repeating: .max, count: width * height)
        var ownerMark = [IndexMark](repeating: .dot(0, 0), count: width * height)
        var offPicture: [(fid: Int64, mark: IndexMark)] = []
        var unread = 0, marks = 0, dots = 0
        try store.forEachIndexBox(table, meeting: window) { fid, box in
            tick(table.name)
            guard let mark = indexMark(box, pixel: pixel, strips: strips, toPixel: toPixel) else { unread += 1; return }
            marks += 1
            var c0: Int, c1: Int, r0: Int, r1: Int
            if mark.isDot {
                dots += 1
                c0 = Int(mark.x0.rounded(.down)); c1 = c0
                r0 = Int(mark.y0.rounded(.down)); r1 = r0
            } else {
                c0 = Int(mark.x0.rounded(.down)); c1 = Int(mark.x1.rounded(.down))
                r0 = Int(mark.y0.rounded(.down)); r1 = Int(mark.y1.rounded(.down))
            }
            (c0, c1, r0, r1) = (max(c0, 0), min(c1, width - 1), max(r0, 0), min(r1, height - 1))
            guard c0 <= c1, r0 <= r1 else { offPicture.append((fid, mark)); return }
            for r in r0...r1 {
                for c in c0...c1 where fid < owner[r * width + c] {
                    owner[r * width + c] = fid
                    ownerMark[r * width + c] = mark
                }
            }
        }
        // The owners, each once (a strip may own several pixels), in fid order.
        var chosen: [(fid: Int64, pixel: Int32)] = []
        for i in owner.indices where owner[i] != .max { chosen.append((owner[i], Int32(i))) }
        chosen.sort { $0.fid < $1.fid }
        var drawnMarks: [IndexMark] = []
        drawnMarks.reserveCapacity(chosen.count + offPicture.count)
        var last = Int64.min
        var o = 0
        offPicture.sort { $0.fid < $1.fid }
        for (fid, at) in chosen where fid != last {
            while o < offPicture.count, offPicture[o].fid < fid { drawnMarks.append(offPicture[o].mark); o += 1 }
            drawnMarks.append(ownerMark[Int(at)])
            last = fid
        }
        while o < offPicture.count { drawnMarks.append(offPicture[o].mark); o += 1 }
        let shared = marks - drawnMarks.count

        let isPoint = table.geometryKind == .point || table.geometryKind == .multiPoint
        // Points get their 5-px discs (19.6 px² each) only while they cover at most a fifth of
        // the picture, one to 100 px: denser, they would cover the streets between the blocks
        // and, at one to 25 px, one another and the map (a grey square); so each is a dot, as a
        // line under a pixel is.
        let discs = isPoint && dots <= width * height / 100
        let context = canvas.context
        cairo_save(context)
        defer { cairo_restore(context) }
        cairo_new_path(context)
        setColour(isPoint ? .point : .feature, on: canvas)
        var pending = 0
        for mark in drawnMarks {
            cairo_new_sub_path(context)
            let x = Double(mark.x0), y = Double(mark.y0)
            if !mark.isDot {
                cairo_rectangle(context, x, y, Double(mark.x1) - x, Double(mark.y1) - y)
            } else if discs {
                cairo_arc(context, x, y, 2.5, 0, 2 * .pi)
            } else {
                cairo_rectangle(context, x - 0.4, y - 0.4, 0.8, 0.8)
            }
            pending += 1
            // Filled in batches: one path of many thousand overlapping discs is slow to fill.
            if pending == 512 {
                cairo_fill(context)
                pending = 0
            }
        }
        if pending > 0 { cairo_fill(context) }
        return (drawnMarks.count, shared, unread)
    }

    /// Draws the features of `table` whose index box meets `window` and has a size `size` admits,
    /// in the default symbology, 512 to a Cairo fill or stroke; returns how many. For a table of
    /// one geometry kind in the drawing CRS.
    private func drawBatched(_ table: FeatureTable, size: IndexBoxSize, window: Envelope, view: MapView,
                             on canvas: CairoCanvas) throws -> Int {
        let context = canvas.context
        let isPoint = table.geometryKind == .point || table.geometryKind == .multiPoint
        let isLine = table.geometryKind == .lineString || table.geometryKind == .multiLineString
        cairo_save(context)
        defer { cairo_restore(context) }
        cairo_new_path(context)
        setColour(isPoint ? .point : .feature, on: canvas)
        cairo_set_line_width(context, 0.8)
        if isLine {
            let dashes: [Double] = [5, 3]
            cairo_set_dash(context, dashes, 2, 0)
        }
        let same: (Point) throws -> Point = { $0 }
        var drawn = 0, pending = 0
        func finish() {
            if isPoint { cairo_fill(context) } else { cairo_stroke(context) }
            pending = 0
        }
        try store.forEachIndexedRow(table, meeting: window, size: size, reading: .geometry) { row in
            guard let geometry = row.geometry else { return }
            switch geometry {
            case .point(let p): addDiscs([p], view: view, on: canvas)
            case .multiPoint(let m): addDiscs(m.points, view: view, on: canvas)
            case .lineString(let l): try addPath(l.points, closed: false, project: same, view: view, on: canvas)
            case .multiLineString(let m): for l in m.lines { try addPath(l.points, closed: false, project: same, view: view, on: canvas) }
            case .polygon(let p): for r in p.rings { try addPath(r.points, closed: true, project: same, view: view, on: canvas) }
            case .multiPolygon(let m):
                for p in m.polygons { for r in p.rings { try addPath(r.points, closed: true, project: same, view: view, on: canvas) } }
            }
            drawn += 1
            pending += 1
            tick(table.name)
            if pending == 512 { finish() }
        }
        if pending > 0 { finish() }
        return drawn
    }

    private func addDiscs(_ points: [Point], view: MapView, on canvas: CairoCanvas) {
        for point in points where !point.isEmpty {
            let p = view.pixel(of: point)
            cairo_new_sub_path(canvas.context)
            cairo_arc(canvas.context, p.x, p.y, 2.5, 0, 2 * .pi)
        }
    }

    /// How many annotation rows of `table` meet `window` with a footprint box under `minimumBox`
    /// on a side, and how many with one at least that on both (the spatial index alone answers,
    /// `FeatureStore.forEachIndexBox`).
    private func countUnderMinimum(_ table: FeatureTable, _ window: Envelope, minimumBox: Double) throws -> (under: Int, atLeast: Int) {
        guard table.hasSpatialIndex else { return (0, 0) }
        var under = 0, atLeast = 0
        try store.forEachIndexBox(table, meeting: window) { _, box in
            tick(table.name)
            if IndexBoxSize.someSideUnder(minimumBox).admits(box) { under += 1 } else { atLeast += 1 }
        }
        return (under, atLeast)
    }

    /// Calls `body` with every annotation row of `table` whose footprint meets `view`, in fid
    /// order, through the spatial index (one row in memory at a time).
    ///
    /// With `minimumBox` (units of the table's CRS), a row whose footprint box is narrower or
    /// lower than it is passed over in the index, unread.
    public func forEachAnnotation(in tableName: String, view: MapView, minimumBox: Double = 0, _ body: (AnnotationRow) throws -> Void) throws {
        let table = try table(tableName)
        let window = try window(of: view, in: table)
        let size: IndexBoxSize = minimumBox > 0 && table.hasSpatialIndex ? .bothSidesAtLeast(minimumBox) : .any
        try store.forEachIndexedRow(table, meeting: window, size: size, reading: .annotation) { row in
            if let annotation = row.annotation { try body(annotation) }
        }
    }

    /// Draws the tables of `content` that meet `view` on `canvas`: a white background,
    /// features, annotation text, then footprints and marks when asked for.
    ///
    /// - Throws: `StoreError` for an unknown table or fid to mark, `RenderError.cairo` when Cairo
    ///   fails, `FontError` when a font cannot be read, `PROJError` when a point cannot be
    ///   changed into the drawing CRS.
    ///
    /// `progress` is told, table by table, how many of its rows and index boxes have been gone
    /// through so far (every 1024th, and each table's last count).
    @discardableResult
    public func render(_ view: MapView, on canvas: CairoCanvas, content: MapContent,
                       progress: @escaping (_ table: String, _ done: Int) -> Void = { _, _ in }) throws -> RenderSummary {
        if let reason = view.undrawableReason { throw RenderError.invalidView(reason) }
        reportProgress = progress
        defer { reportProgress = { _, _ in } }
        func tableDone(_ name: String) {
            if progressCount > 0 { progress(name, progressCount) }
            progressCount = 0
        }
        var summary = RenderSummary()
        canvas.clear(red: 1, green: 1, blue: 1)
        let names = try tableNames(content)
        for name in names where !isAnnotationTable(name) {
            let table = try table(name)
            let window = try window(of: view, in: table)
            let project = try projection(of: table)
            if content.subPixelFeaturesFromIndex, drawsFromIndex(table) {
                let pixel = view.unitsPerPixel
                // Strips only for one connected line or polygon a feature, north up.
                let strips = view.rotation == 0 && (table.geometryKind == .lineString || table.geometryKind == .polygon)
                let (drawn, shared, unread) = try drawFromIndex(table, window, pixel: pixel, strips: strips, view: view, on: canvas)
                summary.features += drawn
                summary.featuresFromIndex += drawn
                summary.featuresSharingPixels += shared
                // The index said how many boxes are too large to draw from: none, no query.
                if unread > 0 {
                    let size = IndexBoxSize.notThinAndShort(across: pixel, along: strips ? pixel * Self.stripPixels : pixel)
                    summary.features += try drawBatched(table, size: size, window: window, view: view, on: canvas)
                }
                tableDone(name)
                continue
            }
            try store.forEachIndexedRow(table, meeting: window, size: .any, reading: .geometry) { row in
                guard let geometry = row.geometry else { return }
                try draw(geometry, project: project, view: view, on: canvas, colour: nil)
                summary.features += 1
                tick(name)
            }
            tableDone(name)
        }
        for name in names where isAnnotationTable(name) {
            // Text under the minimum: passed over in the spatial index (its footprint box is smaller),
            // or, read, measured by its own size.
            var minimumBox = 0.0, readsText = true
            if content.minimumTextPixels > 0, transformer == nil, try table(name).hasSpatialIndex {
                minimumBox = content.minimumTextPixels * view.unitsPerPixel
                let (under, atLeast) = try countUnderMinimum(try table(name), try window(of: view, in: try table(name)), minimumBox: minimumBox)
                summary.labelsUnderMinimum += under
                // None big enough: the rows are not asked for (a query that would pass over them all).
                readsText = atLeast > 0
            }
            if readsText {
                try forEachAnnotation(in: name, view: view, minimumBox: minimumBox) { row in
                    if content.minimumTextPixels > 0, let pixels = try textPixels(of: row, table: name, view: view), pixels < content.minimumTextPixels {
                        summary.labelsUnderMinimum += 1
                        return
                    }
                    if try drawText(of: row, table: name, view: view, on: canvas, colour: .text) { summary.labels += 1 }
                    tick(name)
                }
            }
            if content.footprints {
                try forEachAnnotation(in: name, view: view) { row in
                    if try drawFootprint(of: row, table: name, view: view, on: canvas, colour: .footprint, lineWidth: 0.6) {
                        summary.footprints += 1
                    }
                }
            }
            tableDone(name)
        }
        for (name, fids) in content.highlights.sorted(by: { $0.key < $1.key }) {
            let table = try table(try tableNames(MapContent(tables: [name])).first ?? name)
            let project = try projection(of: table)
            for fid in fids {
                if isAnnotationTable(table.name) {
                    let row = try store.annotationRow(table, fid: fid, footprintProblem: { _ in })
                    _ = try drawFootprint(of: row, table: table.name, view: view, on: canvas, colour: .highlight, lineWidth: 1.5)
                    _ = try drawText(of: row, table: table.name, view: view, on: canvas, colour: .highlight)
                } else {
                    let feature = try store.feature(table, fid: fid)
                    if let geometry = feature.geometry { try draw(geometry, project: project, view: view, on: canvas, colour: .highlight) }
                }
                summary.highlighted += 1
            }
        }
        try canvas.check("drawing the map")
        return summary
    }

    // MARK: Features

    private func setColour(_ colour: Colour, on canvas: CairoCanvas) {
        cairo_set_source_rgb(canvas.context, colour.red, colour.green, colour.blue)
    }

    /// Adds the rings or lines of `points` to the current path, in pixels.
    private func addPath(_ points: [Point], closed: Bool, project: (Point) throws -> Point, view: MapView, on canvas: CairoCanvas) throws {
        guard let first = points.first else { return }
        let start = view.pixel(of: try project(first))
        cairo_move_to(canvas.context, start.x, start.y)
        for point in points.dropFirst() {
            let p = view.pixel(of: try project(point))
            cairo_line_to(canvas.context, p.x, p.y)
        }
        if closed { cairo_close_path(canvas.context) }
    }

    /// Draws a feature's geometry in the default symbology, or marked in `colour`.
    func draw(_ geometry: Geometry, project: (Point) throws -> Point, view: MapView, on canvas: CairoCanvas, colour: Colour?) throws {
        let context = canvas.context
        let marked = colour != nil
        cairo_save(context)
        defer { cairo_restore(context) }
        cairo_new_path(context)
        func points(_ list: [Point]) throws {
            setColour(colour ?? .point, on: canvas)
            for point in list where !point.isEmpty {
                let p = view.pixel(of: try project(point))
                cairo_new_sub_path(context)
                cairo_arc(context, p.x, p.y, marked ? 5 : 2.5, 0, 2 * .pi)
            }
            cairo_fill(context)
            if marked {
                for point in list where !point.isEmpty {
                    let p = view.pixel(of: try project(point))
                    cairo_new_sub_path(context)
                    cairo_arc(context, p.x, p.y, 8, 0, 2 * .pi)
                }
                cairo_set_line_width(context, 1.5)
                cairo_stroke(context)
            }
        }
        func lines(_ list: [LineString]) throws {
            setColour(colour ?? .feature, on: canvas)
            cairo_set_line_width(context, marked ? 3 : 0.8)
            if !marked {
                let dashes: [Double] = [5, 3]
                cairo_set_dash(context, dashes, 2, 0)
            }
            for line in list { try addPath(line.points, closed: false, project: project, view: view, on: canvas) }
            cairo_stroke(context)
        }
        func polygons(_ list: [Polygon]) throws {
            setColour(colour ?? .feature, on: canvas)
            cairo_set_line_width(context, marked ? 3 : 0.8)
            for polygon in list {
                for ring in polygon.rings { try addPath(ring.points, closed: true, project: project, view: view, on: canvas) }
            }
            cairo_stroke(context)
        }
        switch geometry {
        case .point(let p): try points([p])
        case .multiPoint(let m): try points(m.points)
        case .lineString(let l): try lines([l])
        case .multiLineString(let m): try lines(m.lines)
        case .polygon(let p): try polygons([p])
        case .multiPolygon(let m): try polygons(m.polygons)
        }
    }

    // MARK: Annotation

    /// The class of `row` in `table`, or the table's first class when the row names none.
    private func annotationClass(of row: AnnotationRow, table: String) -> AnnotationClass? {
        guard let byID = classes[table.lowercased()] else { return nil }
        return byID[row.classID] ?? byID.keys.min().flatMap { byID[$0] }
    }

    private func metresPerUnit(of table: FeatureTable) throws -> Double {
        if let known = metresPerUnitBySRS[table.srsID] { return known }
        let value = try Self.metresPerUnit(of: store.spatialReferenceSystem(table.srsID)) ?? 1
        metresPerUnitBySRS[table.srsID] = value
        return value
    }

    private func font(_ family: String) throws -> (metrics: TextMetrics, cairo: CairoFontFace?) {
        if let known = fontsByFamily[family] { return known }
        if fonts == nil { fonts = try FontLibrary() }
        let metrics = try fonts!.textMetrics(family: family)
        if let warning = metrics.fallbackWarning, !warnings.contains(warning) { warnings.append(warning) }
        let entry = (metrics, try metrics.face.map(CairoFontFace.init))
        fontsByFamily[family] = entry
        return entry
    }

    /// How many pixels high `row`'s font size is in `view` (`FontSize` points at the class's
    /// reference scale); nil without a class.
    func textPixels(of row: AnnotationRow, table: String, view: MapView) throws -> Double? {
        guard let definition = annotationClass(of: row, table: table), definition.referenceScale > 0 else { return nil }
        return row.fontSize * definition.referenceScale / view.scale * view.pixelsPerPoint
    }

    /// The affine map from the text space of `row` (points at the reference scale along and
    /// across the text, measured from the anchor, y down as Cairo's glyphs are) to pixels; nil
    /// for a row without anchor or class.
    func textMatrix(of row: AnnotationRow, table tableName: String, view: MapView) throws -> cairo_matrix_t? {
        guard let anchor = row.anchor, anchor.isFinite, let definition = annotationClass(of: row, table: tableName) else { return nil }
        let table = try table(tableName)
        let project = try projection(of: table)
        let mapUnitsPerPoint = PlacementRules.mapUnitsPerPoint(referenceScale: definition.referenceScale, metresPerUnit: try metresPerUnit(of: table))
        let radians = row.angle * .pi / 180
        let step = max(row.fontSize, 1)
        let c = cos(radians) * mapUnitsPerPoint * step, s = sin(radians) * mapUnitsPerPoint * step
        let origin = view.pixel(of: try project(anchor))
        let along = view.pixel(of: try project(Point(x: anchor.x + c, y: anchor.y + s)))
        let across = view.pixel(of: try project(Point(x: anchor.x - s, y: anchor.y + c)))
        let u = Point(x: (along.x - origin.x) / step, y: (along.y - origin.y) / step)
        let v = Point(x: (across.x - origin.x) / step, y: (across.y - origin.y) / step)
        guard origin.isFinite, u.isFinite, v.isFinite else { return nil }
        var matrix = cairo_matrix_t()
        cairo_matrix_init(&matrix, u.x, u.y, -v.x, -v.y, origin.x, origin.y)
        return matrix
    }

    /// Draws the text of an annotation row as ArcGIS does: the glyphs of its font at
    /// `FontSize` points at the class's reference scale, on a kerned baseline set by the
    /// alignments and offsets around the anchor, turned by `Angle`. Returns false for a row
    /// with no text, anchor or class.
    @discardableResult
    public func drawText(of row: AnnotationRow, table: String, view: MapView, on canvas: CairoCanvas, colour: Colour = .text) throws -> Bool {
        guard !row.text.isEmpty, row.fontSize > 0, var matrix = try textMatrix(of: row, table: table, view: view) else { return false }
        let font = try font(row.fontName)
        let context = canvas.context
        let size = row.fontSize
        var glyphs: [cairo_glyph_t] = []
        let advance: Double, ascent: Double, descent: Double
        if let face = font.metrics.face {
            let pointsPerUnit = size / Double(face.unitsPerEm)
            var pen = 0
            var previous: UInt32?
            for scalar in row.text.unicodeScalars {
                let glyph = try face.glyphMetrics(for: scalar)
                if let previous, face.hasKerning { pen += Int(try face.kerning(between: previous, and: glyph.glyphIndex)) }
                glyphs.append(cairo_glyph_t(index: UInt(glyph.glyphIndex), x: Double(pen) * pointsPerUnit, y: 0))
                pen += Int(glyph.advance)
                previous = glyph.glyphIndex
            }
            advance = Double(pen) * pointsPerUnit
            ascent = Double(face.ascent) * pointsPerUnit
            descent = Double(face.descent) * pointsPerUnit
        } else {
            let extent = try font.metrics.extent(of: row.text, pointSize: size)
            (advance, ascent, descent) = (extent.advanceWidth, extent.ascent, extent.descent)
        }
        let start: Double
        switch row.horizontalAlignment {
        case 0: start = 0
        case 2: start = -advance
        default: start = -advance / 2
        }
        let height = ascent + descent
        let bottom: Double
        switch row.verticalAlignment {
        case 0: bottom = -height
        case 1: bottom = -height / 2
        case 3: bottom = 0
        default: bottom = -descent
        }
        let x = start + row.xOffset, baseline = -(bottom + descent + row.yOffset)
        cairo_save(context)
        defer { cairo_restore(context) }
        cairo_transform(context, &matrix)
        setColour(colour, on: canvas)
        if let cairoFace = font.cairo {
            cairo_set_font_face(context, cairoFace.handle)
            cairo_set_font_size(context, size)
            for i in glyphs.indices {
                glyphs[i].x += x
                glyphs[i].y = baseline
            }
            cairo_show_glyphs(context, glyphs, Int32(glyphs.count))
        } else {
            cairo_select_font_face(context, TextMetrics.fallbackFamily, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL)
            cairo_set_font_size(context, size)
            cairo_move_to(context, x, baseline)
            cairo_show_text(context, row.text)
        }
        return true
    }

    /// Outlines the stored footprint of an annotation row (dashed, with `dashed`), or fills it
    /// with `fill`; false for a row without one.
    @discardableResult
    public func drawFootprint(of row: AnnotationRow, table tableName: String, view: MapView, on canvas: CairoCanvas, colour: Colour,
                              lineWidth: Double, fill: Bool = false, dashed: Bool = false) throws -> Bool {
        guard let footprint = row.footprint, !footprint.isEmpty else { return false }
        let table = try table(tableName)
        let project = try projection(of: table)
        let context = canvas.context
        cairo_save(context)
        defer { cairo_restore(context) }
        cairo_new_path(context)
        setColour(colour, on: canvas)
        for ring in footprint.rings { try addPath(ring.points, closed: true, project: project, view: view, on: canvas) }
        if fill {
            cairo_fill(context)
        } else {
            cairo_set_line_width(context, lineWidth)
            if dashed {
                let dashes: [Double] = [4, 3]
                cairo_set_dash(context, dashes, 2, 0)
            }
            cairo_stroke(context)
        }
        return true
    }
}

@available(*, unavailable)
extension MapRenderer: Sendable {}
