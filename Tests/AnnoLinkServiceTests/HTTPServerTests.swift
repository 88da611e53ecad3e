import AnnoLinkChecks
import AnnoLinkEditing
import AnnoLinkImport
import AnnoLinkService
import AnnoLinkStore
import AnnoLinkTestSupport
import Foundation
import Testing

/// A small route set for testing the server layer before the FeatureServer and OGC routes
/// exist: it echoes what the server parsed, edits through `Dataset.write(user:)` when the
/// caller may, counts rows, runs a query that never ends, and holds a reader for a while.
private struct TestRoutes: Routes {
    /// Counts the reads in progress and keeps the most seen at once.
    final class ReaderCount: @unchecked Sendable {
        private let lock = NSLock()
        private var current = 0
        private(set) var most = 0

        func enter() {
            lock.lock()
            current += 1
            most = max(most, current)
            lock.unlock()
        }

        func leave() {
            lock.lock()
            current -= 1
            lock.unlock()
        }

        var mostAtOnce: Int {
            lock.lock()
            defer { lock.unlock() }
            return most
        }
    }

    let readers = ReaderCount()

    func respond(to request: HTTPRequest, in dataset: Dataset) -> HTTPResponse? {
        switch request.path {
        case "/echo":
            struct Echo: Encodable {
                var method: String
                var path: String
                var parameters: [String: String]
                var bodyLength: Int
                var user: String?
                var mayEdit: Bool
                var invalidToken: Bool
            }
            return try? .json(Echo(method: request.method, path: request.path, parameters: request.parameters, bodyLength: request.body.count,
                                   user: request.caller.userName, mayEdit: request.caller.mayEdit, invalidToken: request.caller == .invalidToken))
        case "/edit":
            guard request.method == "POST" else { return .problem(status: 405, detail: "POST only") }
            switch request.caller {
            case .invalidToken: return .problem(status: 401, detail: "invalid token")
            case .anonymous(false): return .problem(status: 401, detail: "a token is required to edit")
            case .user(_, false): return .problem(status: 403, detail: "this token may only read")
            case .crossSite: return .problem(status: 403, detail: "a page of another origin may not edit")
            default: break
            }
            guard let table = request.parameters["table"], let fid = request.parameters["fid"].flatMap(Int64.init),
                  let field = request.parameters["field"], let value = request.parameters["value"] else {
                return .problem(status: 400, detail: "table, fid, field and value are required")
            }
            do {
                let result = try dataset.write(user: request.caller.userName) { service in
                    if let pause = request.parameters["pause"].flatMap(UInt32.init) { usleep(pause * 1000) }
                    return try service.run(SetFields(table: table, fid: fid, values: [FieldAssignment(field: field, text: value)], command: "serve test edit"))
                }
                return try .json(["entry": result.journalEntry ?? -1])
            } catch ServiceError.readOnly {
                return .problem(status: 403, detail: "read-only")
            } catch {
                return .problem(status: 400, detail: "\(error)")
            }
        case "/count":
            guard let table = request.parameters["table"], table.allSatisfy({ $0.isLetter || $0 == "_" }) else {
                return .problem(status: 400, detail: "table?")
            }
            do {
                let count = try dataset.read { try $0.connection.scalarInt("SELECT count(*) FROM \"\(table)\"") ?? -1 }
                return try .json(["count": count])
            } catch {
                return .problem(status: 400, detail: "\(error)")
            }
        case "/slow":
            do {
                let count = try dataset.read { package in
                    try package.connection.scalarInt("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c")
                }
                return try .json(["count": count ?? -1])
            } catch let error as ServiceError {
                return .problem(status: 504, detail: error.description)
            } catch {
                return .problem(status: 500, detail: "\(error)")
            }
        case "/hold":
            let milliseconds = request.parameters["ms"].flatMap(UInt32.init) ?? 100
            do {
                try dataset.read { _ in
                    readers.enter()
                    defer { readers.leave() }
                    usleep(milliseconds * 1000)
                }
                return try .json(["held": milliseconds])
            } catch {
                return .problem(status: 500, detail: "\(error)")
            }
        default:
            return nil
        }
    }
}

