import AnnoLinkEditing
import AnnoLinkEngine
import AnnoLinkGeometry
import AnnoLinkPostGIS
import AnnoLinkRender
import AnnoLinkSketch
import AnnoLinkStore

/// A request refused, in the terms every interface shares: what kind of refusal, what was wrong
/// in the user's words, and the parameter at fault when there is one.
///
/// The typed errors of the layers below (`StoreError`, `JournalError`, `EditError`,
/// `ServiceError`, `SQLCondition.Refusal`, the editor's, SQLite's and PostgreSQL's) become one
/// here and nowhere else (`init(_:)`), and the caller is checked here (`check(_:_:)`). Each
/// interface then writes the refusal in its own shape: a problem document (RFC 9457) at
/// `/journal`, `/sketch/sessions`, `/coordinates` and `/render.png` (`problem`), OGC's exception
/// (`OGCFeaturesRoutes.exception(for:)`), Esri's error JSON (`FeatureServerError(_:)`).
struct RouteRefusal: Error {
    /// What kind of refusal it is; `status` is its HTTP status in a problem document.
    enum Kind: Sendable, Hashable {
        /// The request cannot be read, or a parameter or member is malformed (400).
        case badRequest
        /// No token where one is needed (401; Esri's 499).
        case tokenRequired
        /// A token the server does not know (401; Esri's 498).
        case invalidToken
        /// The caller's token grants reading only (403).
        case forbidden
        /// The server runs with `--read-only` (403; Esri's "not supported").
        case readOnly
        /// No such resource (404).
        case notFound
        /// The resource takes other methods (405, with `Allow`).
        case methodNotAllowed
        /// The editor, the edit service or the journal refuses it as things stand, in its own
        /// words (409; OGC API – Features answers a refused body with 400).
        case refused
        /// Another edit of the same rows won; nothing was written, try again (409).
        case conflict
        /// Well formed, but the data cannot answer it (422).
        case unprocessable
        /// The server cannot take it now: a time limit, a limit of open sessions (503).
        case unavailable
        /// The file is locked by another program (503, `Retry-After: 1`).
        case busy
        /// Not served from this kind of store yet (501).
        case notOnThisStore
        /// A failure the request did not cause (500): also stored data that cannot be read
        /// (code `CorruptData`, naming the table and the row).
        case failure
    }

    var kind: Kind
    /// What was wrong, in the user's words.
    var detail: String
    /// A short stable name of the failure, OGC's exception code (`EditRefused`, `Busy`).
    var code: String
    /// The request parameter at fault (`where`), when one is.
    var parameter: String?
    /// Extra header fields: `WWW-Authenticate` on 401, `Allow` on 405, `Retry-After` on 503.
    var headers: [(name: String, value: String)] = []

    init(_ kind: Kind, _ detail: String, code: String? = nil, parameter: String? = nil, headers: [(name: String, value: String)] = []) {
        self.kind = kind
        self.detail = detail
        self.code = code ?? Self.defaultCode[kind] ?? "ServerError"
        self.parameter = parameter
        self.headers = headers
    }

    private static let defaultCode: [Kind: String] = [
        .badRequest: "InvalidParameterValue", .tokenRequired: "Unauthorized", .invalidToken: "Unauthorized",
        .forbidden: "Forbidden", .readOnly: "Forbidden", .notFound: "NotFound", .methodNotAllowed: "MethodNotAllowed",
        .refused: "EditRefused", .conflict: "Conflict", .unprocessable: "UnprocessableEntity",
        .unavailable: "QueryTimeLimitExceeded", .busy: "Busy", .notOnThisStore: "NotImplemented", .failure: "ServerError",
    ]

    /// The HTTP status of the refusal in a problem document.
    var status: Int {
        switch self.kind {
        case .badRequest: 400
        case .tokenRequired, .invalidToken: 401
        case .forbidden, .readOnly: 403
        case .notFound: 404
        case .methodNotAllowed: 405
        case .refused, .conflict: 409
        case .unprocessable: 422
        case .unavailable, .busy: 503
        case .notOnThisStore: 501
        case .failure: 500
        }
    }

    /// The refusal as a problem document (`application/problem+json`).
    var problem: HTTPResponse {
        var response = HTTPResponse.problem(status: status, detail: detail)
        response.headers += headers
        return response
    }

    /// 405 for a method `path` does not take, with `Allow: allowed` (`HEAD` goes unsaid in the
    /// detail: it is `GET` without the body).
    static func methodNotAllowed(_ path: String, allowed: [String]) -> RouteRefusal {
        RouteRefusal(.methodNotAllowed, "\(path) answers \(allowed.filter { $0 != "HEAD" }.joined(separator: " and ")) only",
                     headers: [("Allow", allowed.joined(separator: ", "))])
    }

    // MARK: The one mapping of typed errors

