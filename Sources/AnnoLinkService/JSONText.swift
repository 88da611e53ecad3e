import Foundation

/// A JSON document built as a value and written as text: what the service interfaces answer.
///
/// Kept as a tree rather than `Encodable` types because the answers mix fixed members with
/// the table's own columns, and geometries are written by the codecs of `AnnoLinkGeometry`
/// (`raw`), which already produce JSON text.
public indirect enum JSONText: Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    /// A number; NaN and infinities are written as `null` (JSON has no words for them).
    case number(Double)
    case string(String)
    case array([JSONText])
    /// Members in the order given.
    case object([(String, JSONText)])
    /// JSON text written as it is (a geometry from `esriJSON()` or `geoJSON()`).
    case raw(String)

    /// The text: compact, or with `pretty` indented by two spaces (Esri's `f=pjson`).
    public func rendered(pretty: Bool = false) -> String {
        var out = ""
        out.reserveCapacity(256)
        write(to: &out, pretty: pretty, depth: 0)
        return out
    }

    private func write(to out: inout String, pretty: Bool, depth: Int) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .integer(let i): out += String(i)
        case .number(let d): Self.append(number: d, to: &out)
        case .string(let s): Self.append(string: s, to: &out)
        case .raw(let text): out += text
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                if pretty { Self.newline(&out, depth + 1) }
                item.write(to: &out, pretty: pretty, depth: depth + 1)
            }
            if pretty { Self.newline(&out, depth) }
            out += "]"
        case .object(let members):
            if members.isEmpty { out += "{}"; return }
            out += "{"
            for (i, (key, value)) in members.enumerated() {
                if i > 0 { out += "," }
                if pretty { Self.newline(&out, depth + 1) }
                Self.append(string: key, to: &out)
                out += pretty ? ": " : ":"
                value.write(to: &out, pretty: pretty, depth: depth + 1)
            }
            if pretty { Self.newline(&out, depth) }
            out += "}"
        }
    }

    private static func newline(_ out: inout String, _ depth: Int) {
        out += "\n"
        out += String(repeating: "  ", count: depth)
    }

    /// A finite number in the shortest text that reads back the same; whole numbers without
    /// a fraction (`12`, not `12.0`).
    static func append(number d: Double, to out: inout String) {
        guard d.isFinite else { out += "null"; return }
        if d == d.rounded(), abs(d) < 1e15 {
            out += String(Int64(d))
        } else {
            out += "\(d)"
        }
    }

    /// `s` as a JSON string, with quotes, backslashes and control characters escaped.
    static func append(string s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20 || c.value == 0x2028 || c.value == 0x2029:
                out += String(format: "\\u%04x", c.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
