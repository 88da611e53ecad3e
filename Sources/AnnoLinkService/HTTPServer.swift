import CMicroHTTPD
import Foundation

/// The HTTP server of `annolink serve`: GNU libmicrohttpd parses the requests, this class turns
/// each into an `HTTPRequest`, settles the caller from the token table, asks the routes in
/// order and queues the answer, and writes one access-log line per request.
///
/// Threads: libmicrohttpd's own polling threads (`MHD_USE_INTERNAL_POLLING_THREAD` with
/// `MHD_OPTION_THREAD_POOL_SIZE`), a fixed pool rather than a thread per connection, so that the
/// number of threads, and with it the number of SQLite reader connections `Dataset` keeps, stays
/// bounded however many clients connect; a handler runs to completion on its thread, and the query
/// time limit bounds how long it can keep the other connections of that thread waiting.
///
/// The server is the one owner of its `MHD_Daemon`. It holds only values set at start, so the
/// polling threads share it without locks, except for the count of requests in flight.
public final class HTTPServer: @unchecked Sendable {
    /// The dataset the routes answer from.
    public let dataset: Dataset
    /// The route sets, asked in order; the first that claims a path answers.
    public let routes: [any Routes]
    /// Address, threads, limits and tokens.
    public let configuration: ServerConfiguration

    /// The names the server answers to and the origin of its own pages; its port is the one
    /// bound once `start()` has run.
    public private(set) var sameOrigin: SameOrigin
    private var daemon: OpaquePointer?
    private var listenSocket: Int32 = -1
    private let inFlightLock = NSLock()
    private var inFlight = 0
    private let logLock = NSLock()
    /// Which connections are taken: each address's share shrinks as the pool fills.
    let admission: ConnectionAdmission

    /// A server for `dataset` answering through `routes`; nothing listens until `start()`.
    public init(dataset: Dataset, routes: [any Routes], configuration: ServerConfiguration) {
        self.dataset = dataset
        self.routes = routes
        self.configuration = configuration
        sameOrigin = SameOrigin(listen: configuration.listen, publicURL: configuration.publicURL, cors: configuration.cors)
        admission = ConnectionAdmission(connectionLimit: configuration.connectionLimit,
                                        perAddressLimit: configuration.connectionsPerAddressLimit)
    }

    deinit {
        if let daemon { MHD_stop_daemon(daemon) }
    }

    /// Starts listening and returns the port (the one the system chose when the address asks for
    /// port 0). Wraps `MHD_start_daemon`.
    ///
    /// - Throws: `ServerError.cannotListen` when the address cannot be bound,
    ///   `ServerError.libraryMissing` when libmicrohttpd cannot be loaded.
    @discardableResult
    public func start() throws -> UInt16 {
        precondition(daemon == nil, "the server was started already")
        // libmicrohttpd is loaded on first use (Sources/CMicroHTTPD): a missing library is a
        // typed error here, not a failed start-up of every other command.
        guard annolink_mhd_load() == 0 else {
            throw ServerError.libraryMissing(annolink_mhd_load_error().map { String(cString: $0) } ?? "cannot load libmicrohttpd")
        }
        var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_AUTO.rawValue | MHD_USE_ITC.rawValue
        let context = Unmanaged.passUnretained(self).toOpaque()
        let address = configuration.listen
        let started: OpaquePointer? = address.withSocketAddress { socketAddress, isIPv6 in
            if isIPv6 { flags |= MHD_USE_IPv6.rawValue }
            return annolink_mhd_start(
                flags, socketAddress, UInt32(max(1, configuration.threads)), UInt32(configuration.connectionLimit),
                UInt32(configuration.connectionsPerAddressLimit), UInt32(configuration.idleTimeoutSeconds), configuration.connectionMemoryLimit,
                { context, connection, url, method, version, uploadData, uploadSize, requestContext in
                    guard let context, let connection, let url, let method, let uploadSize, let requestContext else { return MHD_Result.NO }
                    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
                    return server.handle(connection: connection, url: url, method: method, version: version, uploadData: uploadData,
                                         uploadSize: uploadSize, requestContext: requestContext)
                }, context,
                { context, _, requestContext, _ in
                    guard let context, let requestContext, let pending = requestContext.pointee else { return }
                    requestContext.pointee = nil
                    Unmanaged<PendingRequest>.fromOpaque(pending).release()
                    Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().finished()
                }, context,
                { context, address, _ in
                    guard let context, let address, let bytes = ConnectionAdmission.addressBytes(address) else { return MHD_Result.YES }
                    return Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().admission.admits(bytes) ? MHD_Result.YES : MHD_Result.NO
                }, context,
                { context, connection, socketContext, event in
                    guard let context, let connection, let socketContext else { return }
                    let admission = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().admission
                    if event == MHD_ConnectionNotificationCode.CONNECTION_NOTIFY_STARTED {
                        guard let address = annolink_mhd_client_address(connection), let bytes = ConnectionAdmission.addressBytes(address) else { return }
                        admission.began(bytes)
                        socketContext.pointee = Unmanaged.passRetained(ClientAddress(bytes)).toOpaque()
                    } else if let held = socketContext.pointee {
                        socketContext.pointee = nil
                        admission.closed(Unmanaged<ClientAddress>.fromOpaque(held).takeRetainedValue().bytes)
                    }
                }, context)
        }
        guard let started else { throw ServerError.cannotListen(address.description, reason: String(cString: strerror(errno))) }
        daemon = started
        let port = annolink_mhd_bound_port(started)
        sameOrigin.listen.port = port
        return port
    }

