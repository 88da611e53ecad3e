// libFuzzer entry point (scripts/fuzz request): bytes → one HTTPRequest → `HTTPServer.respond(to:)`,
// the dispatch `annolink serve` runs for every request (FeatureServer: query parameters, `where`
// through the SQL guard, geometry and spatial-reference parameters, applyEdits' form fields and
// their JSON; OGC API Features: paths, query parameters, bbox, crs, GeoJSON bodies of POST, PUT
// and PATCH, If-Match; the map page), against the Loudoun data imported once from Fixtures/.
// No socket: libmicrohttpd's own parsing (request line, percent-decoding, form bodies) is the
// library's, not annolink's.
//
// Input layout, as text (so the seeds in the corpus read as requests):
//   METHOD PATH
//   name=value            query parameters / form fields, one a line
//   (empty line)
//   name: value           header fields, one a line (`authorization: Bearer editor|reader|other`
//   (empty line)           decides the caller, as a token table would)
//   body bytes
//
// `GET /ogc/api` (the OpenAPI document: it reads no input but `f` and the Accept header, and
// building it with Foundation's JSONSerialization under the sanitizer took most of the run's
// time) is answered once at start-up, not per input.
//
// Edits change the file: after every 200 requests that may have changed it, the dataset is put
// back to the imported file, so the state a crash depends on is at most 200 requests old.
import AnnoLinkImport
import AnnoLinkService
import AnnoLinkStore
import Foundation

/// The served file and the server answering on it.
private final class Fixture: @unchecked Sendable {
    let folder: String
    let pristine: String
    let served: String
    var server: HTTPServer?
    var changes = 0

    init() {
        let fixtures = ProcessInfo.processInfo.environment["ANNOLINK_FUZZ_FIXTURES"] ?? "Fixtures"
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        folder = "\(base)/annolink-fuzz-request-\(getpid())"
        try? FileManager.default.removeItem(atPath: folder)
        try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        pristine = "\(folder)/pristine.gpkg"
        served = "\(folder)/loudoun.gpkg"
        do {
            let source = try Connection(path: "\(fixtures)/loudoun_anno.geodatabase", mode: .readOnly)
            _ = try GeoPackage.build(at: pristine) { try MobileGeodatabaseImporter.run(source: source, into: $0) }
            try Connection(path: pristine, mode: .readWrite, journalMode: "DELETE").execute("PRAGMA user_version = 0")
        } catch {
            fatalError("cannot import \(fixtures)/loudoun_anno.geodatabase (set ANNOLINK_FUZZ_FIXTURES): \(error)")
        }
        server = Self.open(copying: pristine, to: served)
        let api = server!.respond(to: HTTPRequest(method: "GET", path: "/ogc/api"))
        if api.status != 200 { fatalError("GET /ogc/api answered \(api.status)") }
        // At exit the server goes first: what it caches (compiled label expressions) is freed
        // before the leak check, which cannot see pointers that Swift keeps in tagged enum
        // payloads and would report them.
        atexit {
            Fixture.shared.server = nil
            try? FileManager.default.removeItem(atPath: Fixture.shared.folder)
        }
    }

    static func open(copying pristine: String, to served: String) -> HTTPServer {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: served + suffix) }
        try! FileManager.default.copyItem(atPath: pristine, toPath: served)
        let dataset = try! Dataset(path: served, maxRecords: 50, queryTimeLimit: 2, readerLimit: 2)
        return HTTPServer(dataset: dataset, routes: ServiceRoutes.all, configuration: ServerConfiguration(accessLog: false))
    }

    func reset() {
        // The old server closes its connections before its file is replaced.
        server = nil
        server = Self.open(copying: pristine, to: served)
        changes = 0
    }

    static let shared = Fixture()
}

/// Splits `bytes` at the first empty line: what comes before it, and the rest.
private func section(_ bytes: ArraySlice<UInt8>) -> (head: ArraySlice<UInt8>, rest: ArraySlice<UInt8>) {
    var i = bytes.startIndex
    while i < bytes.endIndex {
        if bytes[i] == 10, i + 1 < bytes.endIndex, bytes[i + 1] == 10 { return (bytes[bytes.startIndex..<i], bytes[(i + 2)...]) }
        i += 1
    }
    return (bytes, [])
}

private func lines(_ bytes: ArraySlice<UInt8>) -> [String] {
    bytes.split(separator: 10, omittingEmptySubsequences: true).map { String(decoding: $0, as: UTF8.self) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = ArraySlice(UnsafeBufferPointer(start: data, count: size))
    let (requestLine, afterLine) = { () -> (String, ArraySlice<UInt8>) in
        guard let newline = bytes.firstIndex(of: 10) else { return (String(decoding: bytes, as: UTF8.self), []) }
        return (String(decoding: bytes[..<newline], as: UTF8.self), bytes[(newline + 1)...])
    }()
    let (parameterBytes, afterParameters) = section(afterLine)
    let (headerBytes, body) = section(afterParameters)
    let words = requestLine.split(separator: " ", maxSplits: 1)
    guard words.count == 2 else { return 0 }
    var parameters: [String: String] = [:]
    for line in lines(parameterBytes) {
        let pair = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        parameters[String(pair[0])] = pair.count > 1 ? String(pair[1]) : ""
    }
    var headers: [String: String] = [:]
    for line in lines(headerBytes) {
        let pair = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        headers[pair[0].lowercased()] = pair.count > 1 ? pair[1].trimmingCharacters(in: .whitespaces) : ""
    }
    let caller: Caller = switch headers["authorization"] {
    case nil: .anonymous(mayEdit: true)
    case "Bearer editor": .user(name: "editor", mayEdit: true)
    case "Bearer reader": .user(name: "reader", mayEdit: false)
    default: .invalidToken
    }
    if words[1] == "/ogc/api" || words[1] == "/ogc/api/" { return 0 }
    let request = HTTPRequest(method: String(words[0]), path: String(words[1]), parameters: parameters, headers: headers,
                              body: Array(body), caller: caller)
    let fixture = Fixture.shared
    let response = fixture.server!.respond(to: request)
    if !(100...599).contains(response.status) { fatalError("status \(response.status)") }
    if !["GET", "HEAD", "OPTIONS"].contains(request.method) || request.path.contains("applyEdits") {
        fixture.changes += 1
        if fixture.changes >= 200 { fixture.reset() }
    }
    return 0
}
