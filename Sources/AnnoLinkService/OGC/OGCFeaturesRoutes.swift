import AnnoLinkEditing
import AnnoLinkEngine
import AnnoLinkGeometry
import AnnoLinkPostGIS
import AnnoLinkStore
import Foundation

/// OGC API – Features at `/ogc`: Part 1 (core, GeoJSON, OpenAPI 3.0), Part 2 (CRS by
/// reference), Part 3's queryables, Part 4 (create, replace, update, delete, with ETags for
/// optimistic locking) and Part 5's schemas.
///
/// Reads go through the dataset's read-only connection; every edit is one typed edit request
/// of the edit service, so the linked annotation follows in the same transaction and the
/// journal records it. docs/serve.md describes the endpoints.
public struct OGCFeaturesRoutes: Routes {
    /// The path every endpoint is under.
    public static let prefix = "/ogc"
    /// The conformance classes the routes implement.
    static let conformance = [
        "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core",
        "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson",
        "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30",
        "http://www.opengis.net/spec/ogcapi-features-2/1.0/conf/crs",
        "http://www.opengis.net/spec/ogcapi-features-4/1.0/conf/create-replace-delete",
        "http://www.opengis.net/spec/ogcapi-features-4/1.0/conf/update",
        "http://www.opengis.net/spec/ogcapi-features-4/1.0/conf/features",
        "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/queryables",
        "http://www.opengis.net/spec/ogcapi-features-5/1.0/conf/schemas",
        "http://www.opengis.net/spec/ogcapi-features-5/1.0/conf/core-roles-features",
    ]
    static let openAPIType = "application/vnd.oai.openapi+json;version=3.0"

    /// The page size when a request gives no `limit` (at most the dataset's `maxRecords`,
    /// `--max-records`, which is also the largest page: a larger `limit` is lowered to it).
    public let defaultLimit: Int

    public init(defaultLimit: Int = 10) {
        self.defaultLimit = max(1, defaultLimit)
    }

    func limits(_ dataset: Dataset) -> (default: Int, maximum: Int) {
        let maximum = max(1, dataset.maxRecords)
        return (min(defaultLimit, maximum), maximum)
    }

    public func respond(to request: HTTPRequest, in dataset: Dataset) -> HTTPResponse? {
        guard request.path == Self.prefix || request.path.hasPrefix(Self.prefix + "/") else { return nil }
        do {
            return try TransformerPool.shared.with { try route(request, dataset: dataset, tools: OGCTools(transformer: $0)) }
        } catch {
            return Self.exception(for: error).response
        }
    }

    /// The OGC exception for a failure thrown while answering (`RouteRefusal(_:)`); an edit
    /// refused in the edit service's words is a 400, as Part 4 answers a refused body.
    static func exception(for error: any Error) -> OGCException {
        if let exception = error as? OGCException { return exception }
        let refusal = RouteRefusal(error)
        return OGCException(status: refusal.kind == .refused ? 400 : refusal.status, code: refusal.code, description: refusal.detail,
                            headers: refusal.headers.map { OGCException.Header(name: $0.name, value: $0.value) })
    }

    // MARK: Routing

    private enum Resource {
        case landing, conformance, api, collections
        case collection(String)
        /// `/collections/{id}/schema`, `…/queryables` or `…/feature-schema` (`OGCSchema.Kind`).
        case schema(String, OGCSchema.Kind)
        case items(String)
        case item(String, String)

        var methods: [String] {
            switch self {
            case .items: ["GET", "HEAD", "POST", "OPTIONS"]
            case .item: ["GET", "HEAD", "PUT", "PATCH", "DELETE", "OPTIONS"]
            default: ["GET", "HEAD", "OPTIONS"]
            }
        }

        /// The query parameters a `GET` of the resource takes.
        var parameters: Set<String> {
            switch self {
            case .items: ["f", "limit", "offset", "bbox", "bbox-crs", "crs", "datetime"]
            case .item: ["f", "crs"]
            default: ["f"]
            }
        }
    }

