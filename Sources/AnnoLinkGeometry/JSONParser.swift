/// A parsed JSON value and the byte offset where it starts, so that the geometry readers can
/// point at the exact place a value is wrong.
struct JSONValue {
    enum Content {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([JSONValue])
        case object([Member])
    }

    struct Member {
        var key: String
        var value: JSONValue
    }

    var content: Content
    var offset: Int

    /// The member named `key` of an object, or nil (also for non-objects).
    func member(_ key: String) -> JSONValue? {
        guard case .object(let members) = content else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// A short description of the value's type, for messages.
    var typeName: String {
        switch content {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// A strict RFC 8259 JSON parser over UTF-8 bytes, small because geometry JSON needs no more.
///
/// Hand-written rather than Foundation's `JSONSerialization` so that the geometry target stays
/// free of Foundation and errors carry offsets. Nesting is limited to `maximumDepth` so that
/// hostile input (`[[[[…`) cannot exhaust the stack; geometry objects need six levels at most.
/// Duplicate object keys are refused, as their meaning is undefined.
struct JSONParser {
    static let maximumDepth = 64

    let input: TextInput
    private var position = 0
    private var depth = 0

    init(_ input: TextInput) {
        self.input = input
    }

    /// Parses the whole input as one JSON value; anything but whitespace after it throws.
    static func parse(_ input: TextInput) throws -> JSONValue {
        var parser = JSONParser(input)
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        if parser.position < input.count {
            throw input.error("unexpected \(input.quote(at: parser.position)) after the end of the JSON value", at: parser.position)
        }
        return value
    }

    private var bytes: [UInt8] { input.bytes }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): position += 1
            default: return
            }
        }
    }

    private func endError(_ expected: String) -> GeometryCodecError {
        input.error("unexpected end of text, expected \(expected)", at: position)
    }

    private mutating func parseValue() throws -> JSONValue {
        guard position < bytes.count else { throw endError("a value") }
        let start = position
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return JSONValue(content: .string(try parseString()), offset: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default:
            var end = position
            while end < bytes.count, (bytes[end] | 0x20) >= UInt8(ascii: "a"), (bytes[end] | 0x20) <= UInt8(ascii: "z") {
                end += 1
            }
            let word = String(decoding: bytes[position..<end], as: UTF8.self)
            switch word {
            case "true": position = end; return JSONValue(content: .bool(true), offset: start)
            case "false": position = end; return JSONValue(content: .bool(false), offset: start)
            case "null": position = end; return JSONValue(content: .null, offset: start)
            case "NaN", "nan", "Infinity", "inf":
                throw input.error("'\(word)' is not a JSON value (JSON has no NaN or infinity)", at: start)
            default:
                throw input.error("expected a JSON value, found \(input.quote(at: start))", at: start)
            }
        }
    }

    private mutating func enter() throws {
        depth += 1
        if depth > JSONParser.maximumDepth {
            throw input.error("JSON nested deeper than \(JSONParser.maximumDepth) levels", at: position)
        }
    }

