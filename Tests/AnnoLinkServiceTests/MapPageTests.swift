@testable import AnnoLinkService
import AnnoLinkTestSupport
import Foundation
import Testing

/// The map editor's files answered in process: the page, its script and style, Leaflet from
/// Debian's `libjs-leaflet`, Tahoma from `fonts-wine`, and nothing else from the file system.
/// What the page does in a browser is tested in EndToEndTests/MapEditorTests.
@Suite struct MapPageTests {
    let routes = MapPageRoutes()

    /// Helsinki's address points copied into a scratch folder under `name`, served read-only.
    func dataset(named name: String = "helsinki") throws -> (ScratchDirectory, Dataset) {
        let scratch = try ScratchDirectory(prefix: "mappage")
        let path = scratch.path(name + ".gpkg")
        try FileManager.default.copyItem(atPath: Fixtures.helsinki, toPath: path)
        return (scratch, try Dataset(path: path, readOnly: true))
    }

    func get(_ path: String, method: String = "GET", in dataset: Dataset) -> HTTPResponse? {
        routes.respond(to: HTTPRequest(method: method, path: path), in: dataset)
    }

    func contentType(_ response: HTTPResponse?) -> String? {
        response?.headers.first { $0.name == "Content-Type" }?.value
    }

    @Test func thePageNamesItsServiceAndLoadsLeafletAndTheEditor() throws {
        let (_, dataset) = try dataset()
        let page = try #require(get("/", in: dataset))
        #expect(page.status == 200)
        #expect(contentType(page) == "text/html; charset=utf-8")
        let html = String(decoding: page.body, as: UTF8.self)
        // Relative URLs against <base href>, so that the page works under any path prefix.
        #expect(html.contains(#"<base href="/">"#))
        #expect(html.contains(#"data-service="arcgis/rest/services/helsinki/FeatureServer""#))
        #expect(html.contains(#"<script src="leaflet/leaflet.js"></script>"#))
        #expect(html.contains(#"<script src="editor.js"></script>"#))
        #expect(get("/index.html", in: dataset)?.body == page.body)
        // The modules after the core; the token field, named for screen readers.
        #expect(html.contains(#"<script src="editor-geoview.js"></script>"#))
        #expect(html.contains(#"<input id="token" type="password" autocomplete="off" aria-label="access token (kept in this tab only)""#))
        let geoView = try #require(get("/editor-geoview.js", in: dataset))
        #expect(geoView.status == 200 && String(decoding: geoView.body, as: UTF8.self).contains("'render.png?'"))
    }