    private func resource(_ path: String) throws -> Resource {
        var rest = String(path.dropFirst(Self.prefix.count))
        if rest.count > 1, rest.hasSuffix("/") { rest.removeLast() }
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        switch parts.count {
        case 0: return .landing
        case 1 where parts[0].isEmpty: return .landing
        case 1 where parts[0] == "conformance": return .conformance
        case 1 where parts[0] == "api": return .api
        case 1 where parts[0] == "collections": return .collections
        case 2 where parts[0] == "collections" && !parts[1].isEmpty: return .collection(parts[1])
        case 3 where parts[0] == "collections" && !parts[1].isEmpty && parts[2] == "items": return .items(parts[1])
        case 3 where parts[0] == "collections" && !parts[1].isEmpty && parts[2] == "schema": return .schema(parts[1], .schema)
        case 3 where parts[0] == "collections" && !parts[1].isEmpty && parts[2] == "queryables": return .schema(parts[1], .queryables)
        case 3 where parts[0] == "collections" && !parts[1].isEmpty && parts[2] == "feature-schema": return .schema(parts[1], .feature)
        case 4 where parts[0] == "collections" && !parts[1].isEmpty && parts[2] == "items" && !parts[3].isEmpty: return .item(parts[1], parts[3])
        default: throw OGCException.notFound("no resource at \(path)")
        }
    }

    private func route(_ request: HTTPRequest, dataset: Dataset, tools: OGCTools) throws -> HTTPResponse {
        let resource = try resource(request.path)
        let base = Self.baseURL(request)
        // An unknown collection or feature is 404 whatever the method (the handlers check
        // their own; a method the resource does not take is checked here first).
        if !resource.methods.contains(request.method) {
            switch resource {
            case .collection(let id), .items(let id), .item(let id, _), .schema(let id, _):
                _ = try dataset.readStore { try OGCCollection.named(id, in: $0, tools: tools) }
            default: break
            }
        }
        if case .item(let id, let fidText) = resource, Int64(fidText) == nil {
            throw OGCException.notFound("\(id) has no feature '\(fidText)'")
        }
        guard resource.methods.contains(request.method) else { throw OGCException.methodNotAllowed(request.method, allowed: resource.methods) }
        if request.method == "OPTIONS" {
            return HTTPResponse(status: 204, headers: [("Allow", resource.methods.joined(separator: ", "))])
        }
        if request.method == "GET" || request.method == "HEAD" {
            for name in request.parameters.keys where !resource.parameters.contains(name) && name != "token" {
                throw OGCException.badRequest("unknown parameter '\(name)'; \(request.path) takes \(resource.parameters.sorted().joined(separator: ", "))")
            }
        } else {
            for name in request.parameters.keys where name != "token" {
                throw OGCException.badRequest("unknown parameter '\(name)'; \(request.method) takes none")
            }
            try RouteRefusal.check(request.caller, .edit("editing"), readOnlyServer: dataset.readOnly)
        }
        switch (resource, request.method) {
        case (.landing, _):
            try Self.negotiate(request, offered: ["application/json"], formats: ["json": "application/json"])
            return landing(base: base, dataset: dataset)
        case (.conformance, _):
            try Self.negotiate(request, offered: ["application/json"], formats: ["json": "application/json"])
            var json = JSONWriter()
            json.object { $0.member("conformsTo") { $0.array { list in for c in Self.conformance { list.string(c) } } } }
            return Self.ok(json, type: "application/json")
        case (.api, _):
            try Self.negotiate(request, offered: [Self.openAPIType, "application/vnd.oai.openapi+json", "application/json"],
                              formats: ["json": Self.openAPIType, "oas30": Self.openAPIType])
            let (collections, examples) = try dataset.readStore { package in
                let collections = try OGCCollection.all(in: package, tools: tools)
                let examples = try collections.reduce(into: [String: Int64]()) { examples, c in
                    // The smallest fid, through the store (either kind).
                    var first = FeatureQuery(table: c.table)
                    first.columns = []
                    first.readsGeometry = false
                    first.limit = 1
                    examples[c.id] = try first.page(in: package).rows.first?.fid
                }
                return (collections, examples)
            }
            let document = OGCOpenAPI(collections: collections, base: base, defaultLimit: limits(dataset).default, maximumLimit: limits(dataset).maximum,
                                      title: dataset.name, exampleFIDs: examples,
                                      editingNeedsToken: dataset.readOnly || request.caller != .anonymous(mayEdit: true))
            return HTTPResponse(status: 200, contentType: Self.openAPIType, body: try document.bytes())
        case (.collections, _):
            try Self.negotiate(request, offered: ["application/json"], formats: ["json": "application/json"])
            return try dataset.readStore { package in
                let collections = try OGCCollection.all(in: package, tools: tools)
                var json = JSONWriter()
                try json.object {
                    $0.member("links") { $0.array { OGCLink.write(to: &$0, href: "\(base)/collections", rel: "self", type: "application/json", title: "collections") } }
                    $0.member("crs") { list in list.array { for c in Set(collections.flatMap(\.crs)).map(\.uri).sorted() { $0.string(c) } } }
                    try $0.member("collections") { list in try list.array { for c in collections { try c.write(to: &$0, base: base, tools: tools) } } }
                }
                return Self.ok(json, type: "application/json")
            }
        case (.collection(let id), _):
            try Self.negotiate(request, offered: ["application/json"], formats: ["json": "application/json"])
            return try dataset.readStore { package in
                var json = JSONWriter()
                try OGCCollection.named(id, in: package, tools: tools).write(to: &json, base: base, tools: tools)
                return Self.ok(json, type: "application/json")
            }
        case (.schema(let id, let kind), _):
            try Self.negotiate(request, offered: [OGCSchema.mediaType, "application/json"], formats: ["json": OGCSchema.mediaType])
            return try dataset.readStore { package in
                var json = JSONWriter()
                OGCSchema(collection: try OGCCollection.named(id, in: package, tools: tools), kind: kind).write(to: &json, base: base)
                return Self.ok(json, type: OGCSchema.mediaType)
            }
        case (.items(let id), "POST"):
            return try create(request, collectionID: id, base: base, dataset: dataset, tools: tools)
        case (.items(let id), _):
            try Self.negotiate(request, offered: ["application/geo+json", "application/json"], formats: ["json": "application/geo+json", "geojson": "application/geo+json"])
            return try items(request, collectionID: id, base: base, dataset: dataset, tools: tools)
        case (.item(let id, let fidText), "GET"), (.item(let id, let fidText), "HEAD"):
            try Self.negotiate(request, offered: ["application/geo+json", "application/json"], formats: ["json": "application/geo+json", "geojson": "application/geo+json"])
            return try item(request, collectionID: id, fid: Int64(fidText)!, base: base, dataset: dataset, tools: tools)
        case (.item(let id, let fidText), _):
            return try edit(request, collectionID: id, fid: Int64(fidText)!, dataset: dataset, tools: tools)
        }
    }