    /// Stops accepting connections, lets the requests in flight finish (at most `grace`
    /// seconds), then closes every connection and stops the threads. Wraps `MHD_quiesce_daemon`
    /// and `MHD_stop_daemon`.
    ///
    /// Edits not begun are refused from now on, and an edit still running `editGrace(grace)`
    /// seconds from now rolls back (`Dataset.stopEdits(within:)`), so that its client is
    /// answered — 503, nothing kept — before the connections close.
    /// A request still in flight when the grace period ends has its SQL stopped
    /// (`Dataset.stopStatements()`: an edit rolls back), so that `MHD_stop_daemon`, which waits
    /// for the threads, is not held by a long statement.
    public func stop(grace: Double = 10) {
        guard let daemon else { return }
        dataset.stopEdits(within: Self.editGrace(grace))
        listenSocket = MHD_quiesce_daemon(daemon)
        let deadline = Date().addingTimeInterval(grace)
        while requestsInFlight > 0, Date() < deadline {
            usleep(10_000)
        }
        if requestsInFlight > 0 { dataset.stopStatements() }
        MHD_stop_daemon(daemon)
        self.daemon = nil
        if listenSocket >= 0 { close(listenSocket) }
        listenSocket = -1
    }

    /// How long edits in flight may go on after a stop with `grace` seconds: two seconds
    /// before the grace ends (half of it when it is shorter than four), left for their answers.
    public static func editGrace(_ grace: Double) -> Double {
        max(grace / 2, grace - 2)
    }

    /// The requests begun and not yet answered.
    public var requestsInFlight: Int {
        inFlightLock.lock()
        defer { inFlightLock.unlock() }
        return inFlight
    }

    private func began() {
        inFlightLock.lock()
        inFlight += 1
        inFlightLock.unlock()
    }

    private func finished() {
        inFlightLock.lock()
        inFlight -= 1
        inFlightLock.unlock()
    }

    // MARK: Requests