/// A server running in this process on a free loopback port, stopped when the value goes away.
private final class RunningServer: @unchecked Sendable {
    let server: HTTPServer
    let url: String
    let routes: TestRoutes
    let path: String
    private let scratch: ScratchDirectory

    init(readOnly: Bool = false, tokens: String? = nil, maxBody: Int = 10 * 1024 * 1024, queryTimeLimit: Double = 5, threads: Int = 8,
         parcels: Int = 8, cors: String? = nil) throws {
        scratch = try ScratchDirectory(prefix: "server")
        path = scratch.path("sample.gpkg")
        let package = try GeoPackage.create(path: path)
        try package.addSpatialReferenceSystem(epsg: SampleGenerator.srsID)
        _ = try SampleWriter.write(SampleGenerator(parcels: parcels, seed: 3), into: package)
        let dataset = try Dataset(path: path, readOnly: readOnly, queryTimeLimit: queryTimeLimit, readerLimit: threads)
        routes = TestRoutes()
        let table = try tokens.map { try TokenTable(parsing: $0, path: "tokens") }
        server = HTTPServer(dataset: dataset, routes: [HealthRoutes(), routes],
                            configuration: ServerConfiguration(listen: .loopback(port: 0), threads: threads, maxBodyBytes: maxBody,
                                                               tokens: table, accessLog: false, cors: try cors.map { try SameOrigin.CORS(parsing: $0) }))
        let port = try server.start()
        url = "http://127.0.0.1:\(port)"
    }

    deinit { server.stop(grace: 5) }

    func request(_ path: String, method: String = "GET", headers: [String: String] = [:], form: [(String, String)]? = nil,
                 body: Data? = nil, chunked: Bool = false) throws -> HTTPReply {
        try HTTPClient.request(url + path, method: method, headers: headers, form: form, body: body, chunked: chunked)
    }
}

@Suite struct HTTPServerTests {
    static let tokens = """
        # token user right
        t-alice alice edit
        t-bob   bob   read
        """

    @Test func queryParametersAndFormBodiesAreDecodedByLibmicrohttpd() throws {
        let server = try RunningServer()
        let get = try server.request("/echo?where=AD_ADDRESS%20%3E%2010&f=json&empty=&bare")
        #expect(get.status == 200)
        let parameters = try #require(get.object?["parameters"] as? [String: String])
        #expect(parameters == ["where": "AD_ADDRESS > 10", "f": "json", "empty": "", "bare": ""])
        // Browsers and Esri's clients write a space as '+' in queries and forms.
        let plus = try server.request("/echo?where=ST_STR_NAM+%3D+%27OAK+ST%27+AND+x%2B1", method: "POST",
                                      headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data("outFields=A+B%2BC&f=json".utf8))
        #expect((plus.object?["parameters"] as? [String: String]) == ["where": "ST_STR_NAM = 'OAK ST' AND x+1", "outFields": "A B+C", "f": "json"])

        // Esri clients POST applyEdits as a form; a value longer than the post processor's
        // buffer arrives in pieces and must come out whole.
        let long = String(repeating: "[{\"attributes\":{\"OBJECTID\":1}}]", count: 4000)
        let post = try server.request("/echo?f=pjson", method: "POST", form: [("updates", long), ("rollbackOnFailure", "true"), ("f", "json")])
        #expect(post.status == 200)
        let posted = try #require(post.object?["parameters"] as? [String: String])
        #expect(posted["updates"] == long)
        #expect(posted["rollbackOnFailure"] == "true")
        #expect(posted["f"] == "json", "a form field wins over the query parameter of the same name")
        #expect(post.object?["method"] as? String == "POST")

        // Other bodies are handed over as bytes, not parsed.
        let json = try server.request("/echo", method: "POST", headers: ["Content-Type": "application/geo+json"], body: Data("{\"a\":1}".utf8))
        #expect(json.object?["bodyLength"] as? Int == 7)
        #expect((json.object?["parameters"] as? [String: String]) == [:])
    }

