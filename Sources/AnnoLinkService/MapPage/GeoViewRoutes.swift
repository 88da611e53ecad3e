import AnnoLinkEngine
import AnnoLinkGeometry
import AnnoLinkRender
import AnnoLinkStore
import Foundation

/// The two server answers the map editor's GeoView operations need beyond the FeatureServer
/// (docs/editor.md, docs/serve.md):
///
/// - `GET /coordinates?x=X&y=Y`: the point (X, Y) of the data's CRS in longitude/latitude (WGS 84,
///   `EPSG:4326`, longitude first), transformed by PROJ as `cs2cs` does, for the pointer read-out;
/// - `GET /render.png?bbox=MINX,MINY,MAXX,MAXY&width=W&height=H`: the box (in the data's CRS)
///   drawn by `annolink render` into a W × H PNG, for "Export image"; with `overview=true`
///   drawn with bounded work for the page's overview of a dense view (text under a pixel high
///   not drawn, features under a pixel drawn from the spatial index, one per pixel:
///   `MapContent.minimumTextPixels`, `subPixelFeaturesFromIndex`), and what was drawn said in
///   the headers `X-Annolink-Features`, `X-Annolink-Features-From-Index`, `X-Annolink-Labels`
///   and `X-Annolink-Labels-Under-Minimum`. A GeoPackage and a PostGIS database holding the
///   same data answer the same picture. The last few pictures are kept (`RenderCache`, by view
///   and the data's change key): `X-Annolink-Cache` says `hit` when the answer is one of them,
///   `miss` when it was drawn.
///
/// The data's CRS is the service's: the CRS of its first feature layer, which the FeatureServer
/// gives as the service's `spatialReference` and in which the page draws. Both are reads: with
/// `--tokens` anyone may ask, but a token that is not in the file is refused (401), as the other
/// interfaces refuse it.
enum GeoViewRoutes {
    /// The largest picture side `/render.png` draws, in pixels.
    static let maxImageSide = 4096
    /// The overview's smallest text drawn, in pixels (the page fetches no annotation under it).
    static let overviewMinimumTextPixels = 1.0

    /// The answer for `request` when its path is one of these routes; nil otherwise.
    static func respond(to request: HTTPRequest, in dataset: Dataset) -> HTTPResponse? {
        let answer: (HTTPRequest, Dataset) throws -> HTTPResponse
        switch request.path {
        case "/coordinates": answer = coordinates
        case "/render.png": answer = render
        default: return nil
        }
        do {
            guard request.method == "GET" || request.method == "HEAD" else { throw RouteRefusal.methodNotAllowed(request.path, allowed: ["GET", "HEAD"]) }
            try RouteRefusal.check(request.caller, .read)
            return try answer(request, dataset)
        } catch {
            return RouteRefusal(error).problem
        }
    }

    /// What the page shows for the pointer: the point in the data's CRS and in WGS 84.
    struct Coordinates: Encodable {
        /// The data's CRS as PROJ was given it (`EPSG:2924`, or the WKT of a CRS without a code).
        var crs: String
        var x: Double
        var y: Double
        var longitude: Double
        var latitude: Double
    }

    static func coordinates(_ request: HTTPRequest, in dataset: Dataset) throws -> HTTPResponse {
        let x = try number(request, "x"), y = try number(request, "y")
        let crs = try dataset.readStore { try dataCRS(in: $0) }
        let geographic: Point
        do {
            geographic = try TransformerPool.shared.with { try $0.transform(Point(x: x, y: y), from: crs, to: "EPSG:4326") }
        } catch {
            throw GeoViewRefusal(status: 422, detail: "(\(x), \(y)) cannot be changed into longitude/latitude: \(error)")
        }
        guard geographic.x.isFinite, geographic.y.isFinite else {
            throw GeoViewRefusal(status: 422, detail: "(\(x), \(y)) has no longitude/latitude (outside the CRS's area)")
        }
        var response = try HTTPResponse.json(Coordinates(crs: crs, x: x, y: y, longitude: geographic.x, latitude: geographic.y))
        response.headers.append(("Cache-Control", "no-store"))
        return response
    }