    /// libmicrohttpd's access handler: called once when the header is read (the request's state
    /// is made), once per piece of body, and once more at the end, when the answer is queued.
    private func handle(connection: OpaquePointer, url: UnsafePointer<CChar>, method: UnsafePointer<CChar>, version: UnsafePointer<CChar>?,
                        uploadData: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
                        requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        guard let existing = requestContext.pointee else {
            let pending = PendingRequest(method: String(cString: method), path: String(cString: url),
                                         version: version.map { String(cString: $0) } ?? "")
            requestContext.pointee = Unmanaged.passRetained(pending).toOpaque()
            began()
            // Framing libmicrohttpd would take but two readers could read differently (request
            // smuggling through a proxy), or a body it would wait 30 s for, is refused at once.
            if let refusal = framingRefusal(connection) {
                return queue(refusal, for: pending, caller: nil, on: connection)
            }
            // A declared body over the limit is refused before a byte of it is read.
            if let length = lookup(connection, MHD_ValueKind.HEADER_KIND, "Content-Length").flatMap(Int.init), length > configuration.maxBodyBytes {
                pending.isTooLarge = true
                return queue(tooLarge(), for: pending, caller: nil, on: connection)
            }
            return MHD_Result.YES
        }
        let pending = Unmanaged<PendingRequest>.fromOpaque(existing).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            if !pending.isTooLarge, let uploadData {
                if pending.body.count + uploadSize.pointee > configuration.maxBodyBytes {
                    pending.isTooLarge = true
                    pending.body = []
                } else {
                    uploadData.withMemoryRebound(to: UInt8.self, capacity: uploadSize.pointee) {
                        pending.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: uploadSize.pointee))
                    }
                }
            }
            uploadSize.pointee = 0
            return MHD_Result.YES
        }
        if pending.isAnswered { return MHD_Result.YES }
        if pending.isTooLarge { return queue(tooLarge(), for: pending, caller: nil, on: connection) }
        var request: HTTPRequest
        do {
            request = try makeRequest(pending, connection: connection)
        } catch let error as RequestError {
            return queue(.problem(status: 400, detail: error.message), for: pending, caller: nil, on: connection)
        } catch {
            return queue(.problem(status: 400, detail: "the request cannot be read"), for: pending, caller: nil, on: connection)
        }
        if let refusal = hostRefusal(request, version: pending.version) {
            return queue(refusal, for: pending, caller: request.caller, on: connection)
        }
        if let refusal = place(&request) {
            return queue(refusal, for: pending, caller: request.caller, on: connection)
        }
        let origin = request.header("Origin").flatMap { sameOrigin.corsAllows(origin: $0) ? $0 : nil }
        var response: HTTPResponse
        if request.method == "OPTIONS", let method = request.header("Access-Control-Request-Method") {
            response = preflight(origin: origin, method: method, headers: request.header("Access-Control-Request-Headers"))
        } else {
            response = ContentNegotiation.negotiated(respond(to: request), for: request)
        }
        if let origin {
            response.headers += [("Access-Control-Allow-Origin", origin), ("Vary", "Origin"),
                                 ("Access-Control-Expose-Headers", Self.exposedHeaders)]
        }
        return queue(response, for: pending, caller: request.caller, on: connection)
    }

    /// The answers' header fields a page of a `--cors` origin may read, besides the simple ones.
    static let exposedHeaders = "ETag, Location, Link, Retry-After, WWW-Authenticate, Content-Disposition, Content-Crs, " +
        "X-Annolink-Features, X-Annolink-Features-From-Index, X-Annolink-Features-Sharing-Pixels, X-Annolink-Labels, X-Annolink-Labels-Under-Minimum"

    /// The answer to a CORS preflight: 204 with the methods and the asked-for header fields
    /// allowed when `--cors` allows the origin (nil when it does not: 403, and no
    /// `Access-Control-Allow-Origin`, so the browser refuses the request).
    private func preflight(origin: String?, method: String, headers: String?) -> HTTPResponse {
        guard origin != nil else {
            return .problem(status: 403, detail: "pages of this origin may not use the service from a browser; see annolink serve --cors")
        }
        let names = (headers ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") } }
        var fields: [(name: String, value: String)] = [
            ("Access-Control-Allow-Methods", "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"), ("Access-Control-Max-Age", "600"),
        ]
        if !names.isEmpty { fields.append(("Access-Control-Allow-Headers", names.joined(separator: ", "))) }
        return HTTPResponse(status: 204, headers: fields)
    }

    /// 400 for a request whose `Host` does not name the server (DNS rebinding), or an HTTP/1.1
    /// request without one (RFC 9112 §3.2).
    private func hostRefusal(_ request: HTTPRequest, version: String) -> HTTPResponse? {
        guard let host = request.header("Host") else {
            return version == "HTTP/1.0" ? nil : .problem(status: 400, detail: "an HTTP/1.1 request needs a Host header")
        }
        return sameOrigin.refusal(ofHost: host).map { .problem(status: 400, detail: $0) }
    }

    /// Takes `--base-path` off the request's path and sets the prefix of its links (a trusted
    /// `X-Forwarded-Prefix`, then the base path); the refusal when the path is not under the
    /// base path (404) or the forwarded prefix is not a plain path (400), nil otherwise.
    private func place(_ request: inout HTTPRequest) -> HTTPResponse? {
        var prefix = PathPrefix.root
        if configuration.trustsForwardedPrefix, let forwarded = request.header("X-Forwarded-Prefix")?.trimmingCharacters(in: .whitespaces),
           !forwarded.isEmpty {
            do {
                prefix = try PathPrefix(parsing: forwarded, option: "X-Forwarded-Prefix")
            } catch {
                return .problem(status: 400, detail: "\(error)")
            }
        }
        let base = configuration.basePath
        guard let routePath = base.routePath(of: request.path) else {
            return .problem(status: 404, detail: "there is no resource at \(request.path): this server answers under \(base) (--base-path)")
        }
        request.path = routePath
        request.linkPrefix = prefix.appending(base)
        return nil
    }

    /// 400 for two `Content-Length` values that differ, or `Content-Length` beside
    /// `Transfer-Encoding`; 501 for a transfer coding other than `chunked`; 411 for a chunked
    /// body (RFC 9112 §6, §6.3).
    ///
    /// A chunked request body is refused because libmicrohttpd 0.9.75 reads chunk lines ended by
    /// a bare LF, which a proxy in front may read differently (request smuggling), and annolink
    /// never sees the bytes to check them. Every client the service is tested with (GDAL,
    /// OWSLib, esridump, Esri's Python API, QGIS, browsers' `fetch` and forms) sends a
    /// `Content-Length`; RFC 9110 §15.5.12 lets a server require one.
    private func framingRefusal(_ connection: OpaquePointer) -> HTTPResponse? {
        guard let headers = try? values(of: connection, kind: MHD_ValueKind.HEADER_KIND) else { return nil }
        let lengths = Set(headers.filter { $0.0.lowercased() == "content-length" }.map { $0.1.trimmingCharacters(in: .whitespaces) })
        let codings = headers.filter { $0.0.lowercased() == "transfer-encoding" }.map { $0.1.trimmingCharacters(in: .whitespaces).lowercased() }
        if lengths.count > 1 { return .problem(status: 400, detail: "the request gives two different Content-Length values") }
        if !codings.isEmpty, !lengths.isEmpty { return .problem(status: 400, detail: "the request gives both Content-Length and Transfer-Encoding") }
        if let coding = codings.first(where: { $0 != "chunked" }) ?? (codings.count > 1 ? "chunked, chunked" : nil) {
            return .problem(status: 501, detail: "the transfer coding '\(coding)' is not supported; send the body with a Content-Length")
        }
        if !codings.isEmpty { return .problem(status: 411, detail: "a chunked request body is not accepted; send the body with a Content-Length") }
        return nil
    }

    /// The answer of the first route set that claims the request; a `HEAD` no route claims is
    /// answered as the `GET` (libmicrohttpd leaves out the body); 404 when no route claims it.
    public func respond(to request: HTTPRequest) -> HTTPResponse {
        for set in routes {
            if let response = set.respond(to: request, in: dataset) { return response }
        }
        if request.method == "HEAD" {
            var get = request
            get.method = "GET"
            for set in routes {
                if let response = set.respond(to: get, in: dataset) { return response }
            }
        }
        return .problem(status: 404, detail: "there is no resource at \(request.path)")
    }

    /// The request's parameters, headers and caller, from what libmicrohttpd parsed.
    private func makeRequest(_ pending: PendingRequest, connection: OpaquePointer) throws -> HTTPRequest {
        let headers = try values(of: connection, kind: MHD_ValueKind.HEADER_KIND)
        var headerFields: [String: String] = [:]
        for (name, value) in headers { headerFields[name.lowercased()] = value }
        var parameters: [String: String] = [:]
        for (name, value) in try values(of: connection, kind: MHD_ValueKind.GET_ARGUMENT_KIND) { parameters[name] = value }
        let contentType = headerFields["content-type"]?.lowercased() ?? ""
        if pending.method == "POST", contentType.hasPrefix("application/x-www-form-urlencoded") || contentType.hasPrefix("multipart/form-data") {
            for (name, value) in try formFields(of: pending.body, connection: connection) { parameters[name] = value }
        }
        var request = HTTPRequest(method: pending.method, path: pending.path, parameters: parameters, headers: headerFields, body: pending.body)
        request.caller = caller(headers: headerFields, parameters: parameters)
        request.publicOrigin = configuration.publicURL?.origin
        return request
    }

    /// Who is asking: a Bearer token (`Authorization` or Esri's `X-Esri-Authorization`) or a
    /// `token` parameter names the user; without one, a page of another origin may only read
    /// (`SameOrigin`), and anyone else may edit unless there is a token table.
    func caller(headers: [String: String], parameters: [String: String]) -> Caller {
        let crossSite = sameOrigin.crossSiteSource(headers: headers)
        guard let tokens = configuration.tokens else { return crossSite.map { .crossSite(source: $0) } ?? .anonymous(mayEdit: true) }
        let bearer = [headers["authorization"], headers["x-esri-authorization"]].compactMap { field -> String? in
            guard let field, field.lowercased().hasPrefix("bearer ") else { return nil }
            return field.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
        }.first
        guard let token = bearer ?? parameters["token"], !token.isEmpty else { return crossSite.map { .crossSite(source: $0) } ?? .anonymous(mayEdit: false) }
        guard let grant = tokens.grant(for: token) else { return .invalidToken }
        return .user(name: grant.user, mayEdit: grant.mayEdit)
    }

    /// Queues `response`, writes the access-log line and marks the request answered. Wraps
    /// `MHD_create_response_from_buffer`, `MHD_add_response_header` and `MHD_queue_response`.
    private func queue(_ response: HTTPResponse, for pending: PendingRequest, caller: Caller?, on connection: OpaquePointer) -> MHD_Result {
        pending.isAnswered = true
        let made: OpaquePointer? = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), MHD_ResponseMemoryMode.RESPMEM_MUST_COPY)
        }
        guard let made else { return MHD_Result.NO }
        defer { MHD_destroy_response(made) }
        for (name, value) in response.headers where !name.contains(where: \.isNewline) && !value.contains(where: \.isNewline) {
            _ = MHD_add_response_header(made, name, value)
        }
        let result = MHD_queue_response(connection, UInt32(response.status), made)
        log(pending, status: response.status, caller: caller)
        return result
    }

    private func tooLarge() -> HTTPResponse {
        .problem(status: 413, detail: "the request body is larger than the server's limit of \(configuration.maxBodyBytes) bytes")
    }

    // MARK: Access log

    /// One line on standard error: time, method, path, status, milliseconds, user (`-` for
    /// anonymous, `?` for an invalid token). The path is written with every byte outside
    /// printable ASCII, and spaces, percent-encoded, so a request cannot forge log lines; the
    /// query string (which may hold a token) is never logged.
    private func log(_ pending: PendingRequest, status: Int, caller: Caller?) {
        guard configuration.accessLog else { return }
        let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - pending.started) / 1_000_000
        let user: String = switch caller {
        case .user(let name, _)?: Self.logSafe(name)
        case .invalidToken?: "?"
        case .anonymous?, .crossSite?, nil: "-"
        }
        let line = "\(Self.timestamp()) \(Self.logSafe(pending.method)) \(Self.logSafe(pending.path)) \(status) \(String(format: "%.1f", milliseconds))ms \(user)\n"
        logLock.lock()
        defer { logLock.unlock() }
        FileHandle.standardError.write(Data(line.utf8))
    }

    static func logSafe(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            if byte > 0x20, byte < 0x7F, byte != UInt8(ascii: "%") {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                result += String(format: "%%%02X", byte)
            }
        }
        return result
    }

    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var time = now.tv_sec
        var parts = tm()
        gmtime_r(&time, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                      parts.tm_hour, parts.tm_min, parts.tm_sec, Int(now.tv_nsec / 1_000_000))
    }

    // MARK: libmicrohttpd's parsing

    /// One header field's value. Wraps `MHD_lookup_connection_value`.
    private func lookup(_ connection: OpaquePointer, _ kind: MHD_ValueKind, _ name: String) -> String? {
        MHD_lookup_connection_value(connection, kind, name).map { String(cString: $0) }
    }

    /// The header fields or the query parameters, decoded by libmicrohttpd. Wraps
    /// `MHD_get_connection_values`.
    ///
    /// - Throws: `RequestError` when a name or value is not UTF-8.
    private func values(of connection: OpaquePointer, kind: MHD_ValueKind) throws -> [(String, String)] {
        let collected = FieldCollector()
        let context = Unmanaged.passUnretained(collected).toOpaque()
        _ = withExtendedLifetime(collected) {
            MHD_get_connection_values(connection, kind, { context, _, key, value in
                guard let context, let key else { return MHD_Result.YES }
                let collector = Unmanaged<FieldCollector>.fromOpaque(context).takeUnretainedValue()
                collector.append(key: key, offset: 0, data: value.map { UnsafeRawBufferPointer(start: $0, count: strlen($0)) })
                return MHD_Result.YES
            }, context)
        }
        return try collected.fields()
    }

    /// The fields of a form-encoded body (`application/x-www-form-urlencoded` or
    /// `multipart/form-data`), decoded by libmicrohttpd's post processor. Wraps
    /// `MHD_create_post_processor`, `MHD_post_process` and `MHD_destroy_post_processor`.
    ///
    /// - Throws: `RequestError` when the body is not a well-formed form.
    private func formFields(of body: [UInt8], connection: OpaquePointer) throws -> [(String, String)] {
        let collected = FieldCollector()
        let context = Unmanaged.passUnretained(collected).toOpaque()
        return try withExtendedLifetime(collected) {
            guard let processor = MHD_create_post_processor(connection, 64 * 1024, { context, _, key, _, _, _, data, offset, size in
                guard let context, let key else { return MHD_Result.YES }
                let collector = Unmanaged<FieldCollector>.fromOpaque(context).takeUnretainedValue()
                collector.append(key: key, offset: offset, data: UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
                return MHD_Result.YES
            }, context) else {
                throw RequestError(message: "the form body's content type is not one the server reads")
            }
            let processed = body.withUnsafeBytes { bytes in
                bytes.isEmpty ? MHD_Result.YES : MHD_post_process(processor, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count)
            }
            let complete = MHD_destroy_post_processor(processor)
            guard processed == MHD_Result.YES, complete == MHD_Result.YES else { throw RequestError(message: "the form body is malformed") }
            return try collected.fields()
        }
    }
}

