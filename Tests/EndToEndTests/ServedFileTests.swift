import AnnoLinkTestSupport
import Foundation
import Testing

/// The served file stays the served file (issue 25, item 5): commands that would replace a file
/// `annolink serve` has open refuse; a file replaced or moved under the server is refused with
/// 503 and no edit is acknowledged into it; classes and columns changed by other programs
/// while serving are followed. Real `annolink serve` processes, real HTTP, real `sqlite3`.
@Suite("the served file stays the served file, end to end")
struct ServedFileTests {
    /// A sample file named `name` in a fresh folder.
    func sample(_ name: String = "served.gpkg", parcels: Int = 10, seed: Int = 1) throws -> String {
        let path = try Harness.temporaryDirectory().appendingPathComponent(name).path
        let made = try Harness.annolink("sample", path, "--parcels", "\(parcels)", "--seed", "\(seed)")
        #expect(made.status == 0, "\(made.stderr)")
        return path
    }

    static let service = "/arcgis/rest/services/served/FeatureServer"

    /// One applyEdits update of layer 0 (address_points); returns whether it was acknowledged.
    func update(_ server: ServeProcess, fid: Int, _ attributes: String) throws -> Bool {
        let updates = #"[{"attributes": {"fid": \#(fid), \#(attributes)}}]"#
        let reply = try server.request(Self.service + "/0/applyEdits", method: "POST", form: [("f", "json"), ("updates", updates)])
        return (reply.object?["updateResults"] as? [[String: Any]])?.first?["success"] as? Bool == true
    }

