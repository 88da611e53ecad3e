import AnnoLinkGeometry
import AnnoLinkStore

/// One edit as a value: what to change, handed to `EditService.run(_:)`, which returns an
/// `Encodable` result. Every front end (the command line, the sketch editor, an HTTP service)
/// builds these and encodes the result; none of them edits the file itself.
public protocol EditRequest: Sendable {
    /// What the edit changed, encodable as the `--json` output and HTTP responses.
    associatedtype Result: Encodable & Sendable
    /// Runs the edit with `service`, as one transaction (and, where it changes something, one
    /// journal entry).
    func run(in service: EditService) throws -> Result
    /// Whether the request writes, and so first follows the outside edits recorded
    /// (`EditService.followOutsideEdits`); false for the requests that only read.
    static var writes: Bool { get }
}

extension EditRequest {
    public static var writes: Bool { true }
}

extension EditService {
    /// Runs `request` and returns what it changed. On any error the file is as it was. A
    /// request that writes follows the outside edits first, as an entry of their own.
    public func run<Request: EditRequest>(_ request: Request) throws -> Request.Result {
        if Request.writes { try followOutsideEdits() }
        return try request.run(in: self)
    }
}

/// `FIELD=VALUE` as a user typed it: the value is text, read by the column's type.
public struct FieldAssignment: Hashable, Sendable, Codable {
    public var field: String
    public var text: String

    public init(field: String, text: String) {
        self.field = field
        self.text = text
    }
}

extension [FieldAssignment] {
    var pairs: [(field: String, text: String)] { map { ($0.field, $0.text) } }
}

/// Sets fields of one feature; its annotation is regenerated (`annolink set`).
public struct SetFields: EditRequest {
    public var table: String
    public var fid: Int64
    public var values: [FieldAssignment]
    /// Whether an empty or blank text may be set for a field a label expression reads
    /// (`--allow-empty`); refused otherwise (`EditError.emptyLabelValue`).
    public var allowEmpty: Bool
    /// The command line (or request) that asked, kept in the journal entry.
    public var command: String

    public init(table: String, fid: Int64, values: [FieldAssignment], allowEmpty: Bool = false, command: String) {
        self.table = table
        self.fid = fid
        self.values = values
        self.allowEmpty = allowEmpty
        self.command = command
    }

    public func run(in service: EditService) throws -> EditResult {
        try service.setFields(table: table, fid: fid, values: values.pairs, allowEmpty: allowEmpty, command: command)
    }
}

/// Moves a point feature; its annotation follows (`annolink move`).
public struct MovePoint: EditRequest {
    public var table: String
    public var fid: Int64
    /// The new location, in `crs`.
    public var to: Point
    /// The CRS of `to` (`EPSG:n`, WKT, a PROJ string); nil: the table's own.
    public var crs: String?
    public var command: String

    public init(table: String, fid: Int64, to: Point, crs: String? = nil, command: String) {
        self.table = table
        self.fid = fid
        self.to = to
        self.crs = crs
        self.command = command
    }

    public func run(in service: EditService) throws -> EditResult {
        try service.movePoint(table: table, fid: fid, to: to, crs: crs, command: command)
    }
}

/// Moves an end of a single-segment line; its annotation follows (`annolink move-vertex`).
public struct MoveVertex: EditRequest {
    public var table: String
    public var fid: Int64
    public var to: Point
    public var crs: String?
    public var vertex: EditService.VertexChoice
    public var command: String

    public init(table: String, fid: Int64, to: Point, crs: String? = nil, vertex: EditService.VertexChoice = .last, command: String) {
        self.table = table
        self.fid = fid
        self.to = to
        self.crs = crs
        self.vertex = vertex
        self.command = command
    }

    public func run(in service: EditService) throws -> EditResult {
        try service.moveVertex(table: table, fid: fid, to: to, crs: crs, vertex: vertex, command: command)
    }
}

/// Moves many features by `dx`, `dy` with all their annotation (`annolink translate`).
public struct Translate: EditRequest {
    public var table: String
    public var selection: Selection
    /// The move, in the table's CRS units.
    public var dx: Double
    public var dy: Double
    /// Report what would move; write nothing.
    public var dryRun: Bool
    public var command: String

    public init(table: String, selection: Selection, dx: Double, dy: Double, dryRun: Bool = false, command: String) {
        self.table = table
        self.selection = selection
        self.dx = dx
        self.dy = dy
        self.dryRun = dryRun
        self.command = command
    }

    public func run(in service: EditService) throws -> TranslateResult {
        try run(in: service, progress: { _, _ in })
    }

    /// Runs the move, telling `progress` how many features of how many are done.
    public func run(in service: EditService, progress: (Int, Int) -> Void) throws -> TranslateResult {
        if !dryRun { try service.followOutsideEdits() }
        return try service.translate(table: table, selection: selection, dx: dx, dy: dy, dryRun: dryRun, command: command, progress: progress)
    }
}

/// Adds a feature; annotation is created where its classes say AutoCreate (`annolink add`).
public struct AddFeature: EditRequest {
    public var table: String
    /// The geometry, in `crs`.
    public var geometry: Geometry
    public var crs: String?
    public var values: [FieldAssignment]
    /// As `SetFields.allowEmpty`.
    public var allowEmpty: Bool
    public var command: String

    public init(table: String, geometry: Geometry, crs: String? = nil, values: [FieldAssignment] = [], allowEmpty: Bool = false, command: String) {
        self.table = table
        self.geometry = geometry
        self.crs = crs
        self.values = values
        self.allowEmpty = allowEmpty
        self.command = command
    }

    public func run(in service: EditService) throws -> EditResult {
        try service.addFeature(table: table, geometry: geometry, crs: crs, values: values.pairs, allowEmpty: allowEmpty, command: command)
    }
}

/// Deletes a feature and its linked annotation (`annolink delete`).
public struct DeleteFeature: EditRequest {
    public var table: String
    public var fid: Int64
    public var command: String

    public init(table: String, fid: Int64, command: String) {
        self.table = table
        self.fid = fid
        self.command = command
    }

    public func run(in service: EditService) throws -> EditResult {
        try service.deleteFeature(table: table, fid: fid, command: command)
    }
}

/// Replaces a feature's geometry, as the sketch editor's `save` does; the stored geometry
/// given back changes nothing (`EditService.replaceGeometry`).
public struct ReplaceGeometry: EditRequest {
    public var table: String
    public var fid: Int64
    /// The geometry, in `crs`.
    public var geometry: Geometry
    /// The CRS of `geometry`; nil: the table's own.
    public var crs: String?
    public var command: String

    public init(table: String, fid: Int64, geometry: Geometry, crs: String? = nil, command: String) {
        self.table = table
        self.fid = fid
        self.geometry = geometry
        self.crs = crs
        self.command = command
    }

    public func run(in service: EditService) throws -> EditResult {
        try service.replaceGeometry(table: table, fid: fid, geometry: geometry, crs: crs, command: command)
    }
}

/// Reverts the newest edit still in effect (`annolink undo`); the result is its journal entry,
/// now undone.
public struct Undo: EditRequest {
    public init() {}

    public func run(in service: EditService) throws -> JournalEntry {
        try service.journal().undo()
    }
}

/// Reapplies the edit undone last (`annolink redo`); the result is its journal entry, done
/// again.
public struct Redo: EditRequest {
    public init() {}

    public func run(in service: EditService) throws -> JournalEntry {
        try service.journal().redo()
    }
}
