import AnnoLinkAnnotation
import AnnoLinkEngine
import AnnoLinkGeometry
import AnnoLinkStore

/// The features and annotation rows near a location (`annolink identify`): what a map editor's
/// "tap the feature" finds. Only reads.
///
/// Features are listed as a map draws them, top down: points, then lines, then polygons, and
/// nearest first within each, so that the address point under a tap comes before the building
/// and the subdivision around it (whose distance is 0). Annotation rows are listed nearest
/// first.
///
/// Each table is searched in its own CRS: the location is transformed with PROJ when `crs` is
/// given, the table's spatial index (a GeoPackage's R-tree, PostGIS's GiST) gives the rows whose boxes meet the square of the tolerance
/// around it, and GEOS's distance (planar, in the table's CRS units) decides. A feature is
/// within the tolerance when some part of it is (a point inside a polygon is at distance 0); an
/// annotation row when its footprint is.
public struct Identify: EditRequest {
    public static var writes: Bool { false }
    /// The location, in `crs`.
    public var location: Point
    /// The CRS of `location` (`EPSG:n`, WKT, a PROJ string); nil: each table's own.
    public var crs: String?
    /// How far from the location to look, in the units of each table's CRS; nil: 10 points of
    /// text at the reference scale of the table's annotation classes
    /// (`EditService.defaultTolerance(for:)`).
    public var tolerance: Double?
    /// The one table to search (a feature table or an annotation table); nil: every feature
    /// table and every annotation table of the file.
    public var table: String?

    public init(location: Point, crs: String? = nil, tolerance: Double? = nil, table: String? = nil) {
        self.location = location
        self.crs = crs
        self.tolerance = tolerance
        self.table = table
    }

    /// - Throws: `EditError.nonFiniteCoordinate`, `EditError.invalidTolerance`,
    ///   `EditError.noReferenceScale` (no tolerance given and no annotation class to take one
    ///   from), `StoreError.unknownTable`, PROJ errors for an unknown CRS or a location outside
    ///   it, `GEOSError`.
    public func run(in service: EditService) throws -> IdentifyResult {
        guard location.isFinite else { throw EditError.nonFiniteCoordinate("\(location.x), \(location.y)") }
        if let tolerance, !(tolerance.isFinite && tolerance >= 0) { throw EditError.invalidTolerance(tolerance) }
        let package = service.store
        let annotationTables = Set(try package.annotationTableNames().map { $0.lowercased() })
        let names = try table.map { [try package.featureTable($0).name] } ?? package.featureTableNames()
        let engine = try service.geometryEngine()
        let classes = try package.annotationClasses()
        var result = IdentifyResult(location: location, crs: crs)
        for name in names {
            let table = try package.featureTable(name)
            let isAnnotation = annotationTables.contains(table.name.lowercased())
            let here = try service.location(location, crs: crs, for: table)
            let radius = try tolerance ?? service.defaultTolerance(for: table)
            result.searched.append(.init(table: table.name, isAnnotation: isAnnotation, location: here, tolerance: radius))
            let box = Envelope(minX: here.x - radius, minY: here.y - radius, maxX: here.x + radius, maxY: here.y + radius)
            let probe = Geometry.point(here)
            for fid in try package.fids(of: table, meeting: box) {
                if isAnnotation {
                    let row = try package.annotationRow(table, fid: fid, footprintProblem: nil)
                    guard let footprint = row.footprint, !footprint.rings.isEmpty, Geometry.polygon(footprint).isFinite else { continue }
                    let distance = try engine.distance(from: probe, to: .polygon(footprint))
                    guard distance <= radius else { continue }
                    result.annotation.append(.init(annotationTable: table.name, row: row, distance: distance, originTable: originTable(of: table, row, classes)))
                } else {
                    let feature = try package.feature(table, fid: fid)
                    guard let geometry = feature.geometry, !geometry.isEmpty, geometry.isFinite else { continue }
                    let distance = try engine.distance(from: probe, to: geometry)
                    guard distance <= radius else { continue }
                    result.features.append(.init(table: table.name, fid: fid, geometryType: geometry.kind, distance: distance, annotation: try service.linkedAnnotation(of: table, fid: fid)))
                }
            }
        }
        // Points, lines, polygons; nearest first; among equals, table order (as the file lists
        // them) then fid.
        let order = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        result.features.sort {
            ($0.layer, $0.distance, order[$0.table] ?? 0, $0.fid) < ($1.layer, $1.distance, order[$1.table] ?? 0, $1.fid)
        }
        result.annotation.sort {
            ($0.distance, order[$0.annotationTable] ?? 0, $0.row.fid ?? 0) < ($1.distance, order[$1.annotationTable] ?? 0, $1.row.fid ?? 0)
        }
        return result
    }

