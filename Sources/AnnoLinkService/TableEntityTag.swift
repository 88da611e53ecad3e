import AnnoLinkStore

/// Entity tags of answers read from feature tables — OGC items pages, FeatureServer queries —
/// made from the tables' change stamps instead of the answer's bytes, so that a client holding
/// the current answer is told `304 Not Modified` before the answer is read at all (docs/serve.md,
/// "Compression and validators").
///
/// The tag is weak (`W/"…"`): two reads of an unchanged table are the same answer but for the
/// items page's `timeStamp`. It sums up the table's stamp (`Dataset.changeStamp(of:in:)`), the
/// epoch of other programs' commits (`Dataset.changeEpoch()`) and everything of the request the
/// answer depends on: path, parameters, `Accept`, the names its links are made of, the caller.
/// When the stamp cannot be known (PostGIS, an edit holding the writer, another program
/// committing meanwhile) nothing is tagged here, and `ContentNegotiation` tags the bytes.
struct TableEntityTag {
    /// The epoch before the read transaction began; nil: answers go untagged here.
    let epoch: Int64?

    /// Reads the epoch; call before `Dataset.readStore`, whose snapshot the tag must describe.
    init(_ dataset: Dataset) {
        epoch = dataset.kind == .geoPackage ? dataset.changeEpoch() : nil
    }

    /// The answer `make` gives, tagged from `tables`' stamp in `store`'s snapshot; 304 without
    /// calling `make` when `If-None-Match` names the tag. Call inside the `readStore` that
    /// `make` reads in.
    func answer(_ request: HTTPRequest, dataset: Dataset, store: any FeatureStore, tables: [String],
                _ make: () throws -> HTTPResponse) throws -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD", let epoch, let package = store as? GeoPackage,
              let stamp = try dataset.changeStamp(of: tables, in: package), dataset.changeEpoch() == epoch else {
            return try make()
        }
        let tag = "W/\"t\(ContentNegotiation.fingerprint(Array((Self.variant(of: request) + "\n\(epoch)\n" + stamp).utf8)))\""
        if let asked = request.header("If-None-Match"), ContentNegotiation.matches(asked, tag) {
            return HTTPResponse(status: 304, headers: [("ETag", tag), ("Vary", "Accept-Encoding")])
        }
        var response = try make()
        if response.status == 200 { response.headers.append(("ETag", tag)) }
        return response
    }

    /// Everything of `request` an answer from the same rows may differ by.
    static func variant(of request: HTTPRequest) -> String {
        let parameters = request.parameters.filter { $0.key != "token" }.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let caller: String = switch request.caller {
        case .anonymous(let mayEdit): "anonymous \(mayEdit)"
        case .user(let name, let mayEdit): "user \(name) \(mayEdit)"
        case .invalidToken: "invalid"
        case .crossSite: "cross-site"
        }
        let fields = [
            request.path, request.linkPrefix.path, request.publicOrigin ?? "", request.header("Host") ?? "",
            request.header("X-Forwarded-Proto") ?? "", request.header("Accept") ?? "", caller,
        ]
        return (fields + parameters).joined(separator: "\u{0}")
    }
}
