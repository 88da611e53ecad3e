/// `GET /health`: whether the server is up and can read its file, and who the server takes the
/// caller to be — for load balancers, process supervisors, a client checking its token, and the
/// test harness, which waits for it before sending requests.
///
/// Answers `{"status": "ok", "dataset", "readOnly", "caller": {"user", "mayEdit"} or
/// {"anonymous": true, "mayEdit"} or {"invalidToken": true} or {"crossSite": origin}}`; 503 when the file cannot be read,
/// or was moved away or replaced while serving (`ServiceError.fileReplaced`, docs/serve.md).
public struct HealthRoutes: Routes {
    public init() {}

    public func respond(to request: HTTPRequest, in dataset: Dataset) -> HTTPResponse? {
        guard request.path == "/health" else { return nil }
        guard request.method == "GET" || request.method == "HEAD" else {
            var refusal = HTTPResponse.problem(status: 405, detail: "/health answers GET only")
            refusal.headers.append(("Allow", "GET, HEAD"))
            return refusal
        }
        do {
            _ = try dataset.readStore { store in try store.featureTableNames() }
            return try .json(Health(status: "ok", dataset: dataset.name, readOnly: dataset.readOnly, caller: CallerDescription(request.caller)))
        } catch {
            return .problem(status: 503, detail: "the dataset cannot be read: \(error)")
        }
    }

    struct Health: Encodable {
        var status: String
        var dataset: String
        var readOnly: Bool
        var caller: CallerDescription
    }

    struct CallerDescription: Encodable {
        var user: String?
        var anonymous: Bool?
        var invalidToken: Bool?
        /// The other origin of a cross-site request, which may read only.
        var crossSite: String?
        var mayEdit: Bool

        init(_ caller: Caller) {
            switch caller {
            case .anonymous(let mayEdit): anonymous = true; self.mayEdit = mayEdit
            case .user(let name, let mayEdit): user = name; self.mayEdit = mayEdit
            case .invalidToken: invalidToken = true; mayEdit = false
            case .crossSite(let source): crossSite = source; mayEdit = false
            }
        }
    }
}
