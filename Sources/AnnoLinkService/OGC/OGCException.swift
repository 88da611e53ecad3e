import Foundation

/// A refused OGC API request: the HTTP status and the exception body OGC API – Features
/// answers with (`{"code": …, "description": …}`, OGC API – Common's exception schema).
///
/// Routes throw these while they work and turn them into responses at the edge, so that every
/// failure is a well-formed JSON answer with the right status.
struct OGCException: Error, Sendable, Equatable {
    var status: Int
    /// A short, stable name for the kind of failure (`InvalidParameterValue`, `NotFound`).
    var code: String
    /// What went wrong, in the user's words.
    var description: String
    /// Extra header fields (`Allow` on 405, `WWW-Authenticate` on 401).
    var headers: [Header] = []

    struct Header: Sendable, Equatable {
        var name: String
        var value: String
    }

    static func badRequest(_ description: String, code: String = "InvalidParameterValue") -> OGCException {
        OGCException(status: 400, code: code, description: description)
    }

    static func notFound(_ description: String) -> OGCException {
        OGCException(status: 404, code: "NotFound", description: description)
    }

    static func methodNotAllowed(_ method: String, allowed: [String]) -> OGCException {
        OGCException(status: 405, code: "MethodNotAllowed", description: "\(method) is not allowed here; allowed: \(allowed.joined(separator: ", "))",
                     headers: [Header(name: "Allow", value: allowed.joined(separator: ", "))])
    }

    static func notAcceptable(_ offered: [String]) -> OGCException {
        OGCException(status: 406, code: "NotAcceptable", description: "this resource is available as \(offered.joined(separator: " or ")) only")
    }

    static func unsupportedMediaType(_ given: String?, expected: [String]) -> OGCException {
        OGCException(status: 415, code: "UnsupportedMediaType",
                     description: "the body must be \(expected.joined(separator: " or ")), not \(given.map { "'\($0)'" } ?? "untyped")")
    }

    static func preconditionFailed(_ description: String) -> OGCException {
        OGCException(status: 412, code: "PreconditionFailed", description: description)
    }

    /// The answer of this exception.
    var response: HTTPResponse {
        var text = JSONWriter()
        text.object {
            $0.member("code") { $0.string(code) }
            $0.member("description") { $0.string(description) }
        }
        var response = HTTPResponse(status: status, contentType: "application/json", body: Array(text.output.utf8))
        for header in headers { response.headers.append((header.name, header.value)) }
        return response
    }
}
