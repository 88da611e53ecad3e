import AnnoLinkTestSupport
import Foundation
import Testing

/// `identify` and `TABLE --at X,Y` on the imported Loudoun data, run as a user runs them.
@Suite("identify and --at, end to end")
struct IdentifyEndToEndTests {
    static let points = "Loudoun_Address_Points_1"
    static let lines = "ParcelLines_1"

    /// Longitude and latitude of an EPSG:2924 point, from PROJ's `cs2cs` (outside oracle).
    func longitudeLatitude(_ x: String, _ y: String) throws -> String {
        let output = try ExternalTool.cs2cs.output(["-f", "%.10f", "EPSG:2924", "EPSG:4326"], input: "\(x) \(y)\n")
        let numbers = output.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
        #expect(numbers.count >= 2, "cs2cs wrote '\(output)'")
        return "\(numbers[1]),\(numbers[0])"
    }

    /// The fid, x and y of the address point with the largest fid (not the first row, so that
    /// a pick of "the first feature" would show).
    func lastAddressPoint(_ path: String) throws -> (fid: String, x: String, y: String) {
        let fid = try Harness.sqlite(path, "SELECT max(fid) FROM \(Self.points)")
        let shown = try Harness.annolink("show", path, Self.points, fid, "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        let coordinates = try #require((object["geometry"] as? [String: Any])?["coordinates"] as? [Double])
        return (fid, String(format: "%.6f", coordinates[0]), String(format: "%.6f", coordinates[1]))
    }

    @Test("identify at an address point's EPSG:4326 coordinates (cs2cs) lists that point first, then set --at edits its label")
    func identifyThenSet() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let (fid, x, y) = try lastAddressPoint(path)
        let location = try longitudeLatitude(x, y)

        let json = try Harness.annolink("identify", path, location, "--crs", "EPSG:4326", "--json")
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let first = try #require((object["features"] as? [[String: Any]])?.first)
        #expect(first["table"] as? String == Self.points && (first["fid"] as? NSNumber)?.stringValue == fid)
        #expect(((first["distance"] as? Double) ?? 1) < 0.001)
        let label = try #require((first["annotation"] as? [[String: Any]])?.first?["text"] as? String)
        let text = try Harness.sqlite(path, "SELECT TextString FROM Loudoun_Address_PointsAnno_1 WHERE FeatureID = \(fid)")
        #expect(label == text)

        let plain = try Harness.annolink("identify", path, location, "--crs", "EPSG:4326")
        #expect(plain.status == 0)
        let lines = plain.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "8 tables searched within 13.889 (map units) of \(location) (EPSG:4326)")
        #expect(lines.dropFirst().first == "features (points, lines, polygons; nearest first):")
        #expect(lines.dropFirst(2).first?.hasPrefix("  \(Self.points) fid \(fid) (POINT) at 0.000") == true)

