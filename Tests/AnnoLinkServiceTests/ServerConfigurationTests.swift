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
}
