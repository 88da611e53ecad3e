import AnnoLinkService
import Testing

@Suite struct ServerConfigurationTests {
    @Test(arguments: [
        ("127.0.0.1:8080", "127.0.0.1", 8080, true),
        ("localhost:0", "127.0.0.1", 0, true),
        ("0.0.0.0:80", "0.0.0.0", 80, false),
        ("[::1]:8443", "::1", 8443, true),
        ("[::]:8080", "::", 8080, false),
        ("192.168.1.20:65535", "192.168.1.20", 65535, false),
    ])
    func listenAddresses(text: String, host: String, port: Int, loopback: Bool) throws {
        let address = try ListenAddress(parsing: text)
        #expect(address.host == host)
        #expect(Int(address.port) == port)
        #expect(address.isLoopback == loopback)
        #expect(address.description == (host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"))
    }

    @Test(arguments: ["8080", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:-1", "example.com:80", "::1:8080", "[::1]8080",
                      "[::1:8080", "127.0.0.1:８０"])
    func badListenAddresses(text: String) {
        #expect(throws: ServerError.invalidListenAddress(text)) { try ListenAddress(parsing: text) }
    }

    @Test func tokenFile() throws {
        let table = try TokenTable(parsing: """
            # token  user  right

            abc alice edit
            \tdef\tbob\tread\t
            """, path: "t")
        #expect(table.count == 2)
        #expect(table.grant(for: "abc") == TokenTable.Grant(user: "alice", mayEdit: true))
        #expect(table.grant(for: "def") == TokenTable.Grant(user: "bob", mayEdit: false))
        #expect(table.grant(for: "ab") == nil)
        #expect(table.grant(for: "ABC") == nil, "tokens are compared exactly")
    }

    @Test(arguments: [
        ("abc alice\n", 1, "expected 'TOKEN USER read|edit', found 2 fields"),
        ("# c\nabc alice admin\n", 2, "the right must be 'read' or 'edit', not 'admin'"),
        ("abc alice edit\nabc bob read\n", 2, "this token is given on an earlier line too"),
        ("abc alice edit extra\n", 1, "expected 'TOKEN USER read|edit', found 4 fields"),
    ])
    func badTokenFiles(text: String, line: Int, reason: String) {
        #expect(throws: ServerError.invalidTokenFile(path: "t", line: line, reason: reason)) { try TokenTable(parsing: text, path: "t") }
    }

    @Test(arguments: [("/gis", "/gis"), ("/gis/annolink/", "/gis/annolink"), ("/", ""), ("/a-b_c.d~e/f:1@x", "/a-b_c.d~e/f:1@x")])
    func pathPrefixes(text: String, path: String) throws {
        #expect(try PathPrefix(parsing: text, option: "--base-path").path == path)
    }

    @Test(arguments: [
        ("gis", "it must start with '/'"), ("", "it must start with '/'"), ("/gis/../etc", "it contains a '.' or '..' segment"),
        ("/gis/./x", "it contains a '.' or '..' segment"), ("//evil.example", "it contains '//'"), ("/gis//x", "it contains '//'"),
    ])
    func badPathPrefixes(text: String, reason: String) {
        #expect(throws: ServerError.invalidPathPrefix(text, option: "--base-path", reason: reason)) { try PathPrefix(parsing: text, option: "--base-path") }
    }

    @Test(arguments: ["/gis?x=1", "/gis#top", "/gis\u{01}", "/gis\u{7F}", "/gis x", "/gis%2F", "/gis\"", "/gis<", "/gis\\x", "/gïs", "/gis\n"])
    func pathPrefixesRefuseQueryFragmentAndControlCharacters(text: String) {
        #expect(throws: ServerError.self) { try PathPrefix(parsing: text, option: "--base-path") }
    }

    @Test func routePathsUnderAPrefix() throws {
        let prefix = try PathPrefix(parsing: "/gis", option: "--base-path")
        #expect(prefix.routePath(of: "/gis/ogc/collections") == "/ogc/collections")
        #expect(prefix.routePath(of: "/gis") == "/")
        #expect(prefix.routePath(of: "/gis/") == "/")
        #expect(prefix.routePath(of: "/gisx/ogc") == nil)
        #expect(prefix.routePath(of: "/ogc") == nil)
        #expect(PathPrefix.root.routePath(of: "/ogc") == "/ogc")
        #expect(prefix.appending(try PathPrefix(parsing: "/annolink", option: "--base-path")).path == "/gis/annolink")
    }
}
