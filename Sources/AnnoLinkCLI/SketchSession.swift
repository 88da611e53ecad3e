import AnnoLinkEditing
import AnnoLinkGeometry
import AnnoLinkSketch
import AnnoLinkStore
import Foundation

/// One `annolink sketch` session on a GeoPackage or a PostGIS database: a headless map view, a geometry editor with
/// the programmatic reticle tool, and the commands of Esri's "Edit geometries with
/// programmatic reticle tool" sample typed as lines.
///
/// The map is in the CRS of the file's first feature table; tables in another CRS cannot be
/// edited in the session. Nothing is written until `save`, which goes through the edit
/// service (one transaction and journal entry; linked annotation regenerated).
final class SketchSession {
    /// What a save writes: a new feature of `table`, or feature `fid`'s new geometry.
    struct Target {
        var table: FeatureTable
        var fid: Int64?
    }

    /// What the sample's one button does next (shared with the map editor's sketch sessions).
    typealias ButtonState = ReticleButton

    /// The identify radius of a tap, in points (the Swift sample's 10).
    static let tapTolerance = 10.0

    let path: String
    let store: any FeatureStore
    let service: EditService
    let editor: GeometryEditor
    let reticle = ProgrammaticReticleTool()
    /// The map's CRS.
    let srs: SpatialReferenceSystem
    /// The table being edited, while the editor is started.
    private(set) var target: Target?
    /// Set by `quit`.
    private(set) var finished = false
    /// The sample's "Allow vertex creation" switch.
    private(set) var allowsVertexCreation = true

    /// A session on the store `path` names (a GeoPackage file or a PostGIS database,
    /// `StoreTarget`), its view `width` × `height` points, showing the recorded extent of the
    /// feature tables in the map's CRS.
    /// - Throws: store errors; `CommandError` when the data set has no feature table.
    init(path: String, width: Double, height: Double) throws {
        self.path = path
        store = try StoreTarget.open(path)
        service = EditService(store: store)
        let annotation = Set(try store.annotationTableNames().map { $0.lowercased() })
        let tables = try store.featureTableNames().map(store.featureTable).filter { !annotation.contains($0.name.lowercased()) }
        guard let first = tables.first else { throw CommandError("\(store.location) has no feature table to sketch on", status: .dataError) }
        guard let srs = try store.spatialReferenceSystem(first.srsID) else { throw StoreError.unknownSpatialReference(srsID: first.srsID) }
        self.srs = srs
        var extent: Envelope?
        for table in tables where table.srsID == srs.srsID {
            guard let box = try store.recordedExtent(of: table) else { continue }
            extent = extent.map { $0.union(box) } ?? box
        }
        let metresPerUnit = srs.metresPerMapUnit
        let box = extent ?? Envelope(Point(x: 0, y: 0))
        let center = Point(x: (box.minX + box.maxX) / 2, y: (box.minY + box.maxY) / 2)
        // Fit the extent: the larger of the two ratios of map size to view size, in metres a point.
        let metresPerPoint = max(box.width / width, box.height / height) * metresPerUnit
        let scale = metresPerPoint > 0 ? (metresPerPoint * 96 / 0.0254).rounded(.up) : 1200
        editor = GeometryEditor(tool: reticle, viewport: try MapViewport(
            viewpoint: Viewpoint(center: center, scale: scale), width: width, height: height, metresPerUnit: metresPerUnit))
    }

    /// The map's CRS as a name.
    var crsName: String { srs.organization.uppercased() == "EPSG" ? "EPSG:\(srs.organizationCoordsysID)" : srs.name }

    var viewport: MapViewport { editor.viewport! }

    // MARK: Running lines

    /// Runs one line: a command and its words. Returns what to print (the status line not
    /// included). Blank lines and `#` comments do nothing.
    /// - Throws: `CommandError` for a command it cannot do, with the reason; editor, store
    ///   and edit errors as they come.
    func execute(_ line: String) throws -> [String] {
        let words = try Self.words(line)
        guard let name = words.first else { return [] }
        guard let command = Self.commands.first(where: { $0.name == name || $0.aliases.contains(name) }) else {
            throw CommandError.usage("unknown command '\(name)'; type 'help' for the list")
        }
        return try command.run(self, Array(words.dropFirst()))
    }

    /// Splits a line into words at blanks; single or double quotes keep blanks in a word;
    /// `#` outside quotes starts a comment.
    static func words(_ line: String) throws -> [String] {
        var words: [String] = [], current = "", quote: Character?, inWord = false
        for c in line {
            if let q = quote {
                if c == q { quote = nil } else { current.append(c) }
            } else if c == "\"" || c == "'" {
                quote = c
                inWord = true
            } else if c == "#" {
                break
            } else if c.isWhitespace {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(c)
                inWord = true
            }
        }
        if quote != nil { throw CommandError.usage("unterminated quote") }
        if inWord { words.append(current) }
        return words
    }

