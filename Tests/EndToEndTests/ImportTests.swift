import AnnoLinkTestSupport
import Foundation
import Testing

/// `annolink import` on Esri's Loudoun mobile geodatabase, checked with GDAL's tools.
@Suite("import, end to end")
struct ImportTests {
    @Test("the imported Loudoun file passes GDAL's validator and ogrinfo sees the four tables")
    func loudounIsValid() throws {
        guard let path = try Harness.importLoudoun(), Harness.hasGDAL else { return }
        #expect(try Harness.validate(path) == "")
        let expected = [
            ("Loudoun_Address_Points_1", "Point", 33), ("ParcelLines_1", "Line String", 115),
            ("Loudoun_Address_PointsAnno_1", "Polygon", 33), ("ParcelLinesAnno_1", "Polygon", 115),
        ]
        for (layer, geometry, count) in expected {
            let result = try Harness.run("/usr/bin/ogrinfo", ["-ro", "-so", path, layer])
            #expect(result.status == 0)
            #expect(result.stdout.contains("Geometry: \(geometry)\n"), "\(layer): \(result.stdout)")
            #expect(result.stdout.contains("Feature Count: \(count)\n"), "\(layer)")
            #expect(result.stdout.contains("ID[\"EPSG\",2924]"), "\(layer)")
            #expect(!result.stderr.contains("Warning"), "\(layer): \(result.stderr)")
        }
    }

    @Test("decoded parcel line lengths equal the Length attribute within 0.01 ft for at least 114 of 115")
    func loudounLengths() throws {
        guard let path = try Harness.importLoudoun(), Harness.hasGDAL else { return }
        // GDAL measures the geometry itself (SQLite dialect, SpatiaLite's ST_Length), so the
        // decoding is checked by a tool no one here wrote.
        let result = try Harness.run("/usr/bin/ogrinfo", ["-ro", "-q", path, "-dialect", "SQLite", "-sql",
            "SELECT sum(abs(ST_Length(geom) - Length) <= 0.01) AS good, count(*) AS total FROM ParcelLines_1"])
        #expect(result.stdout.contains("total (Integer) = 115"), "\(result.stdout)")
        let good = result.stdout.split(separator: "\n").first { $0.contains("good (Integer) = ") }
            .flatMap { Int($0.split(separator: "=").last!.trimmingCharacters(in: .whitespaces)) }
        #expect((good ?? 0) >= 114, "\(result.stdout)")
    }

