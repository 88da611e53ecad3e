import Foundation

/// How `annolink serve` listens and what it allows: set once at start, shared read-only by
/// every thread.
public struct ServerConfiguration: Sendable {
    /// The address to listen on (loopback unless told otherwise).
    public var listen: ListenAddress
    /// libmicrohttpd's polling threads (`MHD_OPTION_THREAD_POOL_SIZE`).
    public var threads: Int
    /// The largest request body accepted, in bytes; a larger one is answered 413.
    public var maxBodyBytes: Int
    /// The most connections open at once (`MHD_OPTION_CONNECTION_LIMIT`); more wait in the
    /// listen queue.
    public var connectionLimit: Int
    /// The most connections open at once from one IP address
    /// (`MHD_OPTION_PER_IP_CONNECTION_LIMIT`), so that one client cannot take every connection
    /// (slow clients holding them open, say); more from that address are closed at once.
    public var connectionsPerAddressLimit: Int
    /// Seconds after which a connection that sends nothing is closed
    /// (`MHD_OPTION_CONNECTION_TIMEOUT`): an idle keep-alive connection, or a client that
    /// stopped sending its request part-way.
    public var idleTimeoutSeconds: Int
    /// Bytes libmicrohttpd may use per connection for the request line and header fields
    /// (`MHD_OPTION_CONNECTION_MEMORY_LIMIT`); a longer header is answered 431 or 414.
    public var connectionMemoryLimit: Int
    /// The tokens of `--tokens`; nil: no token file, everyone may edit.
    public var tokens: TokenTable?
    /// Whether each request is logged on standard error.
    public var accessLog: Bool
    /// The most sketch sessions open at once (`--sketch-sessions`); one more is refused with 503.
    public var sketchSessionLimit: Int
    /// Seconds a sketch session may go without a request before it is ended (`--sketch-idle`).
    public var sketchIdleSeconds: Double
    /// `--public-url`: the name and origin clients reach the server by through a proxy, besides
    /// the listen address (`SameOrigin`).
    public var publicURL: SameOrigin.PublicURL?
    /// `--cors`: the other origins whose pages may use the service (`SameOrigin.CORS`).
    public var cors: SameOrigin.CORS?
    /// `--base-path`: the path every route is under (`/gis/annolink`); requests outside it are
    /// answered 404, and links carry it (docs/serve.md, "Behind a reverse proxy").
    public var basePath: PathPrefix
    /// `--trust-forwarded-prefix`: whether a request's `X-Forwarded-Prefix` (the path a proxy
    /// took off before forwarding) goes in front of the links; ignored otherwise, since any
    /// client could send one.
    public var trustsForwardedPrefix: Bool

    public init(listen: ListenAddress = .loopback(port: 8080), threads: Int = 8, maxBodyBytes: Int = 10 * 1024 * 1024,
                connectionLimit: Int = 256, connectionsPerAddressLimit: Int = 64, idleTimeoutSeconds: Int = 30, connectionMemoryLimit: Int = 128 * 1024,
                tokens: TokenTable? = nil, accessLog: Bool = true,
                sketchSessionLimit: Int = SketchRoutes.defaultLimit, sketchIdleSeconds: Double = SketchRoutes.defaultIdleSeconds,
                publicURL: SameOrigin.PublicURL? = nil, cors: SameOrigin.CORS? = nil, basePath: PathPrefix = .root,
                trustsForwardedPrefix: Bool = false) {
        self.listen = listen
        self.threads = threads
        self.maxBodyBytes = maxBodyBytes
        self.connectionLimit = connectionLimit
        self.connectionsPerAddressLimit = connectionsPerAddressLimit
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.connectionMemoryLimit = connectionMemoryLimit
        self.tokens = tokens
        self.accessLog = accessLog
        self.sketchSessionLimit = sketchSessionLimit
        self.sketchIdleSeconds = sketchIdleSeconds
        self.publicURL = publicURL
        self.cors = cors
        self.basePath = basePath
        self.trustsForwardedPrefix = trustsForwardedPrefix
    }
}

