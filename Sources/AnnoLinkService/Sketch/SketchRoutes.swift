import AnnoLinkEditing
import AnnoLinkEngine
import AnnoLinkGeometry
import AnnoLinkPostGIS
import AnnoLinkSketch
import AnnoLinkStore
import Foundation

/// Sketch sessions at `/sketch/sessions` (docs/serve.md, "Sketch sessions"): the map editor's
/// reticle and vertex tools run Swift's `GeometryEditor` on the server, as `annolink sketch`
/// does, and save through the edit service.
///
/// | request | what |
/// |---|---|
/// | `POST /sketch/sessions` | starts a session: `{"table", "type"?, "fid"?, "tool"?, "view"?}` → 201 and its state |
/// | `GET /sketch/sessions/ID` | the state |
/// | `POST /sketch/sessions/ID/actions` | one action `{"action", …}` → the state |
/// | `POST /sketch/sessions/ID/save` | writes the sketch `{"values"?}` and ends the session |
/// | `DELETE /sketch/sessions/ID` | ends the session without writing |
///
/// Every refusal is a problem document (`application/problem+json`): 400 a malformed request
/// or action, 401/403 a caller who may not edit, 404 no such session, 409 an action the editor
/// refuses or a save the edit service refuses (with its message), 503 too many sessions.
public struct SketchRoutes: Routes {
    /// The path every endpoint is under.
    public static let prefix = "/sketch/sessions"
    /// The most sessions open at once, by default.
    public static let defaultLimit = 16
    /// Seconds a session may go without a request before it is ended, by default.
    public static let defaultIdleSeconds = 30.0 * 60

    let sessions: SketchSessions

    /// Routes keeping at most `limit` sessions, each ended after `idleSeconds` without a request.
    public init(limit: Int = SketchRoutes.defaultLimit, idleSeconds: Double = SketchRoutes.defaultIdleSeconds) {
        sessions = SketchSessions(limit: limit, idleSeconds: idleSeconds)
    }

    /// How many sessions are open.
    public var openSessions: Int { sessions.count }

    public func respond(to request: HTTPRequest, in dataset: Dataset) -> HTTPResponse? {
        let path = request.path
        guard path == Self.prefix || path.hasPrefix(Self.prefix + "/") else { return nil }
        do {
            return try route(request, dataset: dataset)
        } catch {
            return RouteRefusal(error).problem
        }
    }

    // MARK: Routing

    private func route(_ request: HTTPRequest, dataset: Dataset) throws -> HTTPResponse {
        let rest = request.path.dropFirst(Self.prefix.count).split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        // Sketching is editing: the caller must be allowed to edit, as on the other edit routes.
        // A read-only server lets a session be drawn and refuses its save.
        try RouteRefusal.check(request.caller, .draft("sketching"))
        switch rest.count {
        case 0:
            try allow(request, ["POST"])
            return try create(request, dataset: dataset)
        case 1 where !rest[0].isEmpty:
            try allow(request, ["GET", "DELETE"])
            if request.method == "DELETE" {
                return try session(rest[0], request, dataset) { _ in
                    (Self.json(status: 200) { o in
                        o.member("id") { $0.string(rest[0]) }
                        o.member("ended") { $0.bool(true) }
                        o.member("saved") { $0.bool(false) }
                    }, ends: true)
                }
            }
            return try session(rest[0], request, dataset) { (Self.state($0, id: rest[0]), ends: false) }
        case 2 where !rest[0].isEmpty && rest[1] == "actions":
            try allow(request, ["POST"])
            let body = try Self.body(request)
            guard case .string(let action)? = body["action"] else {
                throw RouteRefusal(.badRequest, "the body needs \"action\": one of \(ServedSketch.actions.joined(separator: ", "))")
            }
            return try session(rest[0], request, dataset) { sketch in
                try sketch.run(action, body)
                return (Self.state(sketch, id: rest[0]), ends: false)
            }
        case 2 where !rest[0].isEmpty && rest[1] == "save":
            try allow(request, ["POST"])
            let body = request.body.isEmpty ? [:] : try Self.body(request)
            return try session(rest[0], request, dataset) { try save($0, body: body, request: request, dataset: dataset) }
        default:
            throw RouteRefusal(.notFound, "there is no resource at \(request.path)")
        }
    }