    private mutating func parseArray() throws -> JSONValue {
        let start = position
        try enter()
        defer { depth -= 1 }
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return JSONValue(content: .array(elements), offset: start)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard position < bytes.count else { throw endError("',' or ']' (the array at offset \(input.characterOffset(of: start)) is not closed)") }
            switch bytes[position] {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                return JSONValue(content: .array(elements), offset: start)
            default:
                throw input.error("expected ',' or ']' in an array, found \(input.quote(at: position))", at: position)
            }
        }
    }

    private mutating func parseObject() throws -> JSONValue {
        let start = position
        try enter()
        defer { depth -= 1 }
        position += 1
        var members: [JSONValue.Member] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return JSONValue(content: .object(members), offset: start)
        }
        while true {
            skipWhitespace()
            guard position < bytes.count else { throw endError("a member name") }
            guard bytes[position] == UInt8(ascii: "\"") else {
                throw input.error("expected a member name in double quotes, found \(input.quote(at: position))", at: position)
            }
            let keyOffset = position
            let key = try parseString()
            if members.contains(where: { $0.key == key }) {
                throw input.error("duplicate member \"\(key)\"", at: keyOffset)
            }
            skipWhitespace()
            guard position < bytes.count else { throw endError("':'") }
            guard bytes[position] == UInt8(ascii: ":") else {
                throw input.error("expected ':' after the member name, found \(input.quote(at: position))", at: position)
            }
            position += 1
            skipWhitespace()
            members.append(JSONValue.Member(key: key, value: try parseValue()))
            skipWhitespace()
            guard position < bytes.count else { throw endError("',' or '}' (the object at offset \(input.characterOffset(of: start)) is not closed)") }
            switch bytes[position] {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                return JSONValue(content: .object(members), offset: start)
            default:
                throw input.error("expected ',' or '}' in an object, found \(input.quote(at: position))", at: position)
            }
        }
    }

    private mutating func parseString() throws -> String {
        let start = position
        position += 1
        var scalars = String.UnicodeScalarView()
        var runStart = position
        func flushRun(_ end: Int) {
            scalars.append(contentsOf: String(decoding: bytes[runStart..<end], as: UTF8.self).unicodeScalars)
        }
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                flushRun(position)
                position += 1
                return String(scalars)
            }
            if byte < 0x20 {
                throw input.error("control character in a string (escape it)", at: position)
            }
            if byte == UInt8(ascii: "\\") {
                flushRun(position)
                scalars.append(try parseEscape())
                runStart = position
            } else {
                position += 1
            }
        }
        throw input.error("unterminated string", at: start)
    }

    /// Parses an escape at `position` (the backslash) and returns the scalar it stands for.
    private mutating func parseEscape() throws -> Unicode.Scalar {
        let start = position
        guard position + 1 < bytes.count else { throw input.error("unterminated escape in a string", at: start) }
        let kind = bytes[position + 1]
        position += 2
        switch kind {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let high = try parseHex4(escapeStart: start)
            if (0xD800..<0xDC00).contains(high) {
                // A high surrogate must be followed by an escaped low one to make one scalar.
                guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                    throw input.error("unpaired surrogate in a \\u escape", at: start)
                }
                position += 2
                let low = try parseHex4(escapeStart: start)
                guard (0xDC00..<0xE000).contains(low) else {
                    throw input.error("unpaired surrogate in a \\u escape", at: start)
                }
                return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))!
            }
            guard let scalar = Unicode.Scalar(high) else {
                throw input.error("unpaired surrogate in a \\u escape", at: start)
            }
            return scalar
        default:
            throw input.error("invalid escape in a string", at: start)
        }
    }

    private mutating func parseHex4(escapeStart: Int) throws -> UInt32 {
        guard position + 4 <= bytes.count else { throw input.error("a \\u escape needs four hex digits", at: escapeStart) }
        var value: UInt32 = 0
        for byte in bytes[position..<position + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw input.error("a \\u escape needs four hex digits", at: escapeStart)
            }
            value = value << 4 | UInt32(digit)
        }
        position += 4
        return value
    }

    /// Parses a number with JSON's grammar: `-? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?`.
    /// A value too large for a Double parses as infinity; the geometry readers refuse it.
    private mutating func parseNumber() throws -> JSONValue {
        let start = position
        func digits() -> Int {
            let from = position
            while position < bytes.count, TextInput.isDigit(bytes[position]) { position += 1 }
            return position - from
        }
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count, TextInput.isDigit(bytes[position]) else {
            throw input.error("expected a digit in a number, found \(input.quote(at: position))", at: position)
        }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < bytes.count, TextInput.isDigit(bytes[position]) {
                throw input.error("a JSON number cannot have a leading zero", at: start)
            }
        } else {
            _ = digits()
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits() > 0 else {
                throw input.error("expected a digit after the decimal point", at: position)
            }
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard digits() > 0 else {
                throw input.error("expected a digit in the exponent", at: position)
            }
        }
        guard let value = input.number(in: start..<position) else {
            throw input.error("number out of range", at: start)
        }
        return JSONValue(content: .number(value), offset: start)
    }
}

extension TextInput {
    /// The elements of `value`, which must be an array; `what` names it in the error.
    func array(_ value: JSONValue, _ what: String) throws -> [JSONValue] {
        guard case .array(let elements) = value.content else {
            throw error("\(what) must be an array, found \(value.typeName)", at: value.offset)
        }
        return elements
    }

    /// The finite number `value` holds; `what` names it in the error.
    func finiteNumber(_ value: JSONValue, _ what: String) throws -> Double {
        guard case .number(let number) = value.content else {
            throw error("\(what) must be a number, found \(value.typeName)", at: value.offset)
        }
        guard number.isFinite else {
            throw error("\(what) is out of range", at: value.offset)
        }
        return number
    }

    /// A JSON position `[x, y]`, as both GeoJSON and Esri JSON write one. A third or fourth
    /// number (Z, M) is refused, not dropped.
    func position(_ value: JSONValue) throws -> Point {
        let numbers = try array(value, "a position")
        if numbers.count > 2 {
            throw GeometryCodecError.unsupportedDimension(
                format, offset: characterOffset(of: numbers[2].offset), "a position with \(numbers.count) numbers")
        }
        guard numbers.count == 2 else {
            throw error("a position needs 2 numbers, found \(numbers.count)", at: value.offset)
        }
        return Point(x: try finiteNumber(numbers[0], "a coordinate"), y: try finiteNumber(numbers[1], "a coordinate"))
    }

    /// An array of positions, as a line.
    func line(_ value: JSONValue, _ what: String) throws -> LineString {
        LineString(try array(value, what).map(position))
    }
}

/// Writes JSON coordinate arrays, shared by the GeoJSON and Esri JSON encoders.
enum JSONCoordinates {
    static func append(_ point: Point, to out: inout String) {
        out += "["
        CoordinateText.append(point.x, to: &out)
        out += ","
        CoordinateText.append(point.y, to: &out)
        out += "]"
    }

    static func append(_ points: [Point], to out: inout String) {
        out += "["
        for (i, point) in points.enumerated() {
            if i > 0 { out += "," }
            append(point, to: &out)
        }
        out += "]"
    }

    static func append(_ lines: [LineString], to out: inout String) {
        out += "["
        for (i, line) in lines.enumerated() {
            if i > 0 { out += "," }
            append(line.points, to: &out)
        }
        out += "]"
    }
}