    // MARK: Status

    /// What the sample's button would do now; nil when not editing.
    var buttonState: ButtonState? { ReticleButton(editor: editor, allowsVertexCreation: allowsVertexCreation) }

    /// One line: what is edited, its size, the selected, hovered and picked-up elements,
    /// undo and redo, validity and the button's label.
    var statusLine: String {
        let reticleText = "reticle \(Self.format(viewport.reticleLocation, digits: 2))"
        guard editor.isStarted, let sketch = editor.sketch, let target else {
            return "status: not editing | \(reticleText) | start with 'new TABLE', 'edit TABLE FID' or 'tap X,Y'"
        }
        let what = target.fid.map { "\(target.table.name) fid \($0)" } ?? "new in \(target.table.name)"
        let parts = sketch.parts.count
        var fields = [
            "status: \(sketch.type.rawValue) (\(what))",
            "\(sketch.vertexCount) \(sketch.vertexCount == 1 ? "vertex" : "vertices") in \(parts) part\(parts == 1 ? "" : "s")",
            reticleText,
            "selected: \(editor.selectedElement?.description ?? "none")",
            "hovered: \(editor.hoveredElement?.description ?? "none")",
            "picked up: \(editor.pickedUpElement?.description ?? "none")",
            "undo: \(editor.canUndo || editor.pickedUpElement != nil ? "yes" : "no")",
            "redo: \(editor.canRedo ? "yes" : "no")",
            "valid: \(editor.sketchIsValid ? "yes" : "no")",
        ]
        if let button = buttonState { fields.append("button: \(button.rawValue)") }
        return fields.joined(separator: " | ")
    }

    /// `point` as `x,y` with `digits` decimals, or in full when nil.
    static func format(_ point: Point, digits: Int? = nil) -> String {
        guard let digits else { return "\(point.x),\(point.y)" }
        return String(format: "%.\(digits)f,%.\(digits)f", point.x, point.y)
    }

    // MARK: Helpers for the commands

    /// The started editor and what it edits, or a message saying how to start.
    func editing() throws -> (SketchGeometry, Target) {
        guard editor.isStarted, let sketch = editor.sketch, let target else {
            throw CommandError("not editing: start with 'new TABLE', 'edit TABLE FID' or 'tap X,Y' on a feature", status: .dataError)
        }
        return (sketch, target)
    }

    /// The feature table `name`, which must hold features (not annotation) in the map's CRS.
    func editableTable(_ name: String) throws -> FeatureTable {
        let table = try store.featureTable(name)
        if try store.annotationTableNames().contains(where: { $0.lowercased() == table.name.lowercased() }) {
            throw CommandError("\(table.name) is an annotation table: its rows follow their features and are not sketched", status: .dataError)
        }
        guard table.srsID == srs.srsID else {
            throw CommandError("\(table.name) is in another CRS (srs_id \(table.srsID)) than the session's map (\(crsName))", status: .dataError)
        }
        return table
    }

    /// Starts editing `geometry` (nil: an empty one of `type`) for `target` and centres the
    /// view as the sample does: on the geometry's extent, or, with vertex creation off, on
    /// the last point of its last part.
    func startEditing(_ target: Target, geometry: Geometry?, type: SketchGeometryType) throws {
        guard !editor.isStarted else {
            throw CommandError("already editing: 'save' or 'discard' the current sketch first", status: .dataError)
        }
        if let geometry { try editor.start(withInitial: geometry) } else { try editor.start(withType: type) }
        self.target = target
        guard let sketch = editor.sketch else { return }
        let center: Point?
        if allowsVertexCreation {
            center = sketch.extent.map { Point(x: ($0.minX + $0.maxX) / 2, y: ($0.minY + $0.maxY) / 2) }
        } else {
            center = sketch.parts.last?.last
        }
        if let center { editor.viewport?.viewpoint.center = center }
    }

    /// Sets the "Allow vertex creation" switch, as the sample does: the tool's preview and
    /// the growth of hovered mid-vertices follow it.
    func setVertexCreation(_ on: Bool) {
        allowsVertexCreation = on
        reticle.vertexCreationPreviewIsEnabled = on
        reticle.growEffect.appliesToMidVertices = on
    }

    /// Ends editing without writing.
    func discard() {
        editor.stop()
        target = nil
    }

    /// Marks the session finished.
    func finish() { finished = true }

    /// After a save: the editor stops.
    func saved() {
        editor.stop()
        target = nil
    }
}

@available(*, unavailable)
extension SketchSession: Sendable {}