    /// Runs `body` on session `id` when it exists, belongs to this dataset and to the caller.
    private func session(_ id: String, _ request: HTTPRequest, _ dataset: Dataset,
                         _ body: (ServedSketch) throws -> (HTTPResponse, ends: Bool)) throws -> HTTPResponse {
        let answer = try sessions.with(id, dataset: dataset) { sketch -> (HTTPResponse?, ends: Bool) in
            // Another user's session is not theirs to see: answered as if it did not exist.
            guard sketch.owner == request.caller.userName else { return (nil, ends: false) }
            let (response, ends) = try body(sketch)
            return (response, ends)
        }
        guard let answer, let answer else { throw RouteRefusal(.notFound, "there is no sketch session \(id) (it ended, was never started, or was idle longer than \(Int(sessions.idleSeconds)) s)") }
        return answer
    }

    private func allow(_ request: HTTPRequest, _ methods: [String]) throws {
        guard methods.contains(request.method) else { throw RouteRefusal.methodNotAllowed(request.path, allowed: methods) }
    }

    // MARK: Starting

    private func create(_ request: HTTPRequest, dataset: Dataset) throws -> HTTPResponse {
        let body = try Self.body(request)
        guard case .string(let tableName)? = body["table"] else { throw RouteRefusal(.badRequest, "the body needs \"table\": the feature table to sketch for") }
        var mode = ServedSketch.Mode.reticle
        if let value = body["tool"] {
            guard case .string(let name) = value, let given = ServedSketch.Mode(rawValue: name) else {
                throw RouteRefusal(.badRequest, "\"tool\" must be \"reticle\" or \"vertex\", not \(value.jsonText)")
            }
            mode = given
        }
        var fid: Int64?
        if let value = body["fid"], value != .null {
            guard let given = value.integerValue else { throw RouteRefusal(.badRequest, "\"fid\" must be a whole number, not \(value.jsonText)") }
            fid = given
        }
        var givenType: SketchGeometryType?
        if let value = body["type"], value != .null {
            guard case .string(let name) = value, let type = SketchGeometryType(rawValue: name) else {
                throw RouteRefusal(.badRequest, "\"type\" must be point, multipoint, polyline or polygon, not \(value.jsonText)")
            }
            givenType = type
        }
        let (table, geometry, metresPerUnit, extent) = try dataset.readStore { package -> (FeatureTable, Geometry?, Double, Envelope?) in
            let table: FeatureTable
            do {
                table = try package.featureTable(tableName)
            } catch StoreError.unknownTable {
                throw RouteRefusal(.notFound, "there is no feature table \(tableName)")
            }
            if try package.annotationTableNames().contains(where: { $0.lowercased() == table.name.lowercased() }) {
                throw RouteRefusal(.badRequest, "\(table.name) is an annotation table: its rows follow their features and are not sketched")
            }
            let unit = try package.spatialReferenceSystem(table.srsID)?.metresPerMapUnit ?? 1
            var geometry: Geometry?
            if let fid {
                do {
                    geometry = try package.feature(table, fid: fid).geometry
                } catch StoreError.unknownFeature {
                    throw RouteRefusal(.notFound, "\(table.name) has no feature \(fid)")
                }
            }
            return (table, geometry, unit, try Self.recordedExtent(of: table, in: package))
        }
        var type = table.geometryKind.map(SketchGeometryType.init)
        if let geometry { type = SketchGeometryType(geometry.kind) }
        if let givenType {
            if let type, type != givenType {
                throw RouteRefusal(.badRequest, "\(table.name) holds \(table.geometryTypeName) geometries: a \(givenType.rawValue) cannot be saved there")
            }
            type = givenType
        }
        guard let type else { throw RouteRefusal(.badRequest, "\(table.name) takes any geometry type: say which in \"type\"") }
        // Without a view: centred on the feature, else on the table's extent, at 1:1200, 800 × 600 points.
        let box = geometry.flatMap { SketchGeometry($0).extent } ?? extent ?? Envelope(Point(x: 0, y: 0))
        let centre = Point(x: (box.minX + box.maxX) / 2, y: (box.minY + box.maxY) / 2)
        let fallback = try MapViewport(viewpoint: Viewpoint(center: centre, scale: 1200), width: 800, height: 600, metresPerUnit: metresPerUnit)
        let viewport = try body["view"].map { try ServedSketch.viewport($0, metresPerUnit: metresPerUnit, current: fallback) } ?? fallback
        let sketch = try ServedSketch(table: table, fid: fid, geometry: geometry, type: type, viewport: viewport, mode: mode, owner: request.caller.userName)
        sketch.message = fid.map { "editing \(table.name) fid \($0)" } ?? "new \(type.rawValue) for \(table.name)"
        guard let id = sessions.add(sketch, dataset: dataset) else {
            throw RouteRefusal(.unavailable, "\(sessions.limit) sketch sessions are open, the most this server keeps: save or cancel one, or wait for one to idle out",
                               code: "TooManySessions", headers: [("Retry-After", "60")])
        }
        var response = Self.state(sketch, id: id, status: 201)
        response.headers.append(("Location", request.linkPrefix.path + Self.prefix + "/" + id))
        return response
    }

