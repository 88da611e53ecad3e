import AnnoLinkGeometry
import AnnoLinkStore
import AnnoLinkTestSupport
import Foundation
import Testing

/// A GeoPackage in its own temporary directory with a line feature table, `parcel_lines`
/// (`Name`, `Length`), and its annotation table, `parcel_lines_anno`, one annotation per
/// feature; removed when the value goes away.
final class JournalScratch {
    private let scratch: ScratchDirectory
    let path: String
    let package: GeoPackage
    let lines: FeatureTable
    let annotation: FeatureTable

    init(features: Int = 6, srsID: Int64 = -1) throws {
        scratch = try ScratchDirectory(prefix: "journal")
        path = scratch.path("test.gpkg")
        package = try GeoPackage.create(path: path)
        if srsID > 0 {
            precondition(srsID == 2924, "only EPSG:2924's definition is at hand")
            // The store knows no PROJ: the WKT is `projinfo -o WKT1_GDAL --single-line -q EPSG:2924`.
            try package.addSpatialReferenceSystem(SpatialReferenceSystem(
                srsID: 2924, name: "NAD83(HARN) / Virginia North (ftUS)", organization: "EPSG", organizationCoordsysID: 2924,
                definition: Self.virginiaNorthWKT))
        }
        lines = try package.createFeatureTable(FeatureTableDefinition(
            name: "parcel_lines", geometryTypeName: "LINESTRING", srsID: srsID,
            columns: [Column(name: "Name", type: "TEXT"), Column(name: "Length", type: "REAL")]))
        annotation = try package.createAnnotationTable(name: "parcel_lines_anno", srsID: srsID)
        try package.connection.write {
            for i in 1...features { try insertLine(fid: Int64(i)) }
            try package.refreshContents(of: lines)
            try package.refreshContents(of: annotation)
        }
    }

    /// A two-point line of feature `fid`, in feet-like coordinates.
    static func line(_ fid: Int64, dx: Double = 0, dy: Double = 0) -> Geometry {
        let x = 11_896_000 + Double(fid % 100) * 40.25 + dx, y = 7_034_000 + Double(fid / 100) * 35.5 + dy
        return .lineString(LineString([Point(x: x, y: y), Point(x: x + 30.5, y: y + 20.125)]))
    }

    /// The footprint box of the annotation of feature `fid`.
    static func footprint(_ fid: Int64, dx: Double = 0, dy: Double = 0) -> Geometry {
        let x = 11_896_000 + Double(fid % 100) * 40.25 + dx + 5, y = 7_034_000 + Double(fid / 100) * 35.5 + dy + 12
        let ring = LineString([Point(x: x, y: y), Point(x: x + 20, y: y), Point(x: x + 20, y: y + 4), Point(x: x, y: y + 4), Point(x: x, y: y)])
        return .polygon(Polygon(exterior: ring))
    }

    /// Inserts feature `fid` and its annotation.
    func insertLine(fid: Int64, name: String? = nil) throws {
        try package.insertFeature(lines, fid: fid, geometry: Self.line(fid),
            attributes: ["Name": .text(name ?? "Line \(fid)"), "Length": .real(36.575 + Double(fid))])
        try package.insertFeature(annotation, geometry: Self.footprint(fid), attributes: [
            "FeatureID": .integer(fid), "TextString": .text(String(format: "%.2f", 36.575 + Double(fid))), "FontName": "Tahoma",
            "FontSize": 10.0, "AnchorX": .real(11_896_015 + Double(fid % 100) * 40.25), "AnchorY": .real(7_034_012 + Double(fid / 100) * 35.5),
        ])
    }

    /// A journal on a fresh connection to the file, as another process would open it.
    func otherProcess() throws -> (GeoPackage, Journal) {
        let other = try GeoPackage(path: path)
        return (other, try Journal(package: other))
    }

