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
            let weak = tag.hasPrefix("W/") ? tag : "W/" + tag
            #expect(try server.request(path, headers: ["If-None-Match": "\"other\", \(weak)"]).status == 304, "weak comparison, a list")
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

    @Test("items and query answers are tagged from their table's last change: 304 unread while it holds, a new tag after an edit, an undo or another program's commit")
    func tableTags() throws {
        guard Harness.hasGDAL, let (path, server) = try Harness.serveLoudoun() else { return }
        defer { _ = server.stop() }
        let items = "/ogc/collections/ParcelLines_1/items?limit=200"
        let query = "/arcgis/rest/services/loudoun/FeatureServer/5/query?where=1%3D1&outFields=*&f=json"
        let layer = try #require(try server.request("/arcgis/rest/services/loudoun/FeatureServer/5?f=json").object)
        #expect(layer["name"] as? String == "ParcelLines_1", "layer 5 is the parcel lines: \(layer["name"] ?? "none")")
        func tags() throws -> [String: String] {
            try [items, query].reduce(into: [:]) { tags, path in
                let answer = try server.request(path, headers: ["Accept-Encoding": "gzip"])
                #expect(answer.status == 200, "\(path)")
                tags[path] = try #require(answer.headers["etag"], "\(path)")
            }
        }
        func statuses(_ tags: [String: String]) throws -> [Int] {
            try [items, query].map { try server.request($0, headers: ["If-None-Match": tags[$0]!]).status }
        }
        let first = try tags()
        #expect(first.values.allSatisfy { $0.hasPrefix("W/\"t") }, "weak tags of the table's stamp: \(first)")
        #expect(try statuses(first) == [304, 304])
        // A page read again in another second has another timeStamp and the same tag.
        #expect(try tags() == first)

        // An edit of another table leaves these tags be.
        let other = try server.request("/arcgis/rest/services/loudoun/FeatureServer/0/applyEdits", method: "POST", form: [
            ("f", "json"), ("updates", #"[{"attributes": {"fid": 831, "AD_ADDRESS": 43112}}]"#)])
        #expect(other.status == 200 && other.text.contains("\"success\":true"), "\(other.text)")
        #expect(try statuses(first) == [304, 304], "the parcel lines did not change")

        // An edit of the parcel lines: 200 with new tags.
        let fid = try #require(Int(try Harness.sqlite(path, "SELECT min(fid) FROM ParcelLines_1")))
        let edit = try server.request("/ogc/collections/ParcelLines_1/items/\(fid)", method: "PATCH",
                                      headers: ["Content-Type": "application/merge-patch+json"], body: Data(#"{"LEFT_FID": 4242}"#.utf8))
        #expect(edit.status == 204, "\(edit.text)")
        #expect(try statuses(first) == [200, 200])
        let edited = try tags()
        #expect(Set(edited.values).isDisjoint(with: first.values))
        #expect(try server.request(items).text.contains(#""LEFT_FID":4242"#))

        // Its undo: the edited tags no longer hold; the rows, last_change included, are back to
        // what they were, and so are the tags.
        #expect(try server.request("/journal/undo", method: "POST").status == 200)
        #expect(try statuses(edited) == [200, 200])
        #expect(try tags() == first)
        #expect(!(try server.request(items).text.contains(#""LEFT_FID":4242"#)))

        // Another program's commit, which the journal does not see: every tag changes.
        let before = try tags()
        // Through GDAL, which has the functions the GeoPackage's R-tree triggers call.
        let foreign = try Harness.run("/usr/bin/ogrinfo", [path, "-q", "-sql", "UPDATE ParcelLines_1 SET RIGHT_FID = 777 WHERE fid = \(fid)"])
        #expect(foreign.status == 0, "\(foreign.stderr)")
        #expect(try statuses(before) == [200, 200])
        #expect(try server.request(items).text.contains(#""RIGHT_FID":777"#))
    }

    @Test("the page's assets, Leaflet and the fonts carry a tag of their content and are answered 304 while it is the same")
    func staticTags() throws {
        guard let (_, server) = try Harness.serveLoudoun() else { return }
        defer { _ = server.stop() }
        for path in ["/editor.js", "/editor.css", "/editor-sketch.js", "/leaflet/leaflet.js", "/leaflet/leaflet.css", "/leaflet/images/layers.png",
                     "/fonts/tahoma.ttf", "/fonts/tahomabd.ttf"] {
            let first = try server.request(path)
            #expect(first.status == 200, "\(path)")
            let tag = try #require(first.headers["etag"], "\(path)")
            #expect(try server.request(path).headers["etag"] == tag, "\(path): the same tag every time")
            let again = try server.request(path, headers: ["If-None-Match": tag])
            #expect(again.status == 304 && again.body.isEmpty, "\(path): \(again.status)")
        }
    }

    /// Every URL the page loads from `annolink serve`, found in the page itself: its `src=` and
    /// `href=` (but `data:` and the `<base href>` they are relative to), and the `url(…)`s of its
    /// styles, relative to each style's folder; as paths from the root.
    func editorAssets(of server: ServeProcess) throws -> [String] {
        func references(_ text: String, _ pattern: String) throws -> [String] {
            let expression = try NSRegularExpression(pattern: pattern)
            return expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
                Range($0.range(at: 1), in: text).map { String(text[$0]) }
            }
        }
        let page = try server.request("/")
        #expect(page.status == 200)
        var paths = try references(page.text, #"(?<!<base )(?:src|href)="([^":]+)""#).map { "/" + $0 }
        for style in paths where style.hasSuffix(".css") {
            let folder = String(style[...style.lastIndex(of: "/")!])
            paths += try references(try server.request(style).text, ##"url\("?([^"#:)]+)"?\)"##).map { folder + $0 }
        }
        return ["/", "/index.html"] + paths
    }

    @Test("the page and every script, style and font it loads is tagged with its content and answered 304 on a repeat with the tag, gzipped or not")
    func editorAssetTags() throws {
        guard let (_, server) = try Harness.serveLoudoun() else { return }
        defer { _ = server.stop() }
        let paths = try editorAssets(of: server)
        // The core, every module, Leaflet and the fonts of the style, all found from the page.
        let expected = [
            "/", "/editor.js", "/editor.css", "/editor-geoview.js", "/editor-sketch.js", "/editor-live.js", "/editor-layers.js", "/editor-labels.js",
            "/leaflet/leaflet.js", "/leaflet/leaflet.css", "/leaflet/images/layers.png", "/fonts/tahoma.ttf", "/fonts/tahomabd.ttf",
        ]
        #expect(Set(expected).isSubset(of: paths), "\(paths)")
        for path in paths {
            let first = try server.request(path)
            #expect(first.status == 200, "\(path)")
            let tag = try #require(first.headers["etag"], "\(path)")
            #expect(first.headers["cache-control"] == "no-cache", "\(path): a browser asks again each time")
            for headers in [["If-None-Match": tag], ["If-None-Match": tag, "Accept-Encoding": "gzip"], ["If-None-Match": "\"other\", " + tag]] {
                let again = try server.request(path, headers: headers)
                #expect(again.status == 304 && again.body.isEmpty, "\(path) \(headers): \(again.status)")
                #expect(again.headers["etag"] == tag, "\(path)")
            }
            #expect(try server.request(path, headers: ["If-None-Match": "\"other\""]).status == 200, "\(path): another tag gets the file")
        }
    }
}
