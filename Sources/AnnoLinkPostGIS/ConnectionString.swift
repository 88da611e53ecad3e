/// A PostgreSQL database as the user names it: a `postgresql://` (or `postgres://`) URI, GDAL's
/// `PG:` form (`PG:dbname=county host=db.example port=5432 user=editor`), or a plain libpq
/// key/value string, turned into what libpq's `PQconnectdb` takes.
///
/// GDAL's form is libpq's key/value syntax after `PG:`, plus options of GDAL's own driver
/// (`schemas`, `active_schema`, `tables`, `list_all_tables`); those are not libpq's and are
/// taken out (`gdalOptions`), and the rest is written back as key/value pairs with every value
/// quoted. Passwords are kept in `conninfo` but never shown: `redacted` is the text for messages.
public struct ConnectionString: Hashable, Sendable {
    /// What libpq's `PQconnectdb` takes: a URI, or `key='value'` pairs.
    public var conninfo: String
    /// GDAL's own options from a `PG:` string (`active_schema` → `public`, …), by key.
    public var gdalOptions: [String: String]
    /// The text as the user wrote it, with any password replaced by `***`.
    public var redacted: String

    /// Keywords of GDAL's PostgreSQL driver that libpq does not know.
    static let gdalKeywords: Set<String> = ["schemas", "active_schema", "tables", "list_all_tables"]

    /// Whether `text` names a PostgreSQL database rather than a file: it starts with
    /// `postgresql://`, `postgres://` or `PG:`.
    public static func isPostgreSQL(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.hasPrefix("postgresql://") || lower.hasPrefix("postgres://") || text.hasPrefix("PG:")
    }

    /// Parses `text`.
    ///
    /// - Throws: `PostgreSQLError` (no SQLSTATE) when a `PG:` or key/value string cannot be
    ///   read (an unterminated quote, a word without `=`).
    public init(_ text: String) throws {
        var body = text
        if text.hasPrefix("PG:") { body = String(text.dropFirst(3)) }
        let lower = body.lowercased()
        if lower.hasPrefix("postgresql://") || lower.hasPrefix("postgres://") {
            conninfo = body
            gdalOptions = [:]
            redacted = Self.redactURI(text)
            return
        }
        let pairs = try Self.keyValuePairs(body)
        var kept: [(String, String)] = []
        var options: [String: String] = [:]
        for (key, value) in pairs {
            if Self.gdalKeywords.contains(key.lowercased()) { options[key.lowercased()] = value } else { kept.append((key, value)) }
        }
        conninfo = kept.map { "\($0.0)=\(Self.quoteValue($0.1))" }.joined(separator: " ")
        gdalOptions = options
        let shown = pairs.map { $0.0.lowercased() == "password" ? "\($0.0)=***" : "\($0.0)=\(Self.quoteValue($0.1))" }
        redacted = (text.hasPrefix("PG:") ? "PG:" : "") + shown.joined(separator: " ")
    }

    /// The key/value pairs of libpq's connection-string syntax: `key = value` separated by
    /// spaces, a value in single quotes when it holds spaces, `\'` and `\\` escaped inside.
    static func keyValuePairs(_ text: String) throws -> [(String, String)] {
        var pairs: [(String, String)] = []
        var characters = Array(text)[...]
        func skipSpaces() { while let c = characters.first, c.isWhitespace { characters.removeFirst() } }
        while true {
            skipSpaces()
            guard !characters.isEmpty else { break }
            var key = ""
            while let c = characters.first, c != "=", !c.isWhitespace { key.append(c); characters.removeFirst() }
            skipSpaces()
            guard characters.first == "=" else {
                throw PostgreSQLError(sqlState: nil, message: "the connection string has '\(key)' without '=' (expected key=value pairs)")
            }
            characters.removeFirst()
            skipSpaces()
            var value = ""
            if characters.first == "'" {
                characters.removeFirst()
                var closed = false
                while let c = characters.popFirst() {
                    if c == "\\", let next = characters.popFirst() { value.append(next); continue }
                    if c == "'" { closed = true; break }
                    value.append(c)
                }
                guard closed else { throw PostgreSQLError(sqlState: nil, message: "the connection string has an unterminated quote after '\(key)='") }
            } else {
                while let c = characters.first, !c.isWhitespace {
                    characters.removeFirst()
                    if c == "\\", let next = characters.popFirst() { value.append(next) } else { value.append(c) }
                }
            }
            pairs.append((key, value))
        }
        return pairs
    }

    /// `value` in single quotes, with `\` and `'` escaped as libpq reads them.
    static func quoteValue(_ value: String) -> String {
        var text = "'"
        for c in value {
            if c == "\\" || c == "'" { text.append("\\") }
            text.append(c)
        }
        return text + "'"
    }

    /// `uri` with the password of its user-info part (`user:password@`) replaced by `***`.
    static func redactURI(_ uri: String) -> String {
        guard let scheme = uri.range(of: "://") else { return uri }
        let rest = uri[scheme.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else { return uri }
        return String(uri[..<rest.startIndex]) + authority[..<colon] + ":***" + authority[at...] + rest[authorityEnd...]
    }
}
