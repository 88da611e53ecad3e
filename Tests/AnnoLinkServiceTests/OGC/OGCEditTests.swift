import AnnoLinkService
import AnnoLinkStore
import AnnoLinkTestSupport
import Foundation
import Testing

@Suite("OGC API Features: editing (Part 4)")
struct OGCEditTests {
    let points = "/ogc/collections/Loudoun_Address_Points_1"
    let parcels = "/ogc/collections/ParcelLines_1"
    let crs2924 = "http://www.opengis.net/def/crs/EPSG/0/2924"

    func label(_ client: OGCClient, point fid: Int64) throws -> String? {
        try client.sqlScalar("SELECT TextString FROM Loudoun_Address_PointsAnno_1 WHERE FeatureID = \(fid)").textValue
    }

    @Test("PATCH of AD_ADDRESS changes the linked label and the ETag; a stale If-Match gets 412 and changes nothing")
    func patchAndStaleETag() throws {
        let scratch = try ScratchDirectory()
        let client = try OGCClient.loudoun(in: scratch)
        let before = client.get(points + "/items/831")
        let etag = try #require(before.header("ETag"))
        let patch = client.send("PATCH", points + "/items/831", headers: ["Content-Type": "application/merge-patch+json", "If-Match": etag],
                                body: #"{"AD_ADDRESS": 12345}"#, caller: .user(name: "alice", mayEdit: true))
        #expect(patch.status == 204, "\(patch.text)")
        let newTag = try #require(patch.header("ETag"))
        #expect(newTag != etag)
        #expect(client.get(points + "/items/831").header("ETag") == newTag)
        #expect(try label(client, point: 831) == "12345 ELMWOOD")
        #expect(try client.sqlScalar("SELECT user FROM annolink_journal ORDER BY id DESC LIMIT 1").textValue == "alice")
        #expect(try client.sqlScalar("SELECT command FROM annolink_journal ORDER BY id DESC LIMIT 1").textValue == "serve ogc PATCH \(points)/items/831")

        // A second editor still holding the first ETag.
        let dump = try contentDump(of: client.path)
        let stale = client.send("PATCH", points + "/items/831", headers: ["Content-Type": "application/merge-patch+json", "If-Match": etag],
                                body: #"{"AD_ADDRESS": 999}"#)
        #expect(stale.status == 412, "\(stale.text)")
        let staleDelete = client.send("DELETE", points + "/items/831", headers: ["If-Match": etag])
        #expect(staleDelete.status == 412)
        let weak = client.send("PUT", points + "/items/831", headers: ["Content-Type": "application/geo+json", "If-Match": "W/\(newTag)"],
                               body: #"{"type":"Feature","geometry":null,"properties":{}}"#)
        #expect(weak.status == 412)
        #expect(try contentDump(of: client.path) == dump)
        #expect(try label(client, point: 831) == "12345 ELMWOOD")
    }

    @Test("PUT with a moved point moves the feature and its label; properties not given become null")
    func putMovesPoint() throws {
        let scratch = try ScratchDirectory()
        let client = try OGCClient.loudoun(in: scratch)
        let feature = try client.json(client.get(points + "/items/834", ["crs": crs2924]))
        var properties = feature["properties"] as? [String: Any] ?? [:]
        let coordinates = (feature["geometry"] as? [String: Any])?["coordinates"] as? [Double] ?? []
        let anchorBefore = try client.sql("SELECT AnchorX, AnchorY FROM Loudoun_Address_PointsAnno_1 WHERE FeatureID = 834")[0].compactMap(\.doubleValue)
        properties["ST_DIR_SUF"] = nil
        let moved = [coordinates[0] + 50, coordinates[1] - 20]
        let body = try String(decoding: JSONSerialization.data(withJSONObject: [
            "type": "Feature", "id": 834, "geometry": ["type": "Point", "coordinates": moved], "properties": properties,
        ]), as: UTF8.self)
        let put = client.send("PUT", points + "/items/834", headers: ["Content-Type": "application/geo+json", "Content-Crs": "<\(crs2924)>"], body: body)
        #expect(put.status == 204, "\(put.text)")
        let after = try client.json(client.get(points + "/items/834", ["crs": crs2924]))
        let newCoordinates = (after["geometry"] as? [String: Any])?["coordinates"] as? [Double] ?? []
        #expect(abs(newCoordinates[0] - moved[0]) < 1e-6 && abs(newCoordinates[1] - moved[1]) < 1e-6)
        #expect((after["properties"] as? [String: Any])?["ST_DIR_SUF"] is NSNull)
        let anchorAfter = try client.sql("SELECT AnchorX, AnchorY FROM Loudoun_Address_PointsAnno_1 WHERE FeatureID = 834")[0].compactMap(\.doubleValue)
        // The label follows (placed again for the new position, so to within a tenth of a foot).
        #expect(abs(anchorAfter[0] - anchorBefore[0] - 50) < 0.1 && abs(anchorAfter[1] - anchorBefore[1] + 20) < 0.1, "\(anchorBefore) → \(anchorAfter)")
    }

    @Test("a read feature written back unchanged (through CRS84) changes nothing")
    func roundTripIsNoChange() throws {
        let scratch = try ScratchDirectory()
        let client = try OGCClient.loudoun(in: scratch)
        let line = try #require(client.sqlScalar("SELECT min(fid) FROM ParcelLines_1").integerValue)
        let read = client.get(parcels + "/items/\(line)")
        var feature = try client.json(read)
        feature["links"] = nil
        let dump = try contentDump(of: client.path)
        let put = client.send("PUT", parcels + "/items/\(line)", headers: ["Content-Type": "application/geo+json", "If-Match": read.header("ETag")!],
                              body: String(decoding: try JSONSerialization.data(withJSONObject: feature), as: UTF8.self))
        #expect(put.status == 204, "\(put.text)")
        #expect(put.header("ETag") == read.header("ETag"))
        #expect(try contentDump(of: client.path) == dump)
    }

    @Test("a last-vertex move of a two-point parcel line changes its length label; a longer line is refused")
    func lineMoves() throws {
        let scratch = try ScratchDirectory()
        let client = try OGCClient.loudoun(in: scratch)
        var twoPoint: (Int64, [[Double]])?
        var longer: (Int64, [[Double]])?
        for f in try client.json(client.get(parcels + "/items", ["crs": crs2924, "limit": "200"]))["features"] as? [[String: Any]] ?? [] {
            let coordinates = (f["geometry"] as? [String: Any])?["coordinates"] as? [[Double]] ?? []
            let fid = Int64(f["id"] as? Int ?? 0)
            if coordinates.count == 2, twoPoint == nil { twoPoint = (fid, coordinates) }
            if coordinates.count > 2, longer == nil { longer = (fid, coordinates) }
        }
        let (fid, line) = try #require(twoPoint)
        let labelBefore = try client.sqlScalar("SELECT TextString FROM ParcelLinesAnno_1 WHERE FeatureID = \(fid)").textValue
        let end = [line[0][0] + (line[1][0] - line[0][0]) * 2, line[0][1] + (line[1][1] - line[0][1]) * 2]
        let patch = client.send("PATCH", parcels + "/items/\(fid)", headers: ["Content-Type": "application/merge-patch+json", "Content-Crs": "<\(crs2924)>"],
                                body: #"{"geometry":{"type":"LineString","coordinates":[[\#(line[0][0]),\#(line[0][1])],[\#(end[0]),\#(end[1])]]}}"#)
        #expect(patch.status == 204, "\(patch.text)")
        let labelAfter = try client.sqlScalar("SELECT TextString FROM ParcelLinesAnno_1 WHERE FeatureID = \(fid)").textValue
        #expect(labelAfter != labelBefore, "\(String(describing: labelBefore))")
        if let before = labelBefore.flatMap(Double.init), let after = labelAfter.flatMap(Double.init) {
            #expect(abs(after - 2 * before) < 0.2, "\(before) → \(after)")
        }
        #expect(try client.sqlScalar("SELECT summary FROM annolink_journal ORDER BY id DESC LIMIT 1").textValue == "update ParcelLines_1 fid \(fid)")

        let (other, points) = try #require(longer)
        let dump = try contentDump(of: client.path)
        var changed = points
        changed[changed.count - 1][0] += 10
        let refused = client.send("PATCH", parcels + "/items/\(other)", headers: ["Content-Type": "application/merge-patch+json", "Content-Crs": "<\(crs2924)>"],
                                  body: #"{"geometry":{"type":"LineString","coordinates":\#(changed)}}"#)
        #expect(refused.status == 400)
        #expect(try client.json(refused)["description"] as? String ?? "" == "ParcelLines_1 fid \(other) is not a single-segment line: it has 1 part and \(points.count) points (move-vertex moves an end of a line of one part and two points)")
        #expect(try contentDump(of: client.path) == dump)
    }

    @Test("POST adds a feature with its label (201, Location, ETag); DELETE removes both (204)")
    func createAndDelete() throws {
        let scratch = try ScratchDirectory()
        let client = try OGCClient.loudoun(in: scratch)
        let created = client.send("POST", points + "/items", headers: ["Content-Type": "application/geo+json"], body: """
            {"type":"Feature","geometry":{"type":"Point","coordinates":[-77.4170,39.0205]},
             "properties":{"AD_ADDRESS":100,"ST_STR_NAM":"NEWROAD","GlobalID":"{00000000-0000-0000-0000-0000000000AA}"}}
            """)
        #expect(created.status == 201, "\(created.text)")
        let location = try #require(created.header("Location"))
        let fid = try #require(Int64(location.split(separator: "/").last ?? ""))
        #expect(location == "http://localhost/ogc/collections/Loudoun_Address_Points_1/items/\(fid)")
        #expect(client.get(points + "/items/\(fid)").header("ETag") == created.header("ETag"))
        #expect(try label(client, point: fid) == "100 NEWROAD")
        let xy = try client.sql("SELECT ST_MinX(geom), ST_MinY(geom) FROM Loudoun_Address_Points_1 WHERE fid = \(fid)")[0].compactMap(\.doubleValue)
        #expect(xy[0] > 11_780_000 && xy[0] < 11_800_000 && xy[1] > 7_050_000 && xy[1] < 7_060_000, "\(xy)")

        let deleted = client.send("DELETE", points + "/items/\(fid)", headers: ["If-Match": created.header("ETag")!])
        #expect(deleted.status == 204)
        #expect(client.get(points + "/items/\(fid)").status == 404)
        #expect(try label(client, point: fid) == nil)
        #expect(client.send("DELETE", points + "/items/\(fid)").status == 404)

        let bad = client.send("POST", points + "/items", headers: ["Content-Type": "application/geo+json"], body: #"{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"nope":1}}"#)
        #expect(bad.status == 400)
        #expect(client.send("POST", points + "/items", headers: ["Content-Type": "application/json"], body: "{not json").status == 400)
    }

    @Test("updating an annotation row sets its Override bits, as set does")
    func annotationRow() throws {
        let scratch = try ScratchDirectory()
        let client = try OGCClient.loudoun(in: scratch)
        let row = try #require(client.sqlScalar("SELECT fid FROM Loudoun_Address_PointsAnno_1 WHERE Override = 0 LIMIT 1").integerValue)
        let patch = client.send("PATCH", "/ogc/collections/Loudoun_Address_PointsAnno_1/items/\(row)", headers: ["Content-Type": "application/json"],
                                body: #"{"properties":{"TextString":"BY HAND","Angle":30}}"#)
        #expect(patch.status == 204, "\(patch.text)")
        let stored = try client.sql("SELECT TextString, Angle, Override FROM Loudoun_Address_PointsAnno_1 WHERE fid = \(row)")[0]
        #expect(stored[0].textValue == "BY HAND")
        #expect(stored[1].doubleValue == 30)
        #expect(stored[2].integerValue != 0)
    }

    @Test("edits need a caller who may edit: 401 with a challenge, 403 for read-only tokens and servers; nothing changes")
    func authorization() throws {
        let scratch = try ScratchDirectory()
        let client = try OGCClient.loudoun(in: scratch)
        let dump = try contentDump(of: client.path)
        let body = #"{"AD_ADDRESS": 1}"#
        let headers = ["Content-Type": "application/merge-patch+json"]
        let anonymous = client.send("PATCH", points + "/items/831", headers: headers, body: body, caller: .anonymous(mayEdit: false))
        #expect(anonymous.status == 401)
        #expect(anonymous.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
        let invalid = client.send("DELETE", points + "/items/831", caller: .invalidToken)
        #expect(invalid.status == 401)
        #expect(invalid.header("WWW-Authenticate")?.contains("invalid_token") == true)
        #expect(client.send("PATCH", points + "/items/831", headers: headers, body: body, caller: .user(name: "bob", mayEdit: false)).status == 403)
        let readOnly = try OGCClient.loudoun(in: scratch, readOnly: true)
        #expect(readOnly.send("PATCH", points + "/items/831", headers: headers, body: body).status == 403)
        #expect(readOnly.get(points + "/items/831").status == 200)
        #expect(try contentDump(of: client.path) == dump)
    }
}