    // MARK: Reading

    private func landing(base: String, dataset: Dataset) -> HTTPResponse {
        var json = JSONWriter()
        json.object {
            $0.member("title") { $0.string("\(dataset.name): OGC API – Features") }
            $0.member("description") { $0.string("The features and feature-linked annotation of \(dataset.name), served by annolink.") }
            $0.member("links") {
                $0.array {
                    OGCLink.write(to: &$0, href: base, rel: "self", type: "application/json", title: "this document")
                    OGCLink.write(to: &$0, href: "\(base)/api", rel: "service-desc", type: Self.openAPIType, title: "the API definition")
                    OGCLink.write(to: &$0, href: "\(base)/conformance", rel: "conformance", type: "application/json", title: "the conformance classes")
                    OGCLink.write(to: &$0, href: "\(base)/collections", rel: "data", type: "application/json", title: "the collections")
                }
            }
        }
        return Self.ok(json, type: "application/json")
    }

    private func items(_ request: HTTPRequest, collectionID: String, base: String, dataset: Dataset, tools: OGCTools) throws -> HTTPResponse {
        // Tagged from the table's last change: an unchanged page is answered 304 unread.
        let validator = TableEntityTag(dataset)
        return try dataset.readStore { package in
            let collection = try OGCCollection.named(collectionID, in: package, tools: tools)
            let query = try OGCItemsQuery(request.parameters, collection: collection, defaultLimit: limits(dataset).default,
                                          maximumLimit: limits(dataset).maximum)
            return try validator.answer(request, dataset: dataset, store: package, tables: [collection.table.name]) {
                let page = try OGCItemsPage.read(query, collection: collection, package: package, tools: tools)
                let writer = OGCFeatureWriter(collection: collection, tools: tools, crs: query.crs)
                let itemsURL = "\(base)/collections/\(OGCPath.escape(collection.id))/items"
                func link(offset: Int) -> String {
                    var pairs: [(String, String)] = [("limit", String(query.limit)), ("offset", String(offset))]
                    for name in ["bbox", "bbox-crs", "crs", "datetime", "f"] { if let v = request.parameters[name] { pairs.append((name, v)) } }
                    return itemsURL + OGCPath.query(pairs)
                }
                var json = JSONWriter()
                try json.object {
                    $0.member("type") { $0.string("FeatureCollection") }
                    $0.member("timeStamp") { $0.string(Self.timeStamp()) }
                    $0.member("numberMatched") { $0.integer(Int64(page.numberMatched)) }
                    $0.member("numberReturned") { $0.integer(Int64(page.features.count)) }
                    try $0.member("features") { list in try list.array { for f in page.features { try writer.write(f, to: &$0) } } }
                    $0.member("links") {
                        $0.array {
                            OGCLink.write(to: &$0, href: link(offset: query.offset), rel: "self", type: "application/geo+json", title: "this page")
                            if query.offset + page.features.count < page.numberMatched, !page.features.isEmpty {
                                OGCLink.write(to: &$0, href: link(offset: query.offset + page.features.count), rel: "next", type: "application/geo+json", title: "the next page")
                            }
                            if query.offset > 0 {
                                OGCLink.write(to: &$0, href: link(offset: max(0, query.offset - query.limit)), rel: "prev", type: "application/geo+json", title: "the previous page")
                            }
                            OGCLink.write(to: &$0, href: "\(base)/collections/\(OGCPath.escape(collection.id))", rel: "collection", type: "application/json",
                                          title: collection.title)
                        }
                    }
                }
                var response = Self.ok(json, type: "application/geo+json")
                response.headers.append(("Content-Crs", "<\(query.crs.uri)>"))
                return response
            }
        }
    }

