import AnnoLinkTestSupport
import Foundation
import Testing

/// Issue 25, "CRS text from a client is data, never a path": a real `annolink serve` and the
/// CLI given CRS text that opened server files or overflowed PROJ's parser (docs/serve.md,
/// "CRS text"; docs/engine.md, "What CRS text is accepted").
@Suite("CRS text is data, never a path, end to end")
struct CRSTextTests {
    /// A sample file in a fresh folder, and the folder.
    func sample() throws -> (path: String, folder: URL) {
        let folder = try Harness.temporaryDirectory()
        let path = folder.appendingPathComponent("town.gpkg").path
        let made = try Harness.annolink("sample", path, "--parcels", "20")
        #expect(made.status == 0, "\(made.stderr)")
        return (path, folder)
    }

    static let query = "/arcgis/rest/services/town/FeatureServer/0/query"

    /// PROJJSON whose `base_crs` nests `levels` times: 70,000 levels overflowed a worker's stack
    /// inside PROJ and killed the server.
    static func nestedPROJJSON(levels: Int) -> String {
        let open = #"{"type":"ProjectedCRS","name":"nested","base_crs":"#
        let close = #","conversion":{"name":"c","method":{"name":"m"}}}"#
        return String(repeating: open, count: levels) + #"{"type":"GeographicCRS","name":"g"}"# + String(repeating: close, count: levels)
    }

    /// The FeatureServer error's details, joined.
    func details(_ reply: HTTPReply) -> String {
        let error = reply.object?["error"] as? [String: Any]
        return ((error?["details"] as? [String]) ?? []).joined(separator: "\n")
    }

