import AnnoLinkTestSupport
import Foundation
import Testing

/// `annolink serve` under a path of a reverse proxy (issue 26 item 4; docs/serve.md, "Behind a
/// reverse proxy"): a small proxy on Python's `http.server` forwards to a real server, keeping
/// the path (`--base-path /gis`) or taking `/gis` off and saying so in `X-Forwarded-Prefix`
/// (`--trust-forwarded-prefix`); GDAL's OAPIF driver and the map page's own URLs must reach
/// everything through the proxy.
@Suite("behind a reverse proxy, end to end", .serialized)
struct ServeProxyTests {
    /// The proxy: forwards every request to the port written in `upstream` (read per request,
    /// so that it can start before the server), with the client's `Host` and
    /// `X-Forwarded-For`, `-Proto` and `-Host` as nginx's usual configuration sets them;
    /// `X-Forwarded-Prefix` from the client is dropped, and set when it takes the prefix off.
    static let proxyScript = #"""
        import http.client, http.server, sys
        mode, prefix, upstream = sys.argv[1:4]
        hop = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te", "trailer", "content-length"}
        class Proxy(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def forward(self):
                path = self.path
                if not (path == prefix or path.startswith(prefix + "/") or path.startswith(prefix + "?")):
                    self.send_error(404, "not under " + prefix)
                    return
                headers = {k: v for k, v in self.headers.items() if k.lower() not in hop and not k.lower().startswith("x-forwarded-")}
                if mode == "strip":
                    path = path[len(prefix):]
                    path = "/" + path if not path.startswith("/") else path
                    headers["X-Forwarded-Prefix"] = prefix
                headers["X-Forwarded-For"] = self.client_address[0]
                headers["X-Forwarded-Proto"] = "http"
                headers["X-Forwarded-Host"] = self.headers.get("Host", "")
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                connection = http.client.HTTPConnection("127.0.0.1", int(open(upstream).read()), timeout=60)
                connection.request(self.command, path, body=body, headers=headers)
                answer = connection.getresponse()
                data = answer.read()
                self.send_response(answer.status)
                for name, value in answer.getheaders():
                    if name.lower() not in hop:
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)
            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = forward
            def log_message(self, *arguments):
                pass
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """#

    /// The proxy process; its port, read from what it prints once it listens.
    final class Proxy {
        let process = Process()
        let folder: ScratchDirectory
        let port: Int
        var upstream: String { folder.path("upstream") }
        var url: String { "http://127.0.0.1:\(port)" }

        init(mode: String, prefix: String) throws {
            folder = try ScratchDirectory(prefix: "proxy")
            let out = folder.path("stdout")
            _ = FileManager.default.createFile(atPath: out, contents: nil)
            // Through env, as ServeProcess: the test runner ignores SIGTERM, and so would its child.
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["--default-signal=INT,TERM,HUP", "/usr/bin/python3", "-c", ServeProxyTests.proxyScript, mode, prefix, folder.path("upstream")]
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
            process.standardError = FileHandle.nullDevice
            try process.run()
            var port: Int?
            while port == nil, process.isRunning {
                port = Int(((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines))
                if port == nil { usleep(20_000) }
            }
            guard let port else { throw ServeProcessError.didNotStart(stderr: "the proxy exited") }
            self.port = port
        }

        /// Points the proxy at `server`.
        func forward(to server: ServeProcess) throws {
            try String(server.port).write(toFile: upstream, atomically: true, encoding: .utf8)
        }

        func request(_ path: String, headers: [String: String] = [:]) throws -> HTTPReply {
            try HTTPClient.request(url + path, headers: headers)
        }

        deinit {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
    }

    /// The Loudoun import served behind a new proxy in `mode` (`keep` or `strip` the prefix `/gis`).
    func serve(mode: String, arguments: [String]) throws -> (path: String, proxy: Proxy, server: ServeProcess)? {
        let proxy = try Proxy(mode: mode, prefix: "/gis")
        guard let (path, server) = try Harness.serveLoudoun(["--public-url", proxy.url] + arguments) else { return nil }
        try proxy.forward(to: server)
        return (path, proxy, server)
    }

    /// The feature count of every feature table of `path`, by name.
    func counts(_ path: String) throws -> [String: Int] {
        let names = try Harness.sqlite(path, "SELECT table_name FROM gpkg_contents WHERE data_type = 'features' ORDER BY rowid").split(separator: "\n")
        return try names.reduce(into: [:]) { $0[String($1)] = Int(try Harness.sqlite(path, "SELECT count(*) FROM \"\($1)\"")) }
    }

    /// GDAL's OAPIF driver lists every collection at `root` and reads each one's features;
    /// their counts must be the file's.
    func gdalReadsEverything(at root: String, file path: String) throws {
        let listing = try Harness.run("/usr/bin/ogrinfo", ["-ro", "-q", "OAPIF:\(root)"])
        #expect(listing.status == 0, "\(listing.stderr)")
        for (name, count) in try counts(path) {
            #expect(listing.stdout.contains(name), "\(name) not listed: \(listing.stdout)")
            let features = try OGCServeTests().geoJSON("OAPIF:\(root)", layer: name)
            #expect(features.count == count, "\(name): \(features.count) read through the proxy, \(count) in the file")
        }
    }

    /// The page at `pageURL` and every file it names — scripts, styles, the fonts and images
    /// the style names — and the service, health and journal its script asks for, resolved as a
    /// browser resolves them (against `<base href>`, a style's URLs against the style), each
    /// answered 200 through the proxy. Returns the URLs fetched.
    @discardableResult
    func pageLoads(_ pageURL: String) throws -> [String] {
        let page = try HTTPClient.request(pageURL)
        #expect(page.status == 200, "\(pageURL): \(page.status)")
        let html = page.text
        let baseHref = try #require(Self.matches(#"<base href="([^"]*)">"#, in: html).first)
        let base = try #require(URL(string: baseHref, relativeTo: URL(string: pageURL)))
        var fetched: [String] = []
        func fetch(_ reference: String, relativeTo: URL) throws -> HTTPReply {
            let url = try #require(URL(string: reference.replacingOccurrences(of: "&amp;", with: "&"), relativeTo: relativeTo)).absoluteString
            let answer = try HTTPClient.request(url)
            #expect(answer.status == 200, "\(url): \(answer.status) \(answer.text.prefix(200))")
            fetched.append(url)
            return answer
        }
        let assets = Self.matches(#"(?:src|href)="([^"]+)""#, in: html).filter { !$0.hasPrefix("data:") && $0 != baseHref }
        #expect(assets.count >= 4, "\(assets)")
        for asset in assets {
            let answer = try fetch(asset, relativeTo: base)
            if asset.hasSuffix(".css") {
                let styleURL = try #require(URL(string: asset, relativeTo: base))
                for reference in Self.matches(#"url\("?([^")]+)"?\)"#, in: answer.text) where !reference.hasPrefix("data:") {
                    _ = try fetch(reference, relativeTo: styleURL)
                }
            }
        }
        let service = try #require(Self.matches(#"data-service="([^"]+)""#, in: html).first)
        let info = try fetch(service + "?f=json", relativeTo: base)
        // The tables' layers, the annotation classes' sublayers (which have a parent) aside.
        let tables = (info.object?["layers"] as? [[String: Any]])?.filter { ($0["parentLayerId"] as? Int ?? -1) < 0 }
        #expect(tables?.count == 8, "\(info.text.prefix(300))")
        for path in ["health", "journal"] { _ = try fetch(path, relativeTo: base) }
        return fetched
    }

    static func matches(_ pattern: String, in text: String) -> [String] {
        let expression = try! NSRegularExpression(pattern: pattern)
        return expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    @Test("--base-path /gis behind a proxy that keeps the path: GDAL reads every collection, the page and everything it names load")
    func basePathBehindAProxy() throws {
        guard Harness.hasGDAL, let (path, proxy, server) = try serve(mode: "keep", arguments: ["--base-path", "/gis"]) else { return }
        defer { _ = server.stop() }
        try gdalReadsEverything(at: proxy.url + "/gis/ogc", file: path)
        let fetched = try pageLoads(proxy.url + "/gis/")
        #expect(fetched.contains { $0.hasSuffix("/gis/fonts/tahoma.ttf") } && fetched.contains { $0.hasSuffix("/gis/leaflet/leaflet.js") }, "\(fetched)")
        // Without the trailing slash too: <base href> names /gis/.
        try pageLoads(proxy.url + "/gis")
        // Every link names the proxy and the prefix.
        let collections = try #require(try proxy.request("/gis/ogc/collections").object)
        let links = ((collections["collections"] as? [[String: Any]]) ?? []).flatMap { ($0["links"] as? [[String: Any]]) ?? [] }
        let hrefs = links.compactMap { $0["href"] as? String }
        #expect(!hrefs.isEmpty && hrefs.allSatisfy { $0.hasPrefix(proxy.url + "/gis/ogc/collections/") }, "\(hrefs.prefix(3))")
        let api = try #require(try proxy.request("/gis/ogc/api").object)
        #expect((api["servers"] as? [[String: Any]])?.first?["url"] as? String == proxy.url + "/gis/ogc")
        // The server answers under /gis only.
        #expect(try server.request("/ogc").status == 404)
        #expect(try server.request("/health").status == 404)
        #expect(try server.request("/gis/health").status == 200)
    }

    @Test("a proxy that takes /gis off and says so in X-Forwarded-Prefix, trusted: links, the page and GDAL go through the proxy")
    func forwardedPrefixTrusted() throws {
        guard Harness.hasGDAL, let (path, proxy, server) = try serve(mode: "strip", arguments: ["--trust-forwarded-prefix"]) else { return }
        defer { _ = server.stop() }
        try gdalReadsEverything(at: proxy.url + "/gis/ogc", file: path)
        try pageLoads(proxy.url + "/gis/")
        let page = try proxy.request("/gis/ogc/collections/ParcelLines_1/items?limit=10")
        let next = try #require(((page.object?["links"] as? [[String: Any]]) ?? []).first { $0["rel"] as? String == "next" }?["href"] as? String)
        #expect(next.hasPrefix(proxy.url + "/gis/ogc/collections/ParcelLines_1/items?"), "\(next)")
        // A sketch session's Location names the prefix too.
        let created = try HTTPClient.request(proxy.url + "/gis/sketch/sessions", method: "POST", headers: ["Content-Type": "application/json"],
                                             body: Data(#"{"table": "ParcelLines_1"}"#.utf8))
        #expect(created.status == 201, "\(created.text)")
        #expect(created.headers["location"]?.hasPrefix("/gis/sketch/sessions/") == true, "\(created.headers)")
    }

    @Test("X-Forwarded-Prefix is ignored unless trusted, and a bad one is refused when trusted")
    func forwardedPrefixTrust() throws {
        guard let (_, server) = try Harness.serveLoudoun() else { return }
        defer { _ = server.stop() }
        let landing = try #require(try server.request("/ogc", headers: ["X-Forwarded-Prefix": "/evil"]).object)
        let selfLink = ((landing["links"] as? [[String: Any]]) ?? []).first { $0["rel"] as? String == "self" }?["href"] as? String
        #expect(selfLink == server.url + "/ogc", "a client cannot choose the links: \(selfLink ?? "none")")
        #expect(!(try server.request("/", headers: ["X-Forwarded-Prefix": "/evil"]).text.contains("/evil")))

        guard let (_, trusting) = try Harness.serveLoudoun(["--trust-forwarded-prefix"]) else { return }
        defer { _ = trusting.stop() }
        for bad in ["evil", "//evil.example", "/a/../b", "/a?b", "/a#b"] {
            let refused = try trusting.request("/ogc", headers: ["X-Forwarded-Prefix": bad])
            #expect(refused.status == 400, "\(bad): \(refused.status)")
            #expect(refused.text.contains("X-Forwarded-Prefix"), "\(refused.text)")
        }
        let page = try trusting.request("/", headers: ["X-Forwarded-Prefix": "/maps/"])
        #expect(page.text.contains(#"<base href="/maps/">"#))
    }

    @Test("a --base-path that is not a plain path is refused at startup with exit 64 and says why", arguments: [
        ("gis", "must start with '/'"), ("/gis/../x", "'..'"), ("/gis?x", "'?' is not allowed"), ("/gis#x", "'#' is not allowed"),
        ("//gis", "'//'"), ("/gis\u{01}", "U+0001 is not allowed"),
    ])
    func badBasePaths(value: String, reason: String) throws {
        guard let path = try Harness.importLoudoun() else { return }
        let result = try Harness.annolink(["serve", path, "--listen", "127.0.0.1:0", "--base-path", value])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("is not a path for --base-path") && result.stderr.contains(reason), "\(result.stderr)")
    }
}
