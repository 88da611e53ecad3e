import AnnoLinkTestSupport
import Foundation
import Testing

/// Edits bounded in size and time, SIGTERM during a long edit, idempotency keys (issue 25,
/// item 6; docs/serve.md, "Limits" and "Idempotency keys"), each against a real `annolink serve`
/// over real HTTP.
@Suite struct ServeEditLimitTests {
    let service = "/arcgis/rest/services/town/FeatureServer"

    func sample() throws -> String {
        let path = try Harness.temporaryDirectory().appendingPathComponent("town.gpkg").path
        let made = try Harness.annolink("sample", path, "--parcels", "20")
        #expect(made.status == 0, "\(made.stderr)")
        return path
    }

    /// The layer id of address_points.
    func pointsLayer(_ server: ServeProcess) throws -> Int {
        let layers = try server.request(service + "?f=json").object?["layers"] as? [[String: Any]] ?? []
        return try #require(layers.first { $0["name"] as? String == "address_points" }?["id"] as? Int)
    }

    func journalEntries(_ path: String) throws -> Int {
        guard try Harness.sqlite(path, "SELECT count(*) FROM sqlite_master WHERE name = 'annolink_journal'") == "1" else { return 0 }
        return Int(try Harness.sqlite(path, "SELECT count(*) FROM annolink_journal")) ?? -1
    }