    /// The refusal for an error thrown while answering: the typed errors of the layers below in
    /// the user's words; anything else a failure (500) with its description.
    init(_ error: any Error) {
        switch error {
        case let refusal as RouteRefusal: self = refusal
        case ServiceError.readOnly: self = .readOnlyServer
        case ServiceError.notOnThisStore: self.init(.notOnThisStore, "\(error)")
        case ServiceError.idempotencyKeyReused: self.init(.unprocessable, "\(error)", code: "IdempotencyKeyReused", parameter: "Idempotency-Key")
        case ServiceError.editTimeLimitExceeded: self.init(.unavailable, "\(error)", code: "EditTimeLimitExceeded")
        case ServiceError.stopping: self.init(.unavailable, "\(error)", code: "Stopping", headers: [("Retry-After", "10")])
        case ServiceError.fileReplaced: self.init(.unavailable, "\(error)", code: "FileReplaced")
        case ServiceError.layoutChanged: self.init(.unavailable, "\(error)", code: "LayoutChanged", headers: [("Retry-After", "1")])
        case let e as ServiceError: self.init(.unavailable, e.description)
        case let e as SQLCondition.Refusal: self.init(.badRequest, e.description, parameter: "where")
        case let e as StoreError:
            switch e {
            case .unknownFeature, .unknownTable: self.init(.notFound, "\(e)")
            // A row the store cannot read is the data's fault, not the request's (issue 25).
            case .corruptGeometry: self.init(.failure, "\(e)", code: "CorruptData")
            default: self.init(.refused, "\(e)", code: "InvalidRequestBody")
            }
        case let e as JournalError:
            if case .corrupt = e { self.init(.failure, e.description) } else { self.init(.refused, e.description) }
        case let e as EditError: self.init(.refused, e.description)
        case let e as SketchError: self.init(.refused, e.description)
        case let e as ServedSketch.Refusal: self.init(.refused, e.description)
        case let e as ServedSketch.BadAction: self.init(.badRequest, e.description)
        case let e as GeometryValidationError: self.init(.refused, e.description, code: "InvalidGeometry")
        case let e as GeometryCodecError: self.init(.badRequest, e.description, code: "InvalidGeometry")
        case let e as EngineError: self.init(.badRequest, "\(e)")
        case let e as GeoViewRefusal: self.init(e.status == 422 ? .unprocessable : .badRequest, e.detail)
        case let e as RenderError:
            switch e {
            case .invalidView: self.init(.badRequest, e.description, parameter: "bbox")
            case .noExtent: self.init(.unprocessable, e.description)
            case .cairo, .cannotWrite, .libraryMissing: self.init(.failure, e.description)
            }
        case let e as SQLiteError where e.resultCode == .constraint:
            self.init(.refused, "the values break a rule of the table: \(e.message)", code: "InvalidRequestBody")
        case let e as SQLiteError where e.resultCode == .busy || e.resultCode == .locked:
            self.init(.busy, "the file is busy; try again", headers: [("Retry-After", "1")])
        case let e as PostgreSQLError where ["40001", "40P01", "55P03"].contains(e.sqlState ?? ""):
            // Another edit on the same rows won (PostGIS, several editors): nothing was written.
            self.init(.conflict, "conflict with another edit, nothing written; try again (\(e.message))")
        case let e as PostgreSQLError where e.sqlStateClass == "23":
            self.init(.refused, "the values break a rule of the table: \(e.message)", code: "InvalidRequestBody")
        default: self.init(.failure, "\(error)")
        }
    }

    /// A `--read-only` server refusing an edit.
    static let readOnlyServer = RouteRefusal(.readOnly, "the server is read-only (annolink serve --read-only)")

    // MARK: The one caller check

    /// What a request does, for the caller check.
    enum Access {
        /// Reads: anyone may, but a token the server does not know is refused.
        case read
        /// Changes data (`what` names it in the refusal: "editing", "an undo or redo"); the
        /// server must not be read-only.
        case edit(String)
        /// Changes data that a read-only server still lets be drawn (a sketch session, whose
        /// save the edit service refuses there).
        case draft(String)
    }

    /// Refuses a caller who may not do what the request asks: a token the server does not know
    /// (401, `WWW-Authenticate: Bearer … error="invalid_token"`, RFC 6750); for an edit, a
    /// read-only server (403), no token where the server wants one (401 with the challenge),
    /// a token that grants reading only (403).
    static func check(_ caller: Caller, _ access: Access, readOnlyServer: Bool = false) throws {
        let what: String
        switch access {
        case .read:
            if caller == .invalidToken { throw invalidTokenRefusal }
            return
        case .edit(let name):
            if readOnlyServer { throw Self.readOnlyServer }
            what = name
        case .draft(let name): what = name
        }
        switch caller {
        case .invalidToken: throw invalidTokenRefusal
        case .anonymous(mayEdit: false):
            throw RouteRefusal(.tokenRequired, "\(what) needs a token (Authorization: Bearer TOKEN)",
                               headers: [("WWW-Authenticate", "Bearer realm=\"annolink\"")])
        case .user(let name, mayEdit: false): throw RouteRefusal(.forbidden, "the token of \(name) grants reading only")
        case .crossSite(let source):
            throw RouteRefusal(.forbidden, "\(what) from \(source) is refused: a page of another origin may not change data on this server " +
                               "without a token (docs/serve.md, the threat model)")
        default: break
        }
    }

    private static let invalidTokenRefusal = RouteRefusal(
        .invalidToken, "the token is not valid", headers: [("WWW-Authenticate", "Bearer realm=\"annolink\", error=\"invalid_token\"")])
}