    @Test func unknownPathsAre404ProblemDocuments() throws {
        let server = try RunningServer()
        for path in ["/", "/nothing", "/arcgis/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/echo/more"] {
            let reply = try server.request(path)
            #expect(reply.status == 404, "\(path)")
            #expect(reply.headers["content-type"] == "application/problem+json")
            #expect(reply.object?["status"] as? Int == 404)
        }
        let port = UInt16(server.url.split(separator: ":").last!)!
        let head = try HTTPClient.raw(port: port, Array("HEAD /health HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8))
        #expect(head.hasPrefix("HTTP/1.1 200"), "\(head)")
        #expect(head.hasSuffix("\r\n\r\n"), "a HEAD answer has no body: \(head)")
        let post = try server.request("/health", method: "POST", body: Data())
        #expect(post.status == 405)
        #expect(post.headers["allow"] == "GET, HEAD")
    }

    @Test func oversizedBodiesAre413AndChangeNothing() throws {
        let server = try RunningServer(maxBody: 1000)
        let before = try contentDump(of: server.path, excluding: [])
        let value = String(repeating: "x", count: 2000)
        let form = [("table", "address_points"), ("fid", "1"), ("field", "ST_STR_NAM"), ("value", value)]
        let declared = try server.request("/edit", method: "POST", form: form)
        #expect(declared.status == 413)
        #expect(declared.object?["status"] as? Int == 413)
        let chunked = try server.request("/edit", method: "POST", form: form, chunked: true)
        #expect(chunked.status == 411)
        #expect(try contentDump(of: server.path, excluding: []) == before)
        // Just under the limit is read and handled.
        let small = try server.request("/edit", method: "POST", form: [("table", "address_points"), ("fid", "1"), ("field", "ST_STR_NAM"), ("value", "OAK")])
        #expect(small.status == 200)
        #expect(try contentDump(of: server.path, excluding: []) != before)
        #expect(try server.request("/health").status == 200)
    }

    @Test func malformedRequestsAre400AndTheServerKeepsAnswering() throws {
        let server = try RunningServer()
        let port = UInt16(server.url.split(separator: ":").last!)!
        let garbage = try HTTPClient.raw(port: port, Array("THIS IS NOT HTTP\r\n\r\n".utf8))
        #expect(garbage.hasPrefix("HTTP/1.1 400"), "\(garbage)")
        let noColon = try HTTPClient.raw(port: port, Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nNoColonHere\r\n\r\n".utf8))
        #expect(noColon.hasPrefix("HTTP/1.1 400"), "\(noColon)")
        let version = try HTTPClient.raw(port: port, Array("GET /health HTTP/9.9\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8))
        #expect(version.hasPrefix("HTTP/1.1 505"), "\(version)")
        let hugeHeader = try HTTPClient.raw(port: port, Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX: \(String(repeating: "a", count: 200_000))\r\n\r\n".utf8))
        #expect(hugeHeader.hasPrefix("HTTP/1.1 431"), "\(hugeHeader.prefix(100))")
        let badLength = try HTTPClient.raw(port: port, Array("POST /echo HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: banana\r\n\r\n".utf8))
        #expect(badLength.hasPrefix("HTTP/1.1 400"), "\(badLength)")
        let notUTF8 = try HTTPClient.raw(port: port, Array("GET /echo?where=%FF%FE HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8))
        #expect(notUTF8.hasPrefix("HTTP/1.1 400"), "\(notUTF8)")
        #expect(notUTF8.contains("not valid UTF-8"))
        let badForm = try HTTPClient.raw(port: port, [UInt8]("POST /echo HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 6\r\n\r\na=%FF%".utf8))
        #expect(badForm.hasPrefix("HTTP/1.1 400"), "\(badForm)")
        #expect(try server.request("/health").status == 200)
    }

    /// Issue 25: framing that a proxy and libmicrohttpd could read two ways is refused, and a
    /// transfer coding it cannot read is answered at once instead of after the idle timeout.
    @Test func ambiguousFramingIsRefusedAtOnce() throws {
        let server = try RunningServer()
        let port = UInt16(server.url.split(separator: ":").last!)!
        func raw(_ text: String) throws -> String { try HTTPClient.raw(port: port, Array(text.utf8)) }
        let host = "Host: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        let twoLengths = try raw("POST /echo HTTP/1.1\r\n\(host)Content-Length: 0\r\nContent-Length: 5\r\n\r\nhello")
        #expect(twoLengths.hasPrefix("HTTP/1.1 400") && twoLengths.contains("two different Content-Length"), "\(twoLengths)")
        let sameTwice = try raw("POST /echo HTTP/1.1\r\n\(host)Content-Length: 5\r\nContent-Length: 5\r\n\r\nhello")
        #expect(sameTwice.hasPrefix("HTTP/1.1 200"), "\(sameTwice)")
        let both = try raw("POST /echo HTTP/1.1\r\n\(host)Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
        #expect(both.hasPrefix("HTTP/1.1 400") && both.contains("both Content-Length and Transfer-Encoding"), "\(both)")
        let unknown = try raw("POST /echo HTTP/1.1\r\n\(host)Transfer-Encoding: gzip\r\n\r\n")
        #expect(unknown.hasPrefix("HTTP/1.1 501") && unknown.contains("'gzip'"), "\(unknown)")
        // A chunked body, well formed or with bare-LF line ends that libmicrohttpd would take:
        // 411 before a chunk is read, and the server goes on.
        for body in ["5\r\nhello\r\n0\r\n\r\n", "5\nhello\n0\n\n"] {
            let chunked = try raw("POST /echo HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n\(body)")
            #expect(chunked.hasPrefix("HTTP/1.1 411") && chunked.contains("send the body with a Content-Length"), "\(chunked)")
            #expect(!chunked.contains("bodyLength"), "\(chunked)")
        }
        #expect(try server.request("/health").status == 200)
    }

    /// Issue 25: a `Host` that does not name the server is refused (DNS rebinding), and so is an
    /// HTTP/1.1 request without one; HTTP/1.0 has none to give.
    @Test func theHostHeaderMustNameTheServer() throws {
        let server = try RunningServer()
        let port = UInt16(server.url.split(separator: ":").last!)!
        func raw(_ text: String) throws -> String { try HTTPClient.raw(port: port, Array(text.utf8)) }
        #expect(try raw("GET /health HTTP/1.1\r\nHost: localhost:\(port)\r\nConnection: close\r\n\r\n").hasPrefix("HTTP/1.1 200"))
        let forged = try raw("GET /health HTTP/1.1\r\nHost: rebound.example:\(port)\r\nConnection: close\r\n\r\n")
        #expect(forged.hasPrefix("HTTP/1.1 400") && forged.contains("does not name this server"), "\(forged)")
        let otherPort = try raw("GET /health HTTP/1.1\r\nHost: 127.0.0.1:\(port == 1 ? 2 : 1)\r\nConnection: close\r\n\r\n")
        #expect(otherPort.hasPrefix("HTTP/1.1 400"), "\(otherPort)")
        let none = try raw("GET /health HTTP/1.1\r\nConnection: close\r\n\r\n")
        #expect(none.hasPrefix("HTTP/1.1 400") && none.contains("needs a Host header"), "\(none)")
        let old = try raw("GET /health HTTP/1.0\r\n\r\n")
        #expect(old.split(separator: " ").dropFirst().first == "200", "\(old)")
    }

    /// Issue 25: without a valid token a page of another origin may read, never edit; a token
    /// is leave, whatever the origin.
    @Test func pagesOfAnotherOriginMayOnlyRead() throws {
        let open = try RunningServer()
        let foreign = try open.request("/echo", headers: ["Origin": "http://evil.example"])
        #expect(foreign.status == 200 && foreign.object?["mayEdit"] as? Bool == false, "\(foreign.text)")
        let health = try open.request("/health", headers: ["Sec-Fetch-Site": "cross-site"])
        #expect((health.object?["caller"] as? [String: Any])?["crossSite"] as? String == "a cross-site page", "\(health.text)")
        let own = try open.request("/echo", headers: ["Origin": open.url, "Sec-Fetch-Site": "same-origin"])
        #expect(own.object?["mayEdit"] as? Bool == true, "\(own.text)")
        let withTokens = try RunningServer(tokens: Self.tokens)
        let alice = try withTokens.request("/echo", headers: ["Origin": "http://app.example", "Authorization": "Bearer t-alice"])
        #expect(alice.object?["user"] as? String == "alice" && alice.object?["mayEdit"] as? Bool == true, "\(alice.text)")
        let nobody = try withTokens.request("/health", headers: ["Origin": "http://app.example"])
        #expect((nobody.object?["caller"] as? [String: Any])?["crossSite"] as? String == "http://app.example", "\(nobody.text)")
    }

    /// Issue 26 item 2: `--cors` answers preflights and marks answers for the origins it names;
    /// without it no answer carries `Access-Control-Allow-Origin`.
    @Test func corsAnswersPreflightsAndMarksAnswers() throws {
        let server = try RunningServer(cors: "http://app.example")
        let preflight = try server.request("/echo", method: "OPTIONS", headers: [
            "Origin": "http://app.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type"])
        #expect(preflight.status == 204, "\(preflight.text)")
        #expect(preflight.headers["access-control-allow-origin"] == "http://app.example")
        #expect(preflight.headers["access-control-allow-methods"]?.contains("PATCH") == true)
        #expect(preflight.headers["access-control-allow-headers"] == "authorization, content-type")
        let get = try server.request("/echo", headers: ["Origin": "http://app.example"])
        #expect(get.headers["access-control-allow-origin"] == "http://app.example" && get.headers["vary"] == "Origin")
        #expect(get.headers["access-control-expose-headers"]?.contains("ETag") == true)
        #expect(get.object?["mayEdit"] as? Bool == true, "a named origin edits as the server's own page")
        let other = try server.request("/echo", method: "OPTIONS", headers: ["Origin": "http://evil.example", "Access-Control-Request-Method": "POST"])
        #expect(other.status == 403 && other.headers["access-control-allow-origin"] == nil)
        #expect(try server.request("/echo", headers: ["Origin": "http://evil.example"]).headers["access-control-allow-origin"] == nil)
        let plain = try RunningServer()
        #expect(try plain.request("/echo", headers: ["Origin": "http://app.example"]).headers["access-control-allow-origin"] == nil)
    }

    @Test func hostileBytesNeverStopTheServer() throws {
        let server = try RunningServer(maxBody: 4096)
        let port = UInt16(server.url.split(separator: ":").last!)!
        var generator = SeededGenerator(seed: 14)
        let methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "BREW", "", "G\u{0}ET"]
        let paths = ["/echo", "/edit", "/health", "/%00", "/..%2f..%2f", "/echo?" + String(repeating: "a=1&", count: 500), "*", "/%ZZ", "/\u{7f}"]
        for _ in 0..<60 {
            var request = "\(methods.randomElement(using: &generator)!) \(paths.randomElement(using: &generator)!) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
            if Bool.random(using: &generator) { request += "Content-Length: \(Int.random(in: -5...9000, using: &generator))\r\n" }
            if Bool.random(using: &generator) { request += "Content-Type: application/x-www-form-urlencoded\r\n" }
            if Bool.random(using: &generator) { request += "Transfer-Encoding: chunked\r\n" }
            request += "\r\n"
            var bytes = Array(request.utf8)
            bytes += (0..<Int.random(in: 0...5000, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = try HTTPClient.raw(port: port, bytes, timeout: 5)
        }
        #expect(try server.request("/health").status == 200)
        // Requests cut off half-way are not left counted as in flight.
        let deadline = Date().addingTimeInterval(30)
        while server.server.requestsInFlight > 0, Date() < deadline { usleep(10_000) }
        #expect(server.server.requestsInFlight == 0)
    }

    @Test func tokensDecideTheCaller() throws {
        let server = try RunningServer(tokens: Self.tokens)
        func caller(_ path: String, headers: [String: String] = [:]) throws -> (String?, Bool, Bool) {
            let object = try #require(try server.request(path, headers: headers).object)
            return (object["user"] as? String, object["mayEdit"] as? Bool ?? true, object["invalidToken"] as? Bool ?? false)
        }
        #expect(try caller("/echo") == (nil, false, false))
        #expect(try caller("/echo", headers: ["Authorization": "Bearer t-alice"]) == ("alice", true, false))
        #expect(try caller("/echo", headers: ["X-Esri-Authorization": "Bearer t-bob"]) == ("bob", false, false))
        #expect(try caller("/echo?token=t-bob") == ("bob", false, false))
        #expect(try caller("/echo?token=nope") == (nil, false, true))
        #expect(try caller("/echo", headers: ["Authorization": "Bearer t-alice "]) == ("alice", true, false))
        #expect(try caller("/echo", headers: ["Authorization": "Bearer t-alic"]) == (nil, false, true))
    }

    @Test func editsNeedAnEditTokenAndRecordItsUser() throws {
        let server = try RunningServer(tokens: Self.tokens)
        let before = try contentDump(of: server.path, excluding: [])
        let edit = [("table", "address_points"), ("fid", "2"), ("field", "ST_STR_NAM"), ("value", "MAPLE")]
        #expect(try server.request("/edit", method: "POST", form: edit).status == 401)
        #expect(try server.request("/edit", method: "POST", form: edit + [("token", "t-bob")]).status == 403)
        #expect(try server.request("/edit", method: "POST", form: edit + [("token", "wrong")]).status == 401)
        #expect(try contentDump(of: server.path, excluding: []) == before)

        let done = try server.request("/edit", method: "POST", form: edit + [("token", "t-alice")])
        #expect(done.status == 200, "\(done.text)")
        let package = try GeoPackage(path: server.path, readOnly: true)
        let entries = try Journal(package: package).entries()
        #expect(entries.count == 1)
        #expect(entries.first?.user == "alice")
        #expect(entries.first?.command == "serve test edit")
        #expect(try package.connection.scalarText("SELECT TextString FROM address_points_anno WHERE FeatureID = 2")?.hasSuffix("MAPLE") == true)
    }

    @Test func stoppingFinishesTheEditInFlightAndAnswersIt() throws {
        let server = try RunningServer()
        let reply = ReplyBox()
        let sent = DispatchGroup()
        DispatchQueue.global().async(group: sent) {
            reply.set(try? server.request("/edit", method: "POST", form: [
                ("table", "address_points"), ("fid", "3"), ("field", "ST_STR_NAM"), ("value", "BIRCH"), ("pause", "1500"),
            ]))
        }
        // Stop once the edit is under way (it holds the writer for 1.5 s).
        let deadline = Date().addingTimeInterval(30)
        while server.server.requestsInFlight == 0, Date() < deadline { usleep(5_000) }
        #expect(server.server.requestsInFlight == 1)
        server.server.stop(grace: 20)
        sent.wait()
        #expect(reply.value?.status == 200, "the edit in flight was answered: \(reply.value?.text ?? "no answer")")
        let package = try GeoPackage(path: server.path, readOnly: true)
        #expect(try package.connection.scalarText("SELECT ST_STR_NAM FROM address_points WHERE fid = 3") == "BIRCH")
        #expect(try Journal(package: package).entries().count == 1)
        #expect((try? HTTPClient.request(server.url + "/health").status) == 0, "nothing listens after the stop")
    }

    /// Issue 25: a statement that ran long held SIGTERM's stop for as long as it ran (55 s).
    /// Once the grace period is over, the dataset's SQL is stopped and the stop completes.
    @Test func stoppingStopsAStatementStillRunningAfterTheGracePeriod() throws {
        let server = try RunningServer(queryTimeLimit: 3600)
        let reply = ReplyBox()
        let sent = DispatchGroup()
        DispatchQueue.global().async(group: sent) { reply.set(try? server.request("/slow")) }
        let deadline = Date().addingTimeInterval(30)
        while server.server.requestsInFlight == 0, Date() < deadline { usleep(5_000) }
        #expect(server.server.requestsInFlight == 1)
        let stopped = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            server.server.stop(grace: 0.5)
            stopped.signal()
        }
        // A generous wait on the condition: without the stop, the count runs for hours.
        #expect(stopped.wait(timeout: .now() + 120) == .success, "the stop waited for the statement")
        #expect(sent.wait(timeout: .now() + 120) == .success)
        #expect(reply.value.map { $0.status == 500 || $0.status == 0 } ?? true, "\(reply.value?.text ?? "no answer")")
    }

    @Test func readOnlyServerRefusesEdits() throws {
        let server = try RunningServer(readOnly: true)
        let before = try contentDump(of: server.path, excluding: [])
        let reply = try server.request("/edit", method: "POST", form: [("table", "address_points"), ("fid", "1"), ("field", "ST_STR_NAM"), ("value", "X")])
        #expect(reply.status == 403)
        #expect(try contentDump(of: server.path, excluding: []) == before)
    }

    @Test func aQueryOverTheTimeLimitIsStopped() throws {
        let server = try RunningServer(queryTimeLimit: 0.3)
        let reply = try server.request("/slow")
        #expect(reply.status == 504)
        #expect((reply.object?["detail"] as? String)?.contains("limit of 0.3 s") == true)
        // The reader it used is sound afterwards.
        for _ in 0..<10 { #expect(try server.request("/count?table=address_points").object?["count"] as? Int == 8) }
    }

    @Test func manyReadersAtOnce() throws {
        let server = try RunningServer(threads: 8)
        // Sixteen clients, each with its own keep-alive connection, 25 reads each.
        let results = ConcurrentResults()
        DispatchQueue.concurrentPerform(iterations: 16) { client in
            let urls = (0..<25).map { i in i % 5 == 0 ? server.url + "/hold?ms=50" : server.url + "/count?table=parcel_lines" }
            results.add(client: client, (try? HTTPClient.statuses(urls)) ?? [])
        }
        let all = results.all
        #expect(all.count == 16 * 25)
        #expect(all.allSatisfy { $0 == 200 })
        #expect(server.routes.readers.mostAtOnce > 1, "reads ran one at a time")
    }

    @Test func writesDuringReadsAreSerializedAndAllKept() throws {
        let server = try RunningServer(tokens: Self.tokens)
        DispatchQueue.concurrentPerform(iterations: 8) { client in
            for i in 0..<5 {
                let fid = client % 8 + 1
                _ = try? server.request("/edit", method: "POST", form: [
                    ("table", "address_points"), ("fid", "\(fid)"), ("field", "ST_STR_NAM"), ("value", "S\(client)-\(i)"), ("token", "t-alice"),
                ])
                _ = try? server.request("/count?table=address_points")
            }
        }
        let package = try GeoPackage(path: server.path, readOnly: true)
        let entries = try Journal(package: package).entries()
        #expect(entries.count == 40)
        #expect(entries.allSatisfy { $0.user == "alice" })
        for client in 0..<8 {
            #expect(try package.connection.scalarText("SELECT ST_STR_NAM FROM address_points WHERE fid = ?", [.integer(Int64(client + 1))]) == "S\(client)-4")
        }
    }
}

/// Eight clients, each with its own connection, make 200 edits each at once (an edit of a house
/// number regenerates its label), while eight more read: every edit is answered 200 and kept,
/// the journal has an entry per edit with its user, and the annotation is consistent.
@Suite struct HTTPServerLoadTests {
    @Test func eightClientsTimesTwoHundredEdits() throws {
        let server = try RunningServer(tokens: HTTPServerTests.tokens, parcels: 64)
        let clients = 8, editsPerClient = 200
        let results = ConcurrentResults()
        DispatchQueue.concurrentPerform(iterations: clients * 2) { client in
            if client >= clients {
                // Readers, alongside.
                results.add(client: client, (try? HTTPClient.statuses(Array(repeating: server.url + "/count?table=address_points", count: 50))) ?? [])
                return
            }
            let forms = (0..<editsPerClient).map { i -> [(String, String)] in
                // Client c edits the points c+1, c+9, …: its own features, so its last value wins.
                let fid = client + 1 + (i % 8) * clients
                return [("table", "address_points"), ("fid", "\(fid)"), ("field", "AD_ADDRESS"), ("value", "\(10_000 + client * 1000 + i)"),
                        ("token", "t-alice")]
            }
            results.add(client: client, (try? HTTPClient.postForms(server.url + "/edit", forms)) ?? [])
        }
        let all = results.all
        #expect(all.count == clients * editsPerClient + clients * 50)
        #expect(all.allSatisfy { $0 == 200 }, "\(Dictionary(grouping: all, by: { $0 }).mapValues(\.count))")

        let package = try GeoPackage(path: server.path, readOnly: true)
        let entries = try Journal(package: package).entries()
        #expect(entries.count == clients * editsPerClient)
        #expect(Set(entries.map(\.id)).count == entries.count)
        #expect(entries.allSatisfy { $0.user == "alice" && $0.state == .done })
        for client in 0..<clients {
            for slot in 0..<8 {
                let fid = client + 1 + slot * clients
                // The last of this client's edits of this feature: i = 192 + slot.
                let expected = 10_000 + client * 1000 + (editsPerClient - 8 + slot)
                #expect(try package.connection.scalarInt("SELECT AD_ADDRESS FROM address_points WHERE fid = ?", [.integer(Int64(fid))]) == Int64(expected))
                let label = try package.connection.scalarText("SELECT TextString FROM address_points_anno WHERE FeatureID = ?", [.integer(Int64(fid))])
                #expect(label?.hasPrefix("\(expected) ") == true, "fid \(fid): \(label ?? "no label")")
            }
        }
        let report = try ConsistencyChecker(package: package).run(Check())
        #expect(report.totals.counts.values.reduce(0, +) == 0, "\(report.totals.counts)")
    }
}

/// A deterministic generator (SplitMix64), so a failing hostile request can be replayed.
private struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// One answer handed from a client thread to the test.
private final class ReplyBox: @unchecked Sendable {
    private let lock = NSLock()
    private var reply: HTTPReply?

    func set(_ value: HTTPReply?) {
        lock.lock()
        reply = value
        lock.unlock()
    }

    var value: HTTPReply? {
        lock.lock()
        defer { lock.unlock() }
        return reply
    }
}

/// Statuses collected from concurrent clients.
private final class ConcurrentResults: @unchecked Sendable {
    private let lock = NSLock()
    private var statuses: [Int: [Int]] = [:]

    func add(client: Int, _ values: [Int]) {
        lock.lock()
        statuses[client] = values
        lock.unlock()
    }

    var all: [Int] {
        lock.lock()
        defer { lock.unlock() }
        return statuses.keys.sorted().flatMap { statuses[$0]! }
    }
}