/// An IP address and port to listen on: `127.0.0.1:8080`, `[::1]:8080`, `0.0.0.0:8080`,
/// `localhost:8080`. Host names other than `localhost` are not looked up.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    /// The address as written, without brackets: `127.0.0.1`, `::1`.
    public var host: String
    /// The port; 0 lets the system choose one.
    public var port: UInt16

    /// `127.0.0.1:port`.
    public static func loopback(port: UInt16) -> ListenAddress { ListenAddress(host: "127.0.0.1", port: port) }

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT`.
    ///
    /// - Throws: `ServerError.invalidListenAddress` when it is not an IPv4 or bracketed IPv6
    ///   address (or `localhost`) and a port from 0 to 65535.
    public init(parsing text: String) throws {
        let hostPart: Substring
        let portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw ServerError.invalidListenAddress(text)
            }
            hostPart = text[text.index(after: text.startIndex)..<close]
            portPart = text[text.index(close, offsetBy: 2)...]
        } else {
            // An IPv6 address must be in brackets: in `::1:8080` the port cannot be told apart.
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else { throw ServerError.invalidListenAddress(text) }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
        }
        guard let port = UInt16(portPart), portPart.allSatisfy(\.isASCII) else { throw ServerError.invalidListenAddress(text) }
        let host = hostPart == "localhost" ? "127.0.0.1" : String(hostPart)
        self.init(host: host, port: port)
        guard withSocketAddress({ address, _ in address != nil }) else { throw ServerError.invalidListenAddress(text) }
    }

    /// Whether the address is a loopback address (only this machine can connect).
    public var isLoopback: Bool { host.hasPrefix("127.") || host == "::1" }

    /// `HOST:PORT` as a URL writes it (IPv6 in brackets).
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Calls `body` with the `sockaddr_in` or `sockaddr_in6` of the address (nil when `host` is
    /// not an IP address) and whether it is IPv6. Wraps `inet_pton`.
    func withSocketAddress<T>(_ body: (UnsafePointer<sockaddr>?, Bool) -> T) -> T {
        var v4 = sockaddr_in()
        v4.sin_family = sa_family_t(AF_INET)
        v4.sin_port = port.bigEndian
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            return withUnsafePointer(to: &v4) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, false) } }
        }
        var v6 = sockaddr_in6()
        v6.sin6_family = sa_family_t(AF_INET6)
        v6.sin6_port = port.bigEndian
        if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
            return withUnsafePointer(to: &v6) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, true) } }
        }
        return body(nil, false)
    }
}

/// The tokens of `--tokens FILE`: one per line, `TOKEN USER read|edit`, separated by spaces or
/// tabs; blank lines and lines starting with `#` are skipped.
public struct TokenTable: Sendable, Equatable {
    /// What a token grants.
    public struct Grant: Sendable, Equatable {
        /// The user name the journal records.
        public var user: String
        /// Whether the token allows edits (`edit`) or only reads (`read`).
        public var mayEdit: Bool

        public init(user: String, mayEdit: Bool) {
            self.user = user
            self.mayEdit = mayEdit
        }
    }

    private var grants: [String: Grant]

    /// The number of tokens.
    public var count: Int { grants.count }

    public init(grants: [String: Grant]) {
        self.grants = grants
    }

    /// Reads the token file's text.
    ///
    /// - Throws: `ServerError.invalidTokenFile` for a line without three fields, a right other
    ///   than `read` or `edit`, or a token given twice.
    public init(parsing text: String, path: String) throws {
        var grants: [String: Grant] = [:]
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let fields = trimmed.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard fields.count == 3 else {
                throw ServerError.invalidTokenFile(path: path, line: index + 1, reason: "expected 'TOKEN USER read|edit', found \(fields.count) fields")
            }
            guard fields[2] == "read" || fields[2] == "edit" else {
                throw ServerError.invalidTokenFile(path: path, line: index + 1, reason: "the right must be 'read' or 'edit', not '\(fields[2])'")
            }
            guard grants[fields[0]] == nil else {
                throw ServerError.invalidTokenFile(path: path, line: index + 1, reason: "this token is given on an earlier line too")
            }
            grants[fields[0]] = Grant(user: fields[1], mayEdit: fields[2] == "edit")
        }
        self.grants = grants
    }

    /// What `token` grants, or nil when it is not in the table.
    public func grant(for token: String) -> Grant? { grants[token] }
}
