import AnnoLinkGeometry
import AnnoLinkStore
import AnnoLinkTestSupport
import Foundation
import Testing

/// Creating and opening GeoPackages, feature tables, and feature reads and writes with their
/// R-tree and `gpkg_contents` extent kept in step.
@Suite("GeoPackage")
struct GeoPackageTests {
    /// A projected CRS in metres, written out so that no PROJ is needed.
    static let utm18N = SpatialReferenceSystem(
        srsID: 32618, name: "WGS 84 / UTM zone 18N", organization: "EPSG", organizationCoordsysID: 32618,
        definition: """
            PROJCS["WGS 84 / UTM zone 18N",GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],\
            PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],\
            PARAMETER["latitude_of_origin",0],PARAMETER["central_meridian",-75],PARAMETER["scale_factor",0.9996],\
            PARAMETER["false_easting",500000],PARAMETER["false_northing",0],UNIT["metre",1],AUTHORITY["EPSG","32618"]]
            """, description: "for the tests")

    /// A new GeoPackage with the UTM CRS and a table `sites` of `geometryType` with `Name TEXT
    /// NOT NULL`, `Height REAL`, `Built DATE`.
    final class Scratch {
        let directory: TemporaryDirectory
        let package: GeoPackage
        var table: FeatureTable

        init(geometryType: String = "GEOMETRY", spatialIndex: Bool = true) throws {
            directory = try TemporaryDirectory()
            package = try GeoPackage.create(path: directory.path("sites.gpkg"))
            try package.addSpatialReferenceSystem(GeoPackageTests.utm18N)
            table = try package.createFeatureTable(FeatureTableDefinition(
                name: "sites", geometryTypeName: geometryType, srsID: 32618,
                columns: [Column(name: "Name", type: "TEXT", isNotNull: true), Column(name: "Height", type: "REAL"), Column(name: "Built", type: "DATE")],
                description: "test sites"), spatialIndex: spatialIndex)
        }

        var connection: Connection { package.connection }

        /// The R-tree rows, and the rows it should have: every non-empty geometry's envelope
        /// rounded outward to 32-bit floats.
        func rtree() throws -> (stored: [[SQLValue]], expected: [[SQLValue]]) {
            var expected: [[SQLValue]] = []
            try package.forEachFeature(table) { feature in
                guard let e = feature.geometry?.envelope else { return }
                expected.append([.integer(feature.fid), .real(Double(RTreeRounding.down(e.minX))), .real(Double(RTreeRounding.up(e.maxX))),
                                 .real(Double(RTreeRounding.down(e.minY))), .real(Double(RTreeRounding.up(e.maxY)))])
            }
            let stored = try connection.rows("SELECT id, minx, maxx, miny, maxy FROM rtree_sites_geom ORDER BY id")
            return (stored, expected)
        }

        /// min_x, min_y, max_x, max_y of `sites` in `gpkg_contents`.
        func extent() throws -> [SQLValue] {
            try connection.rows("SELECT min_x, min_y, max_x, max_y FROM gpkg_contents WHERE table_name = 'sites'")[0]
        }
    }

    static func square(_ x: Double, _ y: Double, _ size: Double) -> Geometry {
        .polygon(Polygon(exterior: LineString([
            Point(x: x, y: y), Point(x: x + size, y: y), Point(x: x + size, y: y + size), Point(x: x, y: y + size), Point(x: x, y: y),
        ])))
    }

    // MARK: Files

    @Test("create writes a GeoPackage 1.3: application id, user version, the three required CRSs")
    func create() throws {
        let d = try TemporaryDirectory()
        let package = try GeoPackage.create(path: d.path("new.gpkg"))
        #expect(try package.connection.scalarInt("PRAGMA application_id") == 0x4750_4B47)
        #expect(try package.connection.scalarInt("PRAGMA user_version") == 10300)
        #expect(try package.connection.rows("SELECT srs_id FROM gpkg_spatial_ref_sys ORDER BY srs_id") == [[-1], [0], [4326]])
        #expect(try package.connection.scalarInt("PRAGMA foreign_keys") == 1)
        #expect(try package.featureTableNames() == [])
        #expect(try package.spatialReferenceSystem(4326)?.organizationCoordsysID == 4326)
        #expect(try package.spatialReferenceSystem(32618) == nil)
        #expect(throws: StoreError.fileExists(path: d.path("new.gpkg"))) { try GeoPackage.create(path: d.path("new.gpkg")) }
        // And it opens again.
        #expect(try GeoPackage(path: d.path("new.gpkg")).featureTableNames() == [])
    }

