import AnnoLinkTestSupport
import Foundation
import Testing

/// Values an edit writes and values a read finds (issue 25, item 7): annotation display values
/// outside their ranges are refused by every front end, and the file stays as it was.
@Suite("annotation values, GlobalIDs and unreadable rows, end to end")
struct DataValueTests {
    /// Before the fix each of these was written: `AnchorX=1e308` gave a footprint at 1.6e308 and
    /// an infinite index box, after which every OGC page of the table answered 400.
    @Test("set of an annotation value outside its range exits 65 with one error line and changes nothing")
    func cliSetRefused() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let before = try Harness.dump(path, excluding: [])
        for (assignment, allowed) in [
            ("AnchorX=1e308", "AnchorX takes a number from -"), ("FontSize=-5", "FontSize takes a size in points more than 0 and at most 1000"),
            ("FontSize=0", "FontSize takes a size in points more than 0 and at most 1000"),
            ("HorizontalAlignment=99", "HorizontalAlignment takes 0 (left), 1 (center), 2 (right) or 3 (full)"),
            ("XOffset=1e308", "XOffset takes a number from -1000 to 1000 (points)"),
        ] {
            let result = try Harness.annolink("set", path, "Loudoun_Address_PointsAnno_1", "1", assignment)
            #expect(result.status == 65, "\(assignment): \(result.stderr)")
            let value = String(assignment.split(separator: "=")[1]), field = String(assignment.split(separator: "=")[0])
            #expect(result.stderrLines.count == 1, "\(result.stderr)")
            #expect(result.stderrLines.first?.hasPrefix("error: invalid value '\(value)' for Loudoun_Address_PointsAnno_1.\(field): \(allowed)") == true,
                    "\(result.stderr)")
        }
        #expect(try Harness.dump(path, excluding: []) == before)
        // A value in range is still taken.
        #expect(try Harness.annolink("set", path, "Loudoun_Address_PointsAnno_1", "1", "FontSize=12").status == 0)
        #expect(try Harness.sqlite(path, "SELECT FontSize FROM Loudoun_Address_PointsAnno_1 WHERE fid = 1") == "12.0")
    }

    @Test("a served applyEdits with FontSize 0 is refused for that edit, an OGC PATCH with XOffset 1e308 is a 400, nothing is written")
    func servedRefused() throws {
        guard let (path, server) = try Harness.serveLoudoun() else { return }
        let before = try Harness.dump(path, excluding: [])
        let layer = "/arcgis/rest/services/loudoun/FeatureServer/6"
        #expect(try server.request(layer + "?f=json").object?["name"] as? String == "Loudoun_Address_PointsAnno_1")
        let edits = try server.request(layer + "/applyEdits", method: "POST", form: [
            ("f", "json"), ("updates", #"[{"attributes":{"fid":1,"FontSize":0}},{"attributes":{"fid":2,"TextString":"KEPT BACK"}}]"#),
            ("rollbackOnFailure", "true"),
        ])
        #expect(edits.status == 200)
        let results = try #require(edits.object?["updateResults"] as? [[String: Any]])
        try #require(results.count == 2)
        #expect(results[0]["success"] as? Bool == false)
        let error = try #require(results[0]["error"] as? [String: Any])
        #expect(error["code"] as? Int == 1000)
        #expect(error["description"] as? String ==
            "invalid value '0' for Loudoun_Address_PointsAnno_1.FontSize: FontSize takes a size in points more than 0 and at most 1000")
        #expect((results[1]["error"] as? [String: Any])?["code"] as? Int == 1003)

        let patch = try server.request("/ogc/collections/Loudoun_Address_PointsAnno_1/items/1", method: "PATCH",
                                       headers: ["Content-Type": "application/merge-patch+json"], body: Data(#"{"XOffset": 1e308}"#.utf8))
        #expect(patch.status == 400, "\(patch.text)")
        #expect(patch.object?["code"] as? String == "EditRefused")
        #expect((patch.object?["description"] as? String)?.contains("Loudoun_Address_PointsAnno_1.XOffset: XOffset takes a number from -1000 to 1000") == true,
                "\(patch.text)")
        #expect(try Harness.dump(path, excluding: []) == before)
        #expect(try server.request("/ogc/collections/Loudoun_Address_PointsAnno_1/items?limit=5").status == 200)
        server.stop()
    }

    /// Issue 27: `AD_ADDRESS=NULL` (and a cleared number in the page, sent as null) was taken and
    /// gave 831 the label " OAKMONT"; a blank `ST_STR_NAM` was refused. Now NULL is refused by
    /// the edit service as a blank text is, so every front end says the same.
    @Test("a NULL or blank AD_ADDRESS is refused by set, applyEdits and OGC PATCH with the same words; --allow-empty lets it")
    func emptyLabelValuesRefusedEverywhere() throws {
        guard let (path, server) = try Harness.serveLoudoun(["--quiet"]) else { return }
        let before = try Harness.dump(path, excluding: [])
        let table = "Loudoun_Address_Points_1"
        let words = "\(table).AD_ADDRESS may not be empty or NULL: annotation class 'Class 1' (Loudoun_Address_PointsAnno_1 class 0) labels with " +
            #"$feature.AD_ADDRESS + " " + $feature.ST_STR_NAM, which reads it"#
        let cli = try Harness.annolink("set", path, table, "831", "AD_ADDRESS=NULL")
        #expect(cli.status == 65 && cli.stderrLines == ["error: \(words) (--allow-empty sets it anyway)"], "\(cli.stderr)")
        for value in ["null", #""""#, #""  ""#] {
            let reply = try server.request("/arcgis/rest/services/loudoun/FeatureServer/0/applyEdits", method: "POST", form: [
                ("f", "json"), ("updates", #"[{"attributes": {"fid": 831, "AD_ADDRESS": \#(value)}}]"#)])
            let outcome = (reply.object?["updateResults"] as? [[String: Any]])?.first
            let description = (outcome?["error"] as? [String: Any])?["description"] as? String ?? ""
            #expect(outcome?["success"] as? Bool == false && description == words, "applyEdits \(value): \(reply.text)")
        }
        let item = "/ogc/collections/\(table)/items/831"
        let patch = try server.request(item, method: "PATCH", headers: ["Content-Type": "application/merge-patch+json"],
                                       body: Data(#"{"AD_ADDRESS": null}"#.utf8))
        #expect(patch.status == 400 && (patch.object?["description"] as? String)?.contains(words) == true, "PATCH: \(patch.text)")
        #expect(try Harness.dump(path, excluding: []) == before, "nothing written")
        server.stop()

        // A server that allows it, and the CLI with --allow-empty.
        let allowing = try ServeProcess(file: path, arguments: ["--quiet", "--allow-empty"])
        let reply = try allowing.request("/arcgis/rest/services/loudoun/FeatureServer/0/applyEdits", method: "POST", form: [
            ("f", "json"), ("updates", #"[{"attributes": {"fid": 831, "AD_ADDRESS": null}}]"#)])
        #expect((reply.object?["updateResults"] as? [[String: Any]])?.first?["success"] as? Bool == true, "\(reply.text)")
        allowing.stop()
        #expect(try Harness.sqlite(path, "SELECT quote(AD_ADDRESS) FROM \(table) WHERE fid = 831") == "NULL")
        #expect(try Harness.annolink("set", path, table, "831", "AD_ADDRESS=NULL", "--allow-empty").status == 0)
    }

    @Test("on both stores: an annotation value out of range is refused with exit 65 and nothing written; an add without GlobalID gets one",
          arguments: EditedStore.allCases)
    func bothStores(store: EditedStore) throws {
        guard let data = try EditedData(store) else { return }
        defer { data.drop() }
        let before = try data.snapshot()
        let refused = try Harness.annolink("set", data.target, "Loudoun_Address_PointsAnno_1", "1", "AnchorX=1e308")
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(refused.stderrLines.count == 1 && refused.stderrLines[0].hasPrefix(
            "error: invalid value '1e308' for Loudoun_Address_PointsAnno_1.AnchorX: AnchorX takes a number from -"), "\(refused.stderr)")
        #expect(try data.snapshot() == before)
        let added = try Harness.annolink("add", data.target, "Loudoun_Address_Points_1", "--geometry", "POINT (11790000 7056000)",
                                         "AD_ADDRESS=778", "ST_STR_NAM=ELM", "--json")
        #expect(added.status == 0, "\(added.stderr)")
        let fid = try #require((try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [String: Any])?["fid"] as? Int)
        let guid = try data.query("SELECT \"GlobalID\" FROM \"Loudoun_Address_Points_1\" WHERE \"fid\" = \(fid)")
        #expect(guid.range(of: Self.esriGUID, options: .regularExpression) != nil, "\(guid)")
        #expect(try data.query("SELECT \"TextString\" FROM \"Loudoun_Address_PointsAnno_1\" WHERE \"FeatureID\" = \(fid)") == "778 ELM")
    }

    // MARK: GlobalID

    /// Esri's form, as the Loudoun data spell their GlobalIDs.
    static let esriGUID = #"^\{[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}\}$"#

    /// Before the fix every Loudoun table refused a POST: `GlobalID` is NOT NULL, without a default.
    @Test("OGC POST of a Loudoun address point without GlobalID makes it with a new GUID and its label")
    func ogcPostWithoutGlobalID() throws {
        guard let (path, server) = try Harness.serveLoudoun() else { return }
        let body = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[-77.41643,39.02078]},"properties":{"AD_ADDRESS":45777,"ST_STR_NAM":"OAK"}}"#
        let posted = try server.request("/ogc/collections/Loudoun_Address_Points_1/items", method: "POST",
                                        headers: ["Content-Type": "application/geo+json"], body: Data(body.utf8))
        #expect(posted.status == 201, "\(posted.text)")
        let fid = try #require(posted.headers["location"]?.split(separator: "/").last.map(String.init))
        let guid = try Harness.sqlite(path, "SELECT GlobalID FROM Loudoun_Address_Points_1 WHERE fid = \(fid)")
        #expect(guid.range(of: Self.esriGUID, options: .regularExpression) != nil, "\(guid)")
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM Loudoun_Address_Points_1 WHERE GlobalID = '\(guid)'") == "1")
        #expect(try Harness.sqlite(path, "SELECT TextString FROM Loudoun_Address_PointsAnno_1 WHERE FeatureID = \(fid)") == "45777 OAK")
        // The feature reads back with it.
        let read = try server.request("/ogc/collections/Loudoun_Address_Points_1/items/\(fid)")
        #expect((read.object?["properties"] as? [String: Any])?["GlobalID"] as? String == guid)
        server.stop()
    }

    @Test("annolink add on a Loudoun table without GlobalID makes one; a given one is kept, a malformed one refused")
    func cliAddGlobalID() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let made = try Harness.annolink("add", path, "Loudoun_Address_Points_1", "--geometry", "POINT (11790768 7056461)",
                                        "AD_ADDRESS=45778", "ST_STR_NAM=ELM", "--json")
        #expect(made.status == 0, "\(made.stderr)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: Any])
        let fid = try #require(answer["fid"] as? Int)
        let listed = (answer["fields"] as? [[String: Any]])?.first { $0["name"] as? String == "GlobalID" }?["new"] as? String
        let stored = try Harness.sqlite(path, "SELECT GlobalID FROM Loudoun_Address_Points_1 WHERE fid = \(fid)")
        #expect(listed == stored)
        #expect(stored.range(of: Self.esriGUID, options: .regularExpression) != nil, "\(stored)")

        let given = "{00000000-0000-0000-0000-0000000000AB}"
        let kept = try Harness.annolink("add", path, "ParcelLines_1", "--geometry", "LINESTRING (11790000 7056000, 11790050 7056020)",
                                        "GlobalID=\(given)", "--json")
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM ParcelLines_1 WHERE GlobalID = '\(given)'") == "1")

        let before = try Harness.dump(path, excluding: [])
        let bad = try Harness.annolink("add", path, "ParcelLines_1", "--geometry", "LINESTRING (11790000 7056000, 11790050 7056020)", "GlobalID=12")
        #expect(bad.status == 65)
        #expect(bad.stderrLines == ["error: invalid value '12' for ParcelLines_1.GlobalID: a GlobalID is a GUID in braces, " +
            "{XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX} (hexadecimal digits)"], "\(bad.stderr)")
        #expect(try Harness.dump(path, excluding: []) == before)
    }

    @Test("annolink sketch saves a new Loudoun building without a GlobalID: the edit service gives it one")
    func sketchSaveGlobalID() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let script = """
            new Loudoun_Buildings_1
            view 11789200,7057600 1200
            button
            pan 100,0
            button
            pan 0,100
            button
            save
            quit
            """
        let result = try Harness.run(Harness.binary, ["sketch", path], stdin: script)
        #expect(result.status == 0, "\(result.stderr)")
        let building = try Harness.sqlite(path, "SELECT max(fid) FROM Loudoun_Buildings_1")
        #expect(result.stdout.contains("saved: added Loudoun_Buildings_1 fid \(building)"), "\(result.stdout)")
        let guid = try Harness.sqlite(path, "SELECT GlobalID FROM Loudoun_Buildings_1 WHERE fid = \(building)")
        #expect(guid.range(of: Self.esriGUID, options: .regularExpression) != nil, "\(guid)")
    }

    // MARK: Unreadable rows

    /// Replaces the geometry blob of `fid` of `table` with bytes that are not a GeoPackage
    /// geometry, through plain `sqlite3`: the R-tree's update triggers (which call annolink's
    /// ST_ functions) are taken out for the write and put back as they were.
    static func plantCorruptBlob(_ path: String, table: String, fid: String) throws {
        let triggers = try Harness.sqlite(path, "SELECT group_concat(sql, ';' || char(10)) FROM sqlite_master " +
            "WHERE type = 'trigger' AND tbl_name = '\(table)' AND name LIKE 'rtree_%_update%'")
        let names = try Harness.sqlite(path, "SELECT group_concat('DROP TRIGGER \"' || name || '\"', '; ') FROM sqlite_master " +
            "WHERE type = 'trigger' AND tbl_name = '\(table)' AND name LIKE 'rtree_%_update%'")
        try #require(!triggers.isEmpty && !names.isEmpty)
        _ = try Harness.sqlite(path, "\(names); UPDATE \"\(table)\" SET geom = X'4750000100000000DEADBEEF' WHERE fid = \(fid); \(triggers);")
        #expect(try Harness.sqlite(path, "SELECT hex(geom) FROM \"\(table)\" WHERE fid = \(fid)") == "4750000100000000DEADBEEF")
    }

    /// A point at x = 1e308, as an annotation edit could write before its values were checked:
    /// it decodes, but has no place in CRS84.
    @Test("a stored geometry with no place in CRS84 makes the OGC page holding it a 500 naming the row, not a 400")
    func geometryWithoutAPlace() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let table = "Loudoun_Address_Points_1"
        let fid = try Harness.sqlite(path, "SELECT fid FROM \(table) ORDER BY fid LIMIT 1")
        func hex(_ value: Double) -> String { withUnsafeBytes(of: value.bitPattern.littleEndian) { $0.map { String(format: "%02X", $0) }.joined() } }
        // StandardGeoPackageBinary, little-endian, no envelope, srs 2924; then an ISO WKB point.
        let blob = "475000016C0B0000" + "0101000000" + hex(1e308) + hex(7_056_461)
        let triggers = try Harness.sqlite(path, "SELECT group_concat(sql, ';' || char(10)) FROM sqlite_master " +
            "WHERE type = 'trigger' AND tbl_name = '\(table)' AND name LIKE 'rtree_%_update%'")
        let names = try Harness.sqlite(path, "SELECT group_concat('DROP TRIGGER \"' || name || '\"', '; ') FROM sqlite_master " +
            "WHERE type = 'trigger' AND tbl_name = '\(table)' AND name LIKE 'rtree_%_update%'")
        _ = try Harness.sqlite(path, "\(names); UPDATE \(table) SET geom = X'\(blob)' WHERE fid = \(fid); \(triggers);")
        let server = try ServeProcess(file: path)
        let page = try server.request("/ogc/collections/\(table)/items?limit=10")
        #expect(page.status == 500, "\(page.text)")
        #expect(page.object?["code"] as? String == "CorruptData")
        #expect((page.object?["description"] as? String)?.hasPrefix("the geometry of \(table) fid \(fid) cannot be read: it has no place in " +
            "http://www.opengis.net/def/crs/OGC/1.3/CRS84") == true, "\(page.text)")
        #expect(try server.request("/ogc/collections/\(table)/items?limit=10&offset=10").status == 200)
        // In the storage CRS it is written as it is stored.
        let stored = try server.request("/ogc/collections/\(table)/items/\(fid)?crs=http://www.opengis.net/def/crs/EPSG/0/2924")
        #expect(stored.status == 200, "\(stored.text)")
        server.stop()
    }

    /// Before the fix the page holding the row answered `400 InvalidRequestBody`, as if the
    /// client had sent something wrong.
    @Test("an unreadable geometry row: the OGC page and item holding it answer 500 naming table and fid, other pages 200; FeatureServer likewise")
    func unreadableRow() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let table = "Loudoun_Address_Points_1"
        let fid = try Harness.sqlite(path, "SELECT fid FROM \(table) ORDER BY fid LIMIT 1 OFFSET 4")
        try Self.plantCorruptBlob(path, table: table, fid: fid)
        let server = try ServeProcess(file: path)
        let named = "the geometry of \(table) fid \(fid) cannot be read"

        for holding in ["/ogc/collections/\(table)/items?limit=10", "/ogc/collections/\(table)/items/\(fid)"] {
            let reply = try server.request(holding)
            #expect(reply.status == 500, "\(holding): \(reply.status) \(reply.text)")
            #expect(reply.object?["code"] as? String == "CorruptData", "\(reply.text)")
            #expect((reply.object?["description"] as? String)?.hasPrefix(named) == true, "\(reply.text)")
        }
        let next = try server.request("/ogc/collections/\(table)/items?limit=10&offset=10")
        #expect(next.status == 200, "\(next.text)")
        #expect((next.object?["features"] as? [Any])?.count == 10)

        // FeatureServer: Esri's error 500 naming the row (sent, as ArcGIS sends errors, with HTTP 200).
        let query = "/arcgis/rest/services/loudoun/FeatureServer/0/query?where=1%3D1&outFields=*&f=json&resultRecordCount=10"
        let failed = try server.request(query)
        let error = try #require(failed.object?["error"] as? [String: Any], "\(failed.text)")
        #expect(error["code"] as? Int == 500)
        #expect((error["details"] as? [String])?.first?.hasPrefix(named) == true, "\(failed.text)")
        let other = try server.request(query + "&resultOffset=10")
        #expect((other.object?["features"] as? [Any])?.count == 10, "\(other.text)")
        server.stop()
    }
}
