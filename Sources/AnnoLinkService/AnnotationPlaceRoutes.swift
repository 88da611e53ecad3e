import AnnoLinkEditing
import AnnoLinkGeometry
import Foundation

/// One label edited by hand over HTTP, as `annolink place` edits it (docs/serve.md,
/// docs/editor.md): `POST /annotation/place` with form parameters named as the command's
/// options — `table`, `fid`, and `to` (`X,Y`) with `crs`, or `by` (`DX,DY`), `angle`, `text`,
/// `status` (`placed` or `unplaced`), or `reset=true` — runs the edit service's
/// `PlaceAnnotation` and answers its `EditResult` (the `--json` document of `place`).
///
/// The map page moves, turns and retexts labels through the FeatureServer's `applyEdits`
/// (updates of `AnchorX`/`AnchorY`, `Angle`, `TextString`, `Status`), which any GeoServices
/// client can send; a reset to the rules has no FeatureServer form, and comes here. Refusals
/// are problem documents (RFC 9457) with the command line's words: 409 for what the edit
/// service refuses, 404 for an unknown table or fid, 400 for a malformed parameter, 401/403
/// for the caller.
public struct AnnotationPlaceRoutes: Routes {
    /// The path of the route.
    public static let path = "/annotation/place"

    public init() {}

    public func respond(to request: HTTPRequest, in dataset: Dataset) -> HTTPResponse? {
        var path = request.path
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        guard path == Self.path else { return nil }
        do {
            guard request.method == "POST" else { throw RouteRefusal.methodNotAllowed(path, allowed: ["POST"]) }
            try RouteRefusal.check(request.caller, .edit("a label edit"), readOnlyServer: dataset.readOnly)
            let place = try Self.request(request.parameters, command: "serve \(Self.path)")
            let result = try dataset.write(user: request.caller.userName) { service in try service.run(place) }
            var response = try HTTPResponse.json(result, contentType: "application/json; charset=utf-8")
            response.headers.append(("Cache-Control", "no-store"))
            return response
        } catch {
            return RouteRefusal(error).problem
        }
    }

    /// The `PlaceAnnotation` the parameters ask for.
    ///
    /// - Throws: `RouteRefusal` (400) naming a missing or malformed parameter.
    static func request(_ parameters: [String: String], command: String) throws -> PlaceAnnotation {
        func bad(_ name: String, _ what: String) -> RouteRefusal {
            var refusal = RouteRefusal(.badRequest, "\(name) must be \(what), not '\(parameters[name] ?? "")'")
            refusal.parameter = name
            return refusal
        }
        func pair(_ name: String) throws -> (Double, Double)? {
            guard let text = parameters[name] else { return nil }
            let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 2, let x = decimalNumber(parts[0].trimmingCharacters(in: .whitespaces)),
                  let y = decimalNumber(parts[1].trimmingCharacters(in: .whitespaces)) else { throw bad(name, "two numbers X,Y") }
            return (x, y)
        }
        guard let table = parameters["table"], !table.isEmpty else { throw bad("table", "the annotation table's name") }
        guard let fid = parameters["fid"].flatMap({ Int64($0) }) else { throw bad("fid", "a whole number") }
        var place = PlaceAnnotation(table: table, fid: fid, crs: parameters["crs"], text: parameters["text"], command: command)
        if let to = try pair("to") { place.to = Point(x: to.0, y: to.1) }
        if let by = try pair("by") { place.by = (by.0, by.1) }
        if let text = parameters["angle"] {
            guard let angle = decimalNumber(text.trimmingCharacters(in: .whitespaces)) else { throw bad("angle", "a number of degrees") }
            place.angle = angle
        }
        switch parameters["status"] {
        case nil: break
        case "placed": place.status = .placed
        case "unplaced": place.status = .unplaced
        default: throw bad("status", "placed or unplaced")
        }
        switch parameters["reset"] {
        case nil, "false": break
        case "true": place.reset = true
        default: throw bad("reset", "true or false")
        }
        return place
    }
}
