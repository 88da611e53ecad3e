import AnnoLinkGeometry
import AnnoLinkStore

/// One feature with its fields, geometry and every annotation row linked to it (`annolink
/// show`). Only reads.
public struct ShowFeature: EditRequest {
    public static var writes: Bool { false }
    /// A feature table, or an annotation table (then the annotation row itself is shown).
    public var table: String
    public var fid: Int64

    public init(table: String, fid: Int64) {
        self.table = table
        self.fid = fid
    }

    public func run(in service: EditService) throws -> FeatureReport {
        let package = service.store
        let table = try package.featureTable(self.table)
        let feature = try package.feature(table, fid: fid)
        let annotation = try service.linkedAnnotation(of: table, fid: fid)
        return FeatureReport(
            table: table.name, fid: fid, geometryColumn: table.geometryColumn, columns: table.attributeColumns.map(\.name),
            fields: feature.attributes, geometry: feature.geometry, annotation: annotation)
    }
}

/// A feature as `show --json` has it: `{"table", "fid", "fields": {name: value}, "geometry":
/// GeoJSON or null, "annotation": [{"annotationTable", "fid", "classID", "text", "anchor": [x, y],
/// "angle", "override", "status"}]}`.
public struct FeatureReport: Sendable, Encodable {
    public var table: String
    public var fid: Int64
    /// The geometry column's name (not encoded).
    public var geometryColumn: String
    /// The attribute columns in table order (not encoded: `fields` is keyed by name).
    public var columns: [String]
    public var fields: [String: SQLValue]
    public var geometry: Geometry?
    public var annotation: [Annotation]

    /// One linked annotation row.
    public struct Annotation: Sendable, Encodable {
        public var annotationTable: String
        public var row: AnnotationRow

        enum CodingKeys: String, CodingKey { case annotationTable, fid, classID, text, anchor, angle, override, status }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(annotationTable, forKey: .annotationTable)
            try c.encode(row.fid ?? 0, forKey: .fid)
            try c.encode(row.classID, forKey: .classID)
            try c.encode(row.text, forKey: .text)
            try c.encode(row.anchor.flatMap { $0.isFinite ? $0 : nil }, forKey: .anchor)
            try c.encode(row.angle, forKey: .angle)
            try c.encode(row.override.rawValue, forKey: .override)
            try c.encode(row.status, forKey: .status)
        }
    }

    enum CodingKeys: String, CodingKey { case table, fid, fields, geometry, annotation }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(table, forKey: .table)
        try c.encode(fid, forKey: .fid)
        try c.encode(fields, forKey: .fields)
        try c.encode(geometry?.encodableOrNil, forKey: .geometry)
        try c.encode(annotation, forKey: .annotation)
    }
}