    @Test("opening refuses a missing file, a file that is not SQLite, and SQLite without the GeoPackage tables")
    func openRefusals() throws {
        let d = try TemporaryDirectory()
        let missing = d.path("missing.gpkg")
        #expect(throws: StoreError.missingFile(path: missing)) { try GeoPackage(path: missing) }
        let text = d.path("text.gpkg")
        try Data("not a database, just some text that is long enough to have a header".utf8).write(to: URL(fileURLWithPath: text))
        #expect(throws: StoreError.notAGeoPackage(path: text, reason: "not a SQLite database")) { try GeoPackage(path: text) }
        let plain = d.path("plain.sqlite")
        try Connection(path: plain, mode: .create).execute("CREATE TABLE t (a)")
        let error = #expect(throws: StoreError.self) { try GeoPackage(path: plain) }
        #expect(error?.description == "\(plain) is not a GeoPackage: it has no gpkg_spatial_ref_sys, gpkg_contents and gpkg_geometry_columns tables")
    }

    @Test("a spatial reference system is stored and read back field by field")
    func spatialReferenceSystem() throws {
        let s = try Scratch()
        #expect(try s.package.hasSpatialReferenceSystem(32618))
        #expect(try s.package.spatialReferenceSystem(32618) == Self.utm18N)
        #expect(Self.utm18N.metresPerUnitFromDefinition == 1)
        // Adding it again changes nothing.
        var renamed = Self.utm18N
        renamed.name = "other"
        try s.package.addSpatialReferenceSystem(renamed)
        #expect(try s.package.spatialReferenceSystem(32618)?.name == "WGS 84 / UTM zone 18N")
    }

    // MARK: Feature tables

