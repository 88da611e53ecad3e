import AnnoLinkTestSupport
import Foundation
import Testing

/// The FeatureServer of a real `annolink serve`, read and edited by clients no one here wrote:
/// GDAL's ESRIJSON driver (`ogrinfo`), esridump and Esri's ArcGIS API for Python.
@Suite(.serialized) struct FeatureServerClientTests {
    /// The FeatureServer's URL on `server`.
    static func service(_ server: ServeProcess) -> String { server.url + "/arcgis/rest/services/loudoun/FeatureServer" }

    /// The layers: id and table name, in the service's order.
    static let layers = [
        (0, "Loudoun_Address_Points_1"), (1, "Loudoun_Buildings_1"), (2, "Loudoun_Forest_1"), (3, "Loudoun_Road_Casings_1"),
        (4, "Loudoun_Subdivision_1"), (5, "ParcelLines_1"), (6, "Loudoun_Address_PointsAnno_1"), (7, "ParcelLinesAnno_1"),
    ]

    /// What `ogrinfo -al` shows of a layer: each feature's id, its fields' names and its
    /// geometry's coordinates (sorted, because Esri JSON rewinds polygon rings).
    struct Listing: Equatable {
        var fields: Set<String> = []
        var coordinates: [Int: [String]] = [:]
    }

    static func listing(_ ogrinfo: String) -> Listing {
        var listing = Listing()
        var current: Int?
        for line in ogrinfo.split(separator: "\n") {
            if line.hasPrefix("OGRFeature("), let id = line.split(separator: ":").last.flatMap({ Int($0) }) {
                current = id
                listing.coordinates[id] = []
            } else if current == nil, !line.hasPrefix(" "), let colon = line.range(of: ": "),
                      line[colon.upperBound...].range(of: #"^\w+(\(\w+\))? \("#, options: .regularExpression) != nil {
                // The schema of `-so`-style header lines: `NAME: Type (width.precision)`.
                let name = String(line[..<colon.lowerBound])
                if !["Geometry", "FID Column", "Geometry Column", "Layer name", "Feature Count", "Extent"].contains(name), name != "fid" {
                    listing.fields.insert(name)
                }
            } else if current != nil, line.hasPrefix("  "), line.contains(" = ") {
                continue
            } else if let id = current, line.hasPrefix("  "), line.contains("(") {
                let numbers = line.split(whereSeparator: { " (),".contains($0) }).filter { Double($0) != nil }.map(String.init)
                var pairs: [String] = []
                var i = 0
                while i + 1 < numbers.count { pairs.append(numbers[i] + " " + numbers[i + 1]); i += 2 }
                listing.coordinates[id] = pairs.sorted()
            }
        }
        return listing
    }

    @Test func gdalReadsEveryLayerWithPagingAsTheFileHasIt() throws {
        guard Harness.hasGDAL else { return }
        guard let (path, server) = try Harness.serveLoudoun(["--max-records", "40"]) else { return }
        for (id, table) in Self.layers {
            let fromFile = try ExternalTool.run("/usr/bin/ogrinfo", ["-ro", "-al", path, table])
            let url = "\(Self.service(server))/\(id)/query?where=1%3D1&outFields=*&f=json"
            let fromServer = try ExternalTool.run("/usr/bin/ogrinfo", ["-ro", "-al", url])
            #expect(fromServer.status == 0, "\(fromServer.stderr)")
            let file = Self.listing(fromFile.stdout), served = Self.listing(fromServer.stdout)
            #expect(served.coordinates.count == file.coordinates.count, "layer \(id) \(table)")
            #expect(served.coordinates.count > 0)
            #expect(served.fields == file.fields, "layer \(id)")
            #expect(served.coordinates == file.coordinates, "layer \(id) \(table)")
        }
        // More than one page was asked for: the server cut at 40 and GDAL followed.
        let log = server.stderr
        #expect(log.components(separatedBy: "/5/query").count - 1 >= 3)
    }

