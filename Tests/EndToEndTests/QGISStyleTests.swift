import AnnoLinkTestSupport
import Foundation
import Testing

/// The QGIS styles annolink writes into `layer_styles`, checked by QGIS itself (Debian's
/// python3-qgis, headless): it must apply them on its own and place every label where annolink
/// has it.
@Suite("QGIS styles, end to end")
struct QGISStyleTests {
    /// Opens every annotation table of the GeoPackage given as the first argument in QGIS, lets
    /// it apply the file's own default style (nothing is set here), renders the extent of all of
    /// them with QgsMapRendererSequentialJob and prints, for each label QGIS placed, the table,
    /// fid, the distance in points (at the class's reference scale) between QGIS's anchor and
    /// annolink's, and the difference of their angles in degrees. QGIS's anchor is read from its
    /// label polygon (corner points from the bottom-left, counter-clockwise) by the row's
    /// alignments: along the baseline at the start, middle or end; across it at the top, the
    /// middle, the bottom, or the font's descent above the bottom (Qt's metrics of the font QGIS
    /// drew with). Tahoma comes from the folder annolink measures it in (fonts-wine), which
    /// fontconfig does not list, so it is added to Qt's fonts first.
    static let script = #"""
        import glob, math, os, sqlite3, sys
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        from qgis.core import QgsApplication, QgsMapRendererSequentialJob, QgsMapSettings, QgsProject, QgsVectorLayer
        from qgis.PyQt.QtCore import QSize
        from qgis.PyQt.QtGui import QFont, QFontDatabase, QFontMetricsF
        app = QgsApplication([], False)
        app.initQgis()
        for font in glob.glob("/usr/share/wine/fonts/*.ttf"):
            QFontDatabase.addApplicationFont(font)
        path = sys.argv[1]
        db = sqlite3.connect(path)
        classes = {(t, c): s for t, c, s in db.execute("SELECT annotation_table, class_id, reference_scale FROM annolink_annotation_classes")}
        unit = float(sys.argv[2])
        layers = []
        for (table,) in db.execute("SELECT DISTINCT annotation_table FROM annolink_annotation_classes ORDER BY 1"):
            layer = QgsVectorLayer(path + "|layername=" + table, table, "ogr")
            assert layer.isValid() and layer.labelsEnabled(), table
            QgsProject.instance().addMapLayer(layer)
            layers.append(layer)
        settings = QgsMapSettings()
        settings.setLayers(layers)
        settings.setDestinationCrs(layers[0].crs())
        extent = layers[0].extent()
        for layer in layers[1:]:
            extent.combineExtentWith(layer.extent())
        extent.grow(100)
        settings.setExtent(extent)
        settings.setOutputSize(QSize(2000, 2000))
        settings.setOutputDpi(96)
        job = QgsMapRendererSequentialJob(settings)
        job.start()
        job.waitForFinished()
        names = {layer.id(): layer.name() for layer in layers}
        for label in job.takeLabelingResults().allLabels():
            table = names[label.layerID]
            x, y, angle, size, h, v, klass, text = db.execute(
                'SELECT AnchorX, AnchorY, Angle, FontSize, HorizontalAlignment, VerticalAlignment, AnnotationClassID, TextString '
                'FROM "%s" WHERE fid = ?' % table, (label.featureId,)).fetchone()
            perpoint = classes[(table, klass)] * 0.0254 / 72 / unit
            bl, br, tr, tl = [(p.x(), p.y()) for p in label.cornerPoints]
            width, height = math.dist(bl, br), math.dist(bl, tl)
            ux, uy = (br[0] - bl[0]) / width, (br[1] - bl[1]) / width
            nx, ny = -uy, ux
            probe = QFont(label.labelFont.family())
            probe.setPixelSize(1000)
            descent = QFontMetricsF(probe).descent() / 1000 * size * perpoint
            along = {0: 0, 2: width}.get(h, width / 2)
            across = {0: height, 1: height / 2, 3: 0}.get(v, descent)
            qx, qy = bl[0] + ux * along + nx * across, bl[1] + uy * along + ny * across
            qangle = math.degrees(math.atan2(uy, ux)) % 360
            print(table, label.featureId, label.labelFont.family().replace(" ", "_"), "%.4f" % (math.hypot(qx - x, qy - y) / perpoint),
                  "%.5f" % abs((qangle - angle + 180) % 360 - 180), "%d" % (label.labelText == text))
        """#

    @Test("QGIS applies the imported Loudoun file's styles by itself and places all 148 labels within 1 pt and 0.5° of annolink's")
    func loudounInQGIS() throws {
        let path = try #require(try Harness.importLoudoun())
        #expect(try Harness.validate(path) == "")
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM layer_styles WHERE useAsDefault AND styleName = 'annolink'") == "8")
        // EPSG:2924's unit, the US survey foot.
        let result = try ExternalTool.run("/usr/bin/python3", ["-", path, String(1200.0 / 3937)], stdin: Self.script)
        #expect(result.status == 0, "\(result.stderr)")
        var placed = Set<String>()
        for line in result.stdout.split(separator: "\n") {
            let f = line.split(separator: " ").map(String.init)
            guard f.count == 6, let distance = Double(f[3]), let angle = Double(f[4]) else {
                Issue.record("unexpected line: \(line)")
                continue
            }
            placed.insert("\(f[0]) \(f[1])")
            #expect(distance <= 1, "\(f[0]) fid \(f[1]): QGIS's anchor is \(distance) pt from annolink's")
            #expect(angle <= 0.5, "\(f[0]) fid \(f[1]): QGIS's angle differs by \(angle)°")
            #expect(f[5] == "1", "\(f[0]) fid \(f[1]): QGIS shows another text")
            #expect(f[2] == "Tahoma", "\(f[0]) fid \(f[1]): QGIS drew with \(f[2])")
        }
        #expect(placed.count == 148, "QGIS placed \(placed.count) labels")
    }

    @Test("sample and annotate write styles; style rewrites them for a file that lost them; each file stays valid")
    func styleCommand() throws {
        let folder = try Harness.temporaryDirectory()
        let path = folder.appendingPathComponent("sample.gpkg").path
        #expect(try Harness.annolink("sample", path, "--parcels", "20").status == 0)
        #expect(try Harness.sqlite(path, "SELECT group_concat(f_table_name, ' ') FROM (SELECT f_table_name FROM layer_styles ORDER BY 1)")
            == "address_points address_points_anno parcel_lines parcel_lines_anno")
        #expect(try Harness.validate(path) == "")
        let annotate = try Harness.annolink("annotate", path, "--origin", "parcel_lines", "--into", "lengths_anno", "--expression", "$feature.LEFT_FID",
                                            "--placement", "line", "--reference-scale", "600")
        #expect(annotate.status == 0, "\(annotate.stderr)")
        let qml = try Harness.sqlite(path, "SELECT styleQML FROM layer_styles WHERE f_table_name = 'lengths_anno' AND useAsDefault")
        // 10 pt at 1:600 in US survey feet: 600 × 0.0254 / 72 / 0.3048006 ft per point.
        #expect(qml.contains("&quot;FontSize&quot; * 0.69444"), "\(qml)")
        #expect(qml.contains("fieldName=\"TextString\""))
        #expect(try Harness.validate(path) == "")

        // A file someone else wrote: the styles are gone, one of theirs is there.
        try Harness.gdalSQL(path, "DELETE FROM layer_styles WHERE styleName = 'annolink'")
        try Harness.gdalSQL(path, """
            INSERT INTO layer_styles (f_table_catalog, f_table_schema, f_table_name, f_geometry_column, styleName, styleQML, useAsDefault)
            VALUES ('', '', 'parcel_lines_anno', 'geom', 'theirs', '<qgis/>', 1)
            """)
        let result = try Harness.annolink("style", path, "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let kinds = (object?["tables"] as? [[String: String]] ?? []).map { "\($0["name"] ?? "") \($0["kind"] ?? "")" }
        let documented = [
            "address_points features", "parcel_lines features", "address_points_anno annotation", "parcel_lines_anno annotation",
            "lengths_anno annotation",
        ]
        #expect(kinds == documented, "\(kinds)")
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM layer_styles WHERE styleName = 'annolink' AND useAsDefault") == "5")
        #expect(try Harness.sqlite(path, "SELECT useAsDefault FROM layer_styles WHERE styleName = 'theirs'") == "0")
        #expect(try Harness.validate(path) == "")
        let missing = try Harness.annolink("style", folder.appendingPathComponent("none.gpkg").path)
        #expect(missing.status == 66 && missing.stderr.hasPrefix("error: "))
    }

    /// Opens the two Loudoun annotation tables in QGIS from the GeoPackage or the PostGIS
    /// database given first (`postgresql://…`), with whatever default style QGIS finds for them
    /// there, renders their extent and prints each label QGIS placed: table, key, text and its
    /// label polygon's corners to a thousandth of a foot.
    static let placedLabels = #"""
        import os, sys, urllib.parse
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        from qgis.core import QgsApplication, QgsDataSourceUri, QgsMapRendererSequentialJob, QgsMapSettings, QgsProject, QgsVectorLayer
        from qgis.PyQt.QtCore import QSize
        app = QgsApplication([], False)
        app.initQgis()
        source = sys.argv[1]
        layers = []
        for table in ["Loudoun_Address_PointsAnno_1", "ParcelLinesAnno_1"]:
            if source.startswith("postgresql://"):
                url = urllib.parse.urlparse(source)
                uri = QgsDataSourceUri()
                uri.setConnection(url.hostname, str(url.port), url.path.lstrip("/"), url.username or "", "")
                uri.setDataSource("public", table, "geom", "", "fid")
                layer = QgsVectorLayer(uri.uri(False), table, "postgres")
            else:
                layer = QgsVectorLayer(source + "|layername=" + table, table, "ogr")
            assert layer.isValid(), table
            print("labels", table, layer.labelsEnabled())
            QgsProject.instance().addMapLayer(layer)
            layers.append(layer)
        settings = QgsMapSettings()
        settings.setLayers(layers)
        settings.setDestinationCrs(layers[0].crs())
        extent = layers[0].extent()
        extent.combineExtentWith(layers[1].extent())
        extent.grow(100)
        settings.setExtent(extent)
        settings.setOutputSize(QSize(2000, 2000))
        settings.setOutputDpi(96)
        job = QgsMapRendererSequentialJob(settings)
        job.start()
        job.waitForFinished()
        names = {layer.id(): layer for layer in layers}
        for label in job.takeLabelingResults().allLabels():
            layer = names[label.layerID]
            key = layer.getFeature(label.featureId)["fid"]
            corners = " ".join("%.3f,%.3f" % (p.x(), p.y()) for p in label.cornerPoints)
            print(layer.name(), key, repr(label.labelText), corners)
        sys.stdout.flush()
        os._exit(0)
        """#

    @Test("QGIS finds the styles of a PostGIS copy in public.layer_styles and places every label as from the GeoPackage")
    func postGISInQGIS() throws {
        let path = try #require(try Harness.importLoudoun())
        let database = try PostgresTestDatabase()
        defer { try? database.drop() }
        let copy = try Harness.annolink("copy", path, database.connectionString)
        #expect(copy.status == 0, "\(copy.stderr)")
        #expect(try database.psql("""
            SELECT count(*) FROM public.layer_styles WHERE f_table_catalog = current_database() AND f_table_schema = 'public'
              AND stylename = 'annolink' AND useasdefault
            """).trimmingCharacters(in: .whitespacesAndNewlines) == "8")
        func placed(_ source: String) throws -> [String] {
            let result = try ExternalTool.run("/usr/bin/python3", ["-", source], stdin: Self.placedLabels)
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout.split(separator: "\n").map(String.init).sorted()
        }
        let fromFile = try placed(path), fromDatabase = try placed(database.connectionString)
        #expect(fromDatabase.filter { $0.hasPrefix("labels ") } == ["labels Loudoun_Address_PointsAnno_1 True", "labels ParcelLinesAnno_1 True"])
        #expect(fromDatabase.count == 150, "QGIS placed \(fromDatabase.count - 2) labels from PostGIS")
        #expect(fromDatabase == fromFile)

        // A class annotate adds gets its style in QGIS's table too; copy --overwrite replaces
        // what the copy wrote, and leaves what it did not.
        let annotate = try Harness.annolink("annotate", database.connectionString, "--origin", "ParcelLines_1", "--into", "lengths_anno",
                                            "--expression", "$feature.LEFT_FID", "--placement", "line", "--reference-scale", "600")
        #expect(annotate.status == 0, "\(annotate.stderr)")
        let qml = try database.psql("SELECT styleqml FROM public.layer_styles WHERE f_table_name = 'lengths_anno' AND useasdefault")
        #expect(qml.contains("fieldName=\"TextString\""), "\(qml.prefix(200))")
        #expect(try Harness.annolink("copy", path, database.connectionString, "--overwrite").status == 0)
        #expect(try database.psql("SELECT string_agg(f_table_name, ' ' ORDER BY f_table_name) FROM public.layer_styles WHERE f_table_name LIKE '%Anno%'")
            .trimmingCharacters(in: .whitespacesAndNewlines) == "Loudoun_Address_PointsAnno_1 ParcelLinesAnno_1")
        #expect(try database.psql("SELECT count(*) FROM public.layer_styles").trimmingCharacters(in: .whitespacesAndNewlines) == "9")
    }
}
