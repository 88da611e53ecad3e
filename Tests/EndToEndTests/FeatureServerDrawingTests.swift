import AnnoLinkTestSupport
import Foundation
import Testing

/// How clients no one here wrote draw the FeatureServer's layers from their descriptions alone
/// (docs/serve.md, "Drawing info"): QGIS 3.22 (Debian's python3-qgis, headless) through its
/// `arcgisfeatureserver` provider, and Esri's ArcGIS API for Python.
@Suite(.serialized) struct FeatureServerDrawingTests {
    /// The FeatureServer's URL on `server`.
    static func service(_ server: ServeProcess) -> String { server.url + "/arcgis/rest/services/loudoun/FeatureServer" }

    /// Adds the FeatureServer's two annotation layers (6 and 7, given as the first argument's
    /// layers) to QGIS with the `arcgisfeatureserver` provider, nothing set here: QGIS makes the
    /// renderer and labelling from the layers' `drawingInfo`. Renders a view of W × H px at
    /// 96 dpi and 1:1200 centred on (X, Y) in EPSG:2924 with QgsMapRendererSequentialJob, once
    /// without labels (what the renderer draws: the footprints) and once with, and prints:
    ///
    /// - `scale S`, and `blank N`: the pixels of the unlabelled picture that are not the
    ///   background;
    /// - `renderer TABLE TYPE STYLE OUTLINE`: QGIS's renderer and its fill symbol's styles;
    /// - `expected TABLE FID` for each row whose footprint lies wholly in the view, read from
    ///   the served GeoPackage (the second argument) through GDAL (QGIS's `ogr` provider);
    /// - `label TABLE FID SAME ANGLE ANCHOR MIDDLE WIDTH FAMILY` for each label QGIS placed: whether
    ///   its text is the row's `TextString` (1 or 0), the row's `Angle`, the distance in points
    ///   between the anchor read from QGIS's label box (as QGISStyleTests reads it: along the
    ///   baseline by `HorizontalAlignment`, across it by `VerticalAlignment`, with Qt's descent
    ///   of the font drawn) and the row's `AnchorX`/`AnchorY`, the distance in points between
    ///   the middle of QGIS's label box and the middle of the row's footprint, how much longer in
    ///   points QGIS's label box is than the footprint (the longer side of its oriented
    ///   rectangle), and the font.
    static let qgisScript = #"""
        import glob, math, os, sys
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        from qgis.core import (QgsApplication, QgsMapRendererSequentialJob, QgsMapSettings, QgsProject, QgsRectangle,
                               QgsVectorLayer)
        from qgis.PyQt.QtCore import QSize
        from qgis.PyQt.QtGui import QFont, QFontDatabase, QFontMetricsF
        app = QgsApplication([], False)
        app.initQgis()
        for font in glob.glob("/usr/share/wine/fonts/*.ttf"):
            QFontDatabase.addApplicationFont(font)
        service, path = sys.argv[1], sys.argv[2]
        cx, cy, width, height = float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
        unit = 1200.0 / 3937          # EPSG:2924's US survey foot, in metres
        perpoint = 1200 * 0.0254 / 72 / unit   # feet per point at 1:1200
        served, stored = [], {}
        for lid, table in ((6, "Loudoun_Address_PointsAnno_1"), (7, "ParcelLinesAnno_1")):
            layer = QgsVectorLayer("url='%s/%d'" % (service, lid), table, "arcgisfeatureserver")
            assert layer.isValid(), table
            assert layer.labelsEnabled(), table + ": QGIS made no labelling"
            QgsProject.instance().addMapLayer(layer)
            served.append(layer)
            symbol = layer.renderer().symbol().symbolLayer(0).properties() if layer.renderer().type() == "singleSymbol" else {}
            print("renderer", table, layer.renderer().type(), symbol.get("style"), symbol.get("outline_style"))
            stored[table] = QgsVectorLayer(path + "|layername=" + table, table, "ogr")
            assert stored[table].isValid(), table
        ftpx = 1200 * 0.0254 / 96 / unit
        extent = QgsRectangle(cx - width / 2 * ftpx, cy - height / 2 * ftpx, cx + width / 2 * ftpx, cy + height / 2 * ftpx)
        settings = QgsMapSettings()
        settings.setLayers(served)
        settings.setDestinationCrs(served[0].crs())
        settings.setOutputSize(QSize(width, height))
        settings.setOutputDpi(96)
        settings.setExtent(extent)
        print("scale", settings.scale())

