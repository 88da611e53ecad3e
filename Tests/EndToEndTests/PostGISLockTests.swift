import AnnoLinkTestSupport
import Foundation
import Testing

/// Edits on PostGIS beside other sessions holding the same rows (issue 25): an undo while another
/// editor waits for its rows ("no feature with fid 2" for a feature that always existed), and a
/// deadlock while an applyEdits takes its batch's rows (a whole-request 500 where docs/serve.md
/// promises each edit's conflict). Another session is psql holding row locks in a transaction
/// it ends when told. Needs the throw-away cluster (`scripts/test`).
@Suite("PostGIS edits beside other sessions' locks", .serialized)
struct PostGISLockTests {
    /// `annolink ARGUMENTS` started, not waited for; its standard error collected.
    final class Running {
        let process = Process()
        let errors = Pipe()

        init(_ arguments: [String]) throws {
            process.executableURL = URL(fileURLWithPath: Harness.binary)
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = errors
            try process.run()
        }

        /// Waits for the exit and returns the status and standard error.
        func finish() -> (status: Int32, stderr: String) {
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, text)
        }
    }

    /// psql holding a transaction open on `data`'s database: `send` writes SQL to it, `end()`
    /// commits and waits for it to exit.
    final class Holder {
        let process = Process()
        let input = Pipe()

        init(_ data: EditedData) throws {
            process.executableURL = URL(fileURLWithPath: try PostgresTestServer.psql.path)
            process.arguments = ["-X", "-q", "-d", data.target]
            process.standardInput = input
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            send("BEGIN;")
        }

        func send(_ sql: String) { input.fileHandleForWriting.write(Data((sql + "\n").utf8)) }

        func end() {
            send("COMMIT;")
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }

    /// Waits (at most a minute) until psql holds a row lock (`FOR UPDATE` takes RowShareLock).
    func waitForHolder(_ data: EditedData) throws {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if try data.query("SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid " +
                              "WHERE a.datname = current_database() AND l.mode = 'RowShareLock' AND a.application_name = 'psql'") != "0" { return }
            usleep(50_000)
        }
        Issue.record("psql never took its lock")
    }

    /// Waits (at most a minute) until `count` sessions of the test's database wait for a lock.
    func waitForWaiters(_ count: Int, _ data: EditedData) throws {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let waiting = Int(try data.query("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")) ?? 0
            if waiting >= count { return }
            usleep(50_000)
        }
        Issue.record("\(count) sessions never waited for a lock")
    }

    @Test("an editor waiting on a row the undo writes back edits it after the undo, and nothing is lost")
    func editorWaitingOnUndo() throws {
        guard let data = try EditedData(.postGIS) else { return }
        defer { data.drop() }
        let points = "Loudoun_Address_Points_1"
        let edit = try Harness.annolink("set", data.target, points, "831", "AD_ADDRESS=43111")
        #expect(edit.status == 0, "\(edit.stderr)")
        let entry = try data.query("SELECT max(id) FROM annolink.journal")
        // The undo locks its tables' rows in this order; the test holds the last one's row, so
        // the undo waits holding the first one's, which the editor then asks for.
        let rows = try data.query("SELECT table_name, fid FROM annolink.journal_rows WHERE entry_id = \(entry) ORDER BY table_name, fid")
            .split(separator: "\n").map { $0.split(separator: "|").map(String.init) }
        try #require(rows.count >= 2 && Set(rows.map { $0[0] }).count == 2, "an edit of the point and its label: \(rows)")
        let (first, last) = (rows.first!, rows.last!)

        let holder = try Holder(data)
        holder.send("SELECT 1 FROM public.\"\(last[0])\" WHERE fid = \(last[1]) FOR UPDATE;")
        // Until the holder has its lock, an undo would not wait for it.
        try waitForHolder(data)
        let undo = try Running(["undo", data.target])
        try waitForWaiters(1, data)
        let assignment = first[0] == points ? "AD_ADDRESS=21577" : "AnchorX=\(try data.query("SELECT \"AnchorX\" + 0.5 FROM public.\"\(first[0])\" WHERE fid = \(first[1])"))"
        let editor = try Running(["set", data.target, first[0], first[1], assignment])
        try waitForWaiters(2, data)
        holder.end()

        let undone = undo.finish()
        #expect(undone.status == 0, "\(undone.stderr)")
        let edited = editor.finish()
        #expect(edited.status == 0, "the waiting editor found the row the undo wrote back: \(edited.stderr)")
        #expect(!edited.stderr.contains("no feature"), "\(edited.stderr)")
        // The undo's result, then the editor's edit on top of it; the journal has both.
        if first[0] == points {
            #expect(try data.query("SELECT \"AD_ADDRESS\" FROM public.\"\(points)\" WHERE fid = 831") == "21577")
        }
        #expect(try data.query("SELECT state FROM annolink.journal WHERE id = \(entry)") == "discarded", "undone, then discarded by the edit after it")
        #expect(try data.query("SELECT count(*) FROM annolink.journal WHERE id > \(entry) AND state = 'done'") == "1")
        let check = try Harness.annolink("check", data.target)
        #expect(check.status == 0 || first[0] != points, "\(check.stdout)")
    }

    @Test("a deadlock while applyEdits takes its rows is each edit's conflict, nothing written, and the server goes on")
    func deadlockTakingTheBatch() throws {
        guard let data = try EditedData(.postGIS) else { return }
        defer { data.drop() }
        let server = try ServeProcess(file: data.target)
        defer { _ = server.stop() }
        let before = try data.query("SELECT fid, \"AD_ADDRESS\" FROM public.\"Loudoun_Address_Points_1\" WHERE fid IN (831, 834) ORDER BY fid")
        // psql holds 834; the request takes 831, then waits for 834; psql then asks for 831.
        let holder = try Holder(data)
        holder.send("SELECT 1 FROM public.\"Loudoun_Address_Points_1\" WHERE fid = 834 FOR UPDATE;")
        try waitForHolder(data)
        final class Reply: @unchecked Sendable { var value: HTTPReply? }
        let reply = Reply()
        let answered = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            reply.value = try? server.request("/arcgis/rest/services/\(data.database!.name)/FeatureServer/applyEdits", method: "POST", form: [
                ("f", "json"), ("edits", #"[{"id": 0, "updates": [{"attributes": {"fid": 834, "AD_ADDRESS": 1}}, {"attributes": {"fid": 831, "AD_ADDRESS": 2}}]}]"#)])
            answered.signal()
        }
        try waitForWaiters(1, data)
        holder.send("SELECT 1 FROM public.\"Loudoun_Address_Points_1\" WHERE fid = 831 FOR UPDATE;")
        #expect(answered.wait(timeout: .now() + 120) == .success)
        holder.end()
        let answer = try #require(reply.value)
        #expect(answer.status == 200, "\(answer.text)")
        let layers = (try? JSONSerialization.jsonObject(with: answer.body)) as? [[String: Any]]
        let updates = try #require(layers?.first?["updateResults"] as? [[String: Any]], "per-edit results, not a request error: \(answer.text)")
        #expect(updates.count == 2)
        for update in updates {
            #expect(update["success"] as? Bool == false)
            let description = (update["error"] as? [String: Any])?["description"] as? String ?? ""
            #expect(description.contains("conflict with another edit, nothing written; try again"), "\(answer.text)")
        }
        #expect(try data.query("SELECT fid, \"AD_ADDRESS\" FROM public.\"Loudoun_Address_Points_1\" WHERE fid IN (831, 834) ORDER BY fid") == before)
        #expect(try server.request("/health").status == 200)
    }

    @Test("an edit waiting on another session's row lock ends at --edit-timeout: answered as the time limit, nothing written, the lock holder unharmed")
    func editTimeLimitHoldsWhileWaitingForALock() throws {
        guard let data = try EditedData(.postGIS) else { return }
        defer { data.drop() }
        let server = try ServeProcess(file: data.target, arguments: ["--edit-timeout", "2", "--quiet"])
        defer { _ = server.stop() }
        let points = "Loudoun_Address_Points_1"
        let before = try data.query("SELECT \"AD_ADDRESS\" FROM public.\"\(points)\" WHERE fid = 831")
        let entries = try data.query("SELECT count(*) FROM annolink.journal")
        // psql holds 831 until told; before the fix the edit waited for it as long as it held it.
        let holder = try Holder(data)
        holder.send("SELECT 1 FROM public.\"\(points)\" WHERE fid = 831 FOR UPDATE;")
        try waitForHolder(data)
        let reply = try server.request("/arcgis/rest/services/\(data.database!.name)/FeatureServer/applyEdits", method: "POST", form: [
            ("f", "json"), ("edits", #"[{"id": 0, "updates": [{"attributes": {"fid": 831, "AD_ADDRESS": 1}}]}]"#)])
        // The answer came while psql still holds the row: the edit did not wait for it.
        #expect(try data.query("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'psql' AND state = 'idle in transaction'") == "1")
        let error = reply.object?["error"] as? [String: Any]
        #expect(error?["code"] as? Int == 500, "\(reply.text)")
        #expect((error?["details"] as? [String])?.first?.contains("--edit-timeout") == true, "\(reply.text)")
        holder.end()
        #expect(try data.query("SELECT \"AD_ADDRESS\" FROM public.\"\(points)\" WHERE fid = 831") == before)
        #expect(try data.query("SELECT count(*) FROM annolink.journal") == entries)
        // The writer's connection has no limit left over: a long edit after it is not cut short.
        let next = try server.request("/arcgis/rest/services/\(data.database!.name)/FeatureServer/applyEdits", method: "POST", form: [
            ("f", "json"), ("edits", #"[{"id": 0, "updates": [{"attributes": {"fid": 831, "AD_ADDRESS": 43111}}]}]"#)])
        #expect(((try? JSONSerialization.jsonObject(with: next.body)) as? [[String: Any]])?.first?["updateResults"] != nil, "\(next.text)")
        #expect(try data.query("SELECT \"AD_ADDRESS\" FROM public.\"\(points)\" WHERE fid = 831") == "43111")
    }

    @Test("PostGIS: a retried add with its idempotency key is made once, gets the first answer, also from a second server; another request's use of the key is refused")
    func idempotencyKeysOnPostGIS() throws {
        guard let data = try EditedData(.postGIS) else { return }
        defer { data.drop() }
        let points = "Loudoun_Address_Points_1"
        var server = try ServeProcess(file: data.target, arguments: ["--quiet"])
        let service = "/arcgis/rest/services/\(data.database!.name)/FeatureServer"
        let layers = try server.request(service + "?f=json").object?["layers"] as? [[String: Any]] ?? []
        let layer = try #require(layers.first { $0["name"] as? String == points }?["id"] as? Int)
        let url = "\(service)/\(layer)/applyEdits"
        let rows = try data.query("SELECT count(*) FROM public.\"\(points)\"")
        let entries = try data.query("SELECT count(*) FROM annolink.journal")
        let x = try data.query("SELECT ST_X(geom) FROM public.\"\(points)\" WHERE fid = 831")
        let y = try data.query("SELECT ST_Y(geom) FROM public.\"\(points)\" WHERE fid = 831")
        let form = [("f", "json"), ("adds", #"[{"attributes":{"AD_ADDRESS":4242,"ST_STR_NAM":"KEYED"},"geometry":{"x":\#(x),"y":\#(y)}}]"#)]
        let first = try server.request(url, method: "POST", headers: ["Idempotency-Key": "pg-add-4242"], form: form)
        let added = try #require((first.object?["addResults"] as? [[String: Any]])?.first?["objectId"] as? Int, "\(first.text)")
        let again = try server.request(url, method: "POST", headers: ["Idempotency-Key": "pg-add-4242"], form: form)
        #expect(again.text == first.text)
        let other = try server.request(url, method: "POST", headers: ["Idempotency-Key": "pg-add-4242"],
                                       form: [("f", "json"), ("updates", #"[{"attributes":{"fid":831,"AD_ADDRESS":1}}]"#)])
        #expect((other.object?["error"] as? [String: Any])?["code"] as? Int == 400, "\(other.text)")
        // Another server on the same database (a client retrying through another server).
        #expect(server.stop() == 0)
        server = try ServeProcess(file: data.target, arguments: ["--quiet"])
        defer { _ = server.stop() }
        #expect(try server.request(url, method: "POST", headers: ["Idempotency-Key": "pg-add-4242"], form: form).text == first.text)
        #expect(try data.query("SELECT count(*) FROM public.\"\(points)\"") == String((Int(rows) ?? 0) + 1), "added once")
        #expect(try data.query("SELECT count(*) FROM public.\"\(points)\" WHERE \"AD_ADDRESS\" = 4242 AND fid = \(added)") == "1")
        #expect(try data.query("SELECT count(*) FROM annolink.journal") == String((Int(entries) ?? 0) + 1))
        #expect(try data.query("SELECT count(*) FROM annolink.request_keys WHERE key = 'pg-add-4242'") == "1")
        #expect(try data.query("SELECT \"AD_ADDRESS\" FROM public.\"\(points)\" WHERE fid = 831") != "1", "the refused request changed nothing")
    }
}
