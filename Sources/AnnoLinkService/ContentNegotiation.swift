import CZlib

/// What the server does to an answer for the client's caches and bandwidth, after the routes
/// made it (docs/serve.md, "Compression and validators"): a validator for a `GET` answer that
/// has none, `304 Not Modified` when the client holds that version already (`If-None-Match`),
/// and gzip when the client takes it (`Accept-Encoding`).
enum ContentNegotiation {
    /// The smallest body worth compressing: below it gzip's 18 bytes of framing eat the gain.
    static let minimumCompressedSize = 1024

    /// Media types whose answers are text, and shrink (JSON, HTML, JavaScript, CSS, SVG).
    static func isCompressible(_ contentType: String) -> Bool {
        let type = contentType.split(separator: ";")[0].trimmingCharacters(in: .whitespaces).lowercased()
        return type.hasPrefix("text/") || type.hasSuffix("json") || type.hasSuffix("+xml") || type == "application/javascript"
            || type == "application/xml"
    }

    /// `response` as `request` should get it: with an `ETag` (a hash of the body) when it is a
    /// `GET` or `HEAD` 200 that has none and may be stored; 304 without a body when
    /// `If-None-Match` names that tag (weak comparison, RFC 9110 §13.1.2); gzipped when
    /// `Accept-Encoding` takes gzip and the body is text of at least `minimumCompressedSize`
    /// bytes. The tag stays what it was: it names the content whichever coding carries it, so
    /// that an OGC item's tag read gzipped still guards a `PATCH` (`If-Match`, strong comparison).
    static func negotiated(_ response: HTTPResponse, for request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD", response.status == 200 else { return response }
        var response = response
        let cacheControl = header(response, "Cache-Control")?.lowercased() ?? ""
        if header(response, "ETag") == nil, !cacheControl.contains("no-store") {
            response.headers.append(("ETag", "\"\(fingerprint(response.body))\""))
        }
        if let tag = header(response, "ETag"), let asked = request.header("If-None-Match"), matches(asked, tag) {
            let kept = response.headers.filter { ["etag", "cache-control", "vary", "content-location", "expires"].contains($0.name.lowercased()) }
            return HTTPResponse(status: 304, headers: kept)
        }
        guard header(response, "Content-Encoding") == nil, response.body.count >= minimumCompressedSize,
              isCompressible(header(response, "Content-Type") ?? "") else { return response }
        response.headers.append(("Vary", "Accept-Encoding"))
        guard acceptsGzip(request.header("Accept-Encoding")), let gzipped = gzip(response.body) else { return response }
        response.body = gzipped
        response.headers.append(("Content-Encoding", "gzip"))
        return response
    }

    static func header(_ response: HTTPResponse, _ name: String) -> String? {
        response.headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Whether an `If-None-Match` list names `tag` (`*`, or a tag equal but for `W/`).
    static func matches(_ list: String, _ tag: String) -> Bool {
        let opaque = { (t: String) in t.hasPrefix("W/") ? String(t.dropFirst(2)) : t }
        return list.split(separator: ",").contains { item in
            let given = item.trimmingCharacters(in: .whitespaces)
            return given == "*" || opaque(given) == opaque(tag)
        }
    }

    /// Whether `Accept-Encoding` takes gzip: `gzip` (or `x-gzip`, or `*`) with a quality above 0.
    static func acceptsGzip(_ field: String?) -> Bool {
        guard let field else { return false }
        for item in field.lowercased().split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let coding = parts.first, coding == "gzip" || coding == "x-gzip" || coding == "*" else { continue }
            let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            if quality > 0 { return true }
        }
        return false
    }

    /// Two 64-bit FNV-1a hashes of `bytes`, as 32 hexadecimal digits: a tag that changes when a
    /// byte does (an answer's `ETag`, an idempotency key's request).
    static func fingerprint(_ bytes: [UInt8]) -> String {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325, b: UInt64 = 0x6c62_272e_07bb_0142
        for byte in bytes {
            a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            b = (b ^ UInt64(byte ^ 0x5a)) &* 0x0000_0100_0000_01b3
        }
        return String(a, radix: 16).leftPadded(16) + String(b, radix: 16).leftPadded(16)
    }

    /// `bytes` as one gzip member (RFC 1952) at zlib's level 6; nil if zlib fails. Wraps
    /// `deflateInit2`, `deflateBound`, `deflate` and `deflateEnd`.
    static func gzip(_ bytes: [UInt8]) -> [UInt8]? {
        var stream = z_stream()
        guard annolink_deflate_init_gzip(&stream, 6) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))) + 32)
        var input = bytes
        let status: Int32 = input.withUnsafeMutableBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = source.baseAddress
                stream.avail_in = uInt(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = uInt(target.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { return nil }
        output.removeSubrange(Int(stream.total_out)...)
        return output
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
