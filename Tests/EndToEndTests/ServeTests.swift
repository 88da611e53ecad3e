import AnnoLinkTestSupport
import Foundation
import Testing

/// `annolink serve` as a process: readiness, the access log, stopping on signals (under load
/// too), and its usage errors. The server layer's answers are tested in process
/// (AnnoLinkServiceTests/HTTPServerTests); the interfaces' routes in their own suites.
@Suite struct ServeTests {
    /// A sample file in a fresh folder.
    func sample(parcels: Int = 20) throws -> String {
        let path = try Harness.temporaryDirectory().appendingPathComponent("town.gpkg").path
        let made = try Harness.annolink("sample", path, "--parcels", "\(parcels)")
        #expect(made.status == 0, "\(made.stderr)")
        return path
    }

    @Test func printsItsURLAnswersAndStopsOnSIGTERM() throws {
        let server = try ServeProcess(file: try sample())
        #expect(server.stdout.hasPrefix("annolink serve: town at http://127.0.0.1:\(server.port)/"))
        let health = try server.request("/health")
        #expect(health.status == 200)
        #expect(health.object?["status"] as? String == "ok")
        #expect(health.object?["dataset"] as? String == "town")
        #expect(try server.request("/no/such/thing").status == 404)
        #expect(server.stop() == 0)
        #expect(server.stderr.contains("annolink serve: stopping on SIGTERM"))
        #expect((try? HTTPClient.request(server.url + "/health").status) == 0, "nothing listens after the stop")
    }

    @Test func stopsOnSIGINTToo() throws {
        let server = try ServeProcess(file: try sample())
        #expect(server.stop(signal: SIGINT) == 0)
        #expect(server.stderr.contains("stopping on SIGINT"))
    }