    private func item(_ request: HTTPRequest, collectionID: String, fid: Int64, base: String, dataset: Dataset, tools: OGCTools) throws -> HTTPResponse {
        try dataset.readStore { package in
            do {
                let collection = try OGCCollection.named(collectionID, in: package, tools: tools)
                let crs = try request.parameters["crs"].map { try OGCCRS.named($0, among: collection.crs, parameter: "crs") } ?? .crs84
                let feature: Feature
                do {
                    feature = try package.feature(collection.table, fid: fid)
                } catch StoreError.unknownFeature {
                    throw OGCException.notFound("\(collection.id) has no feature \(fid)")
                }
                let etag = try OGCEntityTag.of(collection.table, fid: fid, in: package) ?? ""
                let url = "\(base)/collections/\(OGCPath.escape(collection.id))/items/\(fid)"
                var json = JSONWriter()
                try OGCFeatureWriter(collection: collection, tools: tools, crs: crs).write(feature, to: &json) {
                    $0.array {
                        OGCLink.write(to: &$0, href: url + OGCPath.query(request.parameters["crs"].map { [("crs", $0)] } ?? []), rel: "self", type: "application/geo+json")
                        OGCLink.write(to: &$0, href: "\(base)/collections/\(OGCPath.escape(collection.id))", rel: "collection", type: "application/json", title: collection.title)
                    }
                }
                var response = Self.ok(json, type: "application/geo+json")
                response.headers.append(("Content-Crs", "<\(crs.uri)>"))
                response.headers.append(("ETag", etag))
                return response
            }
        }
    }

    // MARK: Editing

    private func create(_ request: HTTPRequest, collectionID: String, base: String, dataset: Dataset, tools: OGCTools) throws -> HTTPResponse {
        try Self.requireContentType(request, ["application/geo+json", "application/json"])
        let collection = try dataset.readStore { try OGCCollection.named(collectionID, in: $0, tools: tools) }
        let crs = try Self.contentCRS(request, collection: collection)
        let input = try OGCFeatureInput.feature(request.body)
        let editor = OGCEditor(collection: collection, tools: tools, command: Self.command(request), allowEmpty: dataset.allowsEmptyLabelValues)
        let created = try dataset.write(user: request.caller.userName) { try editor.create(input, inputCRS: crs, service: $0) }
        return HTTPResponse(status: 201, headers: [
            ("Location", "\(base)/collections/\(OGCPath.escape(collection.id))/items/\(created.fid)"), ("ETag", created.etag),
        ])
    }