    @Test("a 70,000-deep PROJJSON outSR posted as a form is a 400 and the server lives")
    func deepOutSR() throws {
        let server = try ServeProcess(file: try sample().path)
        let deep = Self.nestedPROJJSON(levels: 70_000)
        let escaped = deep.replacingOccurrences(of: "\"", with: "\\\"")
        // The form as Esri clients post it; the JSON needs no percent-encoding (no &, +, %, =),
        // so the body stays under the 10 MB limit.
        let body = Data(("f=json&where=1%3D1&outSR=" + #"{"wkt":""# + escaped + #""}"#).utf8)
        #expect(body.count > 5_250_000 && body.count < 10 * 1024 * 1024)
        let reply = try server.request(Self.query, method: "POST", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: body)
        #expect(reply.status == 200, "Esri errors travel with HTTP 200: \(reply.text.prefix(300))")
        #expect((reply.object?["error"] as? [String: Any])?["code"] as? Int == 400)
        #expect(details(reply).hasPrefix("outSR: coordinate reference system '{\"type\":\"ProjectedCRS\""), "\(details(reply))")
        #expect(details(reply).hasSuffix("refused: it is \(deep.utf8.count) bytes long; at most 65536 are accepted"), "\(details(reply))")
        #expect(reply.body.count < 2_000, "the 5 MB definition is not echoed back")
        #expect(try server.request("/health").status == 200)
        #expect(server.process.isRunning)
    }

    @Test("+init= of a server file is refused without a probe of the file")
    func initOfAFile() throws {
        let (path, folder) = try sample()
        let server = try ServeProcess(file: path)
        let missing = folder.appendingPathComponent("no-such-file").path
        var answers: [String] = []
        for target in ["/etc/passwd", missing] {
            let outSR = #"{"wkt":"+init="# + target + #":root"}"#
            let reply = try server.request(Self.query, method: "POST", form: [("f", "json"), ("where", "1=1"), ("outSR", outSR)])
            #expect((reply.object?["error"] as? [String: Any])?["code"] as? Int == 400, "\(reply.text)")
            let text = details(reply)
            #expect(text == "outSR: coordinate reference system '+init=\(target):root' refused: it refers to a file or grid (init=); "
                    + "only EPSG or ESRI codes, WKT and PROJJSON without file references are accepted")
            #expect(!text.contains("Invalid content") && !text.contains("Cannot open") && !text.contains("root:x:0"))
            answers.append(text.replacingOccurrences(of: target, with: "PATH"))
        }
        // An existing and a missing file answer alike.
        #expect(answers[0] == answers[1])
        // A PROJ string without a file is refused too: clients give codes, WKT or PROJJSON.
        let projString = try server.request(Self.query, method: "POST", form: [("f", "json"), ("where", "1=1"), ("outSR", #"{"wkt":"+proj=longlat +datum=WGS84"}"#)])
        #expect(details(projString).hasSuffix("refused: PROJ strings are not accepted here; give an EPSG or ESRI code (EPSG:2924), WKT or PROJJSON"),
                "\(details(projString))")
        // Legitimate text still works: a wkid and WKT.
        let wgs84 = try server.request(Self.query, method: "POST", form: [("f", "json"), ("where", "1=1"), ("outSR", "4326"), ("resultRecordCount", "1")])
        #expect(wgs84.object?["features"] != nil, "\(wgs84.text.prefix(300))")
        let wkt = #"GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]]"#
        let byWKT = try server.request(Self.query, method: "POST", form: [("f", "json"), ("where", "1=1"), ("outSR", #"{"wkt":"# + "\"\(wkt.replacingOccurrences(of: "\"", with: "\\\""))\"}"), ("resultRecordCount", "1")])
        func firstPoint(_ reply: HTTPReply) -> (Double, Double)? {
            let geometry = (reply.object?["features"] as? [[String: Any]])?.first?["geometry"] as? [String: Any]
            guard let x = geometry?["x"] as? Double, let y = geometry?["y"] as? Double else { return nil }
            return (x, y)
        }
        // The same point as by wkid 4326, in Sterling's longitudes.
        let (x, y) = try #require(firstPoint(byWKT), "\(byWKT.text.prefix(300))")
        let (x4326, y4326) = try #require(firstPoint(wgs84))
        #expect(abs(x - x4326) < 1e-9 && abs(y - y4326) < 1e-9 && x < -77 && x > -78, "\(x), \(y)")
        #expect(try server.request("/health").status == 200)
    }

    /// A FIFO's reader blocks in `read()` until a writer comes: before the fix, about 11 such
    /// requests blocked all 8 worker threads and `/health` timed out.
    @Test("+init= of a FIFO answers 400 at once, more times than there are workers")
    func initOfAFIFO() throws {
        let (path, folder) = try sample()
        let fifo = folder.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let server = try ServeProcess(file: path)
        let outSR = #"{"wkt":"+init="# + fifo + #":x"}"#
        let encoded = try #require(outSR.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let statuses = try HTTPClient.statuses(Array(repeating: server.url + Self.query + "?f=pjson&where=1%3D1&outSR=" + encoded, count: 12))
        #expect(statuses == Array(repeating: 200, count: 12))
        let reply = try server.request(Self.query + "?f=json&where=1%3D1&outSR=" + encoded)
        #expect(details(reply).hasSuffix("refused: it refers to a file or grid (init=); only EPSG or ESRI codes, WKT and PROJJSON without file references are accepted"))
        #expect(try server.request("/health").status == 200)
        #expect(server.stop() == 0, "SIGTERM is obeyed: no worker is stuck in read()")
    }

    @Test("a file whose CRS definition is the deep PROJJSON gives clear errors, never a crash")
    func deepDefinitionInAFile() throws {
        let (path, folder) = try sample()
        let definition = folder.appendingPathComponent("deep.json")
        let deep = Self.nestedPROJJSON(levels: 70_000)
        let size = deep.utf8.count
        try deep.write(to: definition, atomically: true, encoding: .utf8)
        _ = try Harness.sqlite(path, """
            INSERT INTO gpkg_spatial_ref_sys (srs_name, srs_id, organization, organization_coordsys_id, definition)
              VALUES ('deep', 990001, 'NONE', 990001, CAST(readfile('\(definition.path)') AS TEXT));
            UPDATE gpkg_geometry_columns SET srs_id = 990001;
            UPDATE gpkg_contents SET srs_id = 990001 WHERE srs_id = 2924;
            """)
        #expect(try Harness.sqlite(path, "SELECT length(definition) FROM gpkg_spatial_ref_sys WHERE srs_id = 990001") == "\(size)")

        let info = try Harness.annolink("info", path)
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("address_points (features): 20 POINT in NONE:990001 deep"), "\(info.stdout)")
        let identify = try Harness.annolink("identify", path, "-77.4,39.0", "--crs", "EPSG:4326")
        #expect(identify.status == 65 && identify.stderrLines.count == 1, "\(identify.stderr)")
        #expect(identify.stderr.hasPrefix("error: ") && identify.stderr.contains("refused: it is \(size) bytes long; at most 65536 are accepted"),
                "\(identify.stderr)")

        let server = try ServeProcess(file: path)
        let geoJSON = try server.request(Self.query + "?f=geojson&where=1%3D1&resultRecordCount=1")
        #expect(geoJSON.text.contains("refused: it is \(size) bytes long"), "\(geoJSON.text.prefix(400))")
        let coordinates = try server.request("/coordinates?x=11880039&y=7020032")
        #expect(coordinates.status == 422)
        #expect((coordinates.object?["detail"] as? String)?.contains("refused: it is \(size) bytes long") == true, "\(coordinates.text.prefix(400))")
        #expect(try server.request("/arcgis/rest/services/town/FeatureServer/0?f=json").status == 200)
        #expect(try server.request("/health").status == 200)
        #expect(server.stop() == 0)
    }

    @Test("the CLI's --crs refuses file references with exit 65")
    func commandLineCRS() throws {
        let (path, folder) = try sample()
        let fifo = folder.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        for crs in ["+init=/etc/passwd:root", "+init=\(fifo):x", "+proj=longlat +nadgrids=/etc/passwd"] {
            let result = try Harness.annolink("identify", path, "-77.4,39.0", "--crs", crs)
            #expect(result.status == 65 && result.stderrLines.count == 1, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("error: coordinate reference system '\(crs)' refused: it refers to a file or grid ("), "\(result.stderr)")
        }
        // The command line still takes a PROJ string without files.
        let projString = try Harness.annolink("identify", path, "-77.4,39.0", "--crs", "+proj=longlat +datum=WGS84 +no_defs")
        #expect(projString.status == 0, "\(projString.stderr)")
    }
}
