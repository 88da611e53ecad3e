import AnnoLinkTestSupport
import Foundation
import Testing

/// Locations far from the data (issue 27, item 6; docs/cli.md, "Locations far from the data"):
/// longitude and latitude given without `--crs` to a table in EPSG:2924 are refused, in the
/// command line and through the FeatureServer, and the journal names what `applyEdits` changed
/// (issue 27, item 3; docs/journal.md).
@Suite("Locations far from the data, and applyEdits' journal summary")
struct DistantLocationTests {
    static let points = "Loudoun_Address_Points_1"

    func coordinates(_ path: String, _ fid: String) throws -> [Double] {
        let shown = try Harness.annolink("show", path, Self.points, fid, "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        return try #require((object["geometry"] as? [String: Any])?["coordinates"] as? [Double])
    }

    @Test("move --to -77.41,39.02 without --crs: exit 65, one error line suggesting --crs EPSG:4326, file unchanged; --force moves; --crs EPSG:4326 moves where cs2cs puts it")
    func degreesWithoutCRS() throws {
        guard let path = try Harness.importLoudoun(), Harness.hasTool("cs2cs", package: "proj-bin") else { return }
        let before = try Harness.dump(path, excluding: [])
        let refused = try Harness.annolink("move", path, Self.points, "831", "--to", "-77.41,39.02")
        #expect(refused.status == 65)
        let lines = refused.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(refused.stderr)")
        #expect(lines.first?.hasPrefix("error: -77.41,39.02 (EPSG:2924) is far from where \(Self.points) can be: outside the area of use of EPSG:2924 ") == true,
                "\(refused.stderr)")
        #expect(refused.stderr.contains("give --crs EPSG:4326"), "\(refused.stderr)")
        #expect(try Harness.dump(path, excluding: []) == before)

        // The same location picks nothing either way, and says why: move-vertex, add, set --at.
        for words in [["move-vertex", path, "ParcelLines_1", "1", "--to", "-77.41,39.02"],
                      ["add", path, Self.points, "--geometry", "POINT (-77.41 39.02)"],
                      ["set", path, Self.points, "--at", "-77.41,39.02", "ST_STR_NAM=X"]] {
            let result = try Harness.annolink(words)
            #expect(result.status == 65 && result.stderr.contains("is far from where") && result.stderr.contains("--crs EPSG:4326"),
                    "\(words): \(result.stderr)")
        }
        #expect(try Harness.dump(path, excluding: []) == before)

        let forced = try Harness.annolink("move", path, Self.points, "831", "--to", "-77.41,39.02", "--force")
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try coordinates(path, "831") == [-77.41, 39.02])

        let right = try Harness.annolink("move", path, Self.points, "831", "--to", "-77.41,39.02", "--crs", "EPSG:4326")
        #expect(right.status == 0, "\(right.stderr)")
        // cs2cs takes EPSG:4326 as latitude, longitude.
        let oracle = try Harness.run("/bin/sh", ["-c", "echo '39.02 -77.41' | cs2cs -f %.6f EPSG:4326 EPSG:2924"])
        let expected = oracle.stdout.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Double($0) }
        let moved = try coordinates(path, "831")
        #expect(abs(moved[0] - expected[0]) < 1e-4 && abs(moved[1] - expected[1]) < 1e-4, "\(moved) vs \(expected)")
    }

    @Test("a move of 20 miles stays allowed: farther than 10 times a small layer's size, but within 10 times 10 km and the CRS's area")
    func countyMoveAllowed() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let at = try coordinates(path, "831")
        let result = try Harness.annolink("move", path, Self.points, "831", "--to", "\(at[0] + 100_000),\(at[1])")
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test("applyEdits: a geometry outside the area is refused with the edit service's words; an update's journal entry names table, fid and field, and annolink log shows it")
    func featureServer() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let server = try ServeProcess(file: path, arguments: ["--quiet"])
        defer { _ = server.stop() }
        let service = "/arcgis/rest/services/loudoun/FeatureServer"
        let layers = try #require(try server.request(service + "?f=json").object?["layers"] as? [[String: Any]])
        let id = try #require(layers.first { $0["name"] as? String == Self.points }?["id"] as? Int)
        let before = try Harness.dump(path, excluding: [])
        let far = try server.request(service + "/\(id)/applyEdits", method: "POST",
                                     form: [("f", "json"), ("updates", #"[{"attributes": {"fid": 831}, "geometry": {"x": -77.41, "y": 39.02}}]"#)])
        let outcome = try #require((far.object?["updateResults"] as? [[String: Any]])?.first, "\(far.text)")
        #expect(outcome["success"] as? Bool == false)
        let description = ((outcome["error"] as? [String: Any])?["description"] as? String) ?? ""
        #expect(description.hasPrefix("-77.41,39.02 (EPSG:2924) is far from where \(Self.points) can be: outside the area of use of EPSG:2924"), "\(far.text)")
        #expect(description.contains("look like longitude and latitude"), "\(description)")
        #expect(try Harness.dump(path, excluding: []) == before)

        let update = try server.request(service + "/\(id)/applyEdits", method: "POST",
                                        form: [("f", "json"), ("updates", #"[{"attributes": {"fid": 831, "AD_ADDRESS": 45999, "ST_STR_NAM": "ELMWOOD"}}]"#)])
        #expect((update.object?["updateResults"] as? [[String: Any]])?.first?["success"] as? Bool == true, "\(update.text)")
        // ST_STR_NAM was sent with the value it had: not named.
        let journal = try server.request("/journal").object
        #expect((journal?["undo"] as? [String: Any])?["summary"] as? String == "applyEdits: set AD_ADDRESS of \(Self.points) fid 831", "\(journal ?? [:])")
        let log = try Harness.annolink("log", path)
        #expect(log.status == 0 && log.stdout.contains("applyEdits: set AD_ADDRESS of \(Self.points) fid 831"), "\(log.stdout)")
    }
}
