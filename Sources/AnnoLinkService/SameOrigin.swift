/// Which names a request may call the server by (`Host`) and which pages may change its data
/// (`Origin`, `Sec-Fetch-Site`): the server's defence against cross-site request forgery and DNS
/// rebinding (docs/serve.md, "Who may edit: the threat model").
///
/// A browser sends a cross-site `<form>` POST, or a `fetch` from another origin, with the user's
/// network position: a server on 127.0.0.1 without `--tokens` would take it as an edit from the
/// machine's own user. A browser always says where such a request comes from (`Origin`, and
/// `Sec-Fetch-Site` in current browsers); other clients (GDAL, OWSLib, curl, Esri's Python API)
/// send neither. So a request from another origin may read (the browser keeps the answer from
/// the page: no CORS header allows it), but may change data only with a valid token, which a page
/// on another origin cannot know.
///
/// `--cors` names the other origins whose pages may use the service (CORS, for web apps served
/// elsewhere): their requests are answered with `Access-Control-Allow-Origin`, their preflights
/// answered, and a named origin may edit as the server's own pages may (still with a token when
/// the server has `--tokens`). `*` lets every origin's pages read; an edit from another origin
/// then still needs a token, since a page anywhere on the web could otherwise edit.
///
/// DNS rebinding turns a remote page into a same-origin one by pointing its own name at the
/// server's address; the `Host` header still carries that name, so a request is answered only
/// when its `Host` names the server: the listen address, `localhost` and the loopback addresses
/// when listening on loopback, any IP address when listening on all addresses, and the host of
/// `--public-url`.
public struct SameOrigin: Sendable, Equatable {
    /// The URL clients reach the server by, when a proxy stands in front of it
    /// (`--public-url https://maps.example.org`): its scheme and authority, no path.
    public struct PublicURL: Sendable, Equatable {
        /// `http` or `https`.
        public var scheme: String
        /// `maps.example.org` or `maps.example.org:8443`, lower-cased; the port only when it is
        /// not the scheme's default.
        public var authority: String

        /// Parses `http[s]://HOST[:PORT]` with no path, query or user.
        ///
        /// - Throws: `ServerError.invalidPublicURL` naming what is wrong.
        public init(parsing text: String) throws {
            let lower = text.lowercased()
            guard let separator = lower.range(of: "://") else { throw ServerError.invalidPublicURL(text, reason: "it has no scheme (http:// or https://)") }
            let scheme = String(lower[..<separator.lowerBound])
            guard scheme == "http" || scheme == "https" else { throw ServerError.invalidPublicURL(text, reason: "the scheme must be http or https") }
            var rest = Substring(lower[separator.upperBound...])
            if rest.hasSuffix("/") { rest = rest.dropLast() }
            guard !rest.contains(where: { "/?#@ \\".contains($0) }) else {
                throw ServerError.invalidPublicURL(text, reason: "give only the scheme, host and port: a path, query or user is not supported")
            }
            guard let authority = SameOrigin.authority(String(rest), defaultPort: scheme == "https" ? 443 : 80) else {
                throw ServerError.invalidPublicURL(text, reason: "'\(rest)' is not HOST or HOST:PORT")
            }
            self.scheme = scheme
            self.authority = authority.text
        }

        /// `https://maps.example.org`.
        public var origin: String { "\(scheme)://\(authority)" }
    }

    /// The other origins `--cors` allows: each page of one may read and edit as the server's own.
    public struct CORS: Sendable, Equatable {
        /// Origins as a browser sends them, lower-cased: `https://app.example.org`.
        public var origins: Set<String>
        /// `*`: every origin's pages may read (and edit with a token).
        public var anyOrigin: Bool

        /// Parses `ORIGIN,…` or `*`.
        ///
        /// - Throws: `ServerError.invalidCORSOrigin` for a value that is not `http[s]://HOST[:PORT]`.
        public init(parsing text: String) throws {
            var origins: Set<String> = []
            var anyOrigin = false
            for part in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !part.isEmpty {
                if part == "*" { anyOrigin = true; continue }
                guard let url = try? PublicURL(parsing: part), !part.hasSuffix("/") else { throw ServerError.invalidCORSOrigin(part) }
                origins.insert(url.origin)
            }
            guard anyOrigin || !origins.isEmpty else { throw ServerError.invalidCORSOrigin(text) }
            self.origins = origins
            self.anyOrigin = anyOrigin
        }
    }

    /// The address the server listens on.
    public var listen: ListenAddress
    /// `--public-url`, when given.
    public var publicURL: PublicURL?
    /// `--cors`, when given.
    public var cors: CORS?

