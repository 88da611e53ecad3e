import AnnoLinkTestSupport
import Foundation
import Testing

/// The sketch-session routes of `annolink serve` (docs/serve.md, "Sketch sessions") over real
/// HTTP (curl against the real server on the Loudoun import): the vertex tool's gestures and a
/// save, and every refusal a well-formed problem document with its status.
@Suite("Sketch session routes over HTTP", .serialized)
struct SketchRouteTests {
    static let json = ["Content-Type": "application/json"]

    /// Sends `body` (a JSON object) to `path`.
    func send(_ server: ServeProcess, _ path: String, _ method: String = "POST", _ body: [String: Any]? = nil,
              token: String? = nil) throws -> HTTPReply {
        var headers = Self.json
        if let token { headers["Authorization"] = "Bearer \(token)" }
        let data = try body.map { try JSONSerialization.data(withJSONObject: $0) }
        return try server.request(path, method: method, headers: headers, body: data)
    }

    /// Whether `reply` is a problem document of `status` whose detail contains `text`.
    func refused(_ reply: HTTPReply, _ status: Int, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status == status, "\(reply.status) \(reply.text)", sourceLocation: sourceLocation)
        #expect(reply.headers["content-type"] == "application/problem+json", sourceLocation: sourceLocation)
        #expect(reply.object?["status"] as? Int == status, sourceLocation: sourceLocation)
        #expect((reply.object?["detail"] as? String)?.contains(text) == true, "\(reply.text)", sourceLocation: sourceLocation)
    }

    static var view: [String: Any] { ["center": [11_789_200.0, 7_057_600.0], "scale": 1200, "width": 800, "height": 600] }

    @Test("refusals: 404 unknown session, 400 bad action or body, 409 editor and edit-service refusals, 405, DELETE ends")
    func refusals() throws {
        guard let (path, server) = try Harness.serveLoudoun(["--quiet"]) else { return }
        defer { _ = server.stop() }
        let unknown = "/sketch/sessions/0123456789abcdef0123456789abcdef"
        refused(try send(server, unknown + "/actions", "POST", ["action": "button"]), 404, "there is no sketch session")
        refused(try send(server, unknown, "GET"), 404, "there is no sketch session")
        refused(try send(server, unknown + "/save", "POST", [:]), 404, "there is no sketch session")
        refused(try send(server, "/sketch/sessions/x/y/z", "GET"), 404, "there is no resource")
        refused(try server.request("/sketch/sessions", method: "POST", headers: Self.json, body: Data("not json".utf8)), 400, "JSON object")
        refused(try send(server, "/sketch/sessions", "POST", ["type": "polygon"]), 400, "\"table\"")
        refused(try send(server, "/sketch/sessions", "POST", ["table": "NoSuchTable"]), 404, "no feature table NoSuchTable")
        refused(try send(server, "/sketch/sessions", "POST", ["table": "ParcelLinesAnno_1"]), 400, "is an annotation table")
        refused(try send(server, "/sketch/sessions", "POST", ["table": "ParcelLines_1", "type": "polygon"]), 400, "holds LINESTRING geometries")
        refused(try send(server, "/sketch/sessions", "POST", ["table": "ParcelLines_1", "fid": 999_999_999]), 404, "has no feature 999999999")
        refused(try send(server, "/sketch/sessions", "GET"), 405, "answers POST only")

        let created = try send(server, "/sketch/sessions", "POST", ["table": "Loudoun_Buildings_1", "view": Self.view])
        #expect(created.status == 201, "\(created.text)")
        let id = try #require(created.object?["id"] as? String)
        #expect(id.count == 32 && id.allSatisfy(\.isHexDigit), "128 random bits: \(id)")
        #expect(created.headers["location"] == "/sketch/sessions/\(id)")
        #expect(created.object?["button"] as? String == "Insert point")
        let actions = "/sketch/sessions/\(id)/actions"
        refused(try send(server, actions, "POST", ["action": "bogus"]), 400, "unknown action 'bogus'")
        refused(try send(server, actions, "POST", ["dx": 1]), 400, "\"action\"")
        refused(try send(server, actions, "POST", ["action": "pan", "dx": 10]), 400, "\"dy\"")
        refused(try send(server, actions, "POST", ["action": "view", "view": ["center": [1, 2], "scale": -5]]), 400, "invalid viewpoint")
        refused(try send(server, actions, "POST", ["action": "delete"]), 409, "nothing is selected")
        refused(try send(server, actions, "POST", ["action": "undo"]), 409, "nothing to undo")
        refused(try send(server, actions, "POST", ["action": "drag", "from": [1, 1], "to": [2, 2]]), 409, "vertex-tool gesture")
        refused(try send(server, actions, "POST", ["action": "select-vertex", "part": 3, "vertex": 0]), 409, "part 3 does not exist")

        // Too few vertices: the session's refusal; then a bow tie: the edit service's (GEOS's).
        for point in [[11_789_200.0, 7_057_600.0], [11_789_300.0, 7_057_500.0]] {
            #expect(try send(server, actions, "POST", ["action": "insert", "point": point]).status == 200)
        }
        refused(try send(server, "/sketch/sessions/\(id)/save", "POST", [:]), 409, "not valid yet")
        for point in [[11_789_300.0, 7_057_600.0], [11_789_200.0, 7_057_500.0]] {
            #expect(try send(server, actions, "POST", ["action": "insert", "point": point]).status == 200)
        }
        let buildings = try Harness.sqlite(path, "SELECT count(*) FROM Loudoun_Buildings_1")
        let refusal = try send(server, "/sketch/sessions/\(id)/save", "POST", [:])
        // GEOS's reason, as `annolink add` and applyEdits give it.
        refused(refusal, 409, "invalid geometry: Self-intersection")
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM Loudoun_Buildings_1") == buildings, "nothing written")
        #expect(try Harness.annolink("log", path).stdout.contains("sketch") == false, "no journal entry")
        // The session is still open after a refused save; DELETE ends it, and it is gone.
        let state = try send(server, "/sketch/sessions/\(id)", "GET")
        #expect(state.status == 200 && (state.object?["parts"] as? [[Any]])?.first?.count == 4)
        refused(try send(server, "/sketch/sessions/\(id)", "PUT", [:]), 405, "answers GET and DELETE only")
        let ended = try send(server, "/sketch/sessions/\(id)", "DELETE")
        #expect(ended.status == 200 && ended.object?["ended"] as? Bool == true && ended.object?["saved"] as? Bool == false)
        refused(try send(server, "/sketch/sessions/\(id)", "GET"), 404, "there is no sketch session")
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM Loudoun_Buildings_1") == buildings)
    }

    @Test("the vertex tool on a parcel line: drag its end, drag a mid-vertex out, delete, undo, save reshapes it and its label")
    func vertexTool() throws {
        guard let (path, server) = try Harness.serveLoudoun(["--quiet"]) else { return }
        defer { _ = server.stop() }
        // A two-point parcel line with a length label (the FeatureServer's layer 5).
        let layer = "/arcgis/rest/services/loudoun/FeatureServer/5/query"
        let labelled = Set(try Harness.sqlite(path, "SELECT FeatureID FROM ParcelLinesAnno_1").split(separator: "\n").map(String.init))
        func paths(_ query: String) throws -> [(fid: Int, points: Int)] {
            let features = try server.request(layer + "?" + query + "&outFields=fid&returnGeometry=true&f=json").object?["features"] as? [[String: Any]] ?? []
            return features.compactMap { f in
                guard let fid = (f["attributes"] as? [String: Any])?["fid"] as? Int,
                      let paths = (f["geometry"] as? [String: Any])?["paths"] as? [[[Double]]], paths.count == 1 else { return nil }
                return (fid, paths[0].count)
            }
        }
        let fid = String(try #require(try paths("where=1%3D1&orderByFields=fid").first { $0.points == 2 && labelled.contains(String($0.fid)) }?.fid))
        let labelBefore = try Harness.sqlite(path, "SELECT TextString FROM ParcelLinesAnno_1 WHERE FeatureID = \(fid)")
        let created = try send(server, "/sketch/sessions", "POST", ["table": "ParcelLines_1", "fid": Int(fid)!, "tool": "vertex"])
        #expect(created.status == 201, "\(created.text)")
        let id = try #require(created.object?["id"] as? String)
        let parts = try #require(created.object?["parts"] as? [[[Double]]])
        try #require(parts.count == 1 && parts[0].count == 2)
        // The default view: centred on the line at 1:1200, 800 × 600 points.
        let view = try #require(created.object?["view"] as? [String: Any])
        let centre = try #require(view["center"] as? [Double])
        let u = 1200 * 0.0254 / 96 / (1200.0 / 3937.0)
        func screen(_ p: [Double]) -> [Double] { [400 + (p[0] - centre[0]) / u, 300 - (p[1] - centre[1]) / u] }
        let actions = "/sketch/sessions/\(id)/actions"
        // Drag the end 40 points right: the vertex moves there.
        let end = screen(parts[0][1])
        let dragged = try send(server, actions, "POST", ["action": "drag", "from": end, "to": [end[0] + 40, end[1]]])
        #expect(dragged.status == 200, "\(dragged.text)")
        let moved = try #require(dragged.object?["parts"] as? [[[Double]]])
        #expect(abs(moved[0][1][0] - (parts[0][1][0] + 40 * u)) < 1e-6 && abs(moved[0][1][1] - parts[0][1][1]) < 1e-6)
        // Drag the mid-vertex 20 points down: a new vertex in the segment.
        let mids = try #require(dragged.object?["midVertices"] as? [[String: Any]])
        let mid = try #require(mids.first?["point"] as? [Double])
        let m = screen(mid)
        let inserted = try send(server, actions, "POST", ["action": "drag", "from": m, "to": [m[0], m[1] + 20]])
        let three = try #require(inserted.object?["parts"] as? [[[Double]]])
        #expect(three[0].count == 3 && abs(three[0][1][1] - (mid[1] - 20 * u)) < 1e-6, "\(inserted.text)")
        #expect((inserted.object?["selected"] as? [String: Any])?["description"] as? String == "vertex 1 of part 0")
        // Delete the selected vertex, undo the delete.
        let deleted = try send(server, actions, "POST", ["action": "delete"])
        #expect((deleted.object?["parts"] as? [[[Double]]])?[0].count == 2)
        let undone = try send(server, actions, "POST", ["action": "undo"])
        #expect((undone.object?["parts"] as? [[[Double]]]) ?? [] == three)
        #expect(undone.object?["canRedo"] as? Bool == true)

        let saved = try send(server, "/sketch/sessions/\(id)/save", "POST", [:])
        #expect(saved.status == 200, "\(saved.text)")
        let result = try #require(saved.object?["result"] as? [String: Any])
        #expect(result["edit"] as? String == "reshape" && result["fid"] as? Int == Int(fid))
        #expect(try paths("objectIds=\(fid)").first?.points == 3)
        #expect(try Harness.sqlite(path, "SELECT command FROM annolink_journal") == "serve sketch save")
        #expect(try Harness.sqlite(path, "SELECT TextString FROM ParcelLinesAnno_1 WHERE FeatureID = \(fid)") != labelBefore,
                "the length label follows the new shape")
        refused(try send(server, "/sketch/sessions/\(id)", "GET"), 404, "there is no sketch session")
    }

    @Test("a read-only server lets a sketch be drawn and refuses its save (403); nothing written")
    func readOnly() throws {
        guard let (path, server) = try Harness.serveLoudoun(["--quiet", "--read-only"]) else { return }
        defer { _ = server.stop() }
        let before = try Harness.dump(path)
        let created = try send(server, "/sketch/sessions", "POST", ["table": "Loudoun_Address_Points_1", "view": Self.view])
        let id = try #require(created.object?["id"] as? String, "\(created.text)")
        #expect(try send(server, "/sketch/sessions/\(id)/actions", "POST", ["action": "button"]).object?["valid"] as? Bool == true)
        refused(try send(server, "/sketch/sessions/\(id)/save", "POST", [:]), 403, "read-only")
        #expect(try Harness.dump(path) == before)
    }

    @Test("--sketch-sessions and --sketch-idle bound the sessions: one more is 503, an idle one ends and frees its place")
    func sessionBoundsFromTheCommandLine() throws {
        guard let (_, server) = try Harness.serveLoudoun(["--quiet", "--sketch-sessions", "2", "--sketch-idle", "2"]) else { return }
        defer { _ = server.stop() }
        let start: [String: Any] = ["table": "ParcelLines_1", "view": Self.view]
        let first = try #require(try send(server, "/sketch/sessions", "POST", start).object?["id"] as? String)
        let second = try send(server, "/sketch/sessions", "POST", start)
        #expect(second.status == 201, "\(second.text)")
        let third = try send(server, "/sketch/sessions", "POST", start)
        refused(third, 503, "2 sketch sessions are open")
        #expect(third.headers["retry-after"] == "60")
        // Both idle for longer than 2 s: ended, their places free, the first one's id unknown.
        Thread.sleep(forTimeInterval: 2.5)
        #expect(try send(server, "/sketch/sessions", "POST", start).status == 201)
        refused(try send(server, "/sketch/sessions/\(first)", "GET"), 404, "idle longer than 2 s")
    }

    @Test("tokens as on the other edit routes: 401 without or with a bad token, 403 read-only token; a session is its user's only")
    func tokens() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let scratch = try ScratchDirectory(prefix: "tokens")
        let tokens = scratch.path("tokens.txt")
        try "alice-token alice edit\nbob-token bob edit\nreader-token reader read\n".write(toFile: tokens, atomically: true, encoding: .utf8)
        let server = try ServeProcess(file: path, arguments: ["--quiet", "--tokens", tokens])
        defer { _ = server.stop() }
        let body: [String: Any] = ["table": "ParcelLines_1", "view": Self.view]
        let anonymous = try send(server, "/sketch/sessions", "POST", body)
        refused(anonymous, 401, "needs a token")
        // The challenge of the other interfaces (RFC 6750): the realm, and why a token failed.
        #expect(anonymous.headers["www-authenticate"] == #"Bearer realm="annolink""#)
        let wrong = try send(server, "/sketch/sessions", "POST", body, token: "wrong")
        refused(wrong, 401, "not valid")
        #expect(wrong.headers["www-authenticate"] == #"Bearer realm="annolink", error="invalid_token""#)
        refused(try send(server, "/sketch/sessions", "POST", body, token: "reader-token"), 403, "grants reading only")
        let created = try send(server, "/sketch/sessions", "POST", body, token: "alice-token")
        let id = try #require(created.object?["id"] as? String, "\(created.text)")
        // Bob's token does not reach Alice's session, nor does no token.
        refused(try send(server, "/sketch/sessions/\(id)", "GET", token: "bob-token"), 404, "there is no sketch session")
        refused(try send(server, "/sketch/sessions/\(id)/actions", "POST", ["action": "button"]), 401, "needs a token")
        for point in [[11_789_200.0, 7_057_600.0], [11_789_300.0, 7_057_500.0]] {
            #expect(try send(server, "/sketch/sessions/\(id)/actions", "POST", ["action": "insert", "point": point], token: "alice-token").status == 200)
        }
        let saved = try send(server, "/sketch/sessions/\(id)/save", "POST", ["values": ["LEFT_FID": 45_001]], token: "alice-token")
        #expect(saved.status == 200, "\(saved.text)")
        let fid = try #require((saved.object?["result"] as? [String: Any])?["fid"] as? Int)
        #expect(try Harness.sqlite(path, "SELECT user FROM annolink_journal") == "alice")
        #expect(try Harness.sqlite(path, "SELECT LEFT_FID FROM ParcelLines_1 WHERE fid = \(fid)") == "45001")
        #expect(try Harness.sqlite(path, "SELECT GlobalID FROM ParcelLines_1 WHERE fid = \(fid)").hasPrefix("{"), "the server gave it a GlobalID")
    }
}
