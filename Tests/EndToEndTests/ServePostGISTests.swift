import AnnoLinkTestSupport
import Foundation
import Testing

/// `annolink serve postgresql://…` (issue 17): the FeatureServer and OGC API reads and edits on
/// a PostGIS data set, several servers on one database (an edit through one is seen by another,
/// the journal key changes, `LISTEN` wakes a waiting page), and many clients' edits through two
/// servers at once, every one accounted for. Needs the throw-away cluster (`scripts/test`).
@Suite("serve on PostGIS", .serialized)
struct ServePostGISTests {
    static let points = "Loudoun_Address_Points_1"

    /// The FeatureServer base of `server` for `data`'s database.
    func service(_ data: EditedData) -> String { "/arcgis/rest/services/\(data.database!.name)/FeatureServer" }

    /// The FeatureServer layer id of `table`.
    func layerID(_ server: ServeProcess, _ data: EditedData, _ table: String) throws -> Int {
        let layers = try #require(try server.request(service(data) + "/layers?f=json").object?["layers"] as? [[String: Any]])
        return try #require(layers.first { $0["name"] as? String == table }?["id"] as? Int)
    }

    func query(_ server: ServeProcess, _ path: String, _ parameters: [(String, String)]) throws -> [String: Any] {
        var components = URLComponents()
        components.queryItems = parameters.map { URLQueryItem(name: $0.0, value: $0.1) }
        let reply = try server.request(path + "?" + (components.percentEncodedQuery ?? ""))
        #expect(reply.status == 200, "\(path): \(reply.text)")
        return try #require(reply.object, "\(reply.text)")
    }

    func journal(_ server: ServeProcess) throws -> [String: Any] {
        let reply = try server.request("/journal")
        #expect(reply.status == 200, "\(reply.text)")
        return try #require(reply.object, "\(reply.text)")
    }

    /// Runs `body` on the Loudoun data copied into a throw-away database and `count` servers of
    /// it (started with `arguments`), then stops them and drops the database; nothing without
    /// the test cluster.
    func serving(_ count: Int = 1, _ arguments: [String] = [], _ body: (EditedData, [ServeProcess]) throws -> Void) throws {
        guard let data = try EditedData(.postGIS) else { return }
        defer { data.drop() }
        var servers: [ServeProcess] = []
        defer { for server in servers { _ = server.stop() } }
        for _ in 0..<count { servers.append(try ServeProcess(file: data.target, arguments: arguments)) }
        try body(data, servers)
    }

