/// `GET /health`: whether the server is up and can read its file — for load balancers, process
/// supervisors and the test harness, which waits for it before sending requests.
public struct HealthRoutes: Routes {
    public init() {}

    public func respond(to request: HTTPRequest, in dataset: Dataset) -> HTTPResponse? {
        guard request.path == "/health" else { return nil }
        guard request.method == "GET" || request.method == "HEAD" else {
            var refusal = HTTPResponse.problem(status: 405, detail: "/health answers GET only")
            refusal.headers.append(("Allow", "GET, HEAD"))
            return refusal
        }
        struct Health: Encodable {
            var status: String
            var dataset: String
            var readOnly: Bool
        }
        do {
            _ = try dataset.read { package in try package.featureTableNames() }
            return try .json(Health(status: "ok", dataset: dataset.name, readOnly: dataset.readOnly))
        } catch {
            return .problem(status: 503, detail: "the dataset cannot be read: \(error)")
        }
    }
}
