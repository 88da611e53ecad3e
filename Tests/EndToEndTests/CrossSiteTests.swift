import AnnoLinkTestSupport
import Foundation
import Testing

/// Requests from pages of another origin and requests naming another host (issue 25, "No edit
/// without leave"; docs/serve.md, "Who may edit: the threat model"), against a real
/// `annolink serve` on the Loudoun import without `--tokens`, the default.
@Suite("cross-site requests and forged Host names, end to end", .serialized)
struct CrossSiteTests {
    static let applyEdits = "/arcgis/rest/services/loudoun/FeatureServer/0/applyEdits"

    /// A page on another origin (another port of 127.0.0.1, served by Python's http.server)
    /// auto-submits three forms in Chromium, as the probe did: an attribute edit of fid 831, the
    /// delete of 834, an empty POST to /journal/undo. Arguments: the server's URL.
    static let attack = Browser.script("cross_site_attack.py")

    @Test("a cross-origin form POST in Chromium changes nothing on a server without tokens")
    func crossOriginFormsInChromium() throws {
        guard let (path, server) = try Harness.serveLoudoun() else { return }
        defer { _ = server.stop() }
        // An edit of the server's own, so that there is something an undo would take back.
        let own = try server.request(Self.applyEdits, method: "POST", form: [
            ("f", "json"), ("updates", #"[{"attributes": {"fid": 831, "AD_ADDRESS": 43111}}]"#)])
        #expect(((own.object?["updateResults"] as? [[String: Any]])?.first?["success"] as? Bool) == true, "\(own.text)")
        let before = try Harness.dump(path, excluding: [])

        let result = try Harness.run(try Harness.venvTool("python"), [Self.attack, server.url])
        try #require(result.status == 0, "\(result.stderr)")
        // The browser sent all three, and the server refused them.
        let deadline = Date().addingTimeInterval(60)
        func posts() -> [String] { server.stderr.split(separator: "\n").map(String.init).filter { $0.contains(" POST ") } }
        while posts().count < 4, Date() < deadline { usleep(50_000) }
        let lines = posts()
        #expect(lines.count == 4, "the server saw the three forms: \(lines)")
        #expect(lines.contains { $0.contains("POST /journal/undo 403") }, "the browser sends the forms in any order: \(lines)")
        #expect(try Harness.dump(path, excluding: []) == before, "the file is as it was")
        #expect(try Harness.sqlite(path, "SELECT AD_ADDRESS FROM Loudoun_Address_Points_1 WHERE fid = 831") != "99999")
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM Loudoun_Address_Points_1 WHERE fid = 834") == "1")
    }

    @Test("every interface refuses an edit from another origin and says why; reads are answered")
    func everyInterfaceRefuses() throws {
        guard let (path, server) = try Harness.serveLoudoun() else { return }
        defer { _ = server.stop() }
        let before = try Harness.dump(path, excluding: [])
        let foreign = ["Origin": "http://evil.example"]

        let update = try server.request(Self.applyEdits, method: "POST", headers: foreign, form: [
            ("f", "json"), ("updates", #"[{"attributes": {"fid": 831, "AD_ADDRESS": 99999}}]"#)])
        let error = update.object?["error"] as? [String: Any]
        #expect(error?["code"] as? Int == 403, "\(update.text)")
        #expect(((error?["details"] as? [String])?.first ?? "").contains("http://evil.example"), "\(update.text)")

        let patch = try server.request("/ogc/collections/Loudoun_Address_Points_1/items/831", method: "PATCH",
                                       headers: foreign.merging(["Content-Type": "application/merge-patch+json"]) { $1 },
                                       body: Data(#"{"properties": {"AD_ADDRESS": 99999}}"#.utf8))
        #expect(patch.status == 403, "\(patch.text)")
        let undo = try server.request("/journal/undo", method: "POST", headers: ["Sec-Fetch-Site": "cross-site"])
        #expect(undo.status == 403, "\(undo.text)")
        #expect(undo.text.contains("a cross-site page"), "\(undo.text)")
        let sketch = try server.request("/sketch/sessions", method: "POST", headers: ["Origin": "null", "Content-Type": "application/json"],
                                        body: Data(#"{"table": "ParcelLines_1"}"#.utf8))
        #expect(sketch.status == 403, "\(sketch.text)")
        #expect(try Harness.dump(path, excluding: []) == before)

        // Reading from another origin is answered (the browser keeps it from the page: no CORS).
        #expect(try server.request("/ogc/collections/Loudoun_Address_Points_1/items/831", headers: foreign).status == 200)
        let health = try server.request("/health", headers: foreign)
        #expect((health.object?["caller"] as? [String: Any])?["crossSite"] as? String == "http://evil.example")
        // The server's own page, and a client that sends no Origin, may edit.
        let same = try server.request(Self.applyEdits, method: "POST", headers: ["Origin": server.url, "Sec-Fetch-Site": "same-origin"], form: [
            ("f", "json"), ("updates", #"[{"attributes": {"fid": 831, "AD_ADDRESS": 21001}}]"#)])
        #expect(((same.object?["updateResults"] as? [[String: Any]])?.first?["success"] as? Bool) == true, "\(same.text)")
        #expect(try Harness.sqlite(path, "SELECT AD_ADDRESS FROM Loudoun_Address_Points_1 WHERE fid = 831") == "21001")
    }

    @Test("a token holder may edit from another origin; a page without the token may not")
    func tokensGiveLeave() throws {
        let scratch = try ScratchDirectory(prefix: "tokens")
        let tokens = scratch.path("tokens.txt")
        try "t-alice alice edit\n".write(toFile: tokens, atomically: true, encoding: .utf8)
        guard let (path, server) = try Harness.serveLoudoun(["--tokens", tokens]) else { return }
        defer { _ = server.stop() }
        let foreign = ["Origin": "http://app.example"]
        let without = try server.request("/journal/undo", method: "POST", headers: foreign)
        #expect(without.status == 403, "\(without.text)")
        let with = try server.request(Self.applyEdits, method: "POST", headers: foreign.merging(["Authorization": "Bearer t-alice"]) { $1 }, form: [
            ("f", "json"), ("updates", #"[{"attributes": {"fid": 831, "AD_ADDRESS": 21002}}]"#)])
        #expect(((with.object?["updateResults"] as? [[String: Any]])?.first?["success"] as? Bool) == true, "\(with.text)")
        #expect(try Harness.sqlite(path, "SELECT AD_ADDRESS FROM Loudoun_Address_Points_1 WHERE fid = 831") == "21002")
    }

    @Test("a Host that does not name the server is refused, so DNS rebinding reads nothing; --public-url names it")
    func hostNamesTheServer() throws {
        guard let (_, server) = try Harness.serveLoudoun() else { return }
        let rebound = try server.request("/ogc", headers: ["Host": "attacker.example:\(server.port)"])
        #expect(rebound.status == 400, "\(rebound.text)")
        #expect(!rebound.text.contains("attacker.example:\(server.port)/ogc"), "no link echoes the forged host")
        #expect(try server.request("/ogc/collections", headers: ["Host": "attacker.example"]).status == 400)
        #expect(try server.request("/ogc", headers: ["Host": "localhost:\(server.port)"]).status == 200)
        let raw = try HTTPClient.raw(port: server.port, Array("GET /health HTTP/1.1\r\nConnection: close\r\n\r\n".utf8))
        #expect(raw.hasPrefix("HTTP/1.1 400") && raw.contains("needs a Host header"), "\(raw)")
        _ = server.stop()

        guard let (path, proxied) = try Harness.serveLoudoun(["--public-url", "https://maps.example.org"]) else { return }
        defer { _ = proxied.stop() }
        let landing = try proxied.request("/ogc?f=json", headers: ["Host": "maps.example.org"])
        #expect(landing.status == 200, "\(landing.text)")
        let links = (landing.object?["links"] as? [[String: Any]] ?? []).compactMap { $0["href"] as? String }
        #expect(!links.isEmpty && links.allSatisfy { $0.hasPrefix("https://maps.example.org/ogc") }, "\(links)")
        let edit = try proxied.request(Self.applyEdits, method: "POST", headers: ["Host": "maps.example.org", "Origin": "https://maps.example.org"], form: [
            ("f", "json"), ("updates", #"[{"attributes": {"fid": 831, "AD_ADDRESS": 21003}}]"#)])
        #expect(((edit.object?["updateResults"] as? [[String: Any]])?.first?["success"] as? Bool) == true, "\(edit.text)")
        #expect(try Harness.sqlite(path, "SELECT AD_ADDRESS FROM Loudoun_Address_Points_1 WHERE fid = 831") == "21003")
        let usage = try Harness.annolink("serve", path, "--public-url", "https://maps.example.org/annolink/")
        #expect(usage.status == 64 && usage.stderrLines.first?.hasPrefix("error:") == true && usage.stderr.contains("a path"), "\(usage.stderr)")
    }

    /// A page of another origin reads and edits (with a token) through `--cors`, in Chromium;
    /// from a server without `--cors` the browser gives it nothing. Arguments: the URL of the
    /// server with `--cors`, the URL of the one without.
    static let webApp = Browser.script("cross_site_web_app.py")

    @Test("--cors lets a web app elsewhere read and edit with a token in Chromium; without it the browser gives the page nothing")
    func webAppThroughCORS() throws {
        let scratch = try ScratchDirectory(prefix: "tokens")
        let tokens = scratch.path("tokens.txt")
        try "t-alice alice edit\n".write(toFile: tokens, atomically: true, encoding: .utf8)
        guard let (path, open) = try Harness.serveLoudoun(["--tokens", tokens, "--cors", "*"]),
              let (otherPath, closed) = try Harness.serveLoudoun(["--tokens", tokens]) else { return }
        defer { _ = open.stop(); _ = closed.stop() }
        let result = try Harness.run(try Harness.venvTool("python"), [Self.webApp, open.url, closed.url])
        try #require(result.status == 0, "\(result.stderr)")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: [String: Any]])
        let allowed = try #require(seen["allowed"]), refused = try #require(seen["refused"])
        #expect(allowed["read"] as? Int == 200 && (allowed["collections"] as? Int ?? 0) > 0, "\(allowed)")
        let update = ((allowed["edit"] as? [String: Any])?["updateResults"] as? [[String: Any]])?.first
        #expect(update?["success"] as? Bool == true, "\(allowed)")
        #expect(allowed["anonymousUndo"] as? Int == 403, "an edit from elsewhere without the token is still refused: \(allowed)")
        #expect(try Harness.sqlite(path, "SELECT AD_ADDRESS FROM Loudoun_Address_Points_1 WHERE fid = 831") == "21004")
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM annolink_journal") == "1")
        for key in ["read", "edit", "anonymousUndo"] {
            #expect((refused[key] as? String)?.contains("Failed to fetch") == true, "\(key): \(refused)")
        }
        #expect(try Harness.sqlite(otherPath, "SELECT AD_ADDRESS FROM Loudoun_Address_Points_1 WHERE fid = 831") != "21005")
    }
}
