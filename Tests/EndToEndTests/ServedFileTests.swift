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
        let reply = try server.request(Self.service + "/0/applyEdits", method: "POST",
                                       form: [("f", "json"), ("updates", #"[{"attributes": {"fid": \#(fid), \#(attributes)}}]"#)])
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
        #expect(refused.stderr == "error: \(path) is open in another process (annolink serve or sketch, QGIS, …); it is not replaced: stop that process first\n")
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
}
