import AnnoLinkStore
import Foundation

/// JSON written straight into a string: the one writer of JSON text of the service interfaces.
/// The responses that carry many features (OGC items, FeatureServer queries) are written
/// through it without building dictionaries for `JSONSerialization`, and the member order
/// stays as written. `JSONText` trees are written through it too, so escaping and number
/// text are decided here only.
struct JSONWriter {
    private(set) var output = ""
    /// Whether containers put each value on its own line, indented by two spaces per level
    /// (Esri's `f=pjson`).
    let pretty: Bool
    /// Per open container: whether a value was written in it yet.
    private var started: [Bool] = [false]
    private var afterKey = false

    init(pretty: Bool = false) {
        self.pretty = pretty
        output.reserveCapacity(256)
    }

    private mutating func beginValue() {
        if afterKey {
            afterKey = false
            return
        }
        if started[started.count - 1] { output += "," }
        started[started.count - 1] = true
        if pretty, started.count > 1 { newline(depth: started.count - 1) }
    }

    private mutating func newline(depth: Int) {
        output += "\n"
        output += String(repeating: "  ", count: depth)
    }

    /// Closes the innermost container with `bracket`.
    private mutating func close(_ bracket: String) {
        let wroteAny = started.removeLast()
        if pretty, wroteAny { newline(depth: started.count - 1) }
        output += bracket
    }

    mutating func object(_ body: (inout JSONWriter) throws -> Void) rethrows {
        beginValue()
        output += "{"
        started.append(false)
        try body(&self)
        close("}")
    }

    mutating func array(_ body: (inout JSONWriter) throws -> Void) rethrows {
        beginValue()
        output += "["
        started.append(false)
        try body(&self)
        close("]")
    }

    /// A member of the object being written: its key, then the value `body` writes.
    mutating func member(_ key: String, _ body: (inout JSONWriter) throws -> Void) rethrows {
        beginValue()
        appendQuoted(key)
        output += pretty ? ": " : ":"
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
            case let c where c.value < 0x20 || c.value == 0x2028 || c.value == 0x2029:
                // U+2028 and U+2029 too: JSON allows them bare, JavaScript before ES2019 does not.
                let hex = String(c.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