    private func edit(_ request: HTTPRequest, collectionID: String, fid: Int64, dataset: Dataset, tools: OGCTools) throws -> HTTPResponse {
        let collection = try dataset.readStore { try OGCCollection.named(collectionID, in: $0, tools: tools) }
        let editor = OGCEditor(collection: collection, tools: tools, command: Self.command(request), allowEmpty: dataset.allowsEmptyLabelValues)
        let ifMatch = request.header("If-Match")
        switch request.method {
        case "DELETE":
            try dataset.write(user: request.caller.userName) { try editor.delete(fid: fid, ifMatch: ifMatch, service: $0) }
            return HTTPResponse(status: 204)
        case "PUT":
            try Self.requireContentType(request, ["application/geo+json", "application/json"])
            let crs = try Self.contentCRS(request, collection: collection)
            let input = try OGCFeatureInput.feature(request.body, fid: fid)
            let etag = try dataset.write(user: request.caller.userName) { try editor.update(fid: fid, input, replacing: true, inputCRS: crs, ifMatch: ifMatch, service: $0) }
            return HTTPResponse(status: 204, headers: [("ETag", etag)])
        default:  // PATCH
            try Self.requireContentType(request, ["application/merge-patch+json", "application/json", "application/geo+json"])
            let crs = try Self.contentCRS(request, collection: collection)
            let input = try OGCFeatureInput.patch(request.body, fid: fid, geometryColumn: collection.table.geometryColumn)
            let etag = try dataset.write(user: request.caller.userName) { try editor.update(fid: fid, input, replacing: false, inputCRS: crs, ifMatch: ifMatch, service: $0) }
            return HTTPResponse(status: 204, headers: [("ETag", etag)])
        }
    }

    /// The journal's command text of an edit: method and path (the entry records the user).
    static func command(_ request: HTTPRequest) -> String {
        "serve ogc \(request.method) \(request.path)"
    }

    /// The CRS of a body's coordinates: the `Content-Crs` header's, CRS84 without one.
    static func contentCRS(_ request: HTTPRequest, collection: OGCCollection) throws -> OGCCRS {
        try request.header("Content-Crs").map { try OGCCRS.named($0, among: collection.crs, parameter: "Content-Crs") } ?? .crs84
    }

    static func requireContentType(_ request: HTTPRequest, _ expected: [String]) throws {
        let given = request.header("Content-Type")
        let type = given?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard let type, expected.contains(type) else { throw OGCException.unsupportedMediaType(given, expected: expected) }
    }

    // MARK: Helpers

    /// Checks that the client accepts one of `offered` (the `Accept` header; `f` overrides it
    /// with one of `formats`' keys).
    static func negotiate(_ request: HTTPRequest, offered: [String], formats: [String: String]) throws {
        if let f = request.parameters["f"] {
            guard formats[f] != nil else {
                throw OGCException.badRequest("f must be \(formats.keys.sorted().joined(separator: " or ")), not '\(f)'")
            }
            return
        }
        guard let accept = request.header("Accept"), !accept.trimmingCharacters(in: .whitespaces).isEmpty else { return }
        for range in accept.split(separator: ",") {
            let parts = range.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let type = parts.first, !type.isEmpty else { continue }
            if parts.dropFirst().contains(where: { $0.replacingOccurrences(of: " ", with: "").range(of: #"^q=0(\.0*)?$"#, options: .regularExpression) != nil }) { continue }
            if type == "*/*" { return }
            for candidate in offered {
                let plain = candidate.split(separator: ";")[0].lowercased()
                if type == plain { return }
                if type.hasSuffix("/*"), plain.hasPrefix(type.dropLast()) { return }
            }
        }
        throw OGCException.notAcceptable(offered)
    }

    /// The URL of `/ogc` as the client reached it: `--public-url`'s origin, else the `Host`
    /// header (which the server checked names it) with `X-Forwarded-Proto` for the scheme behind
    /// a proxy; then the request's link prefix (`--base-path`, a trusted `X-Forwarded-Prefix`).
    static func baseURL(_ request: HTTPRequest) -> String {
        let path = request.linkPrefix.path + prefix
        if let origin = request.publicOrigin { return origin + path }
        let host = request.header("Host").flatMap { $0.isEmpty ? nil : $0 } ?? "localhost"
        let scheme = request.header("X-Forwarded-Proto") == "https" ? "https" : "http"
        return "\(scheme)://\(host)\(path)"
    }

    static func ok(_ json: JSONWriter, type: String) -> HTTPResponse {
        HTTPResponse(status: 200, contentType: type, body: Array(json.output.utf8))
    }

    static func timeStamp() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date())
    }
}
