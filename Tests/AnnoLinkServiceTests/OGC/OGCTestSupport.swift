import AnnoLinkImport
import AnnoLinkService
import AnnoLinkStore
import AnnoLinkTestSupport
import Foundation
import Testing

/// A dataset served by the OGC routes in-process, and short ways to ask them.
struct OGCClient {
    let dataset: Dataset
    let routes = OGCFeaturesRoutes()

    /// Esri's Loudoun sample imported into a GeoPackage in `scratch`, served.
    static func loudoun(in scratch: ScratchDirectory, readOnly: Bool = false, maxRecords: Int = 2000) throws -> OGCClient {
        let path = scratch.path("loudoun.gpkg")
        if !FileManager.default.fileExists(atPath: path) {
            let source = try Connection(path: Fixtures.loudoun, mode: .readOnly)
            _ = try GeoPackage.build(at: path) { try MobileGeodatabaseImporter.run(source: source, into: $0) }
        }
        return OGCClient(dataset: try Dataset(path: path, readOnly: readOnly, maxRecords: maxRecords))
    }

    var path: String { dataset.path }

    func send(_ method: String, _ path: String, _ parameters: [String: String] = [:], headers: [String: String] = [:], body: String = "",
              caller: Caller = .anonymous(mayEdit: true)) -> HTTPResponse {
        let request = HTTPRequest(method: method, path: path, parameters: parameters, headers: headers.reduce(into: [:]) { $0[$1.key.lowercased()] = $1.value },
                                  body: Array(body.utf8), caller: caller)
        guard let response = routes.respond(to: request, in: dataset) else {
            Issue.record("\(path) was not claimed by the OGC routes")
            return HTTPResponse(status: 0)
        }
        return response
    }

    func get(_ path: String, _ parameters: [String: String] = [:], headers: [String: String] = [:]) -> HTTPResponse {
        send("GET", path, parameters, headers: headers)
    }

    /// The body of `response` as a JSON object.
    func json(_ response: HTTPResponse, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let value = try JSONSerialization.jsonObject(with: Data(response.body))
        guard let object = value as? [String: Any] else {
            Issue.record("not a JSON object: \(String(decoding: response.body, as: UTF8.self))", sourceLocation: sourceLocation)
            return [:]
        }
        return object
    }

    func sql(_ text: String) throws -> [[SQLValue]] {
        try GeoPackage(path: path, readOnly: true).connection.rows(text)
    }

    func sqlScalar(_ text: String) throws -> SQLValue {
        try sql(text).first?.first ?? .null
    }
}

extension HTTPResponse {
    func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// The `href` of the link with `rel` among `links`.
func link(_ rel: String, in object: [String: Any]) -> String? {
    (object["links"] as? [[String: Any]])?.first { $0["rel"] as? String == rel }?["href"] as? String
}

/// The query parameters of a link's URL.
func parameters(of href: String) -> [String: String] {
    URLComponents(string: href)?.queryItems?.reduce(into: [:]) { $0[$1.name] = $1.value ?? "" } ?? [:]
}