        def render():
            job = QgsMapRendererSequentialJob(settings)
            job.start()
            job.waitForFinished()
            return job

        for layer in served:
            layer.setLabelsEnabled(False)
        image = render().renderedImage()
        background = settings.backgroundColor().rgba()
        print("blank", sum(1 for y in range(image.height()) for x in range(image.width()) if image.pixel(x, y) != background))
        for layer in served:
            layer.setLabelsEnabled(True)

        for table, layer in stored.items():
            for f in layer.getFeatures():
                if extent.contains(f.geometry().boundingBox()):
                    print("expected", table, f["fid"] if "fid" in f.fields().names() else f.id())
        names = {layer.id(): layer for layer in served}
        for label in render().takeLabelingResults().allLabels():
            layer = names[label.layerID]
            fid = layer.getFeature(label.featureId)["fid"]
            row = stored[layer.name()].getFeature(fid)
            x, y, angle, size = row["AnchorX"], row["AnchorY"], row["Angle"], row["FontSize"]
            bl, br, tr, tl = [(p.x(), p.y()) for p in label.cornerPoints]
            w, h = math.dist(bl, br), math.dist(bl, tl)
            ux, uy = (br[0] - bl[0]) / w, (br[1] - bl[1]) / w
            nx, ny = -uy, ux
            probe = QFont(label.labelFont.family())
            probe.setPixelSize(1000)
            descent = QFontMetricsF(probe).descent() / 1000 * size * perpoint
            along = {0: 0, 2: w}.get(row["HorizontalAlignment"], w / 2)
            across = {0: h, 1: h / 2, 3: 0}.get(row["VerticalAlignment"], descent)
            qx, qy = bl[0] + ux * along + nx * across, bl[1] + uy * along + ny * across
            middle = row.geometry().centroid().asPoint()
            _, _, _, side1, side2 = row.geometry().orientedMinimumBoundingBox()
            mx, my = (bl[0] + tr[0]) / 2, (bl[1] + tr[1]) / 2
            print("label", layer.name(), fid, int(label.labelText == row["TextString"]), "%.3f" % angle,
                  "%.3f" % (math.hypot(qx - x, qy - y) / perpoint), "%.3f" % (math.hypot(mx - middle.x(), my - middle.y()) / perpoint),
                  "%.3f" % ((w - max(side1, side2)) / perpoint), label.labelFont.family().replace(" ", "_"))
        """#

    /// A label QGIS placed, as the script prints it.
    struct Label {
        var table: String, fid: String, sameText: Bool, angle: Double
        var anchorPoints: Double, middlePoints: Double, widthPoints: Double, family: String
    }

    @Test("QGIS 3.22 draws the annotation layers' text from their drawingInfo: every label of a 1:1200 view, none of the footprints")
    func qgisDrawsAnnotationAsText() throws {
        guard let (path, server) = try Harness.serveLoudoun() else { return }
        defer { _ = server.stop() }
        // A view over the middle of the Loudoun data: address labels (horizontal) and parcel
        // lengths (turned along their lines).
        let run = try ExternalTool.run("/usr/bin/python3", ["-", Self.service(server), path, "11790400", "7056500", "1200", "900"],
                                       stdin: Self.qgisScript)
        #expect(run.status == 0, "\(run.stderr)")
        var labels: [Label] = [], expected = Set<String>(), blank: Int?, scale: Double?
        for line in run.stdout.split(separator: "\n") {
            let f = line.split(separator: " ").map(String.init)
            switch f.first {
            case "scale": scale = Double(f[1])
            case "blank": blank = Int(f[1])
            case "renderer":
                // A single symbol that fills nothing and outlines nothing (QGIS's `no` styles).
                #expect(f.count == 5 && f[2] == "singleSymbol" && f[3] == "no" && f[4] == "no", "\(line)")
            case "expected": expected.insert(f[1] + " " + f[2])
            case "label" where f.count == 9:
                labels.append(Label(table: f[1], fid: f[2], sameText: f[3] == "1", angle: Double(f[4]) ?? .nan,
                                    anchorPoints: Double(f[5]) ?? .infinity, middlePoints: Double(f[6]) ?? .infinity,
                                    widthPoints: Double(f[7]) ?? .infinity, family: f[8]))
            default: Issue.record("unexpected line: \(line)")
            }
        }
        #expect(abs((scale ?? 0) - 1200) < 0.5)
        // The renderer draws no footprint: without labels the picture is all background.
        #expect(blank == 0, "\(blank ?? -1) pixels drawn without labels")
        let placed = Set(labels.map { $0.table + " " + $0.fid })
        #expect(expected.count >= 30, "\(expected.count) rows in the view")
        #expect(expected.subtracting(placed).isEmpty, "not labelled: \(expected.subtracting(placed).sorted())")
        // Tolerances, in points at the reference scale (1:1200, the view's): 2 pt from the
        // stored text's middle (its footprint's centroid) for every label in the view, 2 pt
        // between the length of QGIS's text and the footprint's (the text is set at the class's
        // 10 pt: 12 pt would make these labels 5 to 18 pt longer), and 2 pt from the stored
        // anchor for the unturned ones (Angle 0). QGIS 3.22 reads no angle from
        // `drawingInfo` (its converter knows no `labelAngleInfo`), so a turned label is drawn
        // level on the text's middle, and its anchor, on the baseline, is turned away from the
        // stored one by up to the baseline's distance from the middle (about 4 pt here).
        for label in labels where expected.contains(label.table + " " + label.fid) {
            let name = "\(label.table) fid \(label.fid)"
            #expect(label.sameText, "\(name): QGIS shows another text")
            #expect(label.family == "Tahoma", "\(name): QGIS drew with \(label.family)")
            #expect(label.middlePoints <= 2, "\(name): the middle of QGIS's text is \(label.middlePoints) pt from the footprint's")
            #expect(abs(label.widthPoints) <= 2, "\(name): QGIS's text is \(label.widthPoints) pt longer than the footprint")
            if label.angle == 0 {
                #expect(label.anchorPoints <= 2, "\(name): QGIS's anchor is \(label.anchorPoints) pt from the stored one")
            }
        }
        #expect(labels.contains { $0.angle == 0 } && labels.contains { $0.angle != 0 })
    }

    /// Opens three feature tables in QGIS twice, nothing set here: through the FeatureServer
    /// (`arcgisfeatureserver`, the renderer QGIS makes from `drawingInfo`) and from the served
    /// GeoPackage (`ogr`, which applies the file's default style, the one `annolink style`
    /// writes), and prints, for each, the table and both single symbols' first layers: kind,
    /// what it draws, colours, and its size in millimetres.
    static let featureScript = #"""
        import os, sys
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        from qgis.core import QgsApplication, QgsVectorLayer
        app = QgsApplication([], False)
        app.initQgis()
        service, path = sys.argv[1], sys.argv[2]

