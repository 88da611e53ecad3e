import Foundation

/// One HTTP answer as a test sees it.
public struct HTTPReply: Sendable {
    /// The status code; 0 when no answer came (connection refused or reset).
    public var status: Int
    /// The header fields of the final answer, names lower-cased.
    public var headers: [String: String]
    /// The body.
    public var body: Data

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed as a JSON object; nil when it is not one.
    public var object: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }
}

/// Sends HTTP requests to a server under test with `curl` (Debian's, an HTTP client nobody here
/// wrote), and raw bytes through a socket for requests `curl` will not send.
public enum HTTPClient {
    /// `curl` (Debian package curl).
    public static var curl: ExternalTool { get throws { try ExternalTool.require("curl", package: "curl") } }

    /// Sends one request and returns the answer.
    ///
    /// - Parameters:
    ///   - form: fields sent as an `application/x-www-form-urlencoded` body (curl encodes
    ///     them), as Esri clients send `applyEdits`.
    ///   - body: raw body bytes (with a `Content-Type` among `headers`); ignored with `form`.
    ///   - chunked: send the body with `Transfer-Encoding: chunked` (no `Content-Length`).
    public static func request(_ url: String, method: String = "GET", headers: [String: String] = [:], form: [(String, String)]? = nil,
                               body: Data? = nil, chunked: Bool = false) throws -> HTTPReply {
        let folder = try ScratchDirectory(prefix: "http")
        let headerFile = folder.path("headers"), bodyFile = folder.path("body")
        // `-X HEAD` would wait for a body the server never sends; `-I` asks HEAD properly.
        var arguments = (method == "HEAD" ? ["-I"] : ["-X", method]) + ["-s", "-S", "-D", headerFile, "-o", bodyFile, "-w", "%{http_code}", "--max-time", "60"]
        for (name, value) in headers { arguments += ["-H", "\(name): \(value)"] }
        if chunked { arguments += ["-H", "Transfer-Encoding: chunked"] }
        if let form {
            for (name, value) in form { arguments += ["--data-urlencode", "\(name)=\(value)"] }
        } else if let body {
            let input = folder.path("request")
            try body.write(to: URL(fileURLWithPath: input))
            arguments += ["--data-binary", "@\(input)"]
        }
        arguments.append(url)
        let result = try curl.run(arguments)
        let status = Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        var fields: [String: String] = [:]
        let headerText = (try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? ""
        // With `100 Continue` there are two header blocks; the last is the answer's.
        let lastBlock = headerText.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }.last ?? ""
        for line in lastBlock.components(separatedBy: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return HTTPReply(status: status, headers: fields, body: (try? Data(contentsOf: URL(fileURLWithPath: bodyFile))) ?? Data())
    }

    /// Runs `curl` once with many URLs (one connection, kept alive) and returns each answer's
    /// status code, in order.
    public static func statuses(_ urls: [String]) throws -> [Int] {
        var arguments = ["-s", "--max-time", "120"]
        for url in urls { arguments += ["-o", "/dev/null", "-w", "%{http_code}\\n", url] }
        return try curl.run(arguments).stdout.split(separator: "\n").map { Int($0) ?? 0 }
    }

    /// Runs `curl` once with one form `POST` to `url` per element of `forms` (one connection,
    /// kept alive, requests one after another, as one client) and returns each answer's status.
    public static func postForms(_ url: String, _ forms: [[(String, String)]]) throws -> [Int] {
        var arguments: [String] = []
        for (index, form) in forms.enumerated() {
            if index > 0 { arguments.append("--next") }
            arguments += ["-s", "--max-time", "120", "-o", "/dev/null", "-w", "%{http_code}\\n"]
            for (name, value) in form { arguments += ["--data-urlencode", "\(name)=\(value)"] }
            arguments.append(url)
        }
        return try curl.run(arguments).stdout.split(separator: "\n").map { Int($0) ?? 0 }
    }

    /// A TCP connection to 127.0.0.1:`port` from the loopback address `source` (127.0.0.2 … are
    /// loopback on Linux), for tests of what the server allows one address; the caller closes it.
    public static func connect(port: UInt16, from source: String) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw POSIXError(.EIO) }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = port.bigEndian
        remote.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, connected == 0 else {
            close(socket)
            throw POSIXError(.ECONNREFUSED)
        }
        return socket
    }

    /// Writes `request` as it is to `127.0.0.1:port`, then reads until the server closes the
    /// connection (at most `timeout` seconds) and returns what it sent.
    public static func raw(port: UInt16, _ request: [UInt8], timeout: Int = 10) throws -> String {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw POSIXError(.EIO) }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        _ = request.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        shutdown(socket, Int32(SHUT_WR))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }
}
