/// A path in front of every route when the service sits under a path of a reverse proxy
/// (`--base-path /gis/annolink`, a trusted `X-Forwarded-Prefix: /gis`; docs/serve.md, "Behind a
/// reverse proxy"): `/` and segments of plain URL path characters, no trailing slash.
///
/// The value ends up in every link the server writes (OGC links, `Location`, the map page's
/// `<base href>`), so only plain path text is taken: no `.` or `..` segment (a browser would
/// resolve it against the link), no `//` (a scheme-relative URL), no `?` or `#`, no percent
/// sign (the request path is compared decoded), no space, quote, backslash or control character.
public struct PathPrefix: Sendable, Equatable, CustomStringConvertible {
    /// `""` for the root, else `/a/b`: starts with `/`, never ends with one.
    public var path: String

    /// The root: no prefix.
    public static let root = PathPrefix(checked: "")

    private init(checked path: String) { self.path = path }

    /// Parses `/a/b` (a trailing `/` is dropped; `/` alone is the root).
    ///
    /// - Throws: `ServerError.invalidPathPrefix` naming what is wrong.
    public init(parsing text: String, option: String) throws {
        if let reason = Self.refusal(of: text) { throw ServerError.invalidPathPrefix(text, option: option, reason: reason) }
        var path = text
        if path.hasSuffix("/") { path.removeLast() }
        self.init(checked: path)
    }

    /// Why `text` is not a path prefix, or nil when it is one.
    static func refusal(of text: String) -> String? {
        guard text.hasPrefix("/") else { return "it must start with '/'" }
        if let bad = text.unicodeScalars.first(where: { !allowed($0) }) {
            let shown = bad.value < 0x20 || bad.value == 0x7F ? String(format: "U+%04X", bad.value) : "'\(bad)'"
            return "\(shown) is not allowed: give plain path segments (letters, digits, - . _ ~ ! $ & ( ) * + , ; = : @)"
        }
        if text.contains("//") { return "it contains '//'" }
        let segments = text.split(separator: "/")
        if segments.contains(where: { $0 == "." || $0 == ".." }) { return "it contains a '.' or '..' segment" }
        return nil
    }

    /// RFC 3986's `pchar` without percent-encoding, and `/`; ASCII only.
    private static func allowed(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.isASCII else { return false }
        let c = Character(scalar)
        return c.isLetter || c.isNumber || "-._~!$&()*+,;=:@/".contains(c)
    }

    /// The prefix followed by `other`: `/gis` + `/annolink` = `/gis/annolink`.
    public func appending(_ other: PathPrefix) -> PathPrefix { PathPrefix(checked: path + other.path) }

    /// The route path of `requestPath` under this prefix: `/ogc` for `/gis/ogc`, `/` for `/gis`
    /// and `/gis/`; nil when `requestPath` is not under it.
    public func routePath(of requestPath: String) -> String? {
        if path.isEmpty { return requestPath }
        if requestPath == path { return "/" }
        guard requestPath.hasPrefix(path + "/") else { return nil }
        return String(requestPath.dropFirst(path.count))
    }

    public var description: String { path.isEmpty ? "/" : path }
}