/// The state of one request between libmicrohttpd's calls: owned by its connection's thread,
/// kept alive by the request context pointer until the request-completed callback releases it.
private final class PendingRequest {
    let method: String
    let path: String
    /// `HTTP/1.1`, as the request line gives it.
    let version: String
    let started = DispatchTime.now().uptimeNanoseconds
    var body: [UInt8] = []
    var isTooLarge = false
    var isAnswered = false

    init(method: String, path: String, version: String) {
        self.method = method
        self.path = path
        self.version = version
    }
}

/// The IP address of a connection, kept in its socket context from its start to its close, so
/// that the count of its address goes down when it closes.
private final class ClientAddress {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }
}

/// Collects name and value pairs from libmicrohttpd's iterators; the post processor hands long
/// values over in pieces (`offset` > 0 continues the last one).
private final class FieldCollector {
    private var pairs: [(key: [UInt8], value: [UInt8])] = []

    func append(key: UnsafePointer<CChar>, offset: UInt64, data: UnsafeRawBufferPointer?) {
        let name = Array(UnsafeRawBufferPointer(start: key, count: strlen(key)))
        if offset > 0, let last = pairs.indices.last, pairs[last].key == name {
            pairs[last].value.append(contentsOf: data ?? UnsafeRawBufferPointer(start: nil, count: 0))
        } else {
            pairs.append((name, Array(data ?? UnsafeRawBufferPointer(start: nil, count: 0))))
        }
    }

