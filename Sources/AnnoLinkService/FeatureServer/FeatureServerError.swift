/// Why a FeatureServer request was refused, answered as Esri's error JSON
/// `{"error":{"code":…,"message":…,"details":[…]}}`.
enum FeatureServerError: Error, Equatable {
    /// A parameter is missing or malformed (400).
    case invalidParameter(String, String)
    /// No such service, layer or operation (404 in the body, as ArcGIS Server answers).
    case notFound(String)
    /// The service cannot do this (400): editing a read-only service, an unsupported option.
    case unsupported(String)
    /// The operation needs a token and none was given (499).
    case tokenRequired
    /// The token given is not valid (498).
    case invalidToken
    /// The token, or the page the request came from, does not allow this (403); why, in the
    /// details.
    case forbidden(String)
    /// The operation takes another HTTP method (405).
    case methodNotAllowed(String)
    /// Something failed that the request could not have caused (500).
    case internalError(String)

    var code: Int64 {
        switch self {
        case .invalidParameter, .unsupported: 400
        case .notFound: 404
        case .tokenRequired: 499
        case .invalidToken: 498
        case .forbidden: 403
        case .methodNotAllowed: 405
        case .internalError: 500
        }
    }

    /// Esri's own messages where it has one (clients match some of them, e.g. "Invalid token.").
    var message: String {
        switch self {
        case .invalidParameter: "Invalid or missing input parameters."
        case .notFound(let what): "\(what) not found."
        case .unsupported: "Requested operation is not supported by this service."
        case .tokenRequired: "Token Required"
        case .invalidToken: "Invalid token."
        case .forbidden: "You do not have permissions to access this resource or perform this operation."
        case .methodNotAllowed: "Method not supported."
        case .internalError: "Unable to complete operation."
        }
    }

    var details: [String] {
        switch self {
        case .invalidParameter(let name, let why): ["\(name): \(why)"]
        case .unsupported(let why), .methodNotAllowed(let why), .internalError(let why), .forbidden(let why): [why]
        case .notFound, .tokenRequired, .invalidToken: []
        }
    }

    /// The Esri error for a failure thrown while answering: its own, or the shared refusal
    /// (`RouteRefusal(_:)`) in Esri's codes. As ArcGIS Server does, a failure without an Esri
    /// code of its own (a time limit, a refused edit outside `applyEdits`' results) is error 500.
    init(_ error: any Error) {
        if let error = error as? FeatureServerError {
            self = error
            return
        }
        let refusal = RouteRefusal(error)
        switch refusal.kind {
        case .invalidToken: self = .invalidToken
        case .tokenRequired: self = .tokenRequired
        case .forbidden: self = .forbidden(refusal.detail)
        case .readOnly, .notOnThisStore: self = .unsupported(refusal.detail)
        case .methodNotAllowed: self = .methodNotAllowed(refusal.detail)
        case .badRequest where refusal.parameter != nil, .unprocessable where refusal.parameter != nil:
            self = .invalidParameter(refusal.parameter!, refusal.detail)
        default: self = .internalError(refusal.detail)
        }
    }

    /// The error document.
    var json: JSONText {
        .object([("error", .object([
            ("code", .integer(code)), ("message", .string(message)), ("details", .array(details.map { .string($0) })),
        ]))])
    }
}