    @Test("copy --overwrite onto a served file exits 75 and the served edits stay; after the server stops it replaces the file")
    func copyOverwriteRefused() throws {
        let database = try PostgresTestDatabase()
        defer { try? database.drop() }
        let other = try sample("other.gpkg", parcels: 3, seed: 5)
        let into = try Harness.annolink("copy", other, database.connectionString)
        #expect(into.status == 0, "\(into.stderr)")

        let path = try sample()
        let server = try ServeProcess(file: path)
        defer { _ = server.stop() }
        #expect(try update(server, fid: 1, #""AD_ADDRESS": 701"#))
        let refused = try Harness.annolink("copy", database.connectionString, path, "--overwrite")
        #expect(refused.status == 75, "\(refused.stdout) \(refused.stderr)")
        #expect(refused.stderr
            == "error: \(path) is open in another process (annolink serve or sketch, QGIS, …); it is not replaced: stop that process first\n")
        #expect(try update(server, fid: 2, #""AD_ADDRESS": 702"#))
        #expect(try server.request("/health").status == 200)
        #expect(server.stop() == 0)
        #expect(try Harness.sqlite(path, "SELECT group_concat(AD_ADDRESS) FROM address_points WHERE fid IN (1, 2) ORDER BY fid") == "701,702")
        #expect(try Harness.sqlite(path, "SELECT TextString FROM address_points_anno WHERE FeatureID = 2").hasPrefix("702 "))
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM address_points") == "10")
        #expect(try !FileManager.default.contentsOfDirectory(atPath: (path as NSString).deletingLastPathComponent).contains { $0.contains(".tmp") },
                "no temporary file is left")

        // Nothing holds it now: the same copy replaces it.
        let replaced = try Harness.annolink("copy", database.connectionString, path, "--overwrite")
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM address_points") == "3")
    }

    @Test("import and sample onto a served file are refused and the served data stays")
    func importAndSampleRefused() throws {
        let path = try sample()
        let other = try sample("other.gpkg", parcels: 3, seed: 5)
        let server = try ServeProcess(file: path)
        defer { _ = server.stop() }
        #expect(try update(server, fid: 1, #""AD_ADDRESS": 801"#))
        let imported = try Harness.annolink("import", other, path)
        #expect(imported.status == 73 && imported.stderr == "error: \(path) exists already; remove it or choose another name\n", "\(imported.stderr)")
        let sampled = try Harness.annolink("sample", path, "--parcels", "3")
        #expect(sampled.status == 73, "\(sampled.stderr)")
        #expect(try update(server, fid: 2, #""AD_ADDRESS": 802"#))
        #expect(server.stop() == 0)
        #expect(try Harness.sqlite(path, "SELECT group_concat(AD_ADDRESS) FROM address_points WHERE fid IN (1, 2) ORDER BY fid") == "801,802")
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM address_points") == "10")
    }

    @Test("a file renamed over the served file: edits and reads 503, nothing acknowledged, /health 503, the new file intact")
    func replacedByRename() throws {
        let path = try sample()
        let other = try sample("other.gpkg", parcels: 3, seed: 5)
        let otherFirst = try Harness.sqlite(other, "SELECT AD_ADDRESS FROM address_points WHERE fid = 1")
        let server = try ServeProcess(file: path)
        defer { _ = server.stop() }
        #expect(try update(server, fid: 1, #""AD_ADDRESS": 901"#))
        #expect(rename(other, path) == 0)

        let item = "/ogc/collections/address_points/items/1"
        let patched = try server.request(item, method: "PATCH", headers: ["Content-Type": "application/merge-patch+json"],
                                         body: Data(#"{"AD_ADDRESS": 902}"#.utf8))
        #expect(patched.status == 503, "\(patched.text)")
        #expect(patched.object?["code"] as? String == "FileReplaced")
        #expect((patched.object?["description"] as? String)?.contains("was moved away or replaced by another file while the server ran") == true)
        let updates = #"[{"attributes": {"fid": 1, "AD_ADDRESS": 903}}]"#
        let applied = try server.request(Self.service + "/0/applyEdits", method: "POST", form: [("f", "json"), ("updates", updates)])
        #expect(applied.object?["updateResults"] == nil && (applied.object?["error"] as? [String: Any])?["code"] as? Int == 500, "\(applied.text)")
        #expect(try server.request("/journal/undo", method: "POST").status == 503)
        #expect(try server.request(item).status == 503)
        let health = try server.request("/health")
        #expect(health.status == 503 && (health.object?["detail"] as? String)?.contains("restart annolink serve") == true, "\(health.text)")

        #expect(server.stop() == 0)
        // The file now there is the other one, whole: no edit of the server went into it, and
        // the server's WAL (which keeps its name) was not left for it to read as its own.
        #expect(try Harness.sqlite(path, "PRAGMA integrity_check") == "ok")
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM address_points") == "3")
        #expect(try Harness.sqlite(path, "SELECT AD_ADDRESS FROM address_points WHERE fid = 1") == otherFirst)
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM sqlite_master WHERE name = 'annolink_journal'") == "0", "no journal: never edited")
    }

    @Test("a file moved away while served: 503, and the moved file keeps the edits the server acknowledged")
    func movedAway() throws {
        let path = try sample()
        let server = try ServeProcess(file: path)
        defer { _ = server.stop() }
        #expect(try update(server, fid: 1, #""AD_ADDRESS": 911"#))
        let moved = path.replacingOccurrences(of: "served.gpkg", with: "moved.gpkg")
        #expect(rename(path, moved) == 0)
        #expect(try !update(server, fid: 2, #""AD_ADDRESS": 912"#))
        #expect(try server.request("/health").status == 503)
        #expect(server.stop() == 0)
        #expect(try Harness.sqlite(moved, "SELECT group_concat(AD_ADDRESS) FROM address_points WHERE fid IN (1, 2) ORDER BY fid")
            .hasPrefix("911,"))
        #expect(try Harness.sqlite(moved, "SELECT AD_ADDRESS FROM address_points WHERE fid = 2") != "912")
    }

    @Test("a class added with annotate while serving: a served edit of its origin updates the new class's annotation")
    func classAddedWhileServing() throws {
        let path = try sample()
        let server = try ServeProcess(file: path)
        defer { _ = server.stop() }
        // The server compiles address_points' classes for this edit, and keeps them.
        #expect(try update(server, fid: 2, #""ST_STR_NAM": "BIRCH""#))
        let annotated = try Harness.annolink("annotate", path, "--origin", "address_points", "--into", "street_anno",
                                             "--expression", #"$feature.ST_STR_NAM + "!""#, "--placement", "point")
        #expect(annotated.status == 0, "\(annotated.stderr)")
        #expect(try Harness.sqlite(path, "SELECT TextString FROM street_anno WHERE FeatureID = 2") == "BIRCH!")

        #expect(try update(server, fid: 3, #""ST_STR_NAM": "OAKTREE""#))
        #expect(try Harness.sqlite(path, "SELECT TextString FROM street_anno WHERE FeatureID = 3") == "OAKTREE!")
        #expect(try Harness.sqlite(path, "SELECT TextString FROM address_points_anno WHERE FeatureID = 3").hasSuffix(" OAKTREE"))
        // A feature added through the server gets the new class's annotation too.
        let added = try server.request("/ogc/collections/address_points/items", method: "POST", headers: ["Content-Type": "application/geo+json"],
                                       body: Data(#"""
            {"type": "Feature", "geometry": {"type": "Point", "coordinates": [-77.104, 38.917]},
             "properties": {"AD_ADDRESS": 42, "ST_STR_NAM": "NEWWAY"}}
            """#.utf8))
        #expect(added.status == 201, "\(added.text)")
        let fid = try Harness.sqlite(path, "SELECT fid FROM address_points WHERE ST_STR_NAM = 'NEWWAY'")
        #expect(try Harness.sqlite(path, "SELECT TextString FROM street_anno WHERE FeatureID = \(fid)") == "NEWWAY!")
    }

    @Test("PostGIS: a class added with annotate while serving: a served edit of its origin updates the new class's annotation")
    func classAddedWhileServingPostGIS() throws {
        let database = try PostgresTestDatabase()
        defer { try? database.drop() }
        let into = try Harness.annolink("copy", try sample(), database.connectionString)
        #expect(into.status == 0, "\(into.stderr)")
        let server = try ServeProcess(file: database.connectionString, arguments: ["--threads", "1"])
        defer { _ = server.stop() }
        let service = "/arcgis/rest/services/\(database.name)/FeatureServer"
        func update(fid: Int, _ attributes: String) throws -> Bool {
            let updates = #"[{"attributes": {"fid": \#(fid), \#(attributes)}}]"#
            let reply = try server.request(service + "/0/applyEdits", method: "POST", form: [("f", "json"), ("updates", updates)])
            return (reply.object?["updateResults"] as? [[String: Any]])?.first?["success"] as? Bool == true
        }
        // One thread: the one edit service compiles address_points' classes for this edit, and keeps them.
        #expect(try update(fid: 2, #""ST_STR_NAM": "BIRCH""#))
        let annotated = try Harness.annolink("annotate", database.connectionString, "--origin", "address_points", "--into", "street_anno",
                                             "--expression", #"$feature.ST_STR_NAM + "!""#, "--placement", "point")
        #expect(annotated.status == 0, "\(annotated.stderr)")
        #expect(try update(fid: 3, #""ST_STR_NAM": "OAKTREE""#))
        let label = try database.psql(#"SELECT "TextString" FROM street_anno WHERE "FeatureID" = 3"#).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(label == "OAKTREE!", "\(label)")
        // The readers follow too: the new annotation table is served.
        let layers = try server.request(service + "/layers?f=json").object?["layers"] as? [[String: Any]]
        #expect(layers?.contains { $0["name"] as? String == "street_anno" } == true, "\(String(describing: layers))")
    }

    @Test("a column dropped and another added by sqlite3 while serving: reads show the real columns and values")
    func columnDroppedAndAdded() throws {
        let path = try sample()
        let server = try ServeProcess(file: path)
        defer { _ = server.stop() }
        let item = "/ogc/collections/address_points/items/1"
        let query = Self.service + "/0/query?where=fid%3D1&outFields=*&f=json"
        // Every reader of the pool has read the table's layout (the pool lends them in turn).
        for _ in 0..<12 {
            #expect(try server.request(item).status == 200)
            #expect(try server.request(query).status == 200)
        }
        #expect(try update(server, fid: 1, #""AD_ADDRESS": 921"#))
        // SQLite drops no column that a trigger names: the change capture's go first (docs/follow.md).
        #expect(try Harness.annolink("follow", "--remove", path).status == 0)
        _ = try Harness.sqlite(path, "ALTER TABLE address_points DROP COLUMN PARCEL_ID; ALTER TABLE address_points ADD COLUMN OWNER TEXT DEFAULT 'nobody'")

        for _ in 0..<12 {
            let feature = try server.request(item)
            #expect(feature.status == 200)
            #expect(!feature.text.contains("PARCEL_ID"), "\(feature.text)")
            #expect((feature.object?["properties"] as? [String: Any])?["OWNER"] as? String == "nobody", "\(feature.text)")
            let esri = try server.request(query)
            let attributes = ((esri.object?["features"] as? [[String: Any]])?.first?["attributes"] as? [String: Any]) ?? [:]
            #expect(attributes["PARCEL_ID"] == nil && attributes["OWNER"] as? String == "nobody" && attributes["AD_ADDRESS"] as? Int == 921,
                    "\(esri.text)")
        }
        // The writer follows too: an edit of the new column, and its annotation.
        #expect(try update(server, fid: 1, #""OWNER": "alice", "AD_ADDRESS": 922"#))
        #expect(try Harness.sqlite(path, "SELECT OWNER || ' ' || AD_ADDRESS FROM address_points WHERE fid = 1") == "alice 922")
        #expect(try Harness.sqlite(path, "SELECT TextString FROM address_points_anno WHERE FeatureID = 1").hasPrefix("922 "))
    }
}
