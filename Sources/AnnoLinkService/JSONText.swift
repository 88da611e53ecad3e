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
        var out = JSONWriter(pretty: pretty)
        write(to: &out)
        return out.output
    }

    /// The value written through `out`, which decides escaping and number text.
    func write(to out: inout JSONWriter) {
        switch self {
        case .null: out.null()
        case .bool(let b): out.bool(b)
        case .integer(let i): out.integer(i)
        case .number(let d): out.number(d)
        case .string(let s): out.string(s)
        case .raw(let text): out.raw(text)
        case .array(let items): out.array { for item in items { item.write(to: &$0) } }
        case .object(let members): out.object { for (key, value) in members { $0.member(key) { value.write(to: &$0) } } }
        }
    }
}
