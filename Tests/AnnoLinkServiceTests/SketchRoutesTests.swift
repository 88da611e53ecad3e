import AnnoLinkImport
import AnnoLinkService
import AnnoLinkStore
import AnnoLinkTestSupport
import Foundation
import Testing

/// The bounds of `SketchRoutes` (docs/serve.md, "Sketch sessions"), in process with small
/// limits: how many sessions may be open, how long one may idle, whose and which file's it is.
@Suite struct SketchRoutesTests {
    func sample(in scratch: ScratchDirectory, name: String = "sample.gpkg") throws -> String {
        let path = scratch.path(name)
        let package = try GeoPackage.create(path: path)
        try package.addSpatialReferenceSystem(epsg: SampleGenerator.srsID)
        _ = try SampleWriter.write(SampleGenerator(parcels: 8, seed: 3), into: package)
        return path
    }

    func create(_ routes: SketchRoutes, _ dataset: Dataset, caller: Caller = .anonymous(mayEdit: true)) -> HTTPResponse? {
        let body = #"{"table": "parcel_lines", "view": {"center": [0, 0], "scale": 1200, "width": 800, "height": 600}}"#
        return routes.respond(to: HTTPRequest(method: "POST", path: "/sketch/sessions", body: Array(body.utf8), caller: caller), in: dataset)
    }

    func id(_ response: HTTPResponse?) -> String? {
        guard let response, let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] else { return nil }
        return object["id"] as? String
    }

    func get(_ routes: SketchRoutes, _ dataset: Dataset, _ id: String, caller: Caller = .anonymous(mayEdit: true)) -> Int? {
        routes.respond(to: HTTPRequest(method: "GET", path: "/sketch/sessions/\(id)", caller: caller), in: dataset)?.status
    }

    @Test("at most `limit` sessions (503 with Retry-After beyond); an idle one ends and frees its place; ids are 128 random bits")
    func limits() throws {
        let scratch = try ScratchDirectory(prefix: "sketch-routes")
        let dataset = try Dataset(path: try sample(in: scratch))
        let routes = SketchRoutes(limit: 2, idleSeconds: 0.5)
        let first = try #require(id(create(routes, dataset))), second = try #require(id(create(routes, dataset)))
        #expect(first != second && first.count == 32 && second.allSatisfy(\.isHexDigit))
        let third = try #require(create(routes, dataset))
        #expect(third.status == 503)
        #expect(third.headers.contains { $0.name == "Retry-After" })
        #expect(routes.openSessions == 2)
        // A request keeps a session alive; the other idles out.
        for _ in 0..<4 {
            Thread.sleep(forTimeInterval: 0.2)
            #expect(get(routes, dataset, first) == 200)
        }
        let fourth = try #require(id(create(routes, dataset)), "the idle session's place is free")
        #expect(get(routes, dataset, second) == 404)
        #expect(get(routes, dataset, first) == 200 && get(routes, dataset, fourth) == 200)
    }

    @Test("a session answers only its own user and its own file")
    func ownership() throws {
        let scratch = try ScratchDirectory(prefix: "sketch-routes")
        let dataset = try Dataset(path: try sample(in: scratch))
        let other = try Dataset(path: try sample(in: scratch, name: "other.gpkg"))
        let routes = SketchRoutes()
        let alice = Caller.user(name: "alice", mayEdit: true)
        let session = try #require(id(create(routes, dataset, caller: alice)))
        #expect(get(routes, dataset, session, caller: alice) == 200)
        #expect(get(routes, dataset, session, caller: .user(name: "bob", mayEdit: true)) == 404)
        #expect(get(routes, dataset, session) == 404)
        #expect(get(routes, other, session, caller: alice) == 404)
        #expect(routes.respond(to: HTTPRequest(method: "GET", path: "/sketchy"), in: dataset) == nil, "other paths are left to the other routes")
    }
}