    /// The origin table of an annotation row: the one its class names.
    private func originTable(of table: FeatureTable, _ row: AnnotationRow, _ classes: [AnnotationClass]) -> String? {
        classes.first {
            $0.annotationTable.lowercased() == table.name.lowercased() && $0.classID == row.classID
        }?.originTable
    }
}

/// What `Identify` found: `identify --json`,
/// `{"location": [x, y], "crs", "searched": [{"table", "kind", "location": [x, y], "tolerance"}],
/// "features": [{"table", "fid", "geometryType", "distance", "annotation": [...as in show]}],
/// "annotation": [{"annotationTable", "fid", "classID", "text", "anchor", "angle", "distance",
/// "originTable", "featureID"}]}`. Distances and tolerances are in the units of each table's
/// CRS, locations in each table's CRS.
public struct IdentifyResult: Sendable, Encodable {
    /// The location as given, in `crs`.
    public var location: Point
    public var crs: String?
    /// Each table searched, with the location in its CRS and the tolerance used.
    public var searched: [SearchedTable] = []
    /// The features within the tolerance: points, lines, polygons, nearest first within each.
    public var features: [FeatureHit] = []
    /// The annotation rows whose footprint is within the tolerance, nearest first.
    public var annotation: [AnnotationHit] = []

    public init(location: Point, crs: String?) {
        self.location = location
        self.crs = crs
    }

    /// A table searched.
    public struct SearchedTable: Sendable, Encodable {
        public var table: String
        /// Whether it is an annotation table (its rows are listed in `annotation`).
        public var isAnnotation: Bool
        /// The location in the table's CRS.
        public var location: Point
        /// The tolerance, in the table's CRS units.
        public var tolerance: Double

        enum CodingKeys: String, CodingKey { case table, kind, location, tolerance }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(table, forKey: .table)
            try c.encode(isAnnotation ? "annotation" : "features", forKey: .kind)
            try c.encode(location, forKey: .location)
            try c.encode(tolerance, forKey: .tolerance)
        }
    }

    /// A feature near the location, with its linked annotation.
    public struct FeatureHit: Sendable, Encodable {
        public var table: String
        public var fid: Int64
        /// The kind of its geometry (`POINT`, `LINESTRING`…).
        public var geometryType: Geometry.Kind
        /// GEOS's distance from the location, in the table's CRS units (0 inside a polygon).
        public var distance: Double
        public var annotation: [FeatureReport.Annotation]

        /// 0 for points, 1 for lines, 2 for polygons: the order a map draws them, top down.
        var layer: Int {
            switch geometryType {
            case .point, .multiPoint: 0
            case .lineString, .multiLineString: 1
            case .polygon, .multiPolygon: 2
            }
        }

        enum CodingKeys: String, CodingKey { case table, fid, geometryType, distance, annotation }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(table, forKey: .table)
            try c.encode(fid, forKey: .fid)
            try c.encode(geometryType.rawValue, forKey: .geometryType)
            try c.encode(distance, forKey: .distance)
            try c.encode(annotation, forKey: .annotation)
        }
    }

    /// An annotation row near the location, with the feature it is linked to.
    public struct AnnotationHit: Sendable, Encodable {
        public var annotationTable: String
        public var row: AnnotationRow
        /// GEOS's distance from the location to the footprint (0 inside it).
        public var distance: Double
        /// The origin table its class labels; nil when no class of the table has its class id.
        public var originTable: String?

        enum CodingKeys: String, CodingKey { case annotationTable, fid, classID, text, anchor, angle, distance, originTable, featureID }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(annotationTable, forKey: .annotationTable)
            try c.encode(row.fid ?? 0, forKey: .fid)
            try c.encode(row.classID, forKey: .classID)
            try c.encode(row.text, forKey: .text)
            try c.encode(row.anchor.flatMap { $0.isFinite ? $0 : nil }, forKey: .anchor)
            try c.encode(row.angle, forKey: .angle)
            try c.encode(distance, forKey: .distance)
            try c.encode(originTable, forKey: .originTable)
            try c.encode(row.featureID, forKey: .featureID)
        }
    }

    enum CodingKeys: String, CodingKey { case location, crs, searched, features, annotation }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(location, forKey: .location)
        try c.encode(crs, forKey: .crs)
        try c.encode(searched, forKey: .searched)
        try c.encode(features, forKey: .features)
        try c.encode(annotation, forKey: .annotation)
    }
}