    static func render(_ request: HTTPRequest, in dataset: Dataset) throws -> HTTPResponse {
        guard let bboxText = request.parameters["bbox"] else {
            throw GeoViewRefusal(status: 400, detail: "bbox is missing: give MINX,MINY,MAXX,MAXY in the data's CRS")
        }
        let v = bboxText.split(separator: ",", omittingEmptySubsequences: false).map { decimalNumber($0.trimmingCharacters(in: .whitespaces)) }
        guard v.count == 4, let minX = v[0], let minY = v[1], let maxX = v[2], let maxY = v[3],
              [minX, minY, maxX, maxY].allSatisfy(\.isFinite) else {
            throw GeoViewRefusal(status: 400, detail: "bbox '\(bboxText)' is not MINX,MINY,MAXX,MAXY (four numbers)")
        }
        guard minX < maxX, minY < maxY else {
            throw GeoViewRefusal(status: 400, detail: "bbox '\(bboxText)' needs MINX < MAXX and MINY < MAXY")
        }
        let width = try side(request, "width"), height = try side(request, "height")
        let box = Envelope(minX: minX, minY: minY, maxX: maxX, maxY: maxY)
        let overview: Bool
        switch request.parameters["overview"]?.lowercased() {
        case nil, "", "false": overview = false
        case "true": overview = true
        case let other?: throw GeoViewRefusal(status: 400, detail: "overview '\(other)' is not true or false")
        }
        // Keyed by the view and the data's change key read before drawing (RenderCache).
        let changeKey = try dataset.changeKey()
        let cacheKey = "\(minX),\(minY),\(maxX),\(maxY) \(width)x\(height) \(overview) \(changeKey)"
        if let kept = dataset.renderCache.entry(cacheKey) {
            return HTTPResponse(status: 200, headers: kept.headers + [("X-Annolink-Cache", "hit")], body: kept.png)
        }
        let content = overview ? MapContent(minimumTextPixels: overviewMinimumTextPixels, subPixelFeaturesFromIndex: true) : MapContent()
        let (png, summary): ([UInt8], RenderSummary) = try dataset.readStore { store in
            let crs = try dataCRS(in: store)
            // The renderer draws in its first table's CRS unless told; told only when that is not
            // the service's, so the picture is the one `annolink render --bbox` makes.
            let first = try store.featureTableNames().first.map { try store.featureTable($0) }
            let own = try first.flatMap { try store.spatialReferenceSystem($0.srsID) }.map(\.projName)
            let renderer = try MapRenderer(store: store, crs: own == crs ? nil : crs)
            let view = MapView.fitting(box, width: width, height: height, metresPerUnit: renderer.metresPerUnit)
            if let reason = view.undrawableReason { throw GeoViewRefusal(status: 400, detail: "bbox '\(bboxText)': \(reason)") }
            let canvas = try CairoCanvas(format: .png, width: width, height: height, dpi: view.dpi)
            let summary = try renderer.render(view, on: canvas, content: content)
            return (try canvas.pngBytes(), summary)
        }
        let safeName = String(dataset.name.unicodeScalars.map { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_.".unicodeScalars.contains($0)) ? Character($0) : "_" })
        let headers: [(String, String)] = [
            ("Content-Type", "image/png"), ("Cache-Control", "no-store"),
            ("Content-Disposition", "attachment; filename=\"\(safeName.isEmpty ? "map" : safeName).png\""),
            ("X-Annolink-Features", String(summary.features)),
            ("X-Annolink-Features-From-Index", String(summary.featuresFromIndex)),
            ("X-Annolink-Features-Sharing-Pixels", String(summary.featuresSharingPixels)),
            ("X-Annolink-Labels", String(summary.labels)),
            ("X-Annolink-Labels-Under-Minimum", String(summary.labelsUnderMinimum)),
        ]
        dataset.renderCache.keep(RenderCache.Entry(png: png, headers: headers), for: cacheKey)
        return HTTPResponse(status: 200, headers: headers + [("X-Annolink-Cache", "miss")], body: png)
    }

    /// The CRS the service publishes, as PROJ reads it: `EPSG:n`, or the WKT of a CRS without
    /// an EPSG code. Read through the store, so a GeoPackage and a PostGIS database alike.
    static func dataCRS(in package: any FeatureStore) throws -> String {
        let annotation = Set(try package.annotationTableNames().map { $0.lowercased() })
        for name in try package.featureTableNames() where !annotation.contains(name.lowercased()) {
            let table = try package.featureTable(name)
            guard let srs = try package.spatialReferenceSystem(table.srsID), srs.srsID > 0, srs.definition.lowercased() != "undefined" else {
                throw GeoViewRefusal(status: 422, detail: "the data's CRS (\(table.name), srs_id \(table.srsID)) is undefined, so it has no longitude/latitude")
            }
            return srs.projName
        }
        throw GeoViewRefusal(status: 422, detail: "the data set has no feature table, so no CRS")
    }

    static func number(_ request: HTTPRequest, _ name: String) throws -> Double {
        guard let text = request.parameters[name] else { throw GeoViewRefusal(status: 400, detail: "\(name) is missing") }
        guard let value = decimalNumber(text.trimmingCharacters(in: .whitespaces)), value.isFinite else {
            throw GeoViewRefusal(status: 400, detail: "\(name) '\(text)' is not a number")
        }
        return value
    }

    static func side(_ request: HTTPRequest, _ name: String) throws -> Int {
        guard let text = request.parameters[name] else { throw GeoViewRefusal(status: 400, detail: "\(name) is missing (pixels, 1 to \(maxImageSide))") }
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)), (1...maxImageSide).contains(value) else {
            throw GeoViewRefusal(status: 400, detail: "\(name) '\(text)' is not a whole number of pixels from 1 to \(maxImageSide)")
        }
        return value
    }
}

/// A request these routes refuse: the HTTP status and what was wrong, in the user's words.
struct GeoViewRefusal: Error {
    var status: Int
    var detail: String
}