        // set --at: the same location picks the same point; its label follows the new name.
        let set = try Harness.annolink("set", path, Self.points, "--at", location, "--crs", "EPSG:4326", "ST_STR_NAM=PICKED BY LOCATION")
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout.hasPrefix("set \(Self.points) fid \(fid) (journal entry 1;"))
        let number = try Harness.sqlite(path, "SELECT AD_ADDRESS FROM \(Self.points) WHERE fid = \(fid)")
        #expect(try Harness.sqlite(path, "SELECT ST_STR_NAM FROM \(Self.points) WHERE fid = \(fid)") == "PICKED BY LOCATION")
        #expect(try Harness.sqlite(path, "SELECT TextString FROM Loudoun_Address_PointsAnno_1 WHERE FeatureID = \(fid)")
            == "\(number) PICKED BY LOCATION")
        // Only that one point changed.
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM \(Self.points) WHERE ST_STR_NAM = 'PICKED BY LOCATION'") == "1")

        // show --at in the table's own CRS, and delete --at, pick it too.
        let show = try Harness.annolink("show", path, Self.points, "--at", "\(x),\(y)")
        #expect(show.status == 0 && show.stdout.hasPrefix("\(Self.points) fid \(fid)\n"), "\(show.stderr)")
        let delete = try Harness.annolink("delete", path, Self.points, "--at", "\(x),\(y)", "--json")
        #expect(delete.status == 0 && delete.stdout.contains("\"fid\" : \(fid)"), "\(delete.stderr)")
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM \(Self.points) WHERE fid = \(fid)") == "0")
    }

    @Test("move --at picks the point at --at and moves it to --to, both in --crs")
    func moveAt() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let (fid, x, y) = try lastAddressPoint(path)
        let at = try longitudeLatitude(x, y)
        let target = try longitudeLatitude(String((Double(x) ?? 0) + 30), String((Double(y) ?? 0) - 20))
        let move = try Harness.annolink("move", path, Self.points, "--at", at, "--to", target, "--crs", "EPSG:4326")
        #expect(move.status == 0, "\(move.stderr)")
        #expect(move.stdout.hasPrefix("moved \(Self.points) fid \(fid) "))
        let shown = try Harness.annolink("show", path, Self.points, fid, "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        let moved = try #require((object["geometry"] as? [String: Any])?["coordinates"] as? [Double])
        #expect(abs(moved[0] - ((Double(x) ?? 0) + 30)) < 0.001 && abs(moved[1] - ((Double(y) ?? 0) - 20)) < 0.001, "\(moved)")
    }

    @Test("at a vertex two parcel lines share, set --at refuses with the candidates listed, exit 65, and the file is unchanged")
    func ambiguous() throws {
        guard let path = try Harness.importLoudoun() else { return }
        // A start point of one parcel line that is an end point of another, found by SQL on the
        // blobs' envelopes: a two-point line's start is (minx or maxx, miny or maxy).
        let shared = try Harness.ogrSQL(path, """
            SELECT a.fid * 1 AS fa, b.fid * 1 AS fb, ST_X(ST_StartPoint(a.geom)) AS x, ST_Y(ST_StartPoint(a.geom)) AS y
            FROM ParcelLines_1 a, ParcelLines_1 b WHERE a.fid < b.fid AND (ST_Equals(ST_StartPoint(a.geom), ST_StartPoint(b.geom))
              OR ST_Equals(ST_StartPoint(a.geom), ST_EndPoint(b.geom))) ORDER BY a.fid LIMIT 1
            """)
        let (fa, fb) = (try #require(shared["fa"]), try #require(shared["fb"]))
        let vertex = "\(try #require(shared["x"])),\(try #require(shared["y"]))"
        let before = try Harness.dump(path, excluding: [])
        let result = try Harness.annolink("set", path, Self.lines, "--at", vertex, "LEFT_FID=1")
        #expect(result.status == 65)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("error: \(vertex) is ambiguous: the nearest of the ") == true, "\(result.stderr)")
        #expect(lines.first?.hasSuffix("are equally near (0.000); give the FID") == true)
        #expect(lines.contains("  fid \(fa) at 0.000") && lines.contains("  fid \(fb) at 0.000"), "\(result.stderr)")
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("  fid ") && $0.contains(" at ") })
        #expect(result.stdout.isEmpty)
        #expect(try Harness.dump(path, excluding: []) == before)
    }

    @Test("a location with nothing within the tolerance is refused, exit 65, the nearest beyond listed; identify there lists nothing and exits 0")
    func empty() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let before = try Harness.dump(path, excluding: [])
        for command in [["show"], ["set", "ST_STR_NAM=X"], ["delete"], ["move", "--to", "11790000,7056000"]] {
            let words = [command[0], path, Self.points, "--at", "11700000,7000000"] + command.dropFirst()
            let result = try Harness.annolink(words)
            #expect(result.status == 65, "\(words)")
            #expect(result.stderr == "error: nothing in \(Self.points) within 13.889 (map units) of 11700000,7000000, nor within 13888.861\n",
                    "\(words)")
        }
        let moveVertex = try Harness.annolink("move-vertex", path, Self.lines, "--at", "-77.5,38.9", "--crs", "EPSG:4326", "--to", "1,1")
        #expect(moveVertex.status == 65 && moveVertex.stderr.hasPrefix("error: nothing in \(Self.lines) within 13.889 (map units) of -77.5,38.9 (EPSG:4326), "))
        // 20 ft east of the last address point: refused, that point listed as the nearest beyond the tolerance.
        let (fid, x, y) = try lastAddressPoint(path)
        let off = try Harness.annolink("set", path, Self.points, "--at", "\((Double(x) ?? 0) + 20),\(y)", "ST_STR_NAM=X")
        #expect(off.status == 65)
        let lines = off.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasSuffix("; the nearest beyond it:") == true, "\(off.stderr)")
        #expect(lines.dropFirst().first == "  fid \(fid) at 20.000", "\(off.stderr)")
        #expect(try Harness.dump(path, excluding: []) == before)

        let identify = try Harness.annolink("identify", path, "11700000,7000000")
        #expect(identify.status == 0 && identify.stdout.contains("\nno features\nno annotation\n"))
    }

    @Test("bad usage: FID and --at together, a malformed location or tolerance, exit 64")
    func usage() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let both = try Harness.annolink("show", path, Self.points, "831", "--at", "1,2")
        #expect(both.status == 64 && both.stderr.hasPrefix("error: give FID or --at X,Y, not both\n"))
        let malformed = try Harness.annolink("set", path, Self.points, "--at", "1;2", "A=b")
        #expect(malformed.status == 64 && malformed.stderr.hasPrefix("error: --at expects X,Y (two numbers separated by a comma), not '1;2'\n"))
        let tolerance = try Harness.annolink("identify", path, "1,2", "--tolerance", "-3")
        #expect(tolerance.status == 64 && tolerance.stderr.hasPrefix("error: --tolerance expects a distance of at least 0 in map units, not '-3'\n"))
        let unknownTable = try Harness.annolink("identify", path, "1,2", "--table", "Nope")
        #expect(unknownTable.status == 65)
        let missing = try Harness.annolink("identify", path + ".missing", "1,2")
        #expect(missing.status == 66)
    }

    @Test("add --geometry with Esri JSON in EPSG:4326 (wkid) lands where cs2cs says; identify finds it; a contradicting --crs is refused")
    func addEsriJSON() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let esri = #"{"x":-77.4163,"y":39.0209,"spatialReference":{"wkid":4326}}"#
        let add = try Harness.annolink("add", path, Self.points, "--geometry", esri, "AD_ADDRESS=45770", "ST_STR_NAM=ESRI",
                                       "GlobalID={00000000-0000-0000-0000-000000000001}", "--json")
        #expect(add.status == 0, "\(add.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(add.stdout.utf8)) as? [String: Any])
        let fid = try #require((object["fid"] as? NSNumber)?.stringValue)
        let stored = try #require((object["newGeometry"] as? [String: Any])?["coordinates"] as? [Double])
        // cs2cs takes EPSG:4326 as latitude, longitude.
        let oracle = try ExternalTool.cs2cs.output(["-f", "%.6f", "EPSG:4326", "EPSG:2924"], input: "39.0209 -77.4163\n")
            .split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Double($0) }
        #expect(oracle.count >= 2 && abs(stored[0] - oracle[0]) < 0.001 && abs(stored[1] - oracle[1]) < 0.001, "\(stored) vs \(oracle)")
        #expect(try Harness.sqlite(path, "SELECT TextString FROM Loudoun_Address_PointsAnno_1 WHERE FeatureID = \(fid)") == "45770 ESRI")
        let identify = try Harness.annolink("identify", path, "-77.4163,39.0209", "--crs", "EPSG:4326", "--table", Self.points)
        #expect(identify.stdout.contains("\n  \(Self.points) fid \(fid) (POINT) at 0.000\n"), "\(identify.stdout)")

        // The same CRS named twice is fine; a different one is refused and nothing is written.
        let same = try Harness.annolink("add", path, Self.points, "--crs", "EPSG:4326", "--geometry", esri.replacingOccurrences(of: "77.4163", with: "77.4162"),
                                        "ST_STR_NAM=ESRI", "GlobalID={00000000-0000-0000-0000-000000000002}")
        #expect(same.status == 0, "\(same.stderr)")
        let before = try Harness.dump(path, excluding: [])
        let conflict = try Harness.annolink("add", path, Self.points, "--crs", "EPSG:2924", "--geometry", esri, "ST_STR_NAM=ESRI",
                                            "GlobalID={00000000-0000-0000-0000-000000000003}")
        #expect(conflict.status == 65)
        #expect(conflict.stderr == "error: the geometry's spatialReference (wkid 4326 = EPSG:4326) and the CRS given (EPSG:2924) differ: " +
            "give one of them, or the same\n")
        let unknown = try Harness.annolink("add", path, Self.points, "--geometry", #"{"x":1,"y":2,"spatialReference":{"wkid":999999}}"#)
        #expect(unknown.status == 65 && unknown.stderr.hasPrefix("error: unknown coordinate reference system 'wkid 999999 (neither EPSG:999999 nor ESRI:999999)'"))
        let malformed = try Harness.annolink("add", path, Self.points, "--geometry", #"{"x":1,"spatialReference":{"wkid":4326}}"#)
        #expect(malformed.status == 64 && malformed.stderr.hasPrefix("error: --geometry: Esri JSON: "), "\(malformed.stderr)")
        #expect(try Harness.dump(path, excluding: []) == before)
    }

    @Test("the sketch's geometry command reads Esri JSON in EPSG:4326 (wkid) and save writes it where cs2cs says")
    func sketchEsriJSON() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let fid = try Harness.sqlite(path, "SELECT min(fid) FROM \(Self.lines)")
        let script = """
            edit \(Self.lines) \(fid)
            geometry '{"paths":[[[-77.4163,39.0209],[-77.4160,39.0207]]],"spatialReference":{"wkid":4326}}'
            save

            """
        let result = try Harness.run(Harness.binary, ["sketch", path], stdin: script)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("replaced the sketch with the Esri JSON geometry (from EPSG:4326): 2 vertices\n"))
        let shown = try Harness.annolink("show", path, Self.lines, fid, "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        let stored = try #require((object["geometry"] as? [String: Any])?["coordinates"] as? [[Double]])
        let oracle = try ExternalTool.cs2cs.output(["-f", "%.6f", "EPSG:4326", "EPSG:2924"], input: "39.0209 -77.4163\n39.0207 -77.4160\n")
            .split(separator: "\n").map { $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap { Double($0) } }
        #expect(stored.count == 2 && oracle.count == 2)
        for (a, b) in zip(stored, oracle) { #expect(abs(a[0] - b[0]) < 0.001 && abs(a[1] - b[1]) < 0.001, "\(a) vs \(b)") }

        // A polygon cannot replace a line: the script stops there with exit 65.
        let wrong = try Harness.run(Harness.binary, ["sketch", path], stdin: "edit \(Self.lines) \(fid)\ngeometry '{\"rings\":[[[0,0],[0,1],[1,1],[0,0]]]}'\n")
        #expect(wrong.status == 65 && wrong.stderr.contains("the sketch is a polyline; a polygon cannot replace it"), "\(wrong.stderr)")
    }
}
