import AnnoLinkEditing
import AnnoLinkGeometry
import AnnoLinkImport
import AnnoLinkService
import AnnoLinkStore
import AnnoLinkTestSupport
import Foundation
import Testing

/// The FeatureServer routes answered in process, on the Loudoun data imported from Esri's own
/// mobile geodatabase: the JSON they answer and what `applyEdits` does to the file.
@Suite struct FeatureServerTests {
    /// Loudoun imported into `scratch`, served as `loudoun`.
    struct Served {
        let scratch: ScratchDirectory
        let path: String
        let dataset: Dataset
        let routes = FeatureServerRoutes()
        static let base = "/arcgis/rest/services/loudoun/FeatureServer"

        init(readOnly: Bool = false, maxRecords: Int = 2000) throws {
            scratch = try ScratchDirectory(prefix: "featureserver")
            path = scratch.path("loudoun.gpkg")
            let source = try Connection(path: Fixtures.loudoun, mode: .readOnly)
            _ = try GeoPackage.build(at: path) { try MobileGeodatabaseImporter.run(source: source, into: $0) }
            dataset = try Dataset(path: path, readOnly: readOnly, maxRecords: maxRecords)
        }

        /// The JSON object answered for `method` on `path` (under the service) with `parameters`.
        func call(_ method: String, _ path: String, _ parameters: [String: String] = [:],
                  caller: Caller = .anonymous(mayEdit: true)) throws -> [String: Any] {
            let response = try #require(routes.respond(
                to: HTTPRequest(method: method, path: Self.base + path, parameters: parameters, caller: caller), in: dataset))
            #expect(response.status == 200)
            let object = try JSONSerialization.jsonObject(with: Data(response.body))
            return try #require(object as? [String: Any], "not an object: \(String(decoding: response.body, as: UTF8.self))")
        }

        func get(_ path: String, _ parameters: [String: String] = [:], caller: Caller = .anonymous(mayEdit: true)) throws -> [String: Any] {
            try call("GET", path, parameters, caller: caller)
        }

        func post(_ path: String, _ parameters: [String: String], caller: Caller = .anonymous(mayEdit: true)) throws -> [String: Any] {
            try call("POST", path, parameters, caller: caller)
        }

        /// A fresh read of the file (its own connection).
        func package() throws -> GeoPackage { try GeoPackage(path: path, readOnly: true) }

        /// Every row of `table` as text, to compare the file before and after.
        func dump(_ table: String) throws -> [String] {
            try package().connection.rows("SELECT * FROM \(quoteIdentifier(table)) ORDER BY 1").map { "\($0)" }
        }

        func journalCount() throws -> Int64 {
            let p = try package()
            guard try p.connection.hasTable("annolink_journal") else { return 0 }
            return try p.connection.scalarInt("SELECT count(*) FROM annolink_journal") ?? 0
        }
    }

    static let points = "Loudoun_Address_Points_1", lines = "ParcelLines_1"
    static let pointsAnno = "Loudoun_Address_PointsAnno_1", linesAnno = "ParcelLinesAnno_1"

    func error(_ answer: [String: Any]) -> (code: Int, message: String, details: [String])? {
        guard let e = answer["error"] as? [String: Any], let code = e["code"] as? Int else { return nil }
        return (code, e["message"] as? String ?? "", e["details"] as? [String] ?? [])
    }

    func layerID(_ served: Served, _ name: String) throws -> Int {
        let layers = try #require(try served.get("", ["f": "json"])["layers"] as? [[String: Any]])
        return try #require(layers.first { $0["name"] as? String == name }?["id"] as? Int)
    }

    // MARK: Resources

    @Test func serviceListsFeatureLayersThenAnnotationLayers() throws {
        let served = try Served()
        let service = try served.get("", ["f": "pjson"])
        let layers = try #require(service["layers"] as? [[String: Any]])
        // The tables, then each annotation table's one class as its sublayer.
        #expect(layers.map { $0["name"] as? String } == [
            "Loudoun_Address_Points_1", "Loudoun_Buildings_1", "Loudoun_Forest_1", "Loudoun_Road_Casings_1",
            "Loudoun_Subdivision_1", "ParcelLines_1", "Loudoun_Address_PointsAnno_1", "ParcelLinesAnno_1", "Class 1", "Class 1",
        ])
        #expect(layers.map { $0["id"] as? Int } == Array(0..<10))
        #expect(layers.map { $0["type"] as? String }.suffix(4) == ["Annotation Layer", "Annotation Layer", "Annotation SubLayer", "Annotation SubLayer"])
        #expect(layers.map { $0["parentLayerId"] as? Int }.suffix(4) == [-1, -1, 6, 7])
        #expect(layers.map { $0["subLayerIds"] as? [Int] }.suffix(4) == [[8], [9], nil, nil])
        #expect((service["spatialReference"] as? [String: Any])?["wkid"] as? Int == 2924)
        #expect(service["capabilities"] as? String == "Create,Delete,Query,Update,Editing")
        #expect(service["maxRecordCount"] as? Int == 2000)
    }

    @Test func layerResourceDescribesFieldsWithEsriTypes() throws {
        let served = try Served()
        let layer = try served.get("/0")
        #expect(layer["objectIdField"] as? String == "fid")
        #expect(layer["globalIdField"] as? String == "GlobalID")
        #expect(layer["geometryType"] as? String == "esriGeometryPoint")
        let fields = try #require(layer["fields"] as? [[String: Any]])
        func type(_ name: String) -> String? { fields.first { $0["name"] as? String == name }?["type"] as? String }
        #expect(type("fid") == "esriFieldTypeOID")
        #expect(type("AD_ADDRESS") == "esriFieldTypeInteger")
        #expect(type("ST_STR_NAM") == "esriFieldTypeString")
        #expect(fields.first { $0["name"] as? String == "ST_STR_NAM" }?["length"] as? Int == 80)
        #expect(type("created_date") == "esriFieldTypeDate")
        #expect(type("GlobalID") == "esriFieldTypeGlobalID")
        #expect(type("geom") == nil)
        let extent = try #require(layer["extent"] as? [String: Any])
        #expect((extent["xmin"] as? Double ?? 0) > 11_000_000)

        let anno = try served.get("/7")
        #expect(anno["type"] as? String == "Annotation Layer")
        #expect(anno["capabilities"] as? String == "Delete,Query,Update,Editing")
        let classes = try #require(anno["annotationClasses"] as? [[String: Any]])
        #expect(classes.count == 1)
        #expect(classes.first?["originTable"] as? String == Self.lines)
        #expect(classes.first?["labelExpression"] as? String == "Round(Length(Geometry($feature), 'feet'), 2)")

        let all = try served.get("/layers")
        #expect((all["layers"] as? [Any])?.count == 10)
    }

    /// The classes' text as `FeatureServerDrawingInfo` gives it: what QGIS 3.22's
    /// `convertLabeling` reads (`labelExpression` in [FIELD] syntax, `symbol.font`,
    /// `labelPlacement`, `where`) and Esri's clients (`labelExpressionInfo`, `labelAngleInfo`).
    @Test func annotationLayersAreDescribedAsEsriDescribesThem() throws {
        let served = try Served()
        let anno = try served.get("/7")
        #expect(anno["type"] as? String == "Annotation Layer")
        #expect(anno["parentLayer"] is NSNull)
        let sub = try #require(anno["subLayers"] as? [[String: Any]])
        #expect(sub.map { $0["id"] as? Int } == [9] && sub.map { $0["name"] as? String } == ["Class 1"])
        #expect(anno["typeIdField"] as? String == "AnnotationClassID")
        #expect((anno["types"] as? [[String: Any]])?.map { $0["id"] as? Int } == [0])
        let drawing = try #require(anno["drawingInfo"] as? [String: Any])
        let symbol = try #require((drawing["renderer"] as? [String: Any])?["symbol"] as? [String: Any])
        #expect(symbol["type"] as? String == "esriSFS" && symbol["style"] as? String == "esriSFSNull")
        #expect((symbol["outline"] as? [String: Any])?["style"] as? String == "esriSLSNull")
        let labels = try #require(drawing["labelingInfo"] as? [[String: Any]])
        #expect(labels.count == 1)
        let label = try #require(labels.first)
        #expect(label["labelExpression"] as? String == "[TextString]")
        #expect((label["labelExpressionInfo"] as? [String: Any])?["expression"] as? String == "$feature.TextString")
        #expect(label["where"] as? String == "AnnotationClassID = 0")
        #expect(label["labelPlacement"] as? String == "esriServerPolygonPlacementAlwaysHorizontal")
        #expect(label["useCodedValues"] as? Bool == false)
        #expect(label["minScale"] as? Int == 0 && label["maxScale"] as? Int == 0)
        let angle = try #require(label["labelAngleInfo"] as? [String: Any])
        #expect(angle["rotationType"] as? String == "arithmetic")
        #expect((angle["angleExpressionInfo"] as? [String: Any])?["expression"] as? String == "$feature.Angle")
        let text = try #require(label["symbol"] as? [String: Any])
        #expect(text["type"] as? String == "esriTS")
        #expect(text["color"] as? [Int] == [0, 0, 0, 255])
        #expect(text["horizontalAlignment"] as? String == "center" && text["verticalAlignment"] as? String == "baseline")
        // The class's font, in points at its reference scale (1:1200), from the file's registry.
        let font = try #require(text["font"] as? [String: Any])
        let registry = try served.package().connection.rows(
            "SELECT font_name, font_size, reference_scale FROM annolink_annotation_classes WHERE annotation_table = ?", [.text(Self.linesAnno)])
        #expect(font["family"] as? String == registry.first?[0].textValue)
        #expect(font["size"] as? Double == registry.first?[1].doubleValue)
        #expect((anno["annotationClasses"] as? [[String: Any]])?.first?["referenceScale"] as? Double == registry.first?[2].doubleValue)
        // The annotation fields, the alignments with Esri's coded values.
        let fields = try #require(anno["fields"] as? [[String: Any]])
        #expect(["TextString", "AnchorX", "AnchorY", "Angle", "FontName", "FontSize", "AnnotationClassID"].allSatisfy { name in
            fields.contains { $0["name"] as? String == name }
        })
        func codes(_ name: String) -> String? {
            let domain = fields.first { $0["name"] as? String == name }?["domain"] as? [String: Any]
            return (domain?["codedValues"] as? [[String: Any]])?.map { "\($0["code"] ?? "")=\($0["name"] ?? "")" }.joined(separator: " ")
        }
        #expect(codes("HorizontalAlignment") == "0=Left 1=Center 2=Right 3=Full")
        #expect(codes("VerticalAlignment") == "0=Top 1=Center 2=Baseline 3=Bottom")
    }

    @Test func annotationSublayersReadTheirClassesRowsOnly() throws {
        let served = try Served()
        let sublayer = try served.get("/9")
        #expect(sublayer["type"] as? String == "Annotation SubLayer")
        #expect(sublayer["name"] as? String == "Class 1")
        #expect((sublayer["parentLayer"] as? [String: Any])?["id"] as? Int == 7)
        #expect(sublayer["capabilities"] as? String == "Query")
        #expect(sublayer["geometryType"] as? String == "esriGeometryPolygon")
        #expect(((sublayer["drawingInfo"] as? [String: Any])?["labelingInfo"] as? [Any])?.count == 1)
        let inClass = try served.package().connection.scalarInt("SELECT count(*) FROM \(Self.linesAnno) WHERE AnnotationClassID = 0")
        #expect(try served.get("/9/query", ["where": "1=1", "returnCountOnly": "true"])["count"] as? Int == Int(inClass ?? -1))
        let long = try served.package().connection.scalarInt("SELECT count(*) FROM \(Self.linesAnno) WHERE AnnotationClassID = 0 AND length(TextString) > 5")
        #expect(try served.get("/9/query", ["where": "length(TextString) > 5", "returnCountOnly": "true"])["count"] as? Int == Int(long ?? -1))
        // The caller's own condition is checked by itself: its refusal names its text.
        let refused = try #require(error(try served.get("/9/query", ["where": "1=1) OR (1=1"])))
        #expect(refused.code == 400 && refused.details.first?.hasPrefix("where: '1=1) OR (1=1'") == true, "\(refused)")
        // Edits go through the parent layer.
        let before = try served.dump(Self.linesAnno)
        let edit = try #require(error(try served.post("/9/applyEdits", ["deletes": "1"])))
        #expect(edit.code == 400 && edit.details.first?.contains("annotation layer, 7") == true, "\(edit)")
        #expect(try served.dump(Self.linesAnno) == before)
        #expect(error(try served.get("/10"))?.code == 404)
    }

    /// Feature layers draw as `annolink style` draws the tables in QGIS: one `DefaultSymbology`.
    @Test func featureLayersDrawWithTheDefaultSymbology() throws {
        let served = try Served()
        func symbol(_ id: Int) throws -> [String: Any] {
            let drawing = try #require(try served.get("/\(id)")["drawingInfo"] as? [String: Any])
            #expect((drawing["renderer"] as? [String: Any])?["type"] as? String == "simple")
            return try #require((drawing["renderer"] as? [String: Any])?["symbol"] as? [String: Any])
        }
        let point = try symbol(0), polygon = try symbol(1), line = try symbol(5)
        #expect(point["type"] as? String == "esriSMS" && point["style"] as? String == "esriSMSCircle")
        #expect(line["type"] as? String == "esriSLS" && line["style"] as? String == "esriSLSDash")
        #expect(polygon["type"] as? String == "esriSFS" && polygon["style"] as? String == "esriSFSNull")
        // The QGIS styles' colours and sizes (millimetres there, points here).
        func qml(_ kind: String, _ option: String) throws -> String {
            let text = QGISStyle.features(geometryTypeName: kind)
            let range = try #require(text.range(of: #"name="\#(option)" value="([^"]*)""#, options: .regularExpression))
            return String(text[range].split(separator: "\"")[3])
        }
        func rgba(_ value: Any?) -> String { (value as? [Int])?.map(String.init).joined(separator: ",") ?? "" }
        #expect(rgba(point["color"]) == (try qml("POINT", "color")))
        #expect(abs((point["size"] as? Double ?? 0) - Double(try qml("POINT", "size"))! * 72 / 25.4) < 0.01)
        #expect(rgba(line["color"]) == (try qml("MULTILINESTRING", "line_color")))
        #expect(abs((line["width"] as? Double ?? 0) - Double(try qml("MULTILINESTRING", "line_width"))! * 72 / 25.4) < 0.01)
        let outline = polygon["outline"] as? [String: Any]
        #expect(rgba(outline?["color"]) == (try qml("MULTIPOLYGON", "outline_color")))
        #expect(try qml("MULTIPOLYGON", "style") == "no")
    }

    @Test func unknownPathsAndFormatsAreEsriErrors() throws {
        let served = try Served()
        #expect(error(try served.get("/99"))?.code == 404)
        #expect(error(try served.get("/0/nothing"))?.code == 404)
        #expect(error(try served.get("", ["f": "xml"]))?.code == 400)
        #expect(error(try served.get("/0/applyEdits", ["updates": "[]"]))?.code == 405)
        let other = try #require(served.routes.respond(to: HTTPRequest(method: "GET", path: "/arcgis/rest/services/other/FeatureServer"), in: served.dataset))
        #expect(String(decoding: other.body, as: UTF8.self).contains("\"code\":404"))
        #expect(served.routes.respond(to: HTTPRequest(method: "GET", path: "/ogc/collections"), in: served.dataset) == nil)
    }

    // MARK: Query

    @Test func queryCountsIdsAndWhere() throws {
        let served = try Served()
        #expect(try served.get("/0/query", ["where": "1=1", "returnCountOnly": "true"])["count"] as? Int == 33)
        let sqlCount = try served.package().connection.scalarInt("SELECT count(*) FROM \(Self.points) WHERE ST_STR_NAM = 'ELMWOOD'")
        #expect(try served.get("/0/query", ["where": "ST_STR_NAM = 'ELMWOOD'", "returnCountOnly": "true"])["count"] as? Int == Int(sqlCount ?? -1))
        let ids = try #require(try served.get("/5/query", ["returnIdsOnly": "true"])["objectIds"] as? [Int])
        #expect(ids.count == 115)
        let some = try served.get("/0/query", ["objectIds": "\(ids[0]),\(ids[1])", "returnCountOnly": "true"])
        #expect(some["count"] as? Int == 0) // ids of layer 5 are not address points' ids
        let pointIDs = try #require(try served.get("/0/query", ["returnIdsOnly": "true"])["objectIds"] as? [Int])
        let two = try served.get("/0/query", ["objectIds": "\(pointIDs[3]),\(pointIDs[7])", "outFields": "AD_ADDRESS"])
        let features = try #require(two["features"] as? [[String: Any]])
        #expect(features.compactMap { ($0["attributes"] as? [String: Any])?["fid"] as? Int } == [pointIDs[3], pointIDs[7]])
        #expect(Set((features[0]["attributes"] as? [String: Any])?.keys.map { $0 } ?? []) == ["fid", "AD_ADDRESS"])
        // More ids than SQLite binds variables (32,766) are still one query.
        let many = (1...100_000).map(String.init).joined(separator: ",")
        #expect(try served.get("/0/query", ["objectIds": many, "returnCountOnly": "true"])["count"] as? Int == 33)
    }

    @Test func pagingCoversEveryFeatureOnceAndSaysWhenMoreRemain() throws {
        let served = try Served(maxRecords: 10)
        var seen: [Int] = []
        var offset = 0
        while true {
            let page = try served.get("/0/query", ["where": "1=1", "outFields": "*", "resultOffset": "\(offset)", "resultRecordCount": "25"])
            let features = try #require(page["features"] as? [[String: Any]])
            #expect(features.count <= 10) // capped at maxRecordCount
            seen += features.compactMap { ($0["attributes"] as? [String: Any])?["fid"] as? Int }
            offset += features.count
            if page["exceededTransferLimit"] as? Bool != true { break }
        }
        #expect(seen.count == 33)
        #expect(Set(seen).count == 33)
        let ordered = try served.get("/0/query", ["orderByFields": "AD_ADDRESS DESC", "outFields": "AD_ADDRESS", "resultRecordCount": "33"])
        let numbers = (ordered["features"] as? [[String: Any]] ?? []).compactMap { ($0["attributes"] as? [String: Any])?["AD_ADDRESS"] as? Int }
        #expect(numbers.count == 10)
        #expect(numbers == numbers.sorted(by: >))
        let largest = try served.package().connection.scalarInt("SELECT max(AD_ADDRESS) FROM \(Self.points)")
        #expect(numbers.first.map(Int64.init) == largest)
    }

    @Test func spatialFiltersUseEnvelopePointAndDistance() throws {
        let served = try Served()
        // Oracle: the features whose envelope meets the box, read from the file directly.
        let box = Envelope(minX: 11_789_000, minY: 7_055_000, maxX: 11_790_000, maxY: 7_056_000)
        let package = try served.package()
        let table = try package.featureTable(Self.lines)
        var expected: Set<Int> = []
        try package.forEachFeature(table) { f in if let e = f.geometry?.envelope, e.intersects(box) { expected.insert(Int(f.fid)) } }
        let envelopeAnswer = try served.get("/5/query", ["geometry": "11789000,7055000,11790000,7056000",
                                                         "spatialRel": "esriSpatialRelEnvelopeIntersects", "returnIdsOnly": "true"])
        #expect(Set(envelopeAnswer["objectIds"] as? [Int] ?? []) == expected)
        let esriJSON = #"{"xmin":11789000,"ymin":7055000,"xmax":11790000,"ymax":7056000,"spatialReference":{"wkid":2924}}"#
        let exact = Set(try served.get("/5/query", ["geometry": esriJSON, "geometryType": "esriGeometryEnvelope", "returnIdsOnly": "true"])["objectIds"] as? [Int] ?? [])
        #expect(!exact.isEmpty)
        #expect(exact.isSubset(of: expected))

        // A point with a distance: every address point within 100 m (328.08 US ft) of fid 831.
        let point = try package.feature(package.featureTable(Self.points), fid: 831)
        guard case .point(let p)? = point.geometry else { Issue.record("no point"); return }
        var near: Set<Int> = []
        try package.forEachFeature(package.featureTable(Self.points)) { f in
            if case .point(let q)? = f.geometry, ((q.x - p.x) * (q.x - p.x) + (q.y - p.y) * (q.y - p.y)).squareRoot() <= 100 / (1200.0 / 3937.0) {
                near.insert(Int(f.fid))
            }
        }
        let answer = try served.get("/0/query", ["geometry": "\(p.x),\(p.y)", "geometryType": "esriGeometryPoint",
                                                 "distance": "100", "units": "esriSRUnit_Meter", "returnIdsOnly": "true"])
        #expect(Set(answer["objectIds"] as? [Int] ?? []) == near)
        #expect(near.count > 1)
        // inSR: the same point in WGS 84 finds fid 831 within a metre.
        let cs2cs = try ExternalTool.require("cs2cs", package: "proj-bin")
        let lonLat = try cs2cs.output(["-f", "%.10f", "EPSG:2924", "EPSG:4326"], input: "\(p.x) \(p.y)\n")
            .split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Double($0) }
        let inWGS84 = try served.get("/0/query", ["geometry": "\(lonLat[1]),\(lonLat[0])", "inSR": "4326", "distance": "1",
                                                  "units": "esriSRUnit_Meter", "returnIdsOnly": "true"])
        #expect(inWGS84["objectIds"] as? [Int] == [831])
    }

    @Test func outSRGoesThroughPROJ() throws {
        let served = try Served()
        let answer = try served.get("/0/query", ["objectIds": "831", "outSR": "4326"])
        let feature = try #require((answer["features"] as? [[String: Any]])?.first)
        let geometry = try #require(feature["geometry"] as? [String: Double])
        #expect((answer["spatialReference"] as? [String: Any])?["wkid"] as? Int == 4326)
        let point = try served.package().feature(served.package().featureTable(Self.points), fid: 831)
        guard case .point(let p)? = point.geometry else { Issue.record("no point"); return }
        let cs2cs = try ExternalTool.require("cs2cs", package: "proj-bin")
        // cs2cs writes EPSG:4326 in its own axis order: latitude, longitude.
        let out = try cs2cs.output(["-f", "%.10f", "EPSG:2924", "EPSG:4326"], input: "\(p.x) \(p.y)\n")
            .split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Double($0) }
        #expect(abs((geometry["x"] ?? 0) - out[1]) < 1e-8)
        #expect(abs((geometry["y"] ?? 0) - out[0]) < 1e-8)

        let geoJSON = try served.get("/0/query", ["objectIds": "831", "f": "geojson"])
        #expect(geoJSON["type"] as? String == "FeatureCollection")
        let coordinates = ((geoJSON["features"] as? [[String: Any]])?.first?["geometry"] as? [String: Any])?["coordinates"] as? [Double]
        #expect(abs((coordinates?[0] ?? 0) - out[1]) < 1e-8)
        let extent = try #require(try served.get("/0/query", ["returnExtentOnly": "true", "returnCountOnly": "true"])["extent"] as? [String: Any])
        #expect((extent["xmin"] as? Double ?? 0) <= p.x && p.x <= (extent["xmax"] as? Double ?? 0))
    }

    @Test func whereIsGuardedAndChangesNothing() throws {
        let served = try Served()
        let before = try served.dump(Self.points)
        let contentsBefore = try served.package().connection.scalarInt("SELECT count(*) FROM gpkg_contents")
        #expect(contentsBefore == 9, "eight layers and layer_styles")
        for hostile in ["1=1); DROP TABLE gpkg_contents; --", "1=1; DELETE FROM Loudoun_Address_Points_1",
                        "fid IN (SELECT fid FROM ParcelLines_1)", "load_extension('x') = 1",
                        "fid = 1 UNION SELECT sql FROM sqlite_master", "(SELECT count(*) FROM gpkg_spatial_ref_sys) > 0"] {
            let answer = try served.get("/0/query", ["where": hostile])
            #expect(error(answer)?.code == 400, "\(hostile)")
            #expect(error(answer)?.details.first?.hasPrefix("where:") == true)
        }
        #expect(try served.dump(Self.points) == before)
        #expect(try served.package().connection.scalarInt("SELECT count(*) FROM gpkg_contents") == contentsBefore)
        #expect(error(try served.get("/0/query", ["resultOffset": "-1"]))?.code == 400)
        #expect(error(try served.get("/0/query", ["outFields": "nope"]))?.code == 400)
        #expect(error(try served.get("/0/query", ["geometry": "1,2,3"]))?.code == 400)
        #expect(error(try served.get("/0/query", ["geometry": "1,2", "spatialRel": "esriSpatialRelTouches"]))?.code == 400)
    }

    // MARK: applyEdits

    func annotation(_ served: Served, _ table: String, featureID: Int64) throws -> (text: String, x: Double, y: Double, override: Int64) {
        let row = try #require(try served.package().connection.rows(
            "SELECT TextString, AnchorX, AnchorY, Override FROM \(quoteIdentifier(table)) WHERE FeatureID = ?", [.integer(featureID)]).first)
        return (row[0].textValue ?? "", row[1].doubleValue ?? .nan, row[2].doubleValue ?? .nan, row[3].integerValue ?? -1)
    }

    func results(_ answer: [String: Any], _ key: String) -> [[String: Any]] { answer[key] as? [[String: Any]] ?? [] }

    @Test func updatingAnAddressRewritesItsLabelInTheFile() throws {
        let served = try Served()
        #expect(try annotation(served, Self.pointsAnno, featureID: 831).text == "45763 ELMWOOD")
        let answer = try served.post("/0/applyEdits", ["updates": #"[{"attributes":{"fid":831,"AD_ADDRESS":45999}}]"#, "f": "json"])
        #expect(results(answer, "updateResults").first?["success"] as? Bool == true)
        #expect(results(answer, "updateResults").first?["objectId"] as? Int == 831)
        #expect(try annotation(served, Self.pointsAnno, featureID: 831).text == "45999 ELMWOOD")
        #expect(try served.journalCount() == 1)
        // Through the query too.
        let read = try served.get("/0/query", ["objectIds": "831", "outFields": "AD_ADDRESS"])
        #expect(((read["features"] as? [[String: Any]])?.first?["attributes"] as? [String: Any])?["AD_ADDRESS"] as? Int == 45999)
    }

    @Test func movingAPointMovesItsLabel() throws {
        let served = try Served()
        let package = try served.package()
        guard case .point(let p)? = try package.feature(package.featureTable(Self.points), fid: 831).geometry else { Issue.record("no point"); return }
        let before = try annotation(served, Self.pointsAnno, featureID: 831)
        let update = #"[{"attributes":{"fid":831},"geometry":{"x":\#(p.x + 40),"y":\#(p.y + 25),"spatialReference":{"wkid":2924}}}]"#
        let answer = try served.post("/0/applyEdits", ["updates": update])
        #expect(results(answer, "updateResults").first?["success"] as? Bool == true)
        let after = try annotation(served, Self.pointsAnno, featureID: 831)
        // The label is carried by the point's move (40 ft east and 25 ft south instead, it would
        // land on another label and be placed around the point: PlacementEditTests).
        #expect(abs(after.x - before.x - 40) < 0.05)
        #expect(abs(after.y - before.y - 25) < 0.05)
        #expect(after.text == before.text)
        // Exactly where the typed edit API puts it.
        let direct = try Served()
        _ = try EditService(package: GeoPackage(path: direct.path)).run(
            MovePoint(table: Self.points, fid: 831, to: Point(x: p.x + 40, y: p.y + 25), command: "test"))
        let expected = try annotation(direct, Self.pointsAnno, featureID: 831)
        #expect(after.x == expected.x && after.y == expected.y)
    }

    /// The two-point parcel line with the smallest fid, its points and its label.
    func twoPointLine(_ served: Served) throws -> (fid: Int64, first: Point, last: Point) {
        let package = try served.package()
        var found: (Int64, Point, Point)?
        try package.forEachFeature(package.featureTable(Self.lines)) { f in
            if found == nil, case .lineString(let l)? = f.geometry, l.points.count == 2 { found = (f.fid, l.points[0], l.points[1]) }
        }
        let line = try #require(found)
        return (line.0, line.1, line.2)
    }

    @Test func movingTheLastVertexOfATwoPointLineChangesItsLengthLabel() throws {
        let served = try Served()
        let line = try twoPointLine(served)
        let newLast = Point(x: line.last.x + 30, y: line.last.y + 10)
        let update = #"[{"attributes":{"fid":\#(line.fid)},"geometry":{"paths":[[[\#(line.first.x),\#(line.first.y)],[\#(newLast.x),\#(newLast.y)]]]}}]"#
        let answer = try served.post("/5/applyEdits", ["updates": update])
        #expect(results(answer, "updateResults").first?["success"] as? Bool == true, "\(answer)")
        let length = ((newLast.x - line.first.x) * (newLast.x - line.first.x) + (newLast.y - line.first.y) * (newLast.y - line.first.y)).squareRoot()
        let label = try annotation(served, Self.linesAnno, featureID: line.fid).text
        #expect(label == String(format: "%.2f", length) || Double(label).map { abs($0 - length) < 0.006 } == true, "\(label) vs \(length)")
    }

    @Test func aMultiSegmentLineIsRefusedPerFeatureWithTheCLIMessage() throws {
        let served = try Served()
        let package = try served.package()
        var multi: (Int64, LineString)?
        try package.forEachFeature(package.featureTable(Self.lines)) { f in
            if multi == nil, case .lineString(let l)? = f.geometry, l.points.count > 2 { multi = (f.fid, l) }
        }
        let (fid, line) = try #require(multi)
        let before = try served.dump(Self.lines)
        var moved = line.points
        moved[moved.count - 1].x += 10
        let paths = "[" + moved.map { "[\($0.x),\($0.y)]" }.joined(separator: ",") + "]"
        let answer = try served.post("/5/applyEdits", ["updates": #"[{"attributes":{"fid":\#(fid)},"geometry":{"paths":[\#(paths)]}}]"#])
        let result = try #require(results(answer, "updateResults").first)
        #expect(result["success"] as? Bool == false)
        let failure = try #require(result["error"] as? [String: Any])
        #expect(failure["code"] as? Int == 1004)
        #expect(failure["description"] as? String ==
                EditError.notSingleSegment(table: Self.lines, fid: fid, parts: 1, points: line.points.count).description)
        #expect(try served.dump(Self.lines) == before)
    }

    @Test func rollbackOnFailureKeepsNothingWhenOneEditFails() throws {
        let served = try Served()
        let tables = [Self.points, Self.pointsAnno, Self.lines, Self.linesAnno]
        let before = try tables.map(served.dump)
        let edits = #"[{"attributes":{"fid":831,"AD_ADDRESS":1}},{"attributes":{"fid":834,"AD_ADDRESS":"not a number"}}]"#
        let answer = try served.post("/0/applyEdits", ["updates": edits, "deletes": "835",
                                                       "adds": #"[{"geometry":{"x":11790000,"y":7056000},"attributes":{"AD_ADDRESS":7}}]"#])
        let updates = results(answer, "updateResults")
        #expect(updates.map { $0["success"] as? Bool } == [false, false])
        #expect((updates[0]["error"] as? [String: Any])?["code"] as? Int == 1003)
        #expect((updates[1]["error"] as? [String: Any])?["code"] as? Int == 1000)
        #expect(results(answer, "addResults").first?["success"] as? Bool == false)
        #expect(results(answer, "deleteResults").first?["success"] as? Bool == false)
        #expect(try tables.map(served.dump) == before)
        #expect(try served.journalCount() == 0)

        // Without rollback the good edits stay, each its own journal entry.
        let partial = try served.post("/0/applyEdits", ["updates": edits, "rollbackOnFailure": "false"])
        #expect(results(partial, "updateResults").map { $0["success"] as? Bool } == [true, false])
        #expect(try annotation(served, Self.pointsAnno, featureID: 831).text == "1 ELMWOOD")
        #expect(try served.journalCount() == 1)
    }

    @Test func addsAndDeletesMakeAndRemoveAnnotationInOneEntry() throws {
        let served = try Served()
        let add = #"[{"geometry":{"x":11790100,"y":7056100},"attributes":{"AD_ADDRESS":123,"ST_STR_NAM":"NEW"}}]"#
        let answer = try served.post("/0/applyEdits", ["adds": add, "deletes": "[834]"])
        let added = try #require(results(answer, "addResults").first)
        #expect(added["success"] as? Bool == true, "\(answer)")
        let fid = Int64(try #require(added["objectId"] as? Int))
        let globalID = try #require(added["globalId"] as? String)
        #expect(globalID.count == 38)
        #expect(try annotation(served, Self.pointsAnno, featureID: fid).text == "123 NEW")
        #expect(results(answer, "deleteResults").first?["success"] as? Bool == true)
        #expect(try served.package().connection.scalarInt("SELECT count(*) FROM \(Self.pointsAnno) WHERE FeatureID = 834") == 0)
        #expect(try served.journalCount() == 1)
        // Adds to an annotation layer are refused: its rows come from its classes.
        let refused = try served.post("/6/applyEdits", ["adds": #"[{"geometry":{"rings":[]},"attributes":{"TextString":"x"}}]"#])
        #expect(results(refused, "addResults").first?["success"] as? Bool == false)
    }

    @Test func updatingAnAnnotationRowSetsItsOverrideBits() throws {
        let served = try Served()
        let row = try #require(try served.package().connection.rows("SELECT fid, FeatureID, Override FROM \(Self.pointsAnno) WHERE FeatureID = 831").first)
        let fid = try #require(row[0].integerValue)
        let answer = try served.post("/6/applyEdits", ["updates": #"[{"attributes":{"fid":\#(fid),"TextString":"BY HAND"}}]"#])
        #expect(results(answer, "updateResults").first?["success"] as? Bool == true)
        let after = try annotation(served, Self.pointsAnno, featureID: 831)
        #expect(after.text == "BY HAND")
        #expect(after.override & AnnotationOverride.text.rawValue != 0)
        // The text set by hand survives a change of the feature.
        _ = try served.post("/0/applyEdits", ["updates": #"[{"attributes":{"fid":831,"AD_ADDRESS":5}}]"#])
        #expect(try annotation(served, Self.pointsAnno, featureID: 831).text == "BY HAND")
    }

    @Test func serviceLevelEditsAreOneTransaction() throws {
        let served = try Served()
        let before = try served.dump(Self.points)
        let bad = #"[{"id":0,"updates":[{"attributes":{"fid":831,"AD_ADDRESS":2}}]},{"id":5,"deletes":[999999]}]"#
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(served.routes.respond(
            to: HTTPRequest(method: "POST", path: Served.base + "/applyEdits", parameters: ["edits": bad]), in: served.dataset)!.body)) as? [[String: Any]])
        #expect(answer.map { $0["id"] as? Int } == [0, 5])
        #expect(((answer[1]["deleteResults"] as? [[String: Any]])?.first?["error"] as? [String: Any])?["code"] as? Int == 1011)
        #expect(try served.dump(Self.points) == before)
        let good = #"[{"id":0,"updates":[{"attributes":{"fid":831,"AD_ADDRESS":2}}]},{"id":6,"updates":[]}]"#
        let done = try #require(try JSONSerialization.jsonObject(with: Data(served.routes.respond(
            to: HTTPRequest(method: "POST", path: Served.base + "/applyEdits", parameters: ["edits": good]), in: served.dataset)!.body)) as? [[String: Any]])
        #expect(((done[0]["updateResults"] as? [[String: Any]])?.first?["success"] as? Bool) == true)
        #expect(try annotation(served, Self.pointsAnno, featureID: 831).text == "2 ELMWOOD")
    }

    @Test func editsNeedAnEditTokenAndAWritableService() throws {
        let served = try Served()
        let before = try served.dump(Self.points)
        let update = ["updates": #"[{"attributes":{"fid":831,"AD_ADDRESS":3}}]"#]
        #expect(error(try served.post("/0/applyEdits", update, caller: .anonymous(mayEdit: false)))?.code == 499)
        #expect(error(try served.post("/0/applyEdits", update, caller: .invalidToken))?.code == 498)
        #expect(error(try served.get("/0", caller: .invalidToken))?.code == 498)
        #expect(error(try served.post("/0/applyEdits", update, caller: .user(name: "reader", mayEdit: false)))?.code == 403)
        #expect(try served.get("/0", caller: .anonymous(mayEdit: false))["capabilities"] as? String == "Query")
        #expect(try served.get("/0/query", ["returnCountOnly": "true"], caller: .anonymous(mayEdit: false))["count"] as? Int == 33)
        #expect(try served.dump(Self.points) == before)

        let readOnly = try Served(readOnly: true)
        #expect(try readOnly.get("")["capabilities"] as? String == "Query")
        #expect(error(try readOnly.post("/0/applyEdits", update))?.code == 400)
        #expect(error(try served.post("/0/applyEdits", ["updates": "[{not json"]))?.code == 400)
        #expect(try served.dump(Self.points) == before)

        // The journal records the user of an edit token.
        _ = try served.post("/0/applyEdits", update, caller: .user(name: "alice", mayEdit: true))
        #expect(try served.package().connection.scalarText("SELECT user FROM annolink_journal") == "alice")
    }
}
