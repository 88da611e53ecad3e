import AnnoLinkImport
import AnnoLinkService
import AnnoLinkStore
import AnnoLinkTestSupport
import Foundation
import Testing

/// The map editor's GeoView answers in process (docs/editor.md, docs/serve.md): `/coordinates`
/// against PROJ's `cs2cs`, `/render.png` sizes and refusals, and the `labelFields` the page reads
/// to refuse an empty label field. What the page does with them is tested in
/// EndToEndTests/MapGeoViewTests.
@Suite struct GeoViewRoutesTests {
    let routes = MapPageRoutes()

    /// Loudoun (EPSG:2924, US survey feet) imported into a scratch folder, which must outlive the
    /// dataset: a server refuses a file that is gone (docs/serve.md).
    static func loudoun() throws -> (ScratchDirectory, Dataset) {
        let scratch = try ScratchDirectory(prefix: "geoview")
        let path = scratch.path("loudoun.gpkg")
        let source = try Connection(path: Fixtures.loudoun, mode: .readOnly)
        _ = try GeoPackage.build(at: path) { try MobileGeodatabaseImporter.run(source: source, into: $0) }
        return (scratch, try Dataset(path: path, readOnly: true))
    }

    func get(_ path: String, _ parameters: [String: String] = [:], method: String = "GET", caller: Caller = .anonymous(mayEdit: true),
             in dataset: Dataset) throws -> HTTPResponse {
        try #require(routes.respond(to: HTTPRequest(method: method, path: path, parameters: parameters, caller: caller), in: dataset))
    }