extension EditService {
    /// The points of text at the reference scale that `Identify` and `PickFeature` search
    /// within when no tolerance is given.
    public static let identifyTolerancePoints = 10.0

    /// 10 points of text at the reference scale of `table`'s annotation classes, in the units of
    /// its CRS: `10 / 72 in × scale`, 13.889 US survey feet at 1:1200 in EPSG:2924. The scale is
    /// the largest of the classes that label `table` or live in it, else the largest of the
    /// file's classes. A geographic CRS counts a degree as 2π × 6378137 / 360 m.
    ///
    /// - Throws: `EditError.noReferenceScale` when the file has no annotation class.
    public func defaultTolerance(for table: FeatureTable) throws -> Double {
        let classes = try store.annotationClasses().filter { $0.referenceScale.isFinite && $0.referenceScale > 0 }
        let name = table.name.lowercased()
        let own = classes.filter { $0.originTable.lowercased() == name || $0.annotationTable.lowercased() == name }
        guard let scale = (own.isEmpty ? classes : own).map(\.referenceScale).max() else { throw EditError.noReferenceScale(table: table.name) }
        return Self.identifyTolerancePoints * PlacementRules.mapUnitsPerPoint(referenceScale: scale, metresPerUnit: try metresPerUnit(of: table))
    }

    /// The size in metres of `table`'s CRS unit: from the file's WKT, else from PROJ; a degree's
    /// length on the equator for a geographic CRS.
    func metresPerUnit(of table: FeatureTable) throws -> Double {
        if let unit = try store.spatialReferenceSystem(table.srsID)?.metresPerUnitFromDefinition { return unit }
        let crs = try CoordinateTransformer().referenceSystem(crsName(of: table))
        return crs.isGeographic ? 2 * Double.pi * 6_378_137 / 360 : crs.metresPerUnit ?? 1
    }

    /// Every annotation row linked to feature `fid` of `table`, in every annotation table of the
    /// classes that label it.
    func linkedAnnotation(of table: FeatureTable, fid: Int64) throws -> [FeatureReport.Annotation] {
        var annotation: [FeatureReport.Annotation] = []
        var seen: Set<String> = []
        for c in try store.annotationClasses() where c.originTable.lowercased() == table.name.lowercased() {
            let annotationTable = try store.featureTable(c.annotationTable)
            guard seen.insert(annotationTable.name).inserted else { continue }
            for row in try store.annotationRows(annotationTable, featureID: fid) {
                annotation.append(FeatureReport.Annotation(annotationTable: annotationTable.name, row: row))
            }
        }
        return annotation
    }
}
