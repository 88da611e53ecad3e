import AnnoLinkService
import Testing

/// Which `Host` names the server and which pages may edit (issue 25; docs/serve.md, "Who may
/// edit: the threat model").
@Suite struct SameOriginTests {
    let loopback = SameOrigin(listen: ListenAddress(host: "127.0.0.1", port: 8080))

    @Test("on loopback: the listen address, localhost and the loopback addresses, at the listen port", arguments: [
        "127.0.0.1:8080", "localhost:8080", "LOCALHOST:8080", "[::1]:8080", "127.0.0.2:8080",
    ])
    func loopbackNames(host: String) {
        #expect(loopback.refusal(ofHost: host) == nil)
    }

    @Test("other names, ports and malformed values are refused", arguments: [
        "attacker.example:8080", "attacker.example", "127.0.0.1", "127.0.0.1:80", "127.0.0.1:08080x", "a:b:c", "", "[::1", "exa mple:8080",
        "127.0.0.1:99999",
    ])
    func refusedNames(host: String) {
        #expect(loopback.refusal(ofHost: host) != nil, "\(host)")
    }

    @Test("on every address: any IP address and localhost, no name")
    func wildcard() {
        let all = SameOrigin(listen: ListenAddress(host: "0.0.0.0", port: 9000))
        #expect(all.refusal(ofHost: "192.0.2.7:9000") == nil)
        #expect(all.refusal(ofHost: "[2001:db8::1]:9000") == nil)
        #expect(all.refusal(ofHost: "localhost:9000") == nil)
        #expect(all.refusal(ofHost: "intranet.example:9000")?.contains("--public-url") == true)
        #expect(all.refusal(ofHost: "192.0.2.7:9001") != nil)
    }

    @Test("--public-url names the server, at its scheme's default port")
    func publicURL() throws {
        let proxied = SameOrigin(listen: ListenAddress(host: "127.0.0.1", port: 8080), publicURL: try SameOrigin.PublicURL(parsing: "https://Maps.Example.org/"))
        #expect(proxied.publicURL?.origin == "https://maps.example.org")
        #expect(proxied.refusal(ofHost: "maps.example.org") == nil)
        #expect(proxied.refusal(ofHost: "maps.example.org:443") == nil)
        #expect(proxied.refusal(ofHost: "maps.example.org:8443") != nil)
        #expect(proxied.refusal(ofHost: "127.0.0.1:8080") == nil, "the listen address still answers")
        #expect(proxied.crossSiteSource(headers: ["origin": "https://maps.example.org", "host": "maps.example.org"]) == nil)
        #expect(proxied.crossSiteSource(headers: ["origin": "http://maps.example.org", "host": "maps.example.org"]) == nil,
                "the same host and port under the other scheme is the server's own")
        #expect(try SameOrigin.PublicURL(parsing: "http://maps.example.org:8080").authority == "maps.example.org:8080")
        #expect(try SameOrigin.PublicURL(parsing: "http://maps.example.org:80").authority == "maps.example.org")
    }

    @Test("a public URL is a scheme, a host and a port, nothing else", arguments: [
        "maps.example.org", "ftp://maps.example.org", "https://maps.example.org/annolink", "https://user@maps.example.org",
        "https://maps.example.org?x=1", "https://", "https://maps.example.org:port",
    ])
    func malformedPublicURL(text: String) {
        #expect(throws: ServerError.self) { try SameOrigin.PublicURL(parsing: text) }
    }

    @Test("cross-site: another Origin, Origin null, or a Sec-Fetch-Site other than same-origin and none")
    func crossSite() {
        let own = ["host": "127.0.0.1:8080"]
        #expect(loopback.crossSiteSource(headers: own) == nil, "a client that sends neither")
        #expect(loopback.crossSiteSource(headers: own.merging(["origin": "http://127.0.0.1:8080"]) { $1 }) == nil)
        #expect(loopback.crossSiteSource(headers: ["host": "localhost:8080", "origin": "http://localhost:8080"]) == nil)
        #expect(loopback.crossSiteSource(headers: own.merging(["origin": "http://127.0.0.1:8081"]) { $1 }) == "http://127.0.0.1:8081")
        #expect(loopback.crossSiteSource(headers: own.merging(["origin": "http://evil.example"]) { $1 }) == "http://evil.example")
        #expect(loopback.crossSiteSource(headers: own.merging(["origin": "null"]) { $1 }) == "null")
        #expect(loopback.crossSiteSource(headers: ["host": "localhost:8080", "origin": "http://127.0.0.1:8080"]) == "http://127.0.0.1:8080",
                "an origin is the page's own only under the name the request used")
        #expect(loopback.crossSiteSource(headers: own.merging(["sec-fetch-site": "cross-site"]) { $1 }) == "a cross-site page")
        #expect(loopback.crossSiteSource(headers: own.merging(["sec-fetch-site": "same-site"]) { $1 }) == "a same-site page")
        #expect(loopback.crossSiteSource(headers: own.merging(["sec-fetch-site": "same-origin"]) { $1 }) == nil)
        #expect(loopback.crossSiteSource(headers: own.merging(["sec-fetch-site": "none"]) { $1 }) == nil)
    }

    @Test("--cors: a named origin is the server's own for edits; * lets every origin read only")
    func cors() throws {
        let named = SameOrigin(listen: ListenAddress(host: "127.0.0.1", port: 8080),
                               cors: try SameOrigin.CORS(parsing: "https://App.example.org, http://127.0.0.1:3000"))
        let own = ["host": "127.0.0.1:8080"]
        #expect(named.corsAllows(origin: "https://app.example.org"))
        #expect(named.corsAllows(origin: "https://app.example.org:443"))
        #expect(named.corsAllows(origin: "http://127.0.0.1:3000"))
        #expect(!named.corsAllows(origin: "http://127.0.0.1:3001"))
        #expect(named.crossSiteSource(headers: own.merging(["origin": "https://app.example.org"]) { $1 }) == nil)
        #expect(named.crossSiteSource(headers: own.merging(["origin": "https://evil.example"]) { $1 }) == "https://evil.example")
        let any = SameOrigin(listen: ListenAddress(host: "127.0.0.1", port: 8080), cors: try SameOrigin.CORS(parsing: "*"))
        #expect(any.corsAllows(origin: "https://anywhere.example"))
        #expect(any.crossSiteSource(headers: own.merging(["origin": "https://anywhere.example"]) { $1 }) == "https://anywhere.example",
                "every origin may read, but an edit from one still needs a token")
        #expect(!SameOrigin(listen: ListenAddress(host: "127.0.0.1", port: 8080)).corsAllows(origin: "https://app.example.org"))
        for text in ["", "app.example.org", "https://app.example.org/", "https://app.example.org/path", "ftp://x"] {
            #expect(throws: ServerError.self, "\(text)") { try SameOrigin.CORS(parsing: text) }
        }
    }
}