    /// Every row of every table, R-trees included, in a stable order: the journal's own tables
    /// (and their `gpkg_extensions` rows), the R-tree shadow tables and `sqlite_sequence` left out.
    func dump(_ connection: Connection? = nil) throws -> [String: [[SQLValue]]] {
        let c = connection ?? package.connection
        var result: [String: [[SQLValue]]] = [:]
        let tables = try c.rows("""
            SELECT name, sql LIKE 'CREATE VIRTUAL TABLE%' FROM sqlite_master WHERE type = 'table'
              AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND substr(name, 1, 16) != 'annolink_journal'
            """)
        for row in tables {
            guard let name = row[0].textValue else { continue }
            if name.hasPrefix("rtree_"), ["_node", "_parent", "_rowid"].contains(where: name.hasSuffix) { continue }
            let isVirtual = row[1].integerValue == 1
            var sql = "SELECT * FROM \(quoteIdentifier(name))"
            if name == "gpkg_extensions" { sql += " WHERE substr(table_name, 1, 16) IS NOT 'annolink_journal'" }
            sql += isVirtual ? " ORDER BY 1" : " ORDER BY rowid"
            result[name] = try c.rows(sql)
        }
        return result
    }

    /// The R-tree of `table` passes `rtreecheck` and holds, for every row with a geometry,
    /// exactly the box the rtree module stores for the geometry's envelope.
    func expectIndexMatchesGeometries(_ table: FeatureTable, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let c = package.connection
        let index = quoteIdentifier(table.spatialIndexName)
        #expect(try c.scalarText("SELECT rtreecheck(?)", [.text(table.spatialIndexName)]) == "ok", sourceLocation: sourceLocation)
        var expected: [[SQLValue]] = []
        try package.forEachFeature(table) { feature in
            guard let e = feature.geometry?.envelope else { return }
            expected.append([.integer(feature.fid), .real(Double(RTreeRounding.down(e.minX))), .real(Double(RTreeRounding.up(e.maxX))),
                             .real(Double(RTreeRounding.down(e.minY))), .real(Double(RTreeRounding.up(e.maxY)))])
        }
        let stored = try c.rows("SELECT id, minx, maxx, miny, maxy FROM \(index) ORDER BY id")
        #expect(stored.count == expected.count, sourceLocation: sourceLocation)
        #expect(stored == expected, sourceLocation: sourceLocation)
    }

    /// Moves the geometry of every row of `table` matching `condition` by `dx`, `dy`, one
    /// UPDATE per row, as the bulk move does.
    func translate(_ table: FeatureTable, where condition: String = "1", dx: Double, dy: Double) throws {
        let c = package.connection
        let select = try c.prepareUncached("SELECT fid, geom FROM \(quoteIdentifier(table.name)) WHERE \(condition) ORDER BY fid")
        var moved: [(Int64, [UInt8])] = []
        while try select.step() {
            var blob = select.blob(1) ?? []
            try GeoPackageGeometry.translate(blob: &blob, dx: dx, dy: dy)
            moved.append((select.int64(0), blob))
        }
        let update = try c.prepareUncached("UPDATE \(quoteIdentifier(table.name)) SET geom = ?1 WHERE fid = ?2")
        for (fid, blob) in moved {
            update.reset()
            try update.bind([.blob(blob), .integer(fid)])
            _ = try update.step()
        }
    }

    static let virginiaNorthWKT = #"PROJCS["NAD83(HARN) / Virginia North (ftUS)",GEOGCS["NAD83(HARN)",DATUM["NAD83_High_Accuracy_Reference_Network","# +
        #"SPHEROID["GRS 1980",6378137,298.257222101,AUTHORITY["EPSG","7019"]],AUTHORITY["EPSG","6152"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],"# +
        #"UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AUTHORITY["EPSG","4152"]],PROJECTION["Lambert_Conformal_Conic_2SP"],"# +
        #"PARAMETER["latitude_of_origin",37.6666666666667],PARAMETER["central_meridian",-78.5],PARAMETER["standard_parallel_1",39.2],"# +
        #"PARAMETER["standard_parallel_2",38.0333333333333],PARAMETER["false_easting",11482916.667],PARAMETER["false_northing",6561666.667],"# +
        #"UNIT["US survey foot",0.304800609601219,AUTHORITY["EPSG","9003"]],AXIS["Easting",EAST],AXIS["Northing",NORTH],AUTHORITY["EPSG","2924"]]"#
}