    @Test func esridumpDumpsEveryLayer() throws {
        let esri2geojson = try Harness.venvTool("esri2geojson")
        guard let (path, server) = try Harness.serveLoudoun(["--max-records", "50"]) else { return }
        let folder = try Harness.temporaryDirectory()
        for (id, table) in Self.layers {
            let out = folder.appendingPathComponent("layer\(id).geojson").path
            let run = try ExternalTool.run(esri2geojson, ["\(Self.service(server))/\(id)", out])
            #expect(run.status == 0, "\(run.stderr)")
            let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as? [String: Any]
            let features = object?["features"] as? [[String: Any]] ?? []
            let ids = Set(features.compactMap { ($0["properties"] as? [String: Any])?["fid"] as? Int }.map(String.init))
            let fileIDs = Set(try Harness.sqlite(path, "SELECT fid FROM \"\(table)\"").split(separator: "\n").map(String.init))
            #expect(ids == fileIDs, "layer \(id) \(table)")
            #expect(features.allSatisfy { $0["geometry"] is [String: Any] })
        }
    }

    /// Esri's ArcGIS API for Python. `FeatureLayer` reads through a bare `Connection` to the
    /// server; `FeatureLayer.edit_features` cannot run without a `GIS` (it reads
    /// `self._gis.version`), and `GIS()` always opens a portal (`/sharing/rest/portals/self`,
    /// www.arcgis.com by default), which annolink is not. So the edit goes through the
    /// library's raw request layer, `Connection.post_multipart`, the call `edit_features` ends in.
    @Test func arcgisAPIForPythonQueriesAndEdits() throws {
        let python = try Harness.venvTool("python")
        guard let (path, server) = try Harness.serveLoudoun() else { return }
        let script = try Harness.temporaryDirectory().appendingPathComponent("client.py").path
        try """
        import json, sys
        from arcgis.gis._impl._con import Connection
        from arcgis.features import FeatureLayer
        base = sys.argv[1]
        con = Connection(baseurl=base + "arcgis", all_ssl=False)
        layer = FeatureLayer(sys.argv[2] + "/0", gis=con)
        found = layer.query(where="ST_STR_NAM = 'ELMWOOD'", out_fields="fid,AD_ADDRESS")
        # The layer says it supports distinct values and statistics; the API builds the requests.
        distinct = layer.query(where="1=1", out_fields="ST_STR_NAM", return_distinct_values=True, return_geometry=False)
        stats = layer.query(where="1=1", group_by_fields_for_statistics="ST_STR_NAM",
                            out_statistics=[{"statisticType": "count", "onStatisticField": "fid", "outStatisticFieldName": "n"},
                                            {"statisticType": "max", "onStatisticField": "AD_ADDRESS", "outStatisticFieldName": "highest"}])
        updates = [{"attributes": {"fid": 831, "AD_ADDRESS": 45111}}]
        result = con.post_multipart(path=layer.url + "/applyEdits",
                                    postdata={"f": "json", "updates": json.dumps(updates), "rollbackOnFailure": "true"})
        print(json.dumps({"name": layer.properties.name, "count": len(found.features), "edit": result,
                          "distinct": sorted(f.attributes["ST_STR_NAM"] for f in distinct.features),
                          "stats": sorted([f.attributes["ST_STR_NAM"], f.attributes["n"], f.attributes["highest"]] for f in stats.features)}))
        """.write(toFile: script, atomically: true, encoding: .utf8)
        let groups = try Harness.sqlite(path, "SELECT ST_STR_NAM, count(*), max(AD_ADDRESS) FROM Loudoun_Address_Points_1 GROUP BY 1 ORDER BY 1")
        let run = try ExternalTool.run(python, [script, server.url + "/", Self.service(server)])
        #expect(run.status == 0, "\(run.stderr)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(answer["name"] as? String == "Loudoun_Address_Points_1")
        let count = try Harness.sqlite(path, "SELECT count(*) FROM Loudoun_Address_Points_1 WHERE ST_STR_NAM = 'ELMWOOD'")
        #expect(answer["count"] as? Int == Int(count))
        // Distinct values and statistics read by the API as SQLite computes them (before the edit).
        let names = try Harness.sqlite(path, "SELECT DISTINCT ST_STR_NAM FROM Loudoun_Address_Points_1 ORDER BY 1").split(separator: "\n").map(String.init)
        #expect(answer["distinct"] as? [String] == names)
        let stats = (answer["stats"] as? [[Any]] ?? []).map { $0.map { "\($0)" }.joined(separator: "|") }.joined(separator: "\n")
        #expect(stats == groups)
        let updates = (answer["edit"] as? [String: Any])?["updateResults"] as? [[String: Any]]
        #expect(updates?.first?["success"] as? Bool == true)
        #expect(try Harness.sqlite(path, "SELECT TextString FROM Loudoun_Address_PointsAnno_1 WHERE FeatureID = 831") == "45111 ELMWOOD")
    }
}