    // MARK: Saving

    private func save(_ sketch: ServedSketch, body: [String: JSONInput], request: HTTPRequest, dataset: Dataset) throws -> (HTTPResponse, ends: Bool) {
        var values: [FieldAssignment] = []
        if let given = body["values"], given != .null {
            guard let members = given.objectMembers else { throw RouteRefusal(.badRequest, "\"values\" must be an object of field names and values") }
            for (field, value) in members.sorted(by: { $0.key < $1.key }) {
                do {
                    values.append(FieldAssignment(field: field, text: try OGCFeatureInput.text(value, field: field)))
                } catch let error as OGCException {
                    throw RouteRefusal(.badRequest, error.description)
                }
            }
        }
        if dataset.readOnly { throw RouteRefusal.readOnlyServer }
        // A new feature without a GlobalID gets one from the edit service, as through applyEdits.
        let edit = try sketch.saveEdit(values: values, allowEmpty: dataset.allowsEmptyLabelValues)
        let (result, warnings) = try dataset.write(user: request.caller.userName) { service in
            (try edit(service), service.annotation.warnings)
        }
        struct Saved: Encodable {
            var saved = true
            var result: EditResult
            var warnings: [String]
        }
        return (try .json(Saved(result: result, warnings: warnings)), ends: true)
    }

    /// The table's extent as the store records it (`gpkg_contents`; on PostGIS
    /// `annolink.contents`, which the copy wrote), nil when none is recorded.
    static func recordedExtent(of table: FeatureTable, in store: any FeatureStore) throws -> Envelope? {
        if let store = store as? PostGISStore { return try store.recordedContents(of: table.name).extent }
        guard let package = store as? GeoPackage else { return nil }
        let row = try package.connection.rows("SELECT min_x, min_y, max_x, max_y FROM gpkg_contents WHERE table_name = ?", [.text(table.name)]).first
        let values = row?.compactMap(\.doubleValue) ?? []
        return values.count == 4 ? Envelope(minX: values[0], minY: values[1], maxX: values[2], maxY: values[3]) : nil
    }

    // MARK: Answers

    static func state(_ sketch: ServedSketch, id: String, status: Int = 200) -> HTTPResponse {
        var response = HTTPResponse(status: status, contentType: "application/json", body: Array(sketch.state(id: id).utf8))
        response.headers.append(("Cache-Control", "no-store"))
        return response
    }

    static func json(status: Int, _ body: (inout JSONWriter) throws -> Void) rethrows -> HTTPResponse {
        var json = JSONWriter()
        try json.object(body)
        return HTTPResponse(status: status, contentType: "application/json", body: Array(json.output.utf8))
    }

    /// The request body as a JSON object.
    static func body(_ request: HTTPRequest) throws -> [String: JSONInput] {
        guard let members = (try? JSONInput(parsing: request.body))?.objectMembers else {
            throw RouteRefusal(.badRequest, "the body must be a JSON object")
        }
        return members
    }
}
