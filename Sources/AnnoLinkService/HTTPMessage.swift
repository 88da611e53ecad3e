import Foundation

/// One HTTP request as the server hands it to the routes: already parsed by libmicrohttpd, with
/// the caller's identity settled by the token check. Routes never see the socket.
public struct HTTPRequest: Sendable {
    /// `GET`, `POST`, `PUT`, `PATCH`, `DELETE`, `HEAD`, `OPTIONS`.
    public var method: String
    /// The percent-decoded path, without the query string, under the server's `--base-path`:
    /// `/ogc/collections/address_points/items` whether the client asked for that or for
    /// `/gis/ogc/collections/address_points/items` of a server under `/gis`.
    public var path: String
    /// The query parameters, percent-decoded; for a `POST` with an
    /// `application/x-www-form-urlencoded` body (how Esri clients send `applyEdits`), the form
    /// fields too. A name given twice keeps its last value.
    public var parameters: [String: String]
    /// The header fields, names lower-cased.
    public var headers: [String: String]
    /// The body bytes (already within the server's size limit).
    public var body: [UInt8]
    /// Who is asking, as the token check decided.
    public var caller: Caller
    /// The origin of `--public-url` (`https://maps.example.org`), when the server has one: links
    /// in answers are made from it instead of the `Host` header.
    public var publicOrigin: String?
    /// The path in front of `path` in the URL the client used: a trusted `X-Forwarded-Prefix`,
    /// then `--base-path` (docs/serve.md, "Behind a reverse proxy"). Every link in an answer
    /// starts with it.
    public var linkPrefix: PathPrefix = .root

    public init(method: String, path: String, parameters: [String: String] = [:], headers: [String: String] = [:],
                body: [UInt8] = [], caller: Caller = .anonymous(mayEdit: true)) {
        self.method = method
        self.path = path
        self.parameters = parameters
        self.headers = headers
        self.body = body
        self.caller = caller
    }

    /// The value of a header field, whatever the case of `name`.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// The identity behind a request, decided by the server from `--tokens` before any route runs.
/// Each interface turns a refusal into its own error shape (Esri's 498/499 JSON, OGC's 401/403).
public enum Caller: Sendable, Equatable {
    /// No token given. Without `--tokens` everyone may edit (unless `--read-only`); with it,
    /// anonymous callers may read only.
    case anonymous(mayEdit: Bool)
    /// A valid token: the user's name and whether the token grants editing.
    case user(name: String, mayEdit: Bool)
    /// A token was given and is not in the token file.
    case invalidToken
    /// No valid token, and a page of another origin sent the request (`source`: that origin, or
    /// what `Sec-Fetch-Site` said): it may read, never change data (`SameOrigin`).
    case crossSite(source: String)

    /// Whether this caller may change data.
    public var mayEdit: Bool {
        switch self {
        case .anonymous(let mayEdit), .user(_, let mayEdit): mayEdit
        case .invalidToken, .crossSite: false
        }
    }

    /// The user name the journal records, if any.
    public var userName: String? {
        if case .user(let name, _) = self { return name }
        return nil
    }
}

/// One HTTP response: status, header fields and body.
public struct HTTPResponse: Sendable {
    public var status: Int
    /// Header fields in order; `Content-Type` among them.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response with a body of `contentType`.
    public init(status: Int, contentType: String, body: [UInt8]) {
        self.init(status: status, headers: [("Content-Type", contentType)], body: body)
    }

    /// A JSON response of an `Encodable` value, through `JSONEncoder`.
    public static func json<Value: Encodable>(_ value: Value, status: Int = 200, contentType: String = "application/json") throws -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return HTTPResponse(status: status, contentType: contentType, body: Array(try encoder.encode(value)))
    }
}

/// A set of endpoints under one path prefix: the FeatureServer routes, the OGC API routes, the
/// map page. The server asks each in turn; the first that claims the path answers.
public protocol Routes: Sendable {
    /// The answer to `request`, or nil when the path is not one of these routes. Errors are
    /// answered, not thrown: every failure is a well-formed response in the interface's shape.
    func respond(to request: HTTPRequest, in dataset: Dataset) -> HTTPResponse?
}
