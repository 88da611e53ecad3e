import Foundation

/// The map editor in the browser (docs/editor.md) at `/`: the page, its script and style
/// (embedded in the binary, `MapPageAssets`), Leaflet from Debian's `libjs-leaflet` at
/// `/leaflet/…` and Tahoma from Debian's `fonts-wine` at `/fonts/…`; and the two answers of its
/// GeoView operations, `/coordinates` and `/render.png` (`GeoViewRoutes`).
///
/// The page edits through the FeatureServer routes (`query`, `applyEdits`), as any other client
/// does. Files from the system are read once, at the first request, into a table keyed by
/// their served path; a request path is only ever looked up in that table, so no part of it
/// reaches the file system (`..` and percent-encoded tricks find nothing).
public struct MapPageRoutes: Routes {
    /// Where Debian's `libjs-leaflet` puts Leaflet.
    public static let leafletDirectory = "/usr/share/javascript/leaflet"
    /// Where Debian's `fonts-wine` puts Tahoma.
    public static let fontDirectory = "/usr/share/wine/fonts"

    public init() {}

    public func respond(to request: HTTPRequest, in dataset: Dataset) -> HTTPResponse? {
        if let answer = GeoViewRoutes.respond(to: request, in: dataset) { return answer }
        let path = request.path
        let file: StaticFile?
        switch path {
        case "/", "/index.html":
            file = StaticFile(contentType: "text/html; charset=utf-8", bytes: Array(MapPageAssets.html(dataset: dataset.name, prefix: request.linkPrefix).utf8))
        case _ where path == "/editor.js" || path == "/editor.css" || path.hasPrefix("/editor-"):
            file = Self.pageFiles[path]
        default:
            guard path.hasPrefix("/leaflet/") || path.hasPrefix("/fonts/") else { return nil }
            file = Self.systemFiles[path]
        }
        guard let file else {
            if path.hasPrefix("/leaflet/"), Self.systemFiles.isEmpty {
                return .problem(status: 404, detail: "Leaflet is not installed at \(Self.leafletDirectory) (Debian: libjs-leaflet)")
            }
            return .problem(status: 404, detail: "there is no resource at \(path)")
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            var refusal = HTTPResponse.problem(status: 405, detail: "\(path) answers GET only")
            refusal.headers.append(("Allow", "GET, HEAD"))
            return refusal
        }
        // Every file of the editor is answered here, with its tag. `no-cache`: a browser asks
        // again each time, and a file that has not changed since is answered 304 by
        // `ContentNegotiation`, as every route's answer is.
        var response = HTTPResponse(status: 200, contentType: file.contentType, body: file.bytes)
        response.headers.append(("Cache-Control", "no-cache"))
        response.headers.append(("ETag", file.entityTag))
        return response
    }

    /// One file the page needs, in memory, with the tag of its content (docs/editor.md, "How it
    /// is served"). The embedded files and the system's are made once, so hashed once; the page
    /// is made per request (its dataset name and prefix), a hash of 1.6 kB.
    struct StaticFile: Sendable {
        var contentType: String
        var bytes: [UInt8]
        var entityTag: String

        init(contentType: String, bytes: [UInt8]) {
            self.contentType = contentType
            self.bytes = bytes
            entityTag = "\"\(ContentNegotiation.fingerprint(bytes))\""
        }
    }

    /// The editor's own script, style and modules by served path, hashed once.
    static let pageFiles: [String: StaticFile] = {
        let script = "text/javascript; charset=utf-8"
        let style = ([MapPageAssets.style] + MapPageModule.all.map(\.style)).joined(separator: "\n")
        var files = [
            "/editor.js": StaticFile(contentType: script, bytes: Array(MapPageAssets.script.utf8)),
            "/editor.css": StaticFile(contentType: "text/css; charset=utf-8", bytes: Array(style.utf8)),
        ]
        for module in MapPageModule.all { files[module.path] = StaticFile(contentType: script, bytes: Array(module.script.utf8)) }
        return files
    }()

    /// Leaflet's files and the Tahoma fonts by served path, read at the first request.
    static let systemFiles: [String: StaticFile] = {
        var files: [String: StaticFile] = [:]
        let types = ["js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8", "png": "image/png",
                     "map": "application/json", "ttf": "font/ttf"]
        func add(_ directory: String, as prefix: String) {
            guard let walker = FileManager.default.enumerator(atPath: directory) else { return }
            while let relative = walker.nextObject() as? String {
                let ext = (relative as NSString).pathExtension.lowercased()
                guard let type = types[ext], let data = FileManager.default.contents(atPath: directory + "/" + relative) else { continue }
                files[prefix + relative] = StaticFile(contentType: type, bytes: Array(data))
            }
        }
        add(leafletDirectory, as: "/leaflet/")
        for name in ["tahoma.ttf", "tahomabd.ttf"] {
            if let data = FileManager.default.contents(atPath: fontDirectory + "/" + name) {
                files["/fonts/" + name] = StaticFile(contentType: "font/ttf", bytes: Array(data))
            }
        }
        return files
    }()
}