    @Test("every annotation row is linked to its origin by fid, with text, anchor and angle")
    func loudounAnnotation() throws {
        guard let path = try Harness.importLoudoun() else { return }
        // FeatureGlobalID was resolved to the fid of the feature with that GlobalID.
        #expect(try Harness.sqlite(path, """
            SELECT count(*) FROM ParcelLinesAnno_1 a JOIN ParcelLines_1 f ON f.fid = a.FeatureID AND f.GlobalID = a.FeatureGlobalID
            """) == "115")
        #expect(try Harness.sqlite(path, """
            SELECT count(*) FROM Loudoun_Address_PointsAnno_1 a JOIN Loudoun_Address_Points_1 f ON f.fid = a.FeatureID AND f.GlobalID = a.FeatureGlobalID
            """) == "33")
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM ParcelLinesAnno_1 " +
            "WHERE AnchorX IS NULL OR TextString IS NULL OR Angle < 0 OR Angle >= 360") == "0")
        // The Esri ObjectID is the fid; the address points' ObjectID column is OBJECTID_1.
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM Loudoun_Address_Points_1 WHERE fid IS NOT NULL") == "33")
        // Address text is AD_ADDRESS, a space, ST_STR_NAM for every row (loudoun-facts.md).
        #expect(try Harness.sqlite(path, """
            SELECT count(*) FROM Loudoun_Address_PointsAnno_1 a JOIN Loudoun_Address_Points_1 f ON f.fid = a.FeatureID
            WHERE a.TextString = f.AD_ADDRESS || ' ' || f.ST_STR_NAM
            """) == "33")
        // The anchor of center-aligned text is the middle of the baseline, so it lies inside
        // the footprint's box.
        #expect(try Harness.sqlite(path, """
            SELECT count(*) FROM ParcelLinesAnno_1 a JOIN rtree_ParcelLinesAnno_1_geom r ON r.id = a.fid
            WHERE a.AnchorX BETWEEN r.minx AND r.maxx AND a.AnchorY BETWEEN r.miny AND r.maxy
            """) == "115")
        let classes = try Harness.sqlite(path, "SELECT annotation_table || '|' || origin_table || '|' || expression || '|' || placement " +
            "FROM annolink_annotation_classes ORDER BY 1")
        #expect(classes == """
            Loudoun_Address_PointsAnno_1|Loudoun_Address_Points_1|$feature.AD_ADDRESS + " " + $feature.ST_STR_NAM|point
            ParcelLinesAnno_1|ParcelLines_1|Round(Length(Geometry($feature), 'feet'), 2)|line
            """)
    }

    @Test("the import reports what it did not convert")
    func loudounReport() throws {
        let source = Harness.loudoun
        let path = try Harness.temporaryDirectory().appendingPathComponent("l.gpkg").path
        let result = try Harness.annolink("import", source, path)
        #expect(result.stdout.contains("ParcelLinesAnno_1: 115 POLYGON annotation (EPSG:2924)"))
        #expect(result.stdout.contains("2 annotation classes registered"))
        #expect(result.stdout.contains("not converted:"))
        #expect(result.stdout.contains("ParcelLinesAnno_1.Element"))
    }

    @Test("a GeoPackage source is copied as it is")
    func copiesGeoPackage() throws {
        let dir = try Harness.temporaryDirectory()
        let original = dir.appendingPathComponent("a.gpkg").path, copy = dir.appendingPathComponent("b.gpkg").path
        #expect(try Harness.annolink("sample", original, "--parcels", "40").status == 0)
        let result = try Harness.annolink("import", original, copy)
        #expect(result.status == 0, "\(result.stderr)")
        for table in ["address_points", "parcel_lines", "annolink_annotation_classes"] {
            let dump = "SELECT * FROM \(table)"
            #expect(try Harness.sqlite(original, dump) == (try Harness.sqlite(copy, dump)), "\(table)")
        }
        let helsinki = Fixtures.helsinki
        let out = dir.appendingPathComponent("h.gpkg").path
        #expect(try Harness.annolink("import", helsinki, out).status == 0)
        #expect(try Harness.sqlite(out, "SELECT count(*) FROM address_points") == (try Harness.sqlite(helsinki, "SELECT count(*) FROM address_points")))
    }

    @Test("bad sources give one error line and the documented status, and leave nothing behind")
    func badSources() throws {
        let dir = try Harness.temporaryDirectory()
        let dest = dir.appendingPathComponent("out.gpkg").path
        let missing = try Harness.annolink("import", dir.appendingPathComponent("none.geodatabase").path, dest)
        #expect(missing.status == 66)
        #expect(missing.stderrLines.count == 1 && missing.stderr.hasPrefix("error: no such file"))

        let junk = dir.appendingPathComponent("junk.geodatabase")
        try Data(repeating: 0x5A, count: 4096).write(to: junk)
        let notDatabase = try Harness.annolink("import", junk.path, dest)
        #expect(notDatabase.status == 65)
        #expect(notDatabase.stderrLines.count == 1 && notDatabase.stderr.hasPrefix("error: "))

        let plain = dir.appendingPathComponent("plain.sqlite").path
        _ = try Harness.sqlite(plain, "CREATE TABLE t(x)")
        let neither = try Harness.annolink("import", plain, dest)
        #expect(neither.status == 65)
        #expect(neither.stderr.contains("not a GeoPackage"))
        #expect(!FileManager.default.fileExists(atPath: dest))
    }

    @Test("a corrupt geometry blob in the source names the table and row")
    func corruptShape() throws {
        let dir = try Harness.temporaryDirectory()
        // A writable copy: the fixture itself is never changed.
        let copy = URL(fileURLWithPath: try Fixtures.copy("loudoun_anno.geodatabase", into: dir, as: "broken.geodatabase"))
        // The geodatabase's own triggers call ArcGIS functions; drop the two that would fire.
        #expect(try Harness.sqlite(copy.path, "DROP TRIGGER st_update_trigger_ParcelLines_1_Shape; " +
            "DROP TRIGGER st_update1_trigger_ParcelLines_1_Shape; " +
            "UPDATE ParcelLines_1 SET Shape = X'646C0B0005000000FFFFFFFFFFFFFFFFFFFF' WHERE OBJECTID = 134447; SELECT changes()") == "1")
        let dest = dir.appendingPathComponent("out.gpkg").path
        let result = try Harness.annolink("import", copy.path, dest)
        #expect(result.status == 65)
        #expect(result.stderrLines.count == 1)
        #expect(result.stderr.hasPrefix("error: ParcelLines_1 ObjectID 134447: the shape cannot be read"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dest))
    }
}