    func fields() throws -> [(String, String)] {
        try pairs.map { pair in
            guard let key = String(validating: pair.key, as: UTF8.self), let value = String(validating: pair.value, as: UTF8.self) else {
                throw RequestError(message: "a parameter or header is not valid UTF-8")
            }
            return (key, value)
        }
    }
}

/// A request the server cannot turn into an `HTTPRequest` (answered 400).
private struct RequestError: Error {
    var message: String
}

/// Failures of the server itself.
public enum ServerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The listen address cannot be bound (in use, not an address of this machine).
    case cannotListen(String, reason: String)
    /// libmicrohttpd cannot be loaded; the reason names the package to install.
    case libraryMissing(String)
    /// The `--listen` value is not `HOST:PORT`.
    case invalidListenAddress(String)
    /// A line of the token file cannot be read.
    case invalidTokenFile(path: String, line: Int, reason: String)
    /// The `--public-url` value is not `http[s]://HOST[:PORT]`.
    case invalidPublicURL(String, reason: String)
    /// A `--cors` origin is not `*` or `http[s]://HOST[:PORT]`.
    case invalidCORSOrigin(String)
    /// A `--base-path` (or `X-Forwarded-Prefix`) is not a plain path (`PathPrefix`).
    case invalidPathPrefix(String, option: String, reason: String)

    public var description: String {
        switch self {
        case .cannotListen(let address, let reason): "cannot listen on \(address): \(reason)"
        case .libraryMissing(let reason): reason
        case .invalidListenAddress(let text):
            "'\(text)' is not an address to listen on; give HOST:PORT, e.g. 127.0.0.1:8080 or [::1]:8080"
        case .invalidTokenFile(let path, let line, let reason): "\(path) line \(line): \(reason)"
        case .invalidPublicURL(let text, let reason): "'\(text)' is not a public URL: \(reason)"
        case .invalidCORSOrigin(let text): "'\(text)' is not an origin for --cors: give * or ORIGIN,… such as https://app.example.org (no path)"
        case .invalidPathPrefix(let text, let option, let reason):
            "'\(text)' is not a path for \(option): \(reason); give a path such as /gis/annolink"
        }
    }
}

extension HTTPResponse {
    /// A problem document (RFC 9457, `application/problem+json`) for the server's own
    /// refusals: no such resource, a body too large, a request that cannot be read.
    public static func problem(status: Int, detail: String) -> HTTPResponse {
        struct Problem: Encodable {
            var type = "about:blank"
            var title: String
            var status: Int
            var detail: String
        }
        let title = HTTPStatus.reason(status)
        return (try? .json(Problem(title: title, status: status, detail: detail), status: status, contentType: "application/problem+json"))
            ?? HTTPResponse(status: status, contentType: "text/plain", body: Array("\(status) \(title)\n".utf8))
    }
}

/// The reason phrases of the status codes the service uses.
public enum HTTPStatus {
    /// `Not Found` for 404, and so on; `Error` for a code not listed.
    public static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 409: "Conflict"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Content"
        case 428: "Precondition Required"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Error"
        }
    }
}
