import AnnoLinkTestSupport
import Foundation
import Testing

/// OGC API Features against a real `annolink serve` process, with clients nobody here wrote:
/// GDAL's `OAPIF:` driver, OWSLib, schemathesis (PyPI, in the venv `scripts/test-venv` makes)
/// and curl. The routes' answers in detail are tested in process (AnnoLinkServiceTests/OGC).
@Suite("OGC API Features, end to end", .serialized)
struct OGCServeTests {
    func layers(_ path: String) throws -> [String] {
        try Harness.sqlite(path, "SELECT table_name FROM gpkg_contents WHERE data_type = 'features' ORDER BY rowid").split(separator: "\n").map(String.init)
    }

    /// A layer as GeoJSON written by `ogr2ogr` from `source`.
    func geoJSON(_ source: String, layer: String, arguments: [String] = []) throws -> [[String: Any]] {
        let out = try Harness.temporaryDirectory().appendingPathComponent("\(layer).geojson").path
        let result = try Harness.run("/usr/bin/ogr2ogr", ["-f", "GeoJSON", out, source, layer] + arguments)
        #expect(result.status == 0, "ogr2ogr \(source) \(layer): \(result.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as? [String: Any]
        return object?["features"] as? [[String: Any]] ?? []
    }

    @Test("GDAL's OAPIF driver reads every Loudoun layer with the file's counts, fields and geometries")
    func gdalReadsEveryLayer() throws {
        guard Harness.hasGDAL, let (path, server) = try Harness.serveLoudoun() else { return }
        defer { _ = server.stop() }
        let names = try layers(path)
        #expect(names.count == 8)
        let listing = try Harness.run("/usr/bin/ogrinfo", ["-ro", "-q", "OAPIF:\(server.url)/ogc"])
        for name in names { #expect(listing.stdout.contains(name), "\(name) not listed: \(listing.stdout)") }
        for name in names {
            let served = try geoJSON("OAPIF:\(server.url)/ogc", layer: name)
            // GDAL reprojects the file itself to compare in CRS84. GDAL and PROJ's cs2cs (which
            // the server matches to 1e-9°, AnnoLinkServiceTests) choose different NAD83(HARN) to
            // WGS 84 operations, about a centimetre apart here: hence 1e-6° (10 cm).
            let file = try geoJSON(path, layer: name, arguments: ["-t_srs", "OGC:CRS84"])
            #expect(served.count == file.count && !file.isEmpty, "\(name): \(served.count) served, \(file.count) in the file")
            for (a, b) in zip(served, file) {
                let pa = a["properties"] as? [String: Any] ?? [:], pb = b["properties"] as? [String: Any] ?? [:]
                #expect(Set(pa.keys) == Set(pb.keys), "\(name) fields")
                for key in pb.keys { #expect(Self.normalized(pa[key]) == Self.normalized(pb[key]), "\(name).\(key)") }
                let ga = a["geometry"] as? [String: Any], gb = b["geometry"] as? [String: Any]
                #expect(ga?["type"] as? String == gb?["type"] as? String, "\(name) geometry type")
                let ca = Self.numbers(ga?["coordinates"]), cb = Self.numbers(gb?["coordinates"])
                #expect(ca.count == cb.count && !ca.isEmpty, "\(name) vertices")
                #expect(zip(ca, cb).allSatisfy { abs($0 - $1) < 1e-6 }, "\(name) coordinates")
            }
        }
    }

    /// A property value as text; a date-time as its 14 digits, because GDAL's OAPIF driver
    /// recognizes ISO 8601 strings as date-times and writes them its own way
    /// (`2016/10/07 00:00:00+00` for `2016-10-07T00:00:00.000Z`).
    static func normalized(_ value: Any?) -> String {
        let text = "\(value ?? "missing")"
        guard text.range(of: #"^\d{4}[-/]\d{2}[-/]\d{2}[T ]\d{2}:\d{2}:\d{2}(\.0+)?(Z|\+00)?$"#, options: .regularExpression) != nil else { return text }
        return String(text.filter(\.isNumber).prefix(14))
    }

    static func numbers(_ value: Any?) -> [Double] {
        if let n = value as? Double { return [n] }
        if let array = value as? [Any] { return array.flatMap { numbers($0) } }
        return []
    }

    /// The fields GDAL's `ogrinfo -so` lists for `layer` of `source`, in order, each as the
    /// kind of its type: `integer` (Integer, Integer64, Integer(Int16)), `real`, `string`,
    /// `date`, `datetime`.
    static func gdalFields(_ source: String, layer: String) throws -> [(name: String, kind: String)] {
        let result = try Harness.run("/usr/bin/ogrinfo", ["-ro", "-so", source, layer])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").compactMap { line -> (String, String)? in
            guard let match = line.range(of: #"^[A-Za-z_][A-Za-z0-9_]*: [A-Za-z0-9()]+ \("#, options: .regularExpression) else { return nil }
            let parts = line[match].dropLast(2).split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard !["Geometry", "Extent", "Feature Count"].contains(parts[0]) else { return nil }
            let type = parts[1]
            let kind = type.hasPrefix("Integer") ? "integer" : type == "Real" ? "real" : type == "DateTime" ? "datetime" : type == "Date" ? "date" : "string"
            return (parts[0], kind)
        }
    }

    @Test("GDAL's OAPIF driver reads each layer's fields with the types the schema gives, which are GDAL's types of the file's columns")
    func gdalFieldTypesMatchTheSchema() throws {
        guard Harness.hasGDAL, let (path, server) = try Harness.serveLoudoun() else { return }
        defer { _ = server.stop() }
        for name in try layers(path) {
            let schema = try #require(try server.request("/ogc/collections/\(name)/schema").object)
            let properties = schema["properties"] as? [String: [String: Any]] ?? [:]
            let served = try Self.gdalFields("OAPIF:\(server.url)/ogc", layer: name)
            let file = try Self.gdalFields(path, layer: name)
            #expect(served.map(\.name) == file.map(\.name), "\(name): \(served.map(\.name)) served, \(file.map(\.name)) in the file")
            #expect(served.map(\.kind) == file.map(\.kind), "\(name): \(served.map(\.kind)) served, \(file.map(\.kind)) in the file")
            for field in served {
                let property = try #require(properties[field.name], "\(name).\(field.name) is not in the schema")
                let type = property["type"] as? String, format = property["format"] as? String
                let expected = type == "integer" ? "integer" : type == "number" ? "real"
                    : format == "date-time" ? "datetime" : format == "date" ? "date" : "string"
                #expect(field.kind == expected, "\(name).\(field.name): GDAL \(field.kind), schema \(type ?? "-") \(format ?? "")")
            }
            #expect(Set(properties.keys).subtracting(served.map(\.name)).count == 2, "\(name): only the id and the geometry are not fields")
        }
    }

    @Test("QGIS's OAPIF provider reads the Loudoun date-times as dates, with their values")
    func qgisReadsDates() throws {
        guard let (path, server) = try Harness.serveLoudoun() else { return }
        defer { _ = server.stop() }
        // The one dated parcel line is the 94th; QGIS 3.22 types fields from the first 10 items
        // (it reads no schema), so the first one is given a date by an edit too.
        let first = try #require(Int(try Harness.sqlite(path, "SELECT min(fid) FROM ParcelLines_1")))
        let edit = try server.request("/ogc/collections/ParcelLines_1/items/\(first)", method: "PATCH",
                                      headers: ["Content-Type": "application/merge-patch+json"],
                                      body: Data(#"{"last_edited_date": "2026-11-30T12:34:56.000Z"}"#.utf8))
        #expect(edit.status == 204, "\(edit.text)")
        let script = """
            import json, os, sys
            os.environ["QT_QPA_PLATFORM"] = "offscreen"
            from qgis.core import QgsApplication, QgsFeatureRequest, QgsVectorLayer
            from qgis.PyQt.QtCore import QVariant, Qt
            app = QgsApplication([], False)
            app.initQgis()
            out = {}
            for name in sys.argv[2:]:
                layer = QgsVectorLayer("url='%s' typename='%s'" % (sys.argv[1], name), name, "OAPIF")
                fields = {}
                for field in layer.fields():
                    values = [f[field.name()] for f in layer.getFeatures(QgsFeatureRequest().setLimit(10))]
                    dated = [v.toUTC().toString(Qt.ISODate) for v in values if hasattr(v, "toUTC") and not v.isNull()]
                    fields[field.name()] = {"type": field.type(), "isDateTime": field.type() == QVariant.DateTime, "dates": dated}
                out[name] = {"valid": layer.isValid(), "count": layer.featureCount(), "fields": fields}
            print(json.dumps(out))
            # QGIS 3.22 crashes in its exit with OAPIF layers alive; the answer is out already.
            sys.stdout.flush()
            os._exit(0)
            """
        let result = try Harness.run("/usr/bin/python3", ["-c", script, server.url + "/ogc", "Loudoun_Subdivision_1", "ParcelLines_1"])
        #expect(result.status == 0, "\(result.stderr.suffix(2000))")
        let answer = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any])
        let expected = [("Loudoun_Subdivision_1", "2020-06-04T00:03:24Z", 6), ("ParcelLines_1", "2026-11-30T12:34:56Z", 115)]
        for (name, date, count) in expected {
            let layer = try #require(seen[name] as? [String: Any], "\(name): \(result.stdout)")
            #expect(layer["valid"] as? Bool == true && layer["count"] as? Int == count, "\(name): \(layer)")
            let field = (layer["fields"] as? [String: [String: Any]])?["last_edited_date"]
            #expect(field?["isDateTime"] as? Bool == true, "\(name).last_edited_date: \(field ?? [:])")
            #expect(field?["dates"] as? [String] == [date], "\(name).last_edited_date: \(field ?? [:])")
        }
    }

    @Test("OWSLib lists the collections and pages through every item")
    func owslibPages() throws {
        guard let (path, server) = try Harness.serveLoudoun() else { return }
        defer { _ = server.stop() }
        let script = """
            import json, sys
            from owslib.ogcapi.features import Features
            w = Features(sys.argv[1])
            out = {"conformance": len(w.conformance()["conformsTo"])}
            for c in w.collections()["collections"]:
                cid = c["id"]
                assert w.collection(cid)["id"] == cid
                ids, offset = [], 0
                while True:
                    page = w.collection_items(cid, limit=7, offset=offset)
                    ids += [f["id"] for f in page["features"]]
                    if not any(l["rel"] == "next" for l in page["links"]):
                        break
                    offset += page["numberReturned"]
                out[cid] = {"numberMatched": page["numberMatched"], "ids": ids}
            print(json.dumps(out))
            """
        let result = try Harness.run(try Harness.venvTool("python"), ["-c", script, server.url + "/ogc"])
        #expect(result.status == 0, "\(result.stderr)")
        let seen = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
        #expect(seen["conformance"] as? Int == 10)
        for name in try layers(path) {
            let fids = try Harness.sqlite(path, "SELECT fid FROM \"\(name)\" ORDER BY fid").split(separator: "\n").compactMap { Int($0) }
            let layer = seen[name] as? [String: Any]
            #expect(layer?["numberMatched"] as? Int == fids.count, "\(name)")
            #expect(layer?["ids"] as? [Int] == fids, "\(name)")
        }
    }

    @Test("schemathesis finds no server error and no answer the OpenAPI document does not describe")
    func schemathesis() throws {
        guard let (_, server) = try Harness.serveLoudoun() else { return }
        defer { _ = server.stop() }
        let st = try Harness.venvTool("st")
        // Every check, on the top-level paths and three collections (a point layer, a line
        // layer, an annotation layer: the others' paths are the same with other property types);
        // `--long`: every path, 50 examples each (docs/reliability.md has its figures).
        let long = ProcessInfo.processInfo.environment["ANNOLINK_LONG_TESTS"] == "1"
        let result = try Harness.run(st, [
            "run", server.url + "/ogc/api", "--checks", "all", "--hypothesis-max-examples", long ? "50" : "15", "--hypothesis-seed", "7",
            "--workers", "2",
        ] + (long ? [] : ["--include-path-regex", "^/ogc/(api|conformance|collections)?$|Loudoun_Address_Points_1|ParcelLines_1|Loudoun_Address_PointsAnno_1"]))
        #expect(result.status == 0, "\(result.stdout.suffix(4000))")
        #expect(result.stdout.contains("not_a_server_error"))
        #expect(!server.stderr.contains(" 500 "), "a 500 in the access log")
    }

    @Test("two clients editing one feature with the same ETag: one wins, the other gets 412")
    func concurrentETags() throws {
        guard let (path, server) = try Harness.serveLoudoun(), let fid = Int(try Harness.sqlite(path, "SELECT min(fid) FROM Loudoun_Address_Points_1")) else { return }
        defer { _ = server.stop() }
        let item = "/ogc/collections/Loudoun_Address_Points_1/items/\(fid)"
        for round in 0..<5 {
            let etag = try #require(try server.request(item).headers["etag"])
            let values = [1000 + round * 2, 1001 + round * 2]
            let statuses = StatusBox()
            DispatchQueue.concurrentPerform(iterations: 2) { i in
                let reply = try? server.request(item, method: "PATCH", headers: ["Content-Type": "application/merge-patch+json", "If-Match": etag],
                                                body: Data(#"{"AD_ADDRESS": \#(values[i])}"#.utf8))
                statuses.set(values[i], reply?.status ?? 0)
            }
            let answered = statuses.all
            #expect(answered.values.sorted() == [204, 412], "\(answered)")
            let winner = answered.first { $0.value == 204 }?.key
            #expect(try Harness.sqlite(path, "SELECT AD_ADDRESS FROM Loudoun_Address_Points_1 WHERE fid = \(fid)") == winner.map(String.init))
            #expect(try Harness.sqlite(path, "SELECT TextString FROM Loudoun_Address_PointsAnno_1 WHERE FeatureID = \(fid)").hasPrefix("\(winner ?? -1) "))
        }
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM annolink_journal WHERE command LIKE 'serve ogc PATCH%'") == "5")
    }

    @Test("edits need an edit token when the server has --tokens: 401 without, 403 with a read token")
    func tokens() throws {
        let scratch = try ScratchDirectory(prefix: "ogc-tokens")
        let tokens = scratch.path("tokens.txt")
        try "edit-token alice edit\nread-token bob read\n".write(toFile: tokens, atomically: true, encoding: .utf8)
        guard let (path, server) = try Harness.serveLoudoun(["--tokens", tokens]) else { return }
        defer { _ = server.stop() }
        let item = "/ogc/collections/Loudoun_Address_Points_1/items/831"
        let patch = { (headers: [String: String]) in
            try server.request(item, method: "PATCH", headers: headers.merging(["Content-Type": "application/merge-patch+json"]) { a, _ in a },
                               body: Data(#"{"ST_STR_NAM": "OAK"}"#.utf8))
        }
        let before = try Harness.dump(path)
        let none = try patch([:])
        #expect(none.status == 401)
        #expect(none.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
        #expect(try patch(["Authorization": "Bearer wrong"]).status == 401)
        #expect(try patch(["Authorization": "Bearer read-token"]).status == 403)
        #expect(try Harness.dump(path) == before)
        #expect(try server.request(item).status == 200)
        #expect(try patch(["Authorization": "Bearer edit-token"]).status == 204)
        #expect(try Harness.sqlite(path, "SELECT user FROM annolink_journal ORDER BY id DESC LIMIT 1") == "alice")
    }
}

/// The statuses two threads got, by the value each sent.
private final class StatusBox: @unchecked Sendable {
    private let lock = NSLock()
    private var statuses: [Int: Int] = [:]

    func set(_ value: Int, _ status: Int) {
        lock.lock()
        statuses[value] = status
        lock.unlock()
    }

    var all: [Int: Int] {
        lock.lock()
        defer { lock.unlock() }
        return statuses
    }
}