        def described(layer):
            assert layer.isValid(), layer.name()
            if layer.renderer().type() != "singleSymbol":
                return [layer.renderer().type()]
            symbol = layer.renderer().symbol().symbolLayer(0)
            p = symbol.properties()
            def mm(value, unit):
                return "%.2f" % (float(value) * {"MM": 1, "Point": 25.4 / 72}[unit])
            if symbol.layerType() == "SimpleMarker":
                return ["marker", p["name"], p["color"], p["outline_style"], mm(p["size"], p["size_unit"])]
            if symbol.layerType() == "SimpleLine":
                return ["line", p["line_color"], p["line_style"], mm(p["line_width"], p["line_width_unit"])]
            if symbol.layerType() == "SimpleFill":
                return ["fill", p["style"], p["outline_color"], p["outline_style"], mm(p["outline_width"], p["outline_width_unit"])]
            return [symbol.layerType()]

        for lid, table in ((0, "Loudoun_Address_Points_1"), (1, "Loudoun_Buildings_1"), (5, "ParcelLines_1")):
            served = QgsVectorLayer("url='%s/%d'" % (service, lid), table, "arcgisfeatureserver")
            stored = QgsVectorLayer(path + "|layername=" + table, table, "ogr")
            print(table, " ".join(described(served)), "|", " ".join(described(stored)))
        """#

    @Test("QGIS 3.22 draws the feature layers with the symbols the file's own QGIS styles give them")
    func qgisDrawsFeatureLayersAsTheStylesDo() throws {
        guard let (path, server) = try Harness.serveLoudoun() else { return }
        defer { _ = server.stop() }
        let run = try ExternalTool.run("/usr/bin/python3", ["-", Self.service(server), path], stdin: Self.featureScript)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        // Sizes to 0.01 mm: the service gives them in points, rounded to 0.01 pt.
        #expect(lines == [
            "Loudoun_Address_Points_1 marker circle 30,30,30,255 no 1.20 | marker circle 30,30,30,255 no 1.20",
            "Loudoun_Buildings_1 fill no 90,90,90,255 solid 0.20 | fill no 90,90,90,255 solid 0.20",
            "ParcelLines_1 line 110,110,110,255 dash 0.20 | line 110,110,110,255 dash 0.20",
        ], "\(lines)")
    }

    /// Esri's ArcGIS API for Python reads the service through a bare `Connection` (as
    /// FeatureServerClientTests does): `FeatureLayerCollection.layers` makes each layer with
    /// `arcgis.layers.Service`, whose factory makes a `FeatureLayer` of a "Feature Layer" and
    /// leaves any other type a plain `Layer`.
    @Test("the ArcGIS API for Python reads the annotation tables as annotation layers with their classes as sublayers")
    func arcgisAPIForPythonReadsAnnotationLayers() throws {
        let python = try Harness.venvTool("python")
        guard let (_, server) = try Harness.serveLoudoun() else { return }
        defer { _ = server.stop() }
        let script = try Harness.temporaryDirectory().appendingPathComponent("annotation.py").path
        try """
        import json, sys
        from arcgis.gis._impl._con import Connection
        from arcgis.features import FeatureLayerCollection
        con = Connection(baseurl=sys.argv[1] + "arcgis", all_ssl=False)
        service = FeatureLayerCollection(sys.argv[2], gis=con)
        for layer in service.layers:
            p = layer.properties
            labels = (p.get("drawingInfo") or {}).get("labelingInfo") or []
            print(p.id, type(layer).__name__, repr(p.type), [s["id"] for s in p.get("subLayers") or []],
                  (p.get("parentLayer") or {}).get("id"), p.drawingInfo.renderer.symbol.style, [l["symbol"]["type"] for l in labels])
        """.write(toFile: script, atomically: true, encoding: .utf8)
        let run = try ExternalTool.run(python, [script, server.url + "/", Self.service(server)])
        #expect(run.status == 0, "\(run.stderr)")
        let layers = run.stdout.split(separator: "\n").map(String.init)
        #expect(layers == [
            "0 FeatureLayer 'Feature Layer' [] None esriSMSCircle []",
            "1 FeatureLayer 'Feature Layer' [] None esriSFSNull []",
            "2 FeatureLayer 'Feature Layer' [] None esriSFSNull []",
            "3 FeatureLayer 'Feature Layer' [] None esriSFSNull []",
            "4 FeatureLayer 'Feature Layer' [] None esriSFSNull []",
            "5 FeatureLayer 'Feature Layer' [] None esriSLSDash []",
            "6 Layer 'Annotation Layer' [8] None esriSFSNull ['esriTS']",
            "7 Layer 'Annotation Layer' [9] None esriSFSNull ['esriTS']",
            "8 Layer 'Annotation SubLayer' [] 6 esriSFSNull ['esriTS']",
            "9 Layer 'Annotation SubLayer' [] 7 esriSFSNull ['esriTS']",
        ], "\(layers)")
    }
}
