import AnnoLinkTestSupport
import Foundation
import Testing

/// Compression and validators as clients expect them (issue 26 item 4; docs/serve.md,
/// "Compression and validators"), against a real `annolink serve` on the Loudoun import: gzip
/// when asked, read back by Debian's `gzip`; `If-None-Match` answered 304 while the content is
/// the same, 200 once an edit changed it.
@Suite("compression and validators, end to end", .serialized)
struct ServeNegotiationTests {
    /// `body` decompressed by `gzip -dc` (an outside oracle).
    func gunzip(_ body: Data) throws -> String {
        let folder = try Harness.temporaryDirectory()
        let file = folder.appendingPathComponent("body.gz")
        try body.write(to: file)
        let result = try Harness.run("/bin/gzip", ["-dc", file.path])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout
    }

    /// `text` with the value of every `"timeStamp"` member replaced by `T`.
    static func withoutTimeStamp(_ text: String) -> String {
        text.replacingOccurrences(of: #""timeStamp" ?: ?"[^"]*""#, with: #""timeStamp":"T""#, options: .regularExpression)
    }

    @Test("gzip when asked for JSON, the page's script and Leaflet; the same bytes once decompressed; nothing compressed unasked")
    func gzipWhenAsked() throws {
        guard let (_, server) = try Harness.serveLoudoun() else { return }
        defer { _ = server.stop() }
        for path in ["/ogc/collections/ParcelLines_1/items?f=json&limit=50", "/arcgis/rest/services/loudoun/FeatureServer/0/query?where=1%3D1&outFields=*&f=json",
                     "/editor.js", "/leaflet/leaflet.js"] {
            let plain = try server.request(path)
            let packed = try server.request(path, headers: ["Accept-Encoding": "gzip, deflate"])
            #expect(plain.status == 200 && packed.status == 200, "\(path)")
            #expect(plain.headers["content-encoding"] == nil, "\(path) not compressed unasked")
            #expect(packed.headers["content-encoding"] == "gzip", "\(path): \(packed.headers)")
            #expect(packed.headers["vary"]?.contains("Accept-Encoding") == true, "\(path): \(packed.headers)")
            #expect(packed.body.count * 2 < plain.body.count, "\(path): \(packed.body.count) of \(plain.body.count) bytes")
            // The same bytes, but for an OGC page's timeStamp (the second it was answered in),
            // which two requests on a busy machine may not share.
            #expect(Self.withoutTimeStamp(try gunzip(packed.body)) == Self.withoutTimeStamp(plain.text), "\(path)")
        }
        let refused = try server.request("/ogc/collections?f=json", headers: ["Accept-Encoding": "gzip;q=0, identity"])
        #expect(refused.headers["content-encoding"] == nil)
    }

    @Test("If-None-Match with the tag an answer gave is 304 while nothing changed, and 200 with a new tag after an edit")
    func conditionalGets() throws {
        guard let (_, server) = try Harness.serveLoudoun() else { return }
        defer { _ = server.stop() }
        let item = "/ogc/collections/Loudoun_Address_Points_1/items/831?f=json"
        let query = "/arcgis/rest/services/loudoun/FeatureServer/0/query?where=fid%3D831&outFields=*&f=json"
        var tags: [String: String] = [:]
        for path in [item, query, "/editor.js"] {
            let first = try server.request(path)
            let tag = try #require(first.headers["etag"], "\(path): \(first.headers)")
            tags[path] = tag
            let again = try server.request(path, headers: ["If-None-Match": tag, "Accept-Encoding": "gzip"])
            #expect(again.status == 304 && again.body.isEmpty, "\(path): \(again.status)")
            #expect(again.headers["etag"] == tag)
            #expect(try server.request(path, headers: ["If-None-Match": "\"other\", W/\(tag)"]).status == 304, "weak comparison, a list")
            #expect(try server.request(path, headers: ["If-None-Match": "\"other\""]).status == 200)
        }
        #expect(try server.request("/coordinates?x=11790000&y=7056000").headers["etag"] == nil, "a no-store answer gets no tag")
        let edit = try server.request("/arcgis/rest/services/loudoun/FeatureServer/0/applyEdits", method: "POST", form: [
            ("f", "json"), ("updates", #"[{"attributes": {"fid": 831, "AD_ADDRESS": 43112}}]"#)])
        #expect(edit.status == 200, "\(edit.text)")
        for path in [item, query] {
            let changed = try server.request(path, headers: ["If-None-Match": tags[path]!])
            #expect(changed.status == 200 && changed.text.contains("43112"), "\(path): \(changed.status)")
            #expect(changed.headers["etag"] != tags[path])
        }
        // A tag read gzipped still guards an OGC PATCH (strong comparison).
        let packed = try server.request(item, headers: ["Accept-Encoding": "gzip"])
        let patch = try server.request("/ogc/collections/Loudoun_Address_Points_1/items/831", method: "PATCH",
                                       headers: ["Content-Type": "application/merge-patch+json", "If-Match": try #require(packed.headers["etag"])],
                                       body: Data(#"{"properties": {"AD_ADDRESS": 43113}}"#.utf8))
        #expect(patch.status == 200 || patch.status == 204, "\(patch.text)")
    }
}
