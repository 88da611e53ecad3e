import AnnoLinkGeometry
import AnnoLinkStore

extension EditService {
    /// What an update does with a two-point line whose new geometry is not its last vertex
    /// moved (the first vertex moved too, or it is no longer one segment).
    public enum LineChange: Sendable {
        /// Refuses it (`EditError.firstVertexChanged`, `.notOneSegment`): the FeatureServer's
        /// rule, as `move-vertex` keeps the first vertex.
        case refuse
        /// Reshapes the line (`ReplaceGeometry`): OGC API Features' rule.
        case reshape
    }

    /// Gives feature `fid` the whole geometry a client sends back (`applyEdits` updates, OGC
    /// `PUT` and `PATCH`), in `crs` (nil: the table's), the way the command line changes it:
    /// nothing when it is the stored one (`GeometryMatch`: within the resolution of `crs`); a
    /// point is moved (`movePoint`); a single-segment line whose first vertex stays has its
    /// last vertex moved (`moveVertex`), other changes of it as `lineChange` says; a longer line
    /// is refused as `move-vertex` refuses it; anything else is reshaped (`replaceGeometry`).
    /// The same tolerance decides "unchanged" and "the first vertex stays".
    ///
    /// - Throws: `EditError.annotationGeometry` for a changed annotation footprint,
    ///   `.notSingleSegment`, `.firstVertexChanged`, `.notOneSegment`, and what the edit it
    ///   becomes throws.
    public func updateGeometry(table name: String, fid: Int64, geometry: Geometry, crs: String?, lineChange: LineChange,
                               command: String) throws -> EditResult {
        let table = try store.featureTable(name)
        let before = try store.feature(table, fid: fid)
        let matched = try match(geometry, crs: crs, stored: before.geometry, in: table)
        let kind = table.geometryKind ?? before.geometry?.kind
        if matched.unchanged {
            let edit: EditResult.Kind = switch kind {
            case .point?: .move
            case .lineString?, .multiLineString?: .moveVertex
            default: .reshape
            }
            return unchangedResult(edit, table, fid: fid, geometry: before.geometry)
        }
        if try store.annotationTableNames().contains(where: { $0.lowercased() == table.name.lowercased() }) {
            throw EditError.annotationGeometry(table: table.name)
        }
        switch kind {
        case .point?:
            guard case .point(let point) = geometry else {
                throw StoreError.wrongGeometryKind(table: table.name, expected: Geometry.Kind.point.rawValue, got: geometry.kind.rawValue)
            }
            return try movePoint(table: name, fid: fid, to: point, crs: crs, command: command)
        case .lineString?, .multiLineString?:
            guard let line = Self.singleLine(before.geometry), line.points.count == 2 else {
                let lines: [LineString] = switch before.geometry {
                case .lineString(let l)?: [l]
                case .multiLineString(let m)?: m.lines
                default: []
                }
                throw EditError.notSingleSegment(table: table.name, fid: fid, parts: lines.count, points: lines.reduce(0) { $0 + $1.points.count })
            }
            // The vertices that match the stored ones carry the stored coordinates exactly.
            guard let given = Self.singleLine(geometry), let target = Self.singleLine(matched.geometry), target.points.count == 2 else {
                if lineChange == .reshape { return try replaceGeometry(table: name, fid: fid, geometry: geometry, crs: crs, command: command) }
                throw EditError.notOneSegment(table: table.name, fid: fid, points: geometry.allPoints.count)
            }
            guard target.points[0] == line.points[0] else {
                if lineChange == .reshape { return try replaceGeometry(table: name, fid: fid, geometry: geometry, crs: crs, command: command) }
                throw EditError.firstVertexChanged(table: table.name, fid: fid)
            }
            return try moveVertex(table: name, fid: fid, to: given.points[1], crs: crs, vertex: .last, command: command)
        default:
            return try replaceGeometry(table: name, fid: fid, geometry: geometry, crs: crs, command: command)
        }
    }

    /// The one line of a line or a one-part multi-line, or nil.
    static func singleLine(_ geometry: Geometry?) -> LineString? {
        switch geometry {
        case .lineString(let l)?: l
        case .multiLineString(let m)? where m.lines.count == 1: m.lines[0]
        default: nil
        }
    }
}

/// Gives a feature the whole geometry a client sends back, as `applyEdits` updates and OGC
/// `PUT`/`PATCH` do (`EditService.updateGeometry`): no change when it is the stored one.
public struct UpdateGeometry: EditRequest {
    public var table: String
    public var fid: Int64
    /// The geometry, in `crs`.
    public var geometry: Geometry
    /// The CRS of `geometry` (`EPSG:n`, WKT); nil: the table's own.
    public var crs: String?
    public var lineChange: EditService.LineChange
    public var command: String

    public init(table: String, fid: Int64, geometry: Geometry, crs: String? = nil, lineChange: EditService.LineChange, command: String) {
        self.table = table
        self.fid = fid
        self.geometry = geometry
        self.crs = crs
        self.lineChange = lineChange
        self.command = command
    }

    public func run(in service: EditService) throws -> EditResult {
        try service.updateGeometry(table: table, fid: fid, geometry: geometry, crs: crs, lineChange: lineChange, command: command)
    }
}