    func json(_ response: HTTPResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    func header(_ response: HTTPResponse, _ name: String) -> String? {
        response.headers.first { $0.name == name }?.value
    }

    @Test func coordinatesAreLongitudeLatitudeAsCs2csGivesThem() throws {
        let (scratch, dataset) = try Self.loudoun()
        defer { withExtendedLifetime(scratch) {} }
        let points = [(11790000.0, 7056000.0), (11788123.25, 7059001.5), (11791999.0, 7054800.75)]
        let input = points.map { String(format: "%.6f %.6f", $0.0, $0.1) }.joined(separator: "\n") + "\n"
        let lines = try ExternalTool.cs2cs.output(["-f", "%.10f", "EPSG:2924", "EPSG:4326"], input: input).split(separator: "\n")
        try #require(lines.count == points.count)
        for (point, line) in zip(points, lines) {
            let response = try get("/coordinates", ["x": String(point.0), "y": String(point.1)], in: dataset)
            #expect(response.status == 200)
            let answer = try json(response)
            #expect(answer["crs"] as? String == "EPSG:2924")
            #expect(answer["x"] as? Double == point.0 && answer["y"] as? Double == point.1)
            // cs2cs writes latitude, longitude (EPSG:4326's axis order).
            let numbers = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap { Double($0) }
            let longitude = try #require(answer["longitude"] as? Double), latitude = try #require(answer["latitude"] as? Double)
            #expect(abs(longitude - numbers[1]) < 1e-9 && abs(latitude - numbers[0]) < 1e-9, "\(longitude), \(latitude) vs cs2cs \(line)")
        }
    }

    @Test(arguments: [
        ([:], "x is missing"), (["x": "1"], "y is missing"), (["x": "abc", "y": "1"], "x 'abc' is not a number"),
        (["x": "1", "y": "inf"], "y 'inf' is not a number"),
        // Issue 25: Swift's Double("0x10") is 16; a coordinate is decimal.
        (["x": "0x10", "y": "1"], "x '0x10' is not a number"), (["x": "1", "y": "0X1p4"], "y '0X1p4' is not a number"),
    ] as [([String: String], String)])
    func coordinatesRefuseWhatIsNotAPoint(parameters: [String: String], detail: String) throws {
        let (scratch, dataset) = try Self.loudoun()
        defer { withExtendedLifetime(scratch) {} }
        let response = try get("/coordinates", parameters, in: dataset)
        #expect(response.status == 400)
        #expect(header(response, "Content-Type") == "application/problem+json")
        #expect(try json(response)["detail"] as? String == detail)
    }

    @Test func anUnknownTokenAndOtherMethodsAreRefused() throws {
        let (scratch, dataset) = try Self.loudoun()
        defer { withExtendedLifetime(scratch) {} }
        let refused = try get("/coordinates", ["x": "1", "y": "2"], caller: .invalidToken, in: dataset)
        #expect(refused.status == 401 && header(refused, "WWW-Authenticate") == #"Bearer realm="annolink", error="invalid_token""#)
        let image = try get("/render.png", ["bbox": "0,0,1,1", "width": "10", "height": "10"], caller: .invalidToken, in: dataset)
        #expect(image.status == 401)
        // Reads need no token: an anonymous caller of a server with --tokens may ask.
        #expect(try get("/coordinates", ["x": "11790000", "y": "7056000"], caller: .anonymous(mayEdit: false), in: dataset).status == 200)
        let post = try get("/render.png", method: "POST", in: dataset)
        #expect(post.status == 405 && header(post, "Allow") == "GET, HEAD")
    }

    @Test func renderDrawsThePictureAsBigAsAsked() throws {
        let (scratch, dataset) = try Self.loudoun()
        defer { withExtendedLifetime(scratch) {} }
        let response = try get("/render.png", ["bbox": "11789500,7055700,11791300,7057300", "width": "640", "height": "569"], in: dataset)
        #expect(response.status == 200)
        #expect(header(response, "Content-Type") == "image/png")
        #expect(header(response, "Content-Disposition") == #"attachment; filename="loudoun.png""#)
        let bytes = response.body
        try #require(bytes.count > 1000)
        #expect(Array(bytes.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let be = { (i: Int) in bytes[i..<i + 4].reduce(0) { $0 << 8 | Int($1) } }
        #expect(be(16) == 640 && be(20) == 569)
    }

    /// The page's overview of a dense view: the same features as the full picture, those under a
    /// pixel drawn from the R-tree (one a pixel, the rest counted), text under a pixel passed
    /// over and counted; where nothing is that small, the same as the full picture.
    @Test func theOverviewBoundsItsWorkAndSaysWhatItLeftOut() throws {
        let (scratch, dataset) = try Self.loudoun()
        defer { withExtendedLifetime(scratch) {} }
        let count = { (r: HTTPResponse, name: String) in Int(self.header(r, "X-Annolink-" + name) ?? "") ?? -1 }
        // The whole of Loudoun's sample area in 16 × 14 pixels: points and text are under a pixel.
        let small = ["bbox": "11787000,7053000,11794000,7059000", "width": "16", "height": "14"]
        let full = try get("/render.png", small, in: dataset)
        let overview = try get("/render.png", small.merging(["overview": "true"]) { $1 }, in: dataset)
        try #require(full.status == 200 && overview.status == 200)
        #expect(count(full, "Labels") > 100 && count(full, "Features") > 100 && count(full, "Features-From-Index") == 0)
        #expect(count(overview, "Labels") == 0 && count(overview, "Labels-Under-Minimum") >= count(full, "Labels"))
        #expect(count(overview, "Features-From-Index") > 0)
        #expect(count(overview, "Features") + count(overview, "Features-Sharing-Pixels") == count(full, "Features"))
        #expect(count(overview, "Features-Sharing-Pixels") > 0, "16 × 14 pixels hold fewer than Loudoun's address points")
        // At 1:1200 all the text is drawn, and every feature: the points' R-tree boxes (float32,
        // rounded outward, about 2 feet there) are under a pixel, but no two share one.
        let near = ["bbox": "11789500,7055700,11791300,7057300", "width": "640", "height": "569"]
        let nearFull = try get("/render.png", near, in: dataset)
        let nearOverview = try get("/render.png", near.merging(["overview": "true"]) { $1 }, in: dataset)
        #expect(count(nearOverview, "Labels") == count(nearFull, "Labels") && count(nearOverview, "Labels") > 10)
        #expect(count(nearOverview, "Labels-Under-Minimum") == 0 && count(nearOverview, "Features-Sharing-Pixels") == 0)
        #expect(count(nearOverview, "Features") == count(nearFull, "Features"))
    }

    @Test(arguments: [
        ([:], "bbox is missing: give MINX,MINY,MAXX,MAXY in the data's CRS"),
        (["bbox": "1,2,3"], "bbox '1,2,3' is not MINX,MINY,MAXX,MAXY (four numbers)"),
        (["bbox": "1,2,x,4"], "bbox '1,2,x,4' is not MINX,MINY,MAXX,MAXY (four numbers)"),
        (["bbox": "3,2,1,4", "width": "10", "height": "10"], "bbox '3,2,1,4' needs MINX < MAXX and MINY < MAXY"),
        (["bbox": "1,2,3,4", "height": "10"], "width is missing (pixels, 1 to 4096)"),
        (["bbox": "1,2,3,4", "width": "0", "height": "10"], "width '0' is not a whole number of pixels from 1 to 4096"),
        (["bbox": "1,2,3,4", "width": "10", "height": "4097"], "height '4097' is not a whole number of pixels from 1 to 4096"),
        (["bbox": "1,2,3,4", "width": "10.5", "height": "10"], "width '10.5' is not a whole number of pixels from 1 to 4096"),
        (["bbox": "1,2,3,4", "width": "10", "height": "10", "overview": "yes"], "overview 'yes' is not true or false"),
        (["bbox": "0x1,2,3,4", "width": "10", "height": "10"], "bbox '0x1,2,3,4' is not MINX,MINY,MAXX,MAXY (four numbers)"),
        // Issue 25: a 500 from Cairo's matrix before.
        (["bbox": "-1e300,-1e300,1e300,1e300", "width": "100", "height": "100"],
         "bbox '-1e300,-1e300,1e300,1e300': one pixel would cover 2e+298 map units, more than the 1e+12 a map can use"),
    ] as [([String: String], String)])
    func renderRefusesBadViews(parameters: [String: String], detail: String) throws {
        let (scratch, dataset) = try Self.loudoun()
        defer { withExtendedLifetime(scratch) {} }
        let response = try get("/render.png", parameters, in: dataset)
        #expect(response.status == 400)
        #expect(try json(response)["detail"] as? String == detail)
    }

    @Test func annotationClassesSayWhichFieldsTheirLabelsRead() throws {
        let (scratch, dataset) = try Self.loudoun()
        defer { withExtendedLifetime(scratch) {} }
        let response = try #require(FeatureServerRoutes().respond(
            to: HTTPRequest(method: "GET", path: "/arcgis/rest/services/loudoun/FeatureServer/6", parameters: ["f": "json"]), in: dataset))
        let layer = try json(response)
        let classes = try #require(layer["annotationClasses"] as? [[String: Any]])
        #expect(classes.first?["labelFields"] as? [String] == ["AD_ADDRESS", "ST_STR_NAM"])
        let lines = try #require(FeatureServerRoutes().respond(
            to: HTTPRequest(method: "GET", path: "/arcgis/rest/services/loudoun/FeatureServer/7", parameters: ["f": "json"]), in: dataset))
        // Round(Length(Geometry($feature), 'feet'), 2) reads no field.
        #expect((try json(lines)["annotationClasses"] as? [[String: Any]])?.first?["labelFields"] as? [String] == [])
    }
}