    @Test func writesOneAccessLogLinePerRequestWithoutTokensOrForgedLines() throws {
        let scratch = try ScratchDirectory(prefix: "tokens")
        let tokens = scratch.path("tokens.txt")
        try "s3cret-token alice edit\nread-token bob read\n".write(toFile: tokens, atomically: true, encoding: .utf8)
        let server = try ServeProcess(file: try sample(), arguments: ["--tokens", tokens])
        _ = try server.request("/health?token=s3cret-token")
        _ = try server.request("/health", headers: ["Authorization": "Bearer read-token"])
        _ = try server.request("/health?token=wrong")
        _ = try server.request("/missing%0A2026-01-01T00:00:00.000Z%20GET%20/forged%20200%200.1ms%20admin")
        _ = try server.request("/health", method: "POST", headers: ["Content-Type": "text/plain"], body: Data("x".utf8))
        #expect(server.stop() == 0)
        let lines = server.stderr.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("annolink serve:") }
        let pattern = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (GET|POST) (\S+) (\d{3}) \d+\.\dms (\S+)/
        let parsed = lines.compactMap { line in line.wholeMatch(of: pattern).map { (String($0.1), String($0.2), String($0.3), String($0.4)) } }
        #expect(parsed.count == lines.count, "every line has the form: \(lines)")
        // The harness's own readiness check comes first.
        #expect(parsed.count == 6)
        #expect(parsed.dropFirst().map(\.0) == ["GET", "GET", "GET", "GET", "POST"])
        #expect(parsed.dropFirst().map(\.2) == ["200", "200", "200", "404", "405"])
        #expect(parsed.dropFirst().map(\.3) == ["alice", "bob", "?", "-", "-"])
        #expect(parsed[4].1.hasPrefix("/missing%0A2026-01-01T00:00:00.000Z%20GET%20/forged"), "the newline is escaped: \(parsed[4].1)")
        #expect(!server.stderr.contains("s3cret-token"), "tokens are never logged")
        #expect(!server.stderr.contains("read-token"))
    }

    @Test func sigtermDuringLoadFinishesAndExitsZero() throws {
        let server = try ServeProcess(file: try sample(parcels: 200))
        let statuses = StatusCollector()
        let url = server.url
        let clients = DispatchGroup()
        for _ in 0..<8 {
            DispatchQueue.global().async(group: clients) {
                // Each client keeps asking (new connections too) until the server is gone.
                for _ in 0..<40 {
                    let answers = (try? HTTPClient.statuses(Array(repeating: url + "/health", count: 10))) ?? []
                    statuses.add(answers)
                    if answers.contains(0) { break }
                }
            }
        }
        // SIGTERM once the clients are under way.
        let deadline = Date().addingTimeInterval(60)
        while statuses.all.filter({ $0 == 200 }).count < 50, Date() < deadline { usleep(20_000) }
        let status = server.stop()
        clients.wait()
        #expect(status == 0)
        let all = statuses.all
        #expect(all.filter { $0 == 200 }.count > 0, "the load ran")
        #expect(all.allSatisfy { $0 == 200 || $0 == 0 }, "answers were complete or the connection was refused, never an error: \(Set(all))")
    }

    @Test func readOnlyLeavesTheFileAsItIsAndAWritableServerSwitchesToWAL() throws {
        let path = try sample()
        #expect(try Harness.sqlite(path, "PRAGMA journal_mode = DELETE") == "delete")
        let before = try Harness.dump(path, excluding: [])
        let readOnly = try ServeProcess(file: path, arguments: ["--read-only"])
        #expect(try readOnly.request("/health").object?["readOnly"] as? Bool == true)
        #expect(readOnly.stop() == 0)
        #expect(try Harness.sqlite(path, "PRAGMA journal_mode") == "delete")
        #expect(try Harness.dump(path, excluding: []) == before)

        let writable = try ServeProcess(file: path)
        #expect(try writable.request("/health").object?["readOnly"] as? Bool == false)
        #expect(writable.stop() == 0)
        #expect(try Harness.sqlite(path, "PRAGMA journal_mode") == "wal")
    }

    @Test func usageAndStartupErrors() throws {
        let path = try sample()
        let scratch = try ScratchDirectory(prefix: "serve-errors")
        func serve(_ arguments: String...) throws -> Harness.Result { try Harness.annolink(["serve", path] + arguments) }

        let address = try serve("--listen", "somewhere")
        #expect(address.status == 64)
        #expect(address.stderr.hasPrefix("error: 'somewhere' is not an address to listen on"))
        #expect(try serve("--listen", "127.0.0.1:70000").status == 64)
        #expect(try serve("--max-records", "0").status == 64)
        #expect(try serve("--max-body", "-5").status == 64)
        #expect(try serve("--query-timeout", "nan").status == 64)
        #expect(try serve("--threads", "0").status == 64)

        let missingTokens = try serve("--tokens", scratch.path("none.txt"))
        #expect(missingTokens.status == 66)
        #expect(missingTokens.stderr.hasPrefix("error: no such token file"))
        let badTokens = scratch.path("bad.txt")
        try "# users\nabc alice edit\nxyz bob write\n".write(toFile: badTokens, atomically: true, encoding: .utf8)
        let bad = try serve("--tokens", badTokens)
        #expect(bad.status == 65)
        #expect(bad.stderr == "error: \(badTokens) line 3: the right must be 'read' or 'edit', not 'write'\n")

        let missingFile = try Harness.annolink("serve", scratch.path("absent.gpkg"))
        #expect(missingFile.status == 66)

        // A port in use: the second server cannot listen.
        let first = try ServeProcess(file: path)
        let second = try serve("--listen", "127.0.0.1:\(first.port)")
        #expect(second.status == 75)
        #expect(second.stderr.hasPrefix("error: cannot listen on 127.0.0.1:\(first.port)"))
        #expect(first.stop() == 0)

        let help = try Harness.annolink("serve", "--help")
        #expect(help.status == 0)
        for option in ["--listen HOST:PORT", "--read-only", "--tokens FILE", "--max-records N", "--max-body BYTES", "--query-timeout SECONDS"] {
            #expect(help.stdout.contains(option))
        }
    }

    @Test func logShowsTheUserOfAnEdit() throws {
        let path = try sample()
        #expect(try Harness.annolink("set", path, "address_points", "1", "ST_STR_NAM=OAK").status == 0)
        // What a server edit with a token writes: the entry's user.
        _ = try Harness.sqlite(path, "UPDATE annolink_journal SET user = 'alice' WHERE id = 1")
        let log = try Harness.annolink("log", path)
        #expect(log.status == 0)
        #expect(log.stdout.contains("[alice] annolink set"))
        let json = try Harness.annolink("log", path, "--json")
        #expect(json.stdout.contains(#""user" : "alice""#))
    }
}

/// Status codes gathered from concurrent clients.
private final class StatusCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var statuses: [Int] = []

    func add(_ values: [Int]) {
        lock.lock()
        statuses += values
        lock.unlock()
    }

    var all: [Int] {
        lock.lock()
        defer { lock.unlock() }
        return statuses
    }
}