    @Test func underAPrefixThePageNamesItAsItsBase() throws {
        let (_, dataset) = try dataset()
        var request = HTTPRequest(method: "GET", path: "/")
        request.linkPrefix = try PathPrefix(parsing: "/gis/a&b", option: "--base-path")
        let html = String(decoding: try #require(routes.respond(to: request, in: dataset)).body, as: UTF8.self)
        #expect(html.contains(#"<base href="/gis/a&amp;b/">"#))
        // No URL of the page, its style or its scripts starts at the root.
        let style = String(decoding: try #require(get("/editor.css", in: dataset)).body, as: UTF8.self)
        let scripts = ["/editor.js", "/editor-geoview.js", "/editor-live.js", "/editor-sketch.js"]
            .map { String(decoding: get($0, in: dataset)?.body ?? [], as: UTF8.self) }
        let rest = html.replacingOccurrences(of: #"<base href="/gis/a&amp;b/">"#, with: "")
        for text in [rest, style] + scripts {
            #expect(text.range(of: #"(src|href)="/[^/]|url\("/|fetch\('/|request\('/|= '/(journal|sketch)"#, options: .regularExpression) == nil)
        }
    }

    @Test func thePageAndEveryFileItLoadsCarryATagOfTheirContent() throws {
        let (_, dataset) = try dataset()
        let paths = ["/", "/index.html", "/editor.js", "/editor.css"] + MapPageModule.all.map(\.path) + ["/leaflet/leaflet.js", "/fonts/tahoma.ttf"]
        for path in paths {
            let answer = try #require(get(path, in: dataset))
            let tag = answer.headers.first { $0.name == "ETag" }?.value
            #expect(tag == "\"" + ContentNegotiation.fingerprint(answer.body) + "\"", "\(path)")
        }
    }

    @Test func aDatasetNameIsEscapedInThePage() throws {
        let (_, dataset) = try dataset(named: #"a&b<c>"d"#)
        let html = String(decoding: try #require(get("/", in: dataset)).body, as: UTF8.self)
        #expect(html.contains("<title>annolink — a&amp;b&lt;c&gt;&quot;d</title>"))
        #expect(html.contains(#"data-service="arcgis/rest/services/a&amp;b%3Cc%3E%22d/FeatureServer""#))
        #expect(!html.contains("<c>"))
    }

    @Test func theScriptStyleLeafletAndTahomaAreServed() throws {
        let (_, dataset) = try dataset()
        let script = try #require(get("/editor.js", in: dataset))
        #expect(script.status == 200 && contentType(script) == "text/javascript; charset=utf-8")
        #expect(String(decoding: script.body, as: UTF8.self).contains("applyEdits"))
        let style = try #require(get("/editor.css", in: dataset))
        #expect(style.status == 200 && String(decoding: style.body, as: UTF8.self).contains(#"url("fonts/tahoma.ttf")"#))
        let leaflet = try #require(get("/leaflet/leaflet.js", in: dataset))
        #expect(leaflet.status == 200)
        #expect(leaflet.body == Array(try Data(contentsOf: URL(fileURLWithPath: MapPageRoutes.leafletDirectory + "/leaflet.js"))))
        #expect(get("/leaflet/leaflet.css", in: dataset)?.status == 200)
        let icon = try #require(get("/leaflet/images/layers.png", in: dataset))
        #expect(icon.status == 200 && contentType(icon) == "image/png")
        let font = try #require(get("/fonts/tahoma.ttf", in: dataset))
        #expect(font.status == 200 && contentType(font) == "font/ttf")
        #expect(font.body.prefix(4) == [0, 1, 0, 0], "a TrueType font")
        #expect(get("/leaflet/leaflet.js", method: "HEAD", in: dataset)?.status == 200)
    }

    @Test(arguments: [
        "/leaflet/../../../etc/passwd", "/leaflet/%2e%2e/%2e%2e/etc/passwd", "/leaflet//etc/passwd",
        "/leaflet/images/../../../../etc/passwd", "/fonts/../leaflet/leaflet.js", "/fonts/../../../etc/passwd",
        "/leaflet/", "/leaflet/images", "/leaflet/leaflet.min.js.gz", "/leaflet/./leaflet.js", "/fonts/arial.ttf",
        "/leaflet/leaflet.js/", "/leaflet/LEAFLET.JS",
    ])
    func pathsOutsideTheTableFindNothing(path: String) throws {
        let (_, dataset) = try dataset()
        let response = try #require(get(path, in: dataset))
        #expect(response.status == 404)
        #expect(contentType(response) == "application/problem+json")
        #expect(!String(decoding: response.body, as: UTF8.self).contains("root:"))
    }

    @Test func onlyGetAndHeadAreAnswered() throws {
        let (_, dataset) = try dataset()
        for path in ["/", "/editor.js", "/leaflet/leaflet.js"] {
            let refusal = try #require(get(path, method: "POST", in: dataset))
            #expect(refusal.status == 405)
            #expect(refusal.headers.contains { $0.name == "Allow" && $0.value == "GET, HEAD" })
        }
    }

    @Test func otherPathsAreLeftToTheOtherRoutes() throws {
        let (_, dataset) = try dataset()
        for path in ["/health", "/ogc", "/arcgis/rest/info", "/editor", "/leafletx/leaflet.js", "/favicon.ico"] {
            #expect(get(path, in: dataset) == nil, "\(path)")
        }
        #expect(ServiceRoutes.all.last is MapPageRoutes)
    }
}