    public init(listen: ListenAddress, publicURL: PublicURL? = nil, cors: CORS? = nil) {
        self.listen = listen
        self.publicURL = publicURL
        self.cors = cors
    }

    /// Whether `--cors` lets pages of `origin` (as a browser sends it) read through CORS.
    public func corsAllows(origin: String) -> Bool {
        guard let cors else { return false }
        return cors.anyOrigin || cors.origins.contains(normalized(origin: origin))
    }

    /// `origin` lower-cased, with its scheme's default port left out.
    private func normalized(origin: String) -> String {
        guard let url = try? PublicURL(parsing: origin) else { return origin.lowercased() }
        return url.origin
    }

    /// A `Host` value, or an origin's authority, split into a lower-cased host (IPv6 without its
    /// brackets) and a port, and written back normalised (the port left out when it is the
    /// default). Nil when it is not `HOST[:PORT]`.
    static func authority(_ text: String, defaultPort: Int) -> (host: String, port: Int, text: String)? {
        let lower = text.lowercased()
        var host: Substring
        var portText: Substring?
        if lower.hasPrefix("[") {
            guard let close = lower.firstIndex(of: "]") else { return nil }
            host = lower[lower.index(after: lower.startIndex)..<close]
            let after = lower[lower.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
        } else {
            let parts = lower.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { return nil }
            host = parts[0]
            if parts.count == 2 { portText = parts[1] }
        }
        guard !host.isEmpty, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._:".contains($0)) }) else { return nil }
        var port = defaultPort
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(portText), n <= 65535 else { return nil }
            port = n
        }
        let hostText = host.contains(":") ? "[\(host)]" : String(host)
        return (String(host), port, port == defaultPort ? hostText : "\(hostText):\(port)")
    }

    /// Why `host` (a `Host` header's value) does not name this server, or nil when it does.
    public func refusal(ofHost host: String) -> String? {
        if let publicURL, let given = Self.authority(host, defaultPort: publicURL.scheme == "https" ? 443 : 80), given.text == publicURL.authority {
            return nil
        }
        let names = "\(listen)\(publicURL.map { " or \($0.authority)" } ?? "")"
        guard let given = Self.authority(host, defaultPort: 80) else { return "the Host header '\(host)' is not HOST or HOST:PORT" }
        let refused = "the Host header '\(host)' does not name this server (\(names)); " +
            "a server behind a proxy or reached by another name needs --public-url"
        guard given.port == Int(listen.port) else { return refused }
        let isIP = given.host.allSatisfy { $0.isNumber || $0 == "." } || given.host.contains(":")
        if listen.host == "0.0.0.0" || listen.host == "::" {
            // Every address of the machine is the server's; a name could be anyone's.
            return isIP || given.host == "localhost" ? nil : refused
        }
        if listen.isLoopback, given.host == "localhost" || given.host == "::1" || given.host.hasPrefix("127.") { return nil }
        return given.host == listen.host.lowercased() ? nil : refused
    }

    /// Whether a request with these header fields (names lower-cased) and an admitted `Host`
    /// comes from a page of another origin: an `Origin` other than the server's own (`null` too:
    /// a sandboxed page or a file), or, without `Origin`, a `Sec-Fetch-Site` other than
    /// `same-origin` or `none` (the user typed the URL); an origin `--cors` names is not another
    /// origin. The other origin, or the
    /// `Sec-Fetch-Site` value, is returned; nil when the request is not cross-site.
    public func crossSiteSource(headers: [String: String]) -> String? {
        if let origin = headers["origin"]?.trimmingCharacters(in: .whitespaces), !origin.isEmpty {
            if isOwn(origin: origin, host: headers["host"]) { return nil }
            return cors?.origins.contains(normalized(origin: origin)) == true ? nil : origin
        }
        if let site = headers["sec-fetch-site"]?.lowercased(), site != "same-origin", site != "none" {
            return "a \(site) page"
        }
        return nil
    }

    /// Whether `origin` is this server's: the public URL's, or the request's own `Host` (already
    /// admitted) under either scheme, so that a page reached by any admitted name may edit.
    private func isOwn(origin: String, host: String?) -> Bool {
        let lower = origin.lowercased()
        if let publicURL, lower == publicURL.origin { return true }
        guard let separator = lower.range(of: "://"), let host else { return false }
        let scheme = lower[..<separator.lowerBound]
        guard scheme == "http" || scheme == "https" else { return false }
        let defaultPort = scheme == "https" ? 443 : 80
        guard let own = Self.authority(host, defaultPort: defaultPort),
              let given = Self.authority(String(lower[separator.upperBound...]), defaultPort: defaultPort) else { return false }
        return own.text == given.text
    }
}
