import AnnoLinkStore
import Foundation

/// JSON written straight into a string, for the responses that carry many features: faster than
/// building dictionaries for `JSONSerialization`, and the member order stays as written.
struct JSONWriter {
    private(set) var output = ""
    /// Per open container: whether a value was written in it yet.
    private var started: [Bool] = [false]
    private var afterKey = false

    private mutating func beginValue() {
        if afterKey {
            afterKey = false
            return
        }
        if started[started.count - 1] { output += "," }
        started[started.count - 1] = true
    }

    mutating func object(_ body: (inout JSONWriter) throws -> Void) rethrows {
        beginValue()
        output += "{"
        started.append(false)
        try body(&self)
        started.removeLast()
        output += "}"
    }

    mutating func array(_ body: (inout JSONWriter) throws -> Void) rethrows {
        beginValue()
        output += "["
        started.append(false)
        try body(&self)
        started.removeLast()
        output += "]"
    }

    /// A member of the object being written: its key, then the value `body` writes.
    mutating func member(_ key: String, _ body: (inout JSONWriter) throws -> Void) rethrows {
        beginValue()
        appendQuoted(key)
        output += ":"
        afterKey = true
        try body(&self)
    }

    mutating func string(_ value: String) {
        beginValue()
        appendQuoted(value)
    }

    mutating func number(_ value: Double) {
        beginValue()
        output += Self.numberText(value)
    }

    mutating func integer(_ value: Int64) {
        beginValue()
        output += String(value)
    }

    mutating func bool(_ value: Bool) {
        beginValue()
        output += value ? "true" : "false"
    }

    mutating func null() {
        beginValue()
        output += "null"
    }

    /// JSON text made elsewhere (a geometry's `geoJSON()`), written as one value.
    mutating func raw(_ json: String) {
        beginValue()
        output += json
    }

    /// A stored value as JSON: numbers as numbers, text as strings, a blob as hexadecimal
    /// digits (as `--json` shows blobs).
    mutating func value(_ value: SQLValue) {
        switch value {
        case .null: null()
        case .integer(let v): integer(v)
        case .real(let v):
            // A whole REAL keeps its ".0", so that clients that infer field types from values
            // (GDAL's OAPIF driver) see a real number, as the column is.
            beginValue()
            output += v.isFinite && v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) + ".0" : Self.numberText(v)
        case .text(let v): string(v)
        case .blob(let v): string(SQLValue.hex(v))
        }
    }

    /// The shortest text that reads back as `value`; JSON has no NaN or infinity, so those are null.
    static func numberText(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    private mutating func appendQuoted(_ text: String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case let c where c.value < 0x20:
                output += "\\u" + String(repeating: "0", count: 4 - String(c.value, radix: 16).count) + String(c.value, radix: 16)
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}

/// A JSON value read from a request body. Numbers keep whether they were written as whole
/// numbers, so that `7` sets an INTEGER column and `7.5` does not.
enum JSONValue: Decodable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Parses `bytes` as one JSON value.
    static func parse(_ bytes: [UInt8]) throws(OGCException) -> JSONValue {
        do {
            return try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        } catch {
            throw .badRequest("the body is not valid JSON", code: "InvalidRequestBody")
        }
    }

    /// The value written back as JSON text.
    func write(to text: inout JSONWriter) {
        switch self {
        case .null: text.null()
        case .bool(let v): text.bool(v)
        case .integer(let v): text.integer(v)
        case .number(let v): text.number(v)
        case .string(let v): text.string(v)
        case .array(let values): text.array { for v in values { v.write(to: &$0) } }
        case .object(let members): text.object { for key in members.keys.sorted() { $0.member(key) { members[key]!.write(to: &$0) } } }
        }
    }

    var jsonText: String {
        var text = JSONWriter()
        write(to: &text)
        return text.output
    }

    var objectMembers: [String: JSONValue]? { if case .object(let m) = self { m } else { nil } }
}
