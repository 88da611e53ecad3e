import Foundation
import Testing

@Suite("sample and info, end to end")
struct SampleInfoTests {
    @Test("sample writes a GeoPackage that GDAL's validator and ogrinfo accept")
    func sampleIsValidGeoPackage() throws {
        let dir = try Harness.temporaryDirectory()
        let path = dir.appendingPathComponent("s.gpkg").path
        let result = try Harness.annolink("sample", path, "--parcels", "300", "--seed", "5")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("300 address points"))

        #expect(try Harness.sqlite(path, "PRAGMA application_id") == "1196444487")
        #expect(try Harness.sqlite(path, "PRAGMA user_version") == "10300")
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM address_points") == "300")
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM rtree_parcel_lines_geom") == (try Harness.sqlite(path, "SELECT count(*) FROM parcel_lines")))
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM annolink_annotation_classes") == "2")
        // Every feature has its annotation, with the text of the Loudoun classes.
        #expect(try Harness.sqlite(path, """
            SELECT count(*) FROM address_points_anno a JOIN address_points p ON p.fid = a.FeatureID WHERE a.TextString = p.AD_ADDRESS || ' ' || p.ST_STR_NAM
            """) == "300")
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM parcel_lines_anno") == (try Harness.sqlite(path, "SELECT count(*) FROM parcel_lines")))
        // Every house number is unique per street, as in a real address register.
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM (SELECT AD_ADDRESS, ST_STR_NAM, ST_STR_TYP FROM address_points " +
            "GROUP BY 1, 2, 3 HAVING count(*) > 1)") == "0")

        guard Harness.hasGDAL else {
            Issue.record("GDAL is not installed: run scripts/test, which installs it")
            return
        }
        #expect(try Harness.validate(path) == "")
        let ogr = try Harness.run("/usr/bin/ogrinfo", ["-ro", "-so", "-al", path])
        #expect(ogr.status == 0)
        #expect(ogr.stdout.contains("Layer name: parcel_lines"))
        #expect(ogr.stdout.contains("Geometry: Line String"))
        #expect(ogr.stdout.contains("Feature Count: 300"))
        #expect(ogr.stdout.contains("NAD83(HARN) / Virginia North (ftUS)") || ogr.stdout.contains("EPSG\",\"2924\"")
            || ogr.stdout.contains("ID[\"EPSG\",2924]"))
    }

    @Test("the same seed gives the same data; another seed gives other data")
    func sampleIsDeterministic() throws {
        let dir = try Harness.temporaryDirectory()
        func make(_ name: String, _ seed: String) throws -> String {
            let path = dir.appendingPathComponent(name).path
            #expect(try Harness.annolink("sample", path, "--parcels", "100", "--seed", seed).status == 0)
            return try Harness.sqlite(path, "SELECT group_concat(hex(geom) || AD_ADDRESS, ',') FROM address_points") +
                (try Harness.sqlite(path, "SELECT group_concat(hex(geom), ',') FROM parcel_lines"))
        }
        let a = try make("a.gpkg", "42"), b = try make("b.gpkg", "42"), c = try make("c.gpkg", "43")
        #expect(a == b)
        #expect(a != c)
    }

    @Test("parcel line lengths are the stored Length attribute")
    func sampleLengths() throws {
        let dir = try Harness.temporaryDirectory()
        let path = dir.appendingPathComponent("s.gpkg").path
        #expect(try Harness.annolink("sample", path, "--parcels", "50").status == 0)
        guard Harness.hasGDAL else { return }
        // ogrinfo computes the length itself (SQLite dialect, SpatiaLite's ST_Length).
        let result = try Harness.run("/usr/bin/ogrinfo", ["-ro", "-q", path, "-dialect", "SQLite", "-sql",
            "SELECT count(*) AS bad FROM parcel_lines WHERE abs(ST_Length(geom) - Length) > 1e-6"])
        #expect(result.stdout.contains("bad (Integer) = 0"), "\(result.stdout)\(result.stderr)")
    }

    @Test("info lists the tables, their CRS, counts and annotation classes")
    func info() throws {
        let dir = try Harness.temporaryDirectory()
        let path = dir.appendingPathComponent("s.gpkg").path
        #expect(try Harness.annolink("sample", path, "--parcels", "24").status == 0)
        let text = try Harness.annolink("info", path)
        #expect(text.status == 0)
        #expect(text.stdout.contains("address_points (features): 24 POINT in EPSG:2924"))
        #expect(text.stdout.contains("parcel_lines (features): 62 LINESTRING"))
        #expect(text.stdout.contains("parcel_lines_anno (annotation): 62 POLYGON"))
        #expect(text.stdout.contains("62 annotation rows for 62 origin features"))
        #expect(text.stdout.contains("Round(Length(Geometry($feature), 'feet'), 2)"))

        let json = try Harness.annolink("info", path, "--json")
        #expect(json.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let tables = try #require(object["tables"] as? [[String: Any]])
        #expect(tables.map { $0["name"] as? String } == ["address_points", "parcel_lines", "address_points_anno", "parcel_lines_anno"])
        #expect(tables.first?["count"] as? Int == 24)
        #expect(tables.first?["srsID"] as? Int == 2924)
        let classes = try #require(object["annotationClasses"] as? [[String: Any]])
        #expect(classes.count == 2)
        #expect(classes.first?["originTable"] as? String == "address_points")
    }
}
