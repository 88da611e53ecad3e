import AnnoLinkTestSupport
import Foundation
import Testing

/// Round trips that change nothing (issue 26, item 3), on a real `annolink serve` of the
/// Loudoun import: every geometry read through the FeatureServer in some SR and sent back with
/// that `spatialReference` is the stored one (docs/serve.md, "Round trips that change
/// nothing"), while a move of a hundredth of a foot is still a move; and a point has one
/// longitude in every interface.
@Suite("round trips through a client's SR, end to end")
struct RoundTripTests {
    static let service = "/arcgis/rest/services/loudoun/FeatureServer"

    /// The layers of the service: id and name.
    /// The service's layers of tables; an annotation class's sublayer (which has a
    /// `parentLayerId` and takes no edits) is left out.
    static func layers(_ server: ServeProcess) throws -> [(id: Int, name: String)] {
        let answer = try server.request(service + "?f=json").object ?? [:]
        return ((answer["layers"] as? [[String: Any]]) ?? []).compactMap { layer in
            guard let id = layer["id"] as? Int, let name = layer["name"] as? String, (layer["parentLayerId"] as? Int ?? -1) < 0 else { return nil }
            return (id, name)
        }
    }

    /// Every feature of layer `id` read with `outSR` (nil: the layer's own), as the `updates`
    /// of an applyEdits: its object id and its geometry with the answer's spatialReference.
    static func readBack(_ server: ServeProcess, layer id: Int, outSR: Int?) throws -> (updates: String, count: Int) {
        var form: [(String, String)] = [("where", "1=1"), ("outFields", "fid"), ("returnGeometry", "true"), ("f", "json")]
        if let outSR { form.append(("outSR", String(outSR))) }
        let query = form.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0.1)" }.joined(separator: "&")
        let answer = try #require(try server.request(service + "/\(id)/query?" + query).object)
        let reference = try #require(answer["spatialReference"] as? [String: Any], "layer \(id): \(answer)")
        let features = try #require(answer["features"] as? [[String: Any]])
        #expect(answer["exceededTransferLimit"] as? Bool != true)
        var updates: [[String: Any]] = []
        for feature in features {
            guard var geometry = feature["geometry"] as? [String: Any] else { continue }
            geometry["spatialReference"] = reference
            updates.append(["attributes": feature["attributes"] ?? [:], "geometry": geometry])
        }
        return (String(decoding: try JSONSerialization.data(withJSONObject: updates), as: UTF8.self), updates.count)
    }

    /// A form POST with the form in the body, as `form:` sends it but without passing the
    /// fields on curl's command line (a layer's updates are longer than it takes).
    static func post(_ server: ServeProcess, _ path: String, _ form: [(String, String)]) throws -> HTTPReply {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = form.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")
        return try server.request(path, method: "POST", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(body.utf8))
    }

    static func journalEntries(_ path: String) throws -> Int {
        guard try Harness.sqlite(path, "SELECT count(*) FROM sqlite_master WHERE name = 'annolink_journal'") == "1" else { return 0 }
        return Int(try Harness.sqlite(path, "SELECT count(*) FROM annolink_journal")) ?? -1
    }

    /// The main file's bytes after the WAL is written back into it.
    static func checkpointedBytes(_ path: String) throws -> Data {
        _ = try Harness.sqlite(path, "PRAGMA wal_checkpoint(TRUNCATE)")
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    @Test("every geometry of every Loudoun layer read with outSR 4326, 3857 or its own SR and sent back changes nothing: success, no journal entry, the same bytes")
    func everyGeometrySentBackChangesNothing() throws {
        guard let (path, server) = try Harness.serveLoudoun() else { return }
        defer { _ = server.stop() }
        let layers = try Self.layers(server)
        #expect(layers.count == 8, "six feature layers and two annotation layers: \(layers)")
        let bytes = try Self.checkpointedBytes(path)
        let dump = try Harness.dump(path, excluding: [])
        var total = 0
        for outSR in [4326, 3857, nil] {
            for layer in layers {
                let (updates, count) = try Self.readBack(server, layer: layer.id, outSR: outSR)
                #expect(count > 0, "\(layer.name)")
                total += count
                let answer = try #require(try Self.post(server, Self.service + "/\(layer.id)/applyEdits", [("updates", updates), ("f", "json")]).object)
                let results = answer["updateResults"] as? [[String: Any]] ?? []
                #expect(results.count == count, "\(layer.name) outSR \(outSR.map(String.init) ?? "own"): \(answer)")
                let failed = results.filter { $0["success"] as? Bool != true }
                #expect(failed.isEmpty, "\(layer.name) outSR \(outSR.map(String.init) ?? "own"): \(failed.prefix(3))")
                #expect(try Self.journalEntries(path) == 0, "\(layer.name) outSR \(outSR.map(String.init) ?? "own") made a journal entry")
            }
        }
        #expect(total == 3 * 455, "33 + 77 + 29 + 47 + 6 + 115 features and 33 + 115 annotation rows, three times")
        #expect(try Harness.dump(path, excluding: []) == dump)
        #expect(try Self.checkpointedBytes(path) == bytes, "the file's bytes changed")
    }

    /// Layer `name`'s feature `fid` read with `outSR`: its geometry object.
    static func geometry(_ server: ServeProcess, layer: Int, fid: Int64, outSR: Int) throws -> [String: Any] {
        let answer = try server.request(service + "/\(layer)/query?objectIds=\(fid)&outSR=\(outSR)&returnGeometry=true&f=json").object
        let feature = try #require((answer?["features"] as? [[String: Any]])?.first, "\(String(describing: answer))")
        return try #require(feature["geometry"] as? [String: Any])
    }

    static func update(_ server: ServeProcess, layer: Int, fid: Int64, geometry: [String: Any], wkid: Int) throws -> [String: Any] {
        var shape = geometry
        shape["spatialReference"] = ["wkid": wkid]
        let updates = try JSONSerialization.data(withJSONObject: [["attributes": ["fid": fid], "geometry": shape]])
        let answer = try server.request(service + "/\(layer)/applyEdits", method: "POST", form: [("updates", String(decoding: updates, as: UTF8.self))]).object
        return try #require((answer?["updateResults"] as? [[String: Any]])?.first, "\(String(describing: answer))")
    }

    static func stored(_ path: String, _ table: String, _ fid: Int64) throws -> String {
        try Harness.sqlite(path, "SELECT hex(geom) FROM \(table) WHERE fid = \(fid)")
    }

    @Test("the user's three cases: ParcelLines_1 fid 131583 and address point 831 sent back in 4326, building 4 in its own SR, change nothing")
    func namedCases() throws {
        guard let (path, server) = try Harness.serveLoudoun() else { return }
        defer { _ = server.stop() }
        let ids = Dictionary(uniqueKeysWithValues: try Self.layers(server).map { ($0.name, $0.id) })
        let cases: [(String, Int64, Int)] = [("ParcelLines_1", 131583, 4326), ("Loudoun_Address_Points_1", 831, 4326),
                                             ("Loudoun_Address_Points_1", 831, 3857), ("Loudoun_Buildings_1", 4, 2924)]
        for (table, fid, wkid) in cases {
            let layer = try #require(ids[table])
            let before = try Self.stored(path, table, fid)
            let label = try Harness.sqlite(path, "SELECT group_concat(AnchorX || ' ' || AnchorY || ' ' || TextString) FROM \(table == "ParcelLines_1" ? "ParcelLinesAnno_1" : "Loudoun_Address_PointsAnno_1") WHERE FeatureID = \(fid)")
            let result = try Self.update(server, layer: layer, fid: fid, geometry: try Self.geometry(server, layer: layer, fid: fid, outSR: wkid), wkid: wkid)
            #expect(result["success"] as? Bool == true, "\(table) \(fid) in \(wkid): \(result)")
            #expect(try Self.stored(path, table, fid) == before, "\(table) \(fid) in \(wkid)")
            #expect(try Harness.sqlite(path, "SELECT group_concat(AnchorX || ' ' || AnchorY || ' ' || TextString) FROM \(table == "ParcelLines_1" ? "ParcelLinesAnno_1" : "Loudoun_Address_PointsAnno_1") WHERE FeatureID = \(fid)") == label)
        }
        #expect(try Self.journalEntries(path) == 0)
    }

    /// 0.01 US survey foot, as the longitude it takes at Loudoun's latitude (WGS 84 ellipsoid;
    /// an approximation within a per cent is all the test needs).
    static func degreesOfLongitude(feet: Double, latitude: Double) -> Double {
        let metres = feet * 1200 / 3937
        let a = 6378137.0, e2 = 0.00669437999014
        let phi = latitude * .pi / 180
        let metresPerDegree = .pi / 180 * a * cos(phi) / (1 - e2 * sin(phi) * sin(phi)).squareRoot()
        return metres / metresPerDegree
    }

    @Test("a move of 0.01 ft is a move: a point sent in 4326 moves by it, a line's last vertex moves with its first kept exactly, a building's vertex in its own SR keeps the ring's winding")
    func aHundredthOfAFootIsAMove() throws {
        guard let (path, server) = try Harness.serveLoudoun() else { return }
        defer { _ = server.stop() }
        let ids = Dictionary(uniqueKeysWithValues: try Self.layers(server).map { ($0.name, $0.id) })
        // Point 831: 0.01 ft east, given in longitude.
        let points = try #require(ids["Loudoun_Address_Points_1"])
        let native = try Self.geometry(server, layer: points, fid: 831, outSR: 2924)
        var lonlat = try Self.geometry(server, layer: points, fid: 831, outSR: 4326)
        let x0 = try #require(native["x"] as? Double)
        let latitude = try #require(lonlat["y"] as? Double)
        lonlat["x"] = (lonlat["x"] as? Double ?? 0) + Self.degreesOfLongitude(feet: 0.01, latitude: latitude)
        #expect(try Self.update(server, layer: points, fid: 831, geometry: lonlat, wkid: 4326)["success"] as? Bool == true)
        let moved = try Self.geometry(server, layer: points, fid: 831, outSR: 2924)
        let dx = (moved["x"] as? Double ?? 0) - x0
        #expect(abs(dx - 0.01) < 0.0002, "moved \(dx) ft")
        #expect(try Self.journalEntries(path) == 1)

        // ParcelLines_1 131583: the last vertex 0.01 ft east, in 4326; the first sent back as read.
        let lines = try #require(ids["ParcelLines_1"])
        let lineBefore = try Self.geometry(server, layer: lines, fid: 131583, outSR: 2924)
        var path4326 = try #require((try Self.geometry(server, layer: lines, fid: 131583, outSR: 4326)["paths"] as? [[[Double]]])?.first)
        #expect(path4326.count == 2)
        path4326[1][0] += Self.degreesOfLongitude(feet: 0.01, latitude: path4326[1][1])
        let lineResult = try Self.update(server, layer: lines, fid: 131583, geometry: ["paths": [path4326]], wkid: 4326)
        #expect(lineResult["success"] as? Bool == true, "\(lineResult)")
        let lineAfter = try #require((try Self.geometry(server, layer: lines, fid: 131583, outSR: 2924)["paths"] as? [[[Double]]])?.first)
        let linePoints = try #require((lineBefore["paths"] as? [[[Double]]])?.first)
        #expect(lineAfter[0] == linePoints[0], "the first vertex is the stored one, bit for bit")
        #expect(abs(lineAfter[1][0] - linePoints[1][0] - 0.01) < 0.0002 && abs(lineAfter[1][1] - linePoints[1][1]) < 0.0002, "\(linePoints) → \(lineAfter)")
        #expect(try Self.journalEntries(path) == 2)

        // Building 4: one vertex 0.01 ft east in its own SR (the query gives its rings
        // clockwise, Esri's winding); the file keeps the stored winding and the other vertices.
        let buildings = try #require(ids["Loudoun_Buildings_1"])
        func storedRing() throws -> [[Double]] {
            let item = try #require(try server.request("/ogc/collections/Loudoun_Buildings_1/items/4?crs=http://www.opengis.net/def/crs/EPSG/0/2924").object)
            return try #require(((item["geometry"] as? [String: Any])?["coordinates"] as? [[[Double]]])?.first)
        }
        let ringBefore = try storedRing()
        var rings = try #require(try Self.geometry(server, layer: buildings, fid: 4, outSR: 2924)["rings"] as? [[[Double]]])
        #expect(rings.count == 1 && rings[0] == Array(ringBefore.reversed()), "the query winds the stored ring the other way")
        let chosen = rings[0][3]
        rings[0][3][0] += 0.01
        #expect(try Self.update(server, layer: buildings, fid: 4, geometry: ["rings": rings], wkid: 2924)["success"] as? Bool == true)
        let expected = ringBefore.map { $0 == chosen ? [chosen[0] + 0.01, chosen[1]] : $0 }
        #expect(try storedRing() == expected, "the stored winding, one vertex moved")
        #expect(try Self.journalEntries(path) == 3)
    }

    @Test("address point 831 has one longitude and latitude in OGC items (CRS84), /coordinates and outSR=4326, to 1e-9°")
    func oneLongitudeEverywhere() throws {
        guard let (_, server) = try Harness.serveLoudoun() else { return }
        defer { _ = server.stop() }
        let item = try #require(try server.request("/ogc/collections/Loudoun_Address_Points_1/items/831").object)
        let crs84 = try #require((item["geometry"] as? [String: Any])?["coordinates"] as? [Double])
        let stored = try #require(try server.request("/ogc/collections/Loudoun_Address_Points_1/items/831?crs=http://www.opengis.net/def/crs/EPSG/0/2924").object)
        let xy = try #require((stored["geometry"] as? [String: Any])?["coordinates"] as? [Double])
        let coordinates = try #require(try server.request("/coordinates?x=\(xy[0])&y=\(xy[1])").object)
        let points = try #require(Dictionary(uniqueKeysWithValues: try Self.layers(server).map { ($0.name, $0.id) })["Loudoun_Address_Points_1"])
        let query = try Self.geometry(server, layer: points, fid: 831, outSR: 4326)
        let readings: [(String, Double, Double)] = [
            ("OGC CRS84", crs84[0], crs84[1]),
            ("/coordinates", coordinates["longitude"] as? Double ?? .nan, coordinates["latitude"] as? Double ?? .nan),
            ("outSR=4326", query["x"] as? Double ?? .nan, query["y"] as? Double ?? .nan),
        ]
        for (name, longitude, latitude) in readings.dropFirst() {
            #expect(abs(longitude - readings[0].1) < 1e-9 && abs(latitude - readings[0].2) < 1e-9, "\(name): \(longitude), \(latitude) vs CRS84 \(readings[0].1), \(readings[0].2)")
        }
        // And the operation is EPSG:4326's, as cs2cs gives it (latitude first).
        let cs2cs = try ExternalTool.require("cs2cs", package: "proj-bin")
        let out = try cs2cs.output(["-f", "%.12f", "EPSG:2924", "EPSG:4326"], input: "\(xy[0]) \(xy[1])\n")
            .split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Double($0) }
        #expect(out.count >= 2 && abs(out[1] - crs84[0]) < 1e-9 && abs(out[0] - crs84[1]) < 1e-9, "cs2cs \(out) vs \(crs84)")
    }

    @Test("annolink move of 831 to its own longitude and latitude (cs2cs's, 17 digits) with --crs EPSG:4326 writes nothing; 0.01 ft further east it moves")
    func cliMoveToWhereItIs() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let xy = try Harness.sqlite(path, "SELECT hex(geom) FROM Loudoun_Address_Points_1 WHERE fid = 831")
        let cs2cs = try ExternalTool.require("cs2cs", package: "proj-bin")
        // The stored point exactly (shortest digits that read back as it).
        let shown = try Harness.annolink("show", path, "Loudoun_Address_Points_1", "831", "--json")
        let geometry = ((try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])?["geometry"] as? [String: Any])?["coordinates"] as? [Double]
        let point = try #require(geometry, "\(shown.stdout)")
        let latlon = try cs2cs.output(["-f", "%.17g", "EPSG:2924", "EPSG:4326"], input: "\(point[0]) \(point[1])\n")
            .split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Double($0) }
        let dump = try Harness.dump(path, excluding: [])
        let same = try Harness.annolink("move", path, "Loudoun_Address_Points_1", "831", "--to", "\(latlon[1]),\(latlon[0])", "--crs", "EPSG:4326")
        #expect(same.status == 0, "\(same.stderr)")
        #expect(same.stdout.hasPrefix("Loudoun_Address_Points_1 fid 831 unchanged"), "\(same.stdout)")
        #expect(try Harness.dump(path, excluding: []) == dump)
        #expect(try Harness.sqlite(path, "SELECT hex(geom) FROM Loudoun_Address_Points_1 WHERE fid = 831") == xy)
        let east = latlon[1] + Self.degreesOfLongitude(feet: 0.01, latitude: latlon[0])
        let moved = try Harness.annolink("move", path, "Loudoun_Address_Points_1", "831", "--to", "\(east),\(latlon[0])", "--crs", "EPSG:4326")
        #expect(moved.status == 0 && moved.stdout.contains("journal entry"), "\(moved.stdout)")
    }
}