    /// A form `POST` whose body is made here (curl's command line cannot hold thousands of edits).
    func post(_ server: ServeProcess, _ path: String, _ fields: [(String, String)], headers: [String: String] = [:]) throws -> HTTPReply {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed)!)" }.joined(separator: "&")
        return try server.request(path, method: "POST", headers: headers.merging(["Content-Type": "application/x-www-form-urlencoded"]) { a, _ in a },
                                  body: Data(body.utf8))
    }

    func address(_ path: String, fid: Int) throws -> String { try Harness.sqlite(path, "SELECT AD_ADDRESS FROM address_points WHERE fid = \(fid)") }

    /// `count` updates of AD_ADDRESS, turn about on fids 1 to 4, each a new value.
    func updates(_ count: Int, from value: Int = 50_000) -> String {
        "[" + (0..<count).map { #"{"attributes":{"fid":\#($0 % 4 + 1),"AD_ADDRESS":\#(value + $0)}}"# }.joined(separator: ",") + "]"
    }

    static func error(_ reply: HTTPReply) -> [String: Any]? { reply.object?["error"] as? [String: Any] }

    // MARK: How many edits

    @Test func moreEditsThanTheLimitAreRefusedBeforeAnyIsMade() throws {
        let path = try sample()
        let server = try ServeProcess(file: path, arguments: ["--max-edits-per-request", "5", "--quiet"])
        defer { _ = server.stop() }
        let layer = try pointsLayer(server)
        let before = try journalEntries(path), addressBefore = try address(path, fid: 1)

        // 4 updates and 2 deletes: 6 edits of one layer.
        let layerReply = try server.request("\(service)/\(layer)/applyEdits", method: "POST",
                                            form: [("f", "json"), ("updates", updates(4)), ("deletes", "7,8")])
        let layerError = try #require(Self.error(layerReply), "\(layerReply.text)")
        #expect(layerError["code"] as? Int == 400)
        #expect((layerError["details"] as? [String])?.first?.contains("more than 5 edits") == true, "\(layerReply.text)")
        #expect((layerError["details"] as? [String])?.first?.contains("--max-edits-per-request") == true)

        // 3 + 3 edits over two entries of a service-level applyEdits.
        let entries = #"[{"id":\#(layer),"updates":\#(updates(3))},{"id":\#(layer),"deletes":[9,10,11]}]"#
        let serviceReply = try server.request("\(service)/applyEdits", method: "POST", form: [("f", "json"), ("edits", entries)])
        #expect(Self.error(serviceReply)?["code"] as? Int == 400, "\(serviceReply.text)")

        #expect(try journalEntries(path) == before, "nothing was written")
        #expect(try address(path, fid: 1) == addressBefore)
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM address_points WHERE fid IN (7, 8, 9, 10, 11)") == "5")

        // Five edits are within the limit.
        let within = try server.request("\(service)/\(layer)/applyEdits", method: "POST", form: [("f", "json"), ("updates", updates(5))])
        let results = within.object?["updateResults"] as? [[String: Any]] ?? []
        #expect(results.count == 5 && results.allSatisfy { $0["success"] as? Bool == true }, "\(within.text)")
        #expect(try journalEntries(path) == before + 1)
    }

    // MARK: How long

    @Test func anEditRequestPastItsTimeRollsBackAndIsAnsweredAndOthersAreAnsweredToo() throws {
        let path = try sample()
        // 5,000 updates (each regenerates a label) take far longer than 0.2 s.
        let server = try ServeProcess(file: path, arguments: ["--edit-timeout", "0.2", "--quiet"])
        defer { _ = server.stop() }
        let layer = try pointsLayer(server)
        let before = try journalEntries(path), addressBefore = try address(path, fid: 1), fifthBefore = try address(path, fid: 5)
        let url = "\(service)/\(layer)/applyEdits"

        // Another client's edit, sent while the long one holds the writer, is answered too.
        let other = ReplyBox()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            usleep(100_000)
            other.reply = try? server.request(url, method: "POST", form: [("f", "json"), ("updates", #"[{"attributes":{"fid":5,"AD_ADDRESS":777}}]"#)])
        }
        let long = try post(server, url, [("f", "json"), ("updates", updates(5_000))])
        group.wait()

        let error = try #require(Self.error(long), "\(long.text.prefix(300))")
        #expect(error["code"] as? Int == 500)
        #expect((error["details"] as? [String])?.first?.contains("--edit-timeout") == true, "\(long.text)")
        #expect(try address(path, fid: 1) == addressBefore, "the long request rolled back")

        let otherReply = try #require(other.reply)
        #expect(otherReply.status == 200)
        let otherDone = (otherReply.object?["updateResults"] as? [[String: Any]])?.first?["success"] as? Bool == true
        #expect(otherDone || Self.error(otherReply) != nil, "the other edit was answered: \(otherReply.text)")
        #expect(try address(path, fid: 5) == (otherDone ? "777" : fifthBefore))
        #expect(try journalEntries(path) == before + (otherDone ? 1 : 0))
        #expect(try Harness.sqlite(path, "PRAGMA integrity_check") == "ok")
    }

    @Test func withoutRollbackTheEditsMadeStayAndTheRestReportNotRun() throws {
        let path = try sample()
        let server = try ServeProcess(file: path, arguments: ["--edit-timeout", "0.2", "--quiet"])
        defer { _ = server.stop() }
        let layer = try pointsLayer(server)
        let before = try journalEntries(path)
        let reply = try post(server, "\(service)/\(layer)/applyEdits", [("f", "json"), ("rollbackOnFailure", "false"), ("updates", updates(5_000))])
        let results = reply.object?["updateResults"] as? [[String: Any]] ?? []
        #expect(results.count == 5_000, "\(reply.text.prefix(300))")
        let made = results.prefix { $0["success"] as? Bool == true }.count
        let notRun = results.dropFirst(made)
        #expect(made < 5_000)
        #expect(notRun.allSatisfy { (($0["error"] as? [String: Any])?["description"] as? String)?.hasPrefix("not run: the edits took longer") == true },
                "\(notRun.first.map { "\($0)" } ?? "")")
        #expect(try journalEntries(path) == before + made, "one entry per edit made")
    }

    // MARK: SIGTERM

    @Test func sigtermDuringALongEditAnswersTheClientAndKeepsAllOrNothing() throws {
        let path = try sample()
        let server = try ServeProcess(file: path, arguments: ["--max-edits-per-request", "100000", "--edit-timeout", "600", "--quiet"])
        let layer = try pointsLayer(server)
        let before = try journalEntries(path), addressBefore = try address(path, fid: 1)
        let count = 60_000
        let box = ReplyBox()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            box.reply = try? post(server, "\(service)/\(layer)/applyEdits", [("f", "json"), ("updates", updates(count))])
        }
        // SIGTERM once the edits hold the writer (another connection's BEGIN IMMEDIATE is then
        // refused as locked); wherever it lands, the client must get an answer.
        let deadline = Date().addingTimeInterval(120)
        while box.reply == nil, Date() < deadline {
            let probe = try ExternalTool.sqlite3.run([path, "BEGIN IMMEDIATE; ROLLBACK;"])
            if probe.status != 0, probe.stderr.contains("locked") { break }
            usleep(20_000)
        }
        let status = server.stop(timeout: 120)
        group.wait()
        #expect(status == 0)
        let reply = try #require(box.reply, "curl ran")
        #expect(reply.status == 200, "an answer, not a closed connection")
        let results = reply.object?["updateResults"] as? [[String: Any]]
        print("SIGTERM during \(count) updates: \(results == nil ? "rolled back" : "committed") (\(server.stderr.split(separator: "\n").last ?? ""))")
        if let results {
            #expect(results.count == count && results.allSatisfy { $0["success"] as? Bool == true })
            #expect(try journalEntries(path) == before + 1)
            #expect(try address(path, fid: 1) == String(50_000 + count - 4))
        } else {
            let error = try #require(Self.error(reply), "\(reply.text.prefix(300))")
            #expect((error["details"] as? [String])?.first?.contains("the server is stopping") == true, "\(reply.text)")
            #expect(try journalEntries(path) == before)
            #expect(try address(path, fid: 1) == addressBefore)
        }
        #expect(try Harness.sqlite(path, "PRAGMA integrity_check") == "ok")
    }

    // MARK: Idempotency keys

    @Test func aRetriedAddWithItsKeyIsMadeOnceAndGetsTheFirstAnswerAfterARestartToo() throws {
        let path = try sample()
        var server = try ServeProcess(file: path, arguments: ["--quiet"])
        let layer = try pointsLayer(server)
        let url = "\(service)/\(layer)/applyEdits"
        let before = try journalEntries(path), addressBefore = try address(path, fid: 1)
        let rows = try Harness.sqlite(path, "SELECT count(*) FROM address_points")
        let add = #"[{"attributes":{"AD_ADDRESS":4242,"ST_STR_NAM":"KEYED"},"geometry":{"x":11890000,"y":7030000}}]"#
        let form = [("f", "json"), ("adds", add)]

        let first = try server.request(url, method: "POST", headers: ["Idempotency-Key": #""add-4242""#], form: form)
        let added = try #require((first.object?["addResults"] as? [[String: Any]])?.first?["objectId"] as? Int, "\(first.text)")
        let again = try server.request(url, method: "POST", headers: ["Idempotency-Key": #""add-4242""#], form: form)
        #expect(again.text == first.text)
        // The same key as a form parameter is the same key.
        let asParameter = try server.request(url, method: "POST", form: form + [("idempotencyKey", "add-4242")])
        #expect(asParameter.text == first.text)

        // The same key for another request is refused, and nothing of that request is made.
        let other = try server.request(url, method: "POST", headers: ["Idempotency-Key": "add-4242"],
                                       form: [("f", "json"), ("updates", updates(1))])
        #expect(Self.error(other)?["code"] as? Int == 400, "\(other.text)")
        let otherDetail = (Self.error(other)?["details"] as? [String])?.first ?? ""
        #expect(otherDetail.contains("Idempotency-Key"), "\(other.text)")

        // After a restart (the retry of a client whose answer was lost with the old server).
        #expect(server.stop() == 0)
        server = try ServeProcess(file: path, arguments: ["--quiet"])
        defer { _ = server.stop() }
        let afterRestart = try server.request(url, method: "POST", headers: ["Idempotency-Key": "add-4242"], form: form)
        #expect(afterRestart.text == first.text)

        #expect(try Harness.sqlite(path, "SELECT count(*) FROM address_points") == String((Int(rows) ?? 0) + 1), "added once")
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM address_points WHERE AD_ADDRESS = 4242") == "1")
        #expect(try Harness.sqlite(path, "SELECT AD_ADDRESS FROM address_points WHERE fid = \(added)") == "4242")
        #expect(try journalEntries(path) == before + 1)
        #expect(try address(path, fid: 1) == addressBefore, "the refused request changed nothing")

        // Without a key, the same add is made again.
        let unkeyed = try server.request(url, method: "POST", form: form)
        #expect((unkeyed.object?["addResults"] as? [[String: Any]])?.first?["objectId"] as? Int != added)
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM address_points WHERE AD_ADDRESS = 4242") == "2")
        let bad = try server.request(url, method: "POST", headers: ["Idempotency-Key": String(repeating: "k", count: 300)], form: form)
        #expect(Self.error(bad)?["code"] as? Int == 400)
    }

    @Test func aKeyIsTheCallersOwnAnotherUsersSameKeyIsAnotherRequest() throws {
        let path = try sample()
        let scratch = try ScratchDirectory(prefix: "keys")
        let tokens = scratch.path("tokens.txt")
        try "alice-token alice edit\nbob-token bob edit\n".write(toFile: tokens, atomically: true, encoding: .utf8)
        let server = try ServeProcess(file: path, arguments: ["--tokens", tokens, "--quiet"])
        defer { _ = server.stop() }
        let url = "\(service)/\(try pointsLayer(server))/applyEdits"
        let form = [("f", "json"), ("adds", #"[{"attributes":{"AD_ADDRESS":4343,"ST_STR_NAM":"KEYED"},"geometry":{"x":11890000,"y":7030000}}]"#)]
        func add(_ token: String) throws -> Int? {
            let reply = try server.request(url, method: "POST", headers: ["Authorization": "Bearer \(token)", "Idempotency-Key": "same"], form: form)
            return (reply.object?["addResults"] as? [[String: Any]])?.first?["objectId"] as? Int
        }
        let alice = try add("alice-token"), bob = try add("bob-token")
        #expect(alice != nil && bob != nil && alice != bob)
        #expect(try add("alice-token") == alice)
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM address_points WHERE AD_ADDRESS = 4343") == "2")
        #expect(try Harness.sqlite(path, "SELECT group_concat(user, ',') FROM (SELECT user FROM annolink_request_keys ORDER BY user)") == "alice,bob")
    }
}

/// A reply set on another thread.
private final class ReplyBox: @unchecked Sendable {
    var reply: HTTPReply?
}