    /// One address point's update through `server`'s applyEdits, as a field app sends it; its result.
    func update(_ server: ServeProcess, _ data: EditedData, layer: Int, fid: String, _ attribute: String, _ value: String) throws -> HTTPReply {
        try server.request(service(data) + "/\(layer)/applyEdits", method: "POST",
                           form: [("f", "json"), ("updates", #"[{"attributes": {"fid": \#(fid), "\#(attribute)": "\#(value)"}}]"#)])
    }

    /// The address point `fid`'s number and street, and the text of its label, in the database.
    func addressAndLabel(_ data: EditedData, _ fid: String) throws -> (address: String, label: String) {
        (try data.query("SELECT \"AD_ADDRESS\" || ' ' || \"ST_STR_NAM\" FROM \"\(Self.points)\" WHERE fid = \(fid)"),
         try data.query("SELECT \"TextString\" FROM \"Loudoun_Address_PointsAnno_1\" WHERE \"FeatureID\" = \(fid)"))
    }

    @Test("FeatureServer query and applyEdits, OGC items, collections and api")
    func readsAndEdits() throws {
        try serving { data, servers in
            let server = servers[0]
            #expect(try server.request("/health").object?["dataset"] as? String == data.database!.name)
            let layer = try layerID(server, data, Self.points)
            let total = try data.query("SELECT count(*) FROM \"\(Self.points)\"")

            // Counts by where clause and by envelope, against psql's own (ST_X/ST_Y, not the index).
            let all = try query(server, service(data) + "/\(layer)/query", [("where", "1=1"), ("returnCountOnly", "true"), ("f", "json")])
            #expect("\(all["count"] ?? "")" == total)
            let whereCount = try query(server, service(data) + "/\(layer)/query",
                                       [("where", "AD_ADDRESS > 20000"), ("returnCountOnly", "true"), ("f", "json")])
            #expect("\(whereCount["count"] ?? "")" == (try data.query("SELECT count(*) FROM \"\(Self.points)\" WHERE \"AD_ADDRESS\" > 20000")))
            // An annotation class's sublayer reads its class's rows, ANDed with the caller's where.
            let parent = try layerID(server, data, "ParcelLinesAnno_1")
            let listed = try #require(try server.request(service(data) + "?f=json").object?["layers"] as? [[String: Any]])
            let sublayer = try #require(listed.first { $0["type"] as? String == "Annotation SubLayer" && $0["parentLayerId"] as? Int == parent }?["id"] as? Int)
            let classCount = try query(server, service(data) + "/\(sublayer)/query",
                                       [("where", "length(TextString) > 5"), ("returnCountOnly", "true"), ("f", "json")])
            #expect("\(classCount["count"] ?? "")" == (try data.query(
                "SELECT count(*) FROM \"ParcelLinesAnno_1\" WHERE \"AnnotationClassID\" = 0 AND length(\"TextString\") > 5")), "\(classCount)")
            let box = try data.query("""
                SELECT percentile_disc(0.25) WITHIN GROUP (ORDER BY ST_X(geom)) || ',' || percentile_disc(0.25) WITHIN GROUP (ORDER BY ST_Y(geom))
                  || ',' || percentile_disc(0.75) WITHIN GROUP (ORDER BY ST_X(geom)) || ',' || percentile_disc(0.75) WITHIN GROUP (ORDER BY ST_Y(geom))
                FROM "\(Self.points)"
                """)
            let c = box.split(separator: ",").map(String.init)
            let inBox = try data.query("""
                SELECT count(*) FROM "\(Self.points)" WHERE ST_X(geom) BETWEEN \(c[0]) AND \(c[2]) AND ST_Y(geom) BETWEEN \(c[1]) AND \(c[3])
                """)
            #expect(Int(inBox)! > 0 && inBox != total)
            let boxed = try query(server, service(data) + "/\(layer)/query",
                                  [("geometry", box), ("geometryType", "esriGeometryEnvelope"), ("returnIdsOnly", "true"), ("f", "json")])
            #expect((boxed["objectIds"] as? [Any])?.count == Int(inBox))
            // A where clause SQLite's rules allow but PostgreSQL has no function for: Esri's 400, not a crash.
            let foreign = try query(server, service(data) + "/\(layer)/query",
                                    [("where", "instr(ST_STR_NAM, 'A') > 0"), ("returnCountOnly", "true"), ("f", "json")])
            // The store refuses it as a where clause that does not run, with PostgreSQL's reason.
            let refusal = foreign["error"] as? [String: Any]
            #expect(refusal?["code"] as? Int == 400, "\(foreign)")
            #expect((refusal?["details"] as? [String])?.first?.hasPrefix("where: does not run (PostgreSQL: function instr(") == true, "\(foreign)")
            // A page of features with attributes and geometry.
            let page = try query(server, service(data) + "/\(layer)/query",
                                 [("where", "1=1"), ("outFields", "*"), ("resultRecordCount", "3"), ("orderByFields", "fid"), ("f", "json")])
            let features = try #require(page["features"] as? [[String: Any]])
            #expect(features.count == 3)
            #expect((features.first?["geometry"] as? [String: Any])?["x"] is Double)

            // Distinct values and statistics, against PostgreSQL's own DISTINCT and aggregates.
            let distinct = try query(server, service(data) + "/\(layer)/query",
                                     [("where", "AD_ADDRESS > 20000"), ("outFields", "ST_STR_NAM"), ("returnDistinctValues", "true"), ("f", "json")])
            let names = (distinct["features"] as? [[String: Any]] ?? []).map { ($0["attributes"] as? [String: Any])?["ST_STR_NAM"] as? String ?? "NULL" }
            #expect(names.joined(separator: "\n") == (try data.query("""
                SELECT DISTINCT "ST_STR_NAM" COLLATE "C" FROM "\(Self.points)" WHERE "AD_ADDRESS" > 20000 ORDER BY 1
                """)), "\(distinct)")
            let statistics = try query(server, service(data) + "/\(layer)/query", [
                ("outStatistics", #"[{"statisticType":"count","onStatisticField":"fid","outStatisticFieldName":"n"},"# +
                    #"{"statisticType":"stddev","onStatisticField":"AD_ADDRESS","outStatisticFieldName":"s"}]"#),
                ("groupByFieldsForStatistics", "ST_STR_NAM"), ("orderByFields", "ST_STR_NAM"), ("f", "json"),
            ])
            let groups = (statistics["features"] as? [[String: Any]] ?? []).map { feature -> String in
                let a = feature["attributes"] as? [String: Any] ?? [:]
                return "\(a["ST_STR_NAM"] ?? "")|\(a["n"] ?? "")|" + ((a["s"] as? Double).map { String(format: "%.6f", $0) } ?? "")
            }
            #expect(groups.joined(separator: "\n") == (try data.query("""
                SELECT "ST_STR_NAM", count(fid), coalesce(to_char(stddev_samp("AD_ADDRESS"), 'FM999999990.000000'), '')
                FROM "\(Self.points)" GROUP BY 1 ORDER BY "ST_STR_NAM" COLLATE "C"
                """)), "\(statistics)")

            // An edit through applyEdits: the feature, its label and the journal, in the database.
            let fid = try data.firstPoint()
            let edit = try update(server, data, layer: layer, fid: fid, "ST_STR_NAM", "SERVED STREET")
            let updated = try #require((edit.object?["updateResults"] as? [[String: Any]])?.first, "\(edit.text)")
            #expect(updated["success"] as? Bool == true, "\(edit.text)")
            let point = try addressAndLabel(data, fid)
            #expect(point.address.hasSuffix(" SERVED STREET") && point.label == point.address)
            #expect(try data.query("SELECT command FROM annolink.journal ORDER BY id DESC LIMIT 1") == "serve applyEdits")
            #expect(try Harness.annolink("check", data.target).status == 0)

            // OGC API items: a page, the count, a bbox.
            let items = try server.request("/ogc/collections/\(Self.points)/items?limit=5&f=json")
            #expect(items.status == 200, "\(items.text)")
            #expect(items.object?["numberMatched"] as? Int == Int(total))
            #expect((items.object?["features"] as? [Any])?.count == 5)
            let collection = try server.request("/ogc/collections/\(Self.points)?f=json")
            #expect(collection.status == 200, "\(collection.text)")

            let api = try server.request("/ogc/api?f=json")
            #expect(api.status == 200, "\(api.text)")
            #expect(api.text.contains("/collections/\(Self.points)/items"))
            #expect(try server.request("/health").status == 200, "the server still answers")
        }
    }

    @Test("OGC schemas and queryables on PostGIS are the GeoPackage's (the declared types the annolink schema keeps); items are tagged by their bytes")
    func schemasOnPostGIS() throws {
        guard let (_, file) = try Harness.serveLoudoun() else { return }
        defer { _ = file.stop() }
        try serving { data, servers in
            let server = servers[0]
            let collections = try #require(try server.request("/ogc/collections").object?["collections"] as? [[String: Any]])
            #expect(collections.count == 8)
            for id in collections.compactMap({ $0["id"] as? String }) {
                for resource in ["schema", "queryables", "feature-schema"] {
                    let served = try #require(try server.request("/ogc/collections/\(id)/\(resource)").object, "\(id) \(resource)")
                    let fromFile = try #require(try file.request("/ogc/collections/\(id)/\(resource)").object)
                    #expect(NSDictionary(dictionary: served["properties"] as? [String: Any] ?? [:])
                        == NSDictionary(dictionary: fromFile["properties"] as? [String: Any] ?? [:]), "\(id) \(resource)")
                }
            }
            // No stamp of a PostGIS table is known: the tag is a hash of the answer's bytes.
            let items = try server.request("/ogc/collections/\(Self.points)/items?limit=5")
            let tag = try #require(items.headers["etag"])
            #expect(!tag.hasPrefix("W/"), "\(tag)")
        }
    }

    @Test("OGC single items and edits on PostGIS: the ETag follows the row, If-Match guards PATCH and DELETE (412 on a stale tag), POST creates; labels and journal in the database")
    func ogcItemsAndEdits() throws {
        try serving { data, servers in
            let server = servers[0]
            let fid = try data.firstPoint()
            let item = "/ogc/collections/\(Self.points)/items/\(fid)"
            let one = try server.request(item + "?f=json")
            #expect(one.status == 200, "\(one.text)")
            #expect("\((one.object?["id"]) ?? "")" == fid, "\(one.text)")
            let etag = try #require(one.headers["etag"], "\(one.headers)")
            #expect(etag.hasPrefix("\"") && etag.count == 34)
            #expect(try server.request(item + "?f=json").headers["etag"] == etag, "the same row gives the same tag")
            #expect(try server.request("/ogc/collections/\(Self.points)/items/999999999?f=json").status == 404)

            // PATCH with the tag: the field and its label change, one journal entry, a new tag.
            let patch = ["Content-Type": "application/merge-patch+json"]
            let patched = try server.request(item, method: "PATCH", headers: patch.merging(["If-Match": etag]) { $1 },
                                             body: Data(#"{"properties": {"ST_STR_NAM": "OGC STREET"}}"#.utf8))
            #expect(patched.status == 204, "\(patched.text)")
            let newTag = try #require(patched.headers["etag"])
            #expect(newTag != etag)
            #expect(try server.request(item + "?f=json").headers["etag"] == newTag, "the tag a PATCH returns is the one a GET gives")
            let point = try addressAndLabel(data, fid)
            #expect(point.address.hasSuffix(" OGC STREET") && point.label == point.address)
            let entries = try data.query("SELECT count(*) FROM annolink.journal")

            // The old tag no longer matches: 412, nothing written.
            let stale = try server.request(item, method: "PATCH", headers: patch.merging(["If-Match": etag]) { $1 },
                                           body: Data(#"{"properties": {"ST_STR_NAM": "LOST"}}"#.utf8))
            #expect(stale.status == 412, "\(stale.text)")
            #expect(try data.query("SELECT \"ST_STR_NAM\" FROM \"\(Self.points)\" WHERE fid = \(fid)") == "OGC STREET")
            #expect(try data.query("SELECT count(*) FROM annolink.journal") == entries)

            // POST creates a feature with its label; DELETE with the current tag removes both.
            let created = try server.request("/ogc/collections/\(Self.points)/items", method: "POST", headers: ["Content-Type": "application/geo+json"],
                                             body: Data(#"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [-77.4170, 39.0205]}, "properties": {"AD_ADDRESS": 7, "ST_STR_NAM": "NEW OGC", "GlobalID": "{00000000-0000-0000-0000-0000000000AB}"}}"#.utf8))
            #expect(created.status == 201, "\(created.text)")
            let location = try #require(created.headers["location"], "\(created.text)")
            let newFid = try #require(location.split(separator: "/").last.map(String.init))
            #expect(try data.query("SELECT \"TextString\" FROM \"Loudoun_Address_PointsAnno_1\" WHERE \"FeatureID\" = \(newFid)").hasSuffix("NEW OGC"))
            let createdTag = try #require(created.headers["etag"])
            #expect(try server.request("/ogc/collections/\(Self.points)/items/\(newFid)?f=json").headers["etag"] == createdTag)
            let deleted = try server.request("/ogc/collections/\(Self.points)/items/\(newFid)", method: "DELETE", headers: ["If-Match": createdTag])
            #expect(deleted.status == 204, "\(deleted.text)")
            #expect(try data.query("SELECT count(*) FROM \"\(Self.points)\" WHERE fid = \(newFid)") == "0")
            #expect(try data.query("SELECT count(*) FROM \"Loudoun_Address_PointsAnno_1\" WHERE \"FeatureID\" = \(newFid)") == "0")
            #expect(try Harness.annolink("check", data.target).status == 0)
        }
    }

    @Test("the map page's /coordinates on PostGIS: the data's CRS read through the store, longitude/latitude as cs2cs gives them; /render.png the picture annolink render draws")
    func coordinates() throws {
        try serving { data, servers in
            let server = servers[0]
            let (x, y) = (11788123.25, 7059001.5)
            let line = try ExternalTool.cs2cs.output(["-f", "%.10f", "EPSG:2924", "EPSG:4326"], input: "\(x) \(y)\n")
            let numbers = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Double($0) }
            try #require(numbers.count >= 2, "cs2cs: \(line)")
            let answer = try server.request("/coordinates?x=\(x)&y=\(y)")
            #expect(answer.status == 200, "\(answer.text)")
            #expect(answer.object?["crs"] as? String == "EPSG:2924", "\(answer.text)")
            let longitude = try #require(answer.object?["longitude"] as? Double, "\(answer.text)")
            let latitude = try #require(answer.object?["latitude"] as? Double, "\(answer.text)")
            // cs2cs writes latitude, longitude (EPSG:4326's axis order).
            #expect(abs(longitude - numbers[1]) < 1e-9 && abs(latitude - numbers[0]) < 1e-9, "\(longitude), \(latitude) vs cs2cs \(line)")
            // The renderer reads through the store: the picture `annolink render` draws of the database
            // (RenderPostGISTests compares it with the GeoPackage's).
            let png = try server.request("/render.png?bbox=11787000,7055000,11792000,7060000&width=64&height=64")
            #expect(png.status == 200 && png.headers["content-type"] == "image/png", "\(png.text)")
            let rendered = try Harness.temporaryDirectory().appendingPathComponent("render.png")
            let render = try Harness.annolink("render", data.target, rendered.path, "--bbox", "11787000,7055000,11792000,7060000", "--size", "64,64")
            #expect(render.status == 0, "\(render.stderr)")
            #expect(png.body == (try Data(contentsOf: rendered)))
        }
    }

    @Test("a sketch session on PostGIS: open a parcel line, drag its end, save — the line, its length label and the journal in the database")
    func sketch() throws {
        try serving { data, servers in
            let server = servers[0]
            let fid = try data.query("""
                SELECT l.fid FROM "ParcelLines_1" l WHERE ST_NPoints(l.geom) = 2
                AND EXISTS (SELECT 1 FROM "ParcelLinesAnno_1" a WHERE a."FeatureID" = l.fid) ORDER BY l.fid LIMIT 1
                """)
            let labelBefore = try data.query("SELECT \"TextString\" FROM \"ParcelLinesAnno_1\" WHERE \"FeatureID\" = \(fid)")
            func send(_ path: String, _ body: [String: Any]) throws -> HTTPReply {
                try server.request(path, method: "POST", headers: ["Content-Type": "application/json"], body: try JSONSerialization.data(withJSONObject: body))
            }
            let created = try send("/sketch/sessions", ["table": "ParcelLines_1", "fid": Int(fid)!, "tool": "vertex"])
            #expect(created.status == 201, "\(created.text)")
            let id = try #require(created.object?["id"] as? String, "\(created.text)")
            let parts = try #require(created.object?["parts"] as? [[[Double]]])
            try #require(parts.count == 1 && parts[0].count == 2)
            let centre = try #require((created.object?["view"] as? [String: Any])?["center"] as? [Double])
            let u = 1200 * 0.0254 / 96 / (1200.0 / 3937.0)
            let end = [400 + (parts[0][1][0] - centre[0]) / u, 300 - (parts[0][1][1] - centre[1]) / u]
            let dragged = try send("/sketch/sessions/\(id)/actions", ["action": "drag", "from": end, "to": [end[0] + 40, end[1]]])
            #expect(dragged.status == 200, "\(dragged.text)")
            let saved = try send("/sketch/sessions/\(id)/save", [:])
            #expect(saved.status == 200, "\(saved.text)")
            #expect((saved.object?["result"] as? [String: Any])?["fid"] as? Int == Int(fid), "\(saved.text)")
            let x = try #require(Double(try data.query("SELECT ST_X(ST_EndPoint(geom)) FROM \"ParcelLines_1\" WHERE fid = \(fid)")))
            #expect(abs(x - (parts[0][1][0] + 40 * u)) < 1e-6, "the end moved 40 points right")
            #expect(try data.query("SELECT \"TextString\" FROM \"ParcelLinesAnno_1\" WHERE \"FeatureID\" = \(fid)") != labelBefore,
                    "the length label follows the new shape")
            #expect(try data.query("SELECT command FROM annolink.journal ORDER BY id DESC LIMIT 1") == "serve sketch save")
            #expect(try Harness.annolink("check", data.target).status == 0)
        }
    }

    @Test("an edit through one server is seen through another: its query, its journal key, and a page waiting on LISTEN")
    func twoServers() throws {
        try serving(2) { data, servers in
            let (a, b) = (servers[0], servers[1])
            let layer = try layerID(a, data, Self.points)
            let fid = try data.firstPoint()
            let before = try journal(b)
            let key = try #require(before["key"] as? String)
            let heard = before["notifications"] as? Int ?? -1

            // A page of server B waits for the journal to move; server A's edit wakes it.
            let waiter = WaitedReply()
            let started = Date()
            let thread = Thread { waiter.set(try? b.request("/journal?key=\(key)&wait=20")) }
            thread.start()
            Thread.sleep(forTimeInterval: 1)
            let edit = try update(a, data, layer: layer, fid: fid, "ST_STR_NAM", "OTHER SERVER")
            #expect((edit.object?["updateResults"] as? [[String: Any]])?.first?["success"] as? Bool == true, "\(edit.text)")
            let woken = waiter.wait(timeout: 25)
            let waited = Date().timeIntervalSince(started)
            #expect(woken?.status == 200)
            #expect(woken?.object?["key"] as? String != key, "the waiting page got the new key")
            // An honest wake comes a second or two after the edit; the bound is only what tells
            // it from the 20 s timeout, as far above that as it can be (no machine-speed budget).
            #expect(waited < 19, "woken by the notification, not by the 20 s timeout (\(waited) s)")

            let after = try journal(b)
            #expect(after["key"] as? String != key)
            #expect((after["lastEntry"] as? Int ?? 0) > (before["lastEntry"] as? Int ?? 0))
            #expect((after["notifications"] as? Int ?? 0) > heard, "B heard A's NOTIFY")
            #expect((after["undo"] as? [String: Any])?["command"] as? String == "serve applyEdits")
            let seen = try query(b, service(data) + "/\(layer)/query", [("objectIds", fid), ("outFields", "ST_STR_NAM"), ("f", "json")])
            let attributes = (seen["features"] as? [[String: Any]])?.first?["attributes"] as? [String: Any]
            #expect(attributes?["ST_STR_NAM"] as? String == "OTHER SERVER")

            // Undo through B takes A's edit back.
            let undo = try b.request("/journal/undo", method: "POST")
            #expect(undo.status == 200, "\(undo.text)")
            #expect(try journal(a)["key"] as? String != after["key"] as? String)
            #expect(try data.query("SELECT \"ST_STR_NAM\" FROM \"\(Self.points)\" WHERE fid = \(fid)") != "OTHER SERVER")
        }
    }

    /// Opens the map page of one server at `fid`'s address point, edits it through the other
    /// server, and prints what the page saw as JSON. Arguments: the page's server, the other
    /// server's FeatureServer URL, the layer id, the fid, the point's x and y.
    static let pageScript = Browser.script("postgis_page.py")

    @Test("the map page on one server shows an edit made through another, woken by LISTEN/NOTIFY, without a reload")
    func pageHearsOtherServers() throws {
        try serving(2, ["--quiet"]) { data, servers in
            let (a, b) = (servers[0], servers[1])
            let layer = try layerID(a, data, Self.points)
            let fid = try data.firstPoint()
            let point = try query(a, service(data) + "/\(layer)/query", [("objectIds", fid), ("returnGeometry", "true"), ("f", "json")])
            let geometry = try #require((point["features"] as? [[String: Any]])?.first?["geometry"] as? [String: Any])
            let x = try #require(geometry["x"] as? Double), y = try #require(geometry["y"] as? Double)
            let result = try Harness.run(try Harness.venvTool("python"),
                                         [Self.pageScript, b.url, a.url + service(data), String(layer), fid, String(x), String(y)])
            try #require(result.status == 0, "\(result.stderr)")
            let seen = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            #expect(((seen["edit"] as? [String: Any])?["updateResults"] as? [[String: Any]])?.first?["success"] as? Bool == true, "\(seen)")
            #expect((seen["after"] as? String)?.hasPrefix("45111 ") == true, "\(seen)")
            #expect(seen["before"] as? String != seen["after"] as? String)
            #expect(seen["notReloaded"] as? Bool == true)
            #expect(seen["errors"] as? String == "")
            print("page on server B saw server A's edit after \(seen["seconds"] ?? "?") s")
        }
    }

    @Test("2 servers, 4 clients, 100 mixed edits on few features (many two at once, in random order): no deadlock (the batch locks in fid order), every edit in the database, labels clean, one entry each")
    func concurrentClients() throws {
        try serving(2) { data, servers in
            let (a, b) = (servers[0], servers[1])
            let run = try Harness.run("/usr/bin/python3", [
                Harness.packageRoot.appendingPathComponent("scripts/pg-serve-load").path, "--server", a.url, "--server", b.url,
                "--service", data.database!.name, "--clients", "4", "--edits", "100", "--hot", "3", "--pairs", "0.5",
                "--database", data.database!.connectionString, "--annolink", Harness.binary,
            ])
            #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
            let report = try #require((try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8))) as? [String: Any], "\(run.stdout + run.stderr)")
            #expect(report["ok"] as? Bool == true, "\(report)")
            #expect(report["edits"] as? Int == 100)
            let succeeded = report["succeeded"] as? Int ?? 0
            #expect(succeeded + (report["conflicts"] as? Int ?? 0) == 100)
            // Two-feature requests in opposite orders deadlocked (about one in ten) until applyEdits
            // took its features in fid order first (EditService.lockFeatures).
            #expect(report["conflicts"] as? Int == 0, "\(report["failures"] ?? "")")
            #expect(report["journalEntries"] as? Int == succeeded)
            #expect((report["onHotFeatures"] as? Int ?? 0) > 20, "editors met on the same features")
        }
    }
}

/// A reply another thread fills in.
final class WaitedReply: @unchecked Sendable {
    private let condition = NSCondition()
    private var reply: HTTPReply?
    private var done = false

    func set(_ value: HTTPReply?) {
        condition.lock()
        reply = value
        done = true
        condition.broadcast()
        condition.unlock()
    }

    func wait(timeout: Double) -> HTTPReply? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while !done, condition.wait(until: deadline) {}
        return reply
    }
}