    @Test("createFeatureTable registers the table in gpkg_contents, gpkg_geometry_columns and gpkg_extensions, with its R-tree")
    func createFeatureTable() throws {
        let s = try Scratch(geometryType: "POINT")
        let t = s.table
        #expect(t.name == "sites" && t.geometryColumn == "geom" && t.primaryKey == "fid")
        #expect(t.geometryTypeName == "POINT" && t.geometryKind == .point && t.srsID == 32618)
        #expect(!t.hasZ && !t.hasM && t.hasSpatialIndex)
        #expect(t.columns.map(\.name) == ["fid", "geom", "Name", "Height", "Built"])
        #expect(t.attributeColumns.map(\.name) == ["Name", "Height", "Built"])
        #expect(t.column("name")?.isNotNull == true)
        #expect(t.column("Built")?.affinity == .date)
        #expect(t.spatialIndexName == "rtree_sites_geom")
        #expect(try s.connection.rows("SELECT data_type, identifier, description, srs_id FROM gpkg_contents WHERE table_name = 'sites'")
            == [["features", "sites", "test sites", 32618]])
        #expect(try s.connection.rows("SELECT column_name, geometry_type_name, srs_id, z, m FROM gpkg_geometry_columns WHERE table_name = 'sites'")
            == [["geom", "POINT", 32618, 0, 0]])
        #expect(try s.connection.rows("SELECT column_name, extension_name, scope FROM gpkg_extensions WHERE table_name = 'sites'")
            == [["geom", "gpkg_rtree_index", "write-only"]])
        #expect(try s.connection.rows("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'sites' ORDER BY name").map { $0[0] }
            == ["rtree_sites_geom_delete", "rtree_sites_geom_insert", "rtree_sites_geom_update1", "rtree_sites_geom_update2",
                "rtree_sites_geom_update3", "rtree_sites_geom_update4"])
        #expect(try s.package.featureTableNames() == ["sites"])
        #expect(try s.package.featureTable("SITES") == t, "names match case-insensitively")
    }

    @Test("createFeatureTable refuses a name in use and an unregistered CRS, leaving nothing behind")
    func createFeatureTableRefusals() throws {
        let s = try Scratch()
        #expect(throws: StoreError.tableExists("Sites")) {
            try s.package.createFeatureTable(FeatureTableDefinition(name: "Sites", geometryTypeName: "POINT", srsID: 32618, columns: []))
        }
        #expect(throws: StoreError.unknownSpatialReference(srsID: 2924)) {
            try s.package.createFeatureTable(FeatureTableDefinition(name: "parcels", geometryTypeName: "POLYGON", srsID: 2924, columns: []))
        }
        #expect(try !s.connection.hasTable("parcels"))
        #expect(try s.connection.scalarInt("SELECT count(*) FROM gpkg_contents WHERE table_name = 'parcels'") == 0)
        #expect(try s.package.featureTableNames() == ["sites"])
    }

    @Test("unknown tables, features and columns are errors that name them")
    func unknowns() throws {
        let s = try Scratch()
        try s.package.insertFeature(s.table, geometry: .point(Point(x: 1, y: 2)), attributes: ["Name": "a"])
        #expect(throws: StoreError.unknownTable("nowhere")) { try s.package.featureTable("nowhere") }
        // gpkg_spatial_ref_sys is a table, but not a feature table.
        #expect(throws: StoreError.unknownTable("gpkg_spatial_ref_sys")) { try s.package.featureTable("gpkg_spatial_ref_sys") }
        #expect(throws: StoreError.unknownFeature(table: "sites", fid: 5)) { try s.package.feature(s.table, fid: 5) }
        #expect(throws: StoreError.unknownFeature(table: "sites", fid: 5)) { try s.package.updateFeature(s.table, fid: 5, attributes: ["Name": "b"]) }
        #expect(throws: StoreError.unknownFeature(table: "sites", fid: 5)) { try s.package.deleteFeature(s.table, fid: 5) }
        #expect(throws: StoreError.unknownColumn(table: "sites", column: "Colour")) {
            try s.package.updateFeature(s.table, fid: 1, attributes: ["Colour": "red"])
        }
        #expect(throws: StoreError.unknownColumn(table: "sites", column: "Colour")) {
            try s.package.insertFeature(s.table, geometry: nil, attributes: ["Name": "c", "Colour": "red"])
        }
        #expect(StoreError.unknownColumn(table: "sites", column: "Colour").description == "table 'sites' has no column 'Colour'")
        #expect(StoreError.unknownFeature(table: "sites", fid: 5).description == "table 'sites' has no feature with fid 5")
        #expect(try s.connection.scalarInt("SELECT count(*) FROM sites") == 1, "the refused insert wrote nothing")
    }

    // MARK: Features

    @Test("features are inserted and read back with their geometry and attributes")
    func insertAndRead() throws {
        let s = try Scratch()
        let line = Geometry.lineString(LineString([Point(x: 500_000.125, y: 4_000_000.5), Point(x: 500_010.75, y: 4_000_020.25)]))
        let first = try s.package.insertFeature(s.table, geometry: line, attributes: ["Name": "Bridge", "height": 12.5, "Built": "1931-05-01"])
        let second = try s.package.insertFeature(s.table, geometry: Self.square(500_100, 4_000_100, 8), attributes: ["Name": "Hall"])
        let chosen = try s.package.insertFeature(s.table, fid: 40, geometry: .point(Point(x: 499_990, y: 3_999_990)), attributes: ["Name": "Well"])
        #expect([first, second, chosen] == [1, 2, 40])
        let bridge = try s.package.feature(s.table, fid: 1)
        #expect(bridge == Feature(fid: 1, geometry: line, attributes: ["Name": "Bridge", "Height": 12.5, "Built": "1931-05-01"]))
        let hall = try s.package.feature(s.table, fid: 2)
        #expect(hall.geometry == Self.square(500_100, 4_000_100, 8))
        #expect(hall.attributes == ["Name": "Hall", "Height": nil, "Built": nil])
        // The blob is a StandardGeoPackageBinary with the table's srs id.
        let blob = try #require(try s.connection.rows("SELECT geom FROM sites WHERE fid = 40").first?.first?.blobValue)
        #expect(Array(blob.prefix(2)) == Array("GP".utf8))
        #expect(try GeoPackageGeometry(blob: blob).srsID == 32618)
        #expect(try GeoPackageGeometry(blob: blob).geometry == .point(Point(x: 499_990, y: 3_999_990)))
    }

    @Test("a feature without geometry is stored with NULL and has no R-tree row")
    func nullGeometry() throws {
        let s = try Scratch()
        let fid = try s.package.insertFeature(s.table, geometry: nil, attributes: ["Name": "Nowhere"])
        #expect(try s.package.feature(s.table, fid: fid).geometry == nil)
        #expect(try s.connection.scalarInt("SELECT count(*) FROM rtree_sites_geom") == 0)
    }

    @Test("a NOT NULL column left out fails in SQLite as a constraint violation")
    func notNull() throws {
        let s = try Scratch()
        let error = #expect(throws: SQLiteError.self) { try s.package.insertFeature(s.table, geometry: .point(Point(x: 1, y: 1)), attributes: ["Height": 3.0]) }
        #expect(primaryCode(error) == PrimaryCode.constraint)
        #expect(error?.message == "NOT NULL constraint failed: sites.Name")
    }

    @Test("the store writes a geometry as given: checking its kind is the edit service's (AnnoLinkEditingTests)")
    func kindNotCheckedHere() throws {
        let s = try Scratch(geometryType: "POINT")
        let fid = try s.package.insertFeature(s.table, geometry: Self.square(0, 0, 1), attributes: ["Name": "x"])
        #expect(try s.package.feature(s.table, fid: fid).geometry == Self.square(0, 0, 1))
    }

    @Test("forEachFeature takes a condition with bindings and a subset of the fields, in fid order")
    func forEachFeature() throws {
        let s = try Scratch()
        for (i, name) in ["c", "a", "b", "d"].enumerated() {
            try s.package.insertFeature(s.table, geometry: .point(Point(x: Double(i), y: 0)),
                attributes: ["Name": .text(name), "Height": .real(Double(i) * 10)])
        }
        var seen: [Feature] = []
        try s.package.forEachFeature(s.table, where: "Height >= ?", bindings: [10], fields: ["name", "nothing"]) { seen.append($0) }
        #expect(seen.map(\.fid) == [2, 3, 4])
        #expect(seen.map(\.attributes) == [["Name": "a"], ["Name": "b"], ["Name": "d"]])
        #expect(seen.map(\.geometry) == [1, 2, 3].map { .point(Point(x: Double($0), y: 0)) })
    }

    @Test("updates change the geometry, the attributes, or both, and nothing else")
    func update() throws {
        let s = try Scratch()
        try s.package.insertFeature(s.table, geometry: .point(Point(x: 10, y: 10)), attributes: ["Name": "One", "Height": 1.0])
        try s.package.insertFeature(s.table, geometry: .point(Point(x: 20, y: 20)), attributes: ["Name": "Two", "Height": 2.0])
        try s.package.updateFeature(s.table, fid: 1, geometry: .point(Point(x: 11, y: 12)))
        #expect(try s.package.feature(s.table, fid: 1)
            == Feature(fid: 1, geometry: .point(Point(x: 11, y: 12)), attributes: ["Name": "One", "Height": 1.0, "Built": nil]))
        try s.package.updateFeature(s.table, fid: 1, attributes: ["height": nil, "NAME": "Uno"])
        #expect(try s.package.feature(s.table, fid: 1)
            == Feature(fid: 1, geometry: .point(Point(x: 11, y: 12)), attributes: ["Name": "Uno", "Height": nil, "Built": nil]))
        try s.package.updateFeature(s.table, fid: 1, geometry: Self.square(0, 0, 3), attributes: ["Built": "2020-02-29"])
        #expect(try s.package.feature(s.table, fid: 1).geometry == Self.square(0, 0, 3))
        #expect(try s.package.feature(s.table, fid: 1).attributes["Built"] == "2020-02-29")
        #expect(try s.package.feature(s.table, fid: 2)
            == Feature(fid: 2, geometry: .point(Point(x: 20, y: 20)), attributes: ["Name": "Two", "Height": 2.0, "Built": nil]))
    }

    @Test("the R-tree holds every geometry's rounded envelope through inserts, updates and deletes")
    func rtreeInStep() throws {
        let s = try Scratch()
        for i in 0..<20 {
            let x = 500_000 + Double(i) * 37.3, y = 4_000_000 + Double(i % 5) * 91.7
            let geometry: Geometry = i % 2 == 0 ? Self.square(x, y, 5.5 + Double(i))
                : .lineString(LineString([Point(x: x, y: y), Point(x: x + 20.25, y: y - 13.5)]))
            try s.package.insertFeature(s.table, geometry: geometry, attributes: ["Name": .text("site \(i)")])
        }
        var (stored, expected) = try s.rtree()
        #expect(stored.count == 20)
        #expect(stored == expected)
        try s.package.updateFeature(s.table, fid: 3, geometry: Self.square(600_000, 4_100_000, 1))
        try s.package.updateFeature(s.table, fid: 4, geometry: .point(Point(x: 499_000.5, y: 3_999_000.25)))
        try s.package.updateFeature(s.table, fid: 5, attributes: ["Name": "renamed"])
        try s.package.deleteFeature(s.table, fid: 7)
        try s.connection.run("UPDATE sites SET geom = NULL WHERE fid = 8")
        (stored, expected) = try s.rtree()
        #expect(stored.count == 18)
        #expect(stored == expected)
        #expect(try s.connection.scalarText("SELECT rtreecheck('rtree_sites_geom')") == "ok")
    }

    @Test("createSpatialIndex afterwards fills the R-tree from the rows already there")
    func spatialIndexAfterwards() throws {
        let s = try Scratch(spatialIndex: false)
        #expect(!s.table.hasSpatialIndex)
        for i in 0..<50 {
            try s.package.insertFeature(s.table, geometry: .point(Point(x: 500_000 + Double(i * 7), y: 4_000_000 - Double(i * 3))), attributes: ["Name": "p"])
        }
        try s.package.createSpatialIndex(table: "sites", column: "geom")
        s.table = try s.package.featureTable("sites")
        #expect(s.table.hasSpatialIndex)
        let (stored, expected) = try s.rtree()
        #expect(stored.count == 50)
        #expect(stored == expected)
        // The triggers now keep it in step.
        try s.package.deleteFeature(s.table, fid: 50)
        #expect(try s.rtree().stored.count == 49)
    }

    @Test("refreshContents sets the extent from the R-tree and shrinks it when the outermost feature goes")
    func contentsExtent() throws {
        let s = try Scratch()
        try s.package.insertFeature(s.table, geometry: Self.square(500_000.3, 4_000_000.6, 10), attributes: ["Name": "a"])
        try s.package.insertFeature(s.table, geometry: .point(Point(x: 501_234.7, y: 4_003_210.1)), attributes: ["Name": "b"])
        try s.package.insertFeature(s.table, geometry: .point(Point(x: 500_500, y: 4_001_000)), attributes: ["Name": "c"])
        #expect(try s.extent() == [nil, nil, nil, nil], "nothing refreshed yet")
        try s.package.refreshContents(of: s.table)
        func rounded(_ minX: Double, _ minY: Double, _ maxX: Double, _ maxY: Double) -> [SQLValue] {
            [
                .real(Double(RTreeRounding.down(minX))), .real(Double(RTreeRounding.down(minY))),
                .real(Double(RTreeRounding.up(maxX))), .real(Double(RTreeRounding.up(maxY))),
            ]
        }
        #expect(try s.extent() == rounded(500_000.3, 4_000_000.6, 501_234.7, 4_003_210.1))
        let stamp = try #require(try s.connection.scalarText("SELECT last_change FROM gpkg_contents WHERE table_name = 'sites'"))
        #expect(stamp.range(of: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$"#, options: .regularExpression) != nil, "\(stamp)")
        try s.package.deleteFeature(s.table, fid: 2)
        try s.package.refreshContents(of: s.table)
        #expect(try s.extent() == rounded(500_000.3, 4_000_000.6, 500_500, 4_001_000))
    }

    @Test("without an R-tree the extent is exact, from the geometries")
    func contentsExtentWithoutIndex() throws {
        let s = try Scratch(spatialIndex: false)
        try s.package.insertFeature(s.table, geometry: Self.square(500_000.3, 4_000_000.6, 10), attributes: ["Name": "a"])
        try s.package.insertFeature(s.table, geometry: .point(Point(x: 501_234.7, y: 4_003_210.1)), attributes: ["Name": "b"])
        try s.package.insertFeature(s.table, geometry: nil, attributes: ["Name": "c"])
        try s.package.refreshContents(of: s.table)
        #expect(try s.extent() == [500_000.3, 4_000_000.6, 501_234.7, 4_003_210.1])
    }

    @Test("a read-only GeoPackage reads and refuses writes")
    func readOnly() throws {
        let s = try Scratch()
        try s.package.insertFeature(s.table, geometry: .point(Point(x: 1, y: 2)), attributes: ["Name": "a"])
        let reader = try GeoPackage(path: s.package.path, readOnly: true)
        let table = try reader.featureTable("sites")
        #expect(try reader.feature(table, fid: 1).attributes["Name"] == "a")
        let error = #expect(throws: SQLiteError.self) { try reader.insertFeature(table, geometry: .point(Point(x: 3, y: 4)), attributes: ["Name": "b"]) }
        // query_only refuses the write itself (SQLITE_READONLY); a read-only connection also
        // distrusts the schema, so the R-tree trigger may refuse first (SQLITE_ERROR).
        #expect([PrimaryCode.readOnly, PrimaryCode.error].contains(primaryCode(error)), "\(String(describing: error))")
        #expect(throws: SQLiteError.self) { try reader.deleteFeature(table, fid: 1) }
        #expect(try s.connection.scalarInt("SELECT count(*) FROM sites") == 1)
    }

    @Test("GDAL's validate_gpkg.py finds nothing wrong with a filled GeoPackage")
    func gdalValidates() throws {
        let s = try Scratch(geometryType: "POLYGON")
        for i in 0..<5 {
            try s.package.insertFeature(s.table, geometry: Self.square(500_000 + Double(i) * 20, 4_000_000, 10), attributes: ["Name": .text("\(i)")])
        }
        try s.package.deleteFeature(s.table, fid: 2)
        try s.package.refreshContents(of: s.table)
        // The validator reads the header bytes, which WAL mode writes at a checkpoint.
        try s.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let result = try GeoPackageValidator.validate(s.package.path)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(result.output)")
    }
}

@Suite("Column affinity")
struct ColumnAffinityTests {
    @Test("a declared type's name decides, in any case, with spaces and a length around it", arguments: [
        ("INTEGER", ColumnAffinity.integer), ("mediumint", .integer), (" SMALLINT ", .integer), ("TEXT(38)", .text), ("text (255)", .text),
        ("DOUBLE", .real), ("Float", .real), ("BOOLEAN", .boolean), ("DATE", .date), ("DATETIME", .dateTime), ("BLOB(10)", .blob),
        ("POINT", .geometry), ("multipolygon", .geometry), ("", .text), ("VARCHAR(5)", .text), ("DOUBLE PRECISION", .text),
    ])
    func declared(_ declared: String, _ affinity: ColumnAffinity) {
        #expect(ColumnAffinity(declaredType: declared) == affinity)
    }
}
