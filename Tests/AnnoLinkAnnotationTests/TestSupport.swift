import AnnoLinkAnnotation
import AnnoLinkGeometry
import AnnoLinkStore
import Foundation
import Testing

/// A GeoPackage in its own temporary directory with a point table `towers` (`Name`, `Kind`) in
/// UTM zone 18N (metres) and its annotation table `towers_anno`, labelled by two classes:
/// class 0 "Tall" (`Kind = 'tall'`, text `Name`, 2 pt above the point) and class 1 "Short"
/// (`Kind = 'short'`, text `S-` + `Name`, 4 pt above). Removed when the value goes away.
///
/// (Local helper until the shared test-support target lands; the lead may swap it.)
final class AnnotationScratch {
    let directory: URL
    let path: String
    let package: GeoPackage
    let towers: FeatureTable
    let annotation: FeatureTable

    /// Metres per point of text at 1:1200.
    static let metresPerPoint = 1200 * 0.0254 / 72
    static let srsID: Int64 = 32618
    static let utm18N = """
        PROJCS["WGS 84 / UTM zone 18N",GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],\
        PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],\
        PARAMETER["latitude_of_origin",0],PARAMETER["central_meridian",-75],PARAMETER["scale_factor",0.9996],\
        PARAMETER["false_easting",500000],PARAMETER["false_northing",0],UNIT["metre",1],AUTHORITY["EPSG","32618"]]
        """

    static let tall = AnnotationClass(
        annotationTable: "towers_anno", classID: 0, name: "Tall", originTable: "towers", whereClause: "Kind = 'tall'",
        expression: "$feature.Name", referenceScale: 1200, placement: .point, placementOffset: 2)
    static let short = AnnotationClass(
        annotationTable: "towers_anno", classID: 1, name: "Short", originTable: "towers", whereClause: "Kind = 'short'",
        expression: "\"S-\" + $feature.Name", referenceScale: 1200, placement: .point, placementOffset: 4)

    /// The features made at the start: (name, kind, location).
    static let features: [(String, String, Point)] = [
        ("Alpha", "tall", Point(x: 500_000, y: 4_000_000)),
        ("Beta", "short", Point(x: 500_100, y: 4_000_050)),
        ("Gamma", "none", Point(x: 500_200, y: 4_000_100)),
    ]

    init(classes: [AnnotationClass] = [AnnotationScratch.tall, AnnotationScratch.short]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("annolink-annotation-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("towers.gpkg").path
        package = try GeoPackage.create(path: path)
        try package.addSpatialReferenceSystem(SpatialReferenceSystem(
            srsID: Self.srsID, name: "WGS 84 / UTM zone 18N", organization: "EPSG", organizationCoordsysID: Self.srsID, definition: Self.utm18N))
        towers = try package.createFeatureTable(FeatureTableDefinition(
            name: "towers", geometryTypeName: "POINT", srsID: Self.srsID,
            columns: [Column(name: "Name", type: "TEXT"), Column(name: "Kind", type: "TEXT")]))
        annotation = try package.createAnnotationTable(name: "towers_anno", srsID: Self.srsID)
        for c in classes { try package.saveAnnotationClass(c) }
        try package.connection.write {
            for (name, kind, location) in Self.features {
                try package.insertFeature(towers, geometry: .point(location), attributes: ["Name": .text(name), "Kind": .text(kind)])
            }
            let engine = AnnotationEngine(package: package)
            for compiled in try engine.allClasses() { _ = try engine.generate(compiled) }
        }
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// Where a label of a class `offset` points above `point` is anchored.
    static func anchor(above point: Point, offset: Double) -> Point {
        Point(x: point.x, y: point.y + offset * metresPerPoint)
    }

    func feature(_ fid: Int64) throws -> Feature { try package.feature(towers, fid: fid) }

    func rows(of fid: Int64) throws -> [AnnotationRow] { try package.annotationRows(annotation, featureID: fid) }

    func row(of fid: Int64) throws -> AnnotationRow {
        let rows = try rows(of: fid)
        try #require(rows.count == 1, "\(rows.count) annotation rows for tower \(fid)")
        return rows[0]
    }

    var rowCount: Int64 { get throws { try package.connection.scalarInt("SELECT count(*) FROM towers_anno") ?? -1 } }

    /// Changes feature `fid` as an edit would and regenerates its annotation with a fresh engine.
    @discardableResult
    func edit(_ fid: Int64, geometry: Geometry? = nil, attributes: [String: SQLValue] = [:], engine: AnnotationEngine? = nil) throws -> [AnnotationChange] {
        let before = try feature(fid)
        try package.updateFeature(towers, fid: fid, geometry: geometry, attributes: attributes)
        let engine = engine ?? AnnotationEngine(package: package)
        return try engine.regenerate(originTable: "towers", fid: fid, feature: feature(fid),
                                     previousGeometry: geometry == nil ? nil : before.geometry, isNew: false)
    }
}

/// `a` and `b` within `tolerance` in both coordinates.
func close(_ a: Point?, _ b: Point?, within tolerance: Double = 1e-6) -> Bool {
    guard let a, let b else { return false }
    return abs(a.x - b.x) <= tolerance && abs(a.y - b.y) <= tolerance
}
