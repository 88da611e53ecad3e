/// The text a text codec reads, as UTF-8 bytes, with errors reported in characters.
///
/// The readers scan bytes (every token that matters is ASCII), but users count characters,
/// so an error's byte offset is turned into a `Character` offset only when it is thrown.
struct TextInput {
    let text: String
    let bytes: [UInt8]
    let format: GeometryCodecError.Format

    init(_ text: String, format: GeometryCodecError.Format) {
        self.text = text
        self.bytes = Array(text.utf8)
        self.format = format
    }

    var count: Int { bytes.count }

    /// An error at byte `offset`, reported as the number of characters before it.
    func error(_ message: String, at offset: Int) -> GeometryCodecError {
        GeometryCodecError(format, offset: characterOffset(of: offset), message)
    }

    /// The number of characters before byte `offset`.
    func characterOffset(of offset: Int) -> Int {
        String(decoding: bytes[0..<max(0, min(offset, bytes.count))], as: UTF8.self).count
    }

    /// A short quotation of the input at `offset`, for messages ("found 'NaN'").
    func quote(at offset: Int, maxLength: Int = 12) -> String {
        guard offset < bytes.count else { return "end of text" }
        var end = offset + 1
        if !TextInput.isDelimiter(bytes[offset]) {
            while end < bytes.count, end - offset < maxLength, !TextInput.isDelimiter(bytes[end]) { end += 1 }
        }
        // Never cut a multi-byte character in half.
        while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
        return "'" + String(decoding: bytes[offset..<end], as: UTF8.self) + "'"
    }

    static func isDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"),
             UInt8(ascii: ","), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "["), UInt8(ascii: "]"),
             UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: ":"), UInt8(ascii: "\""):
            true
        default:
            false
        }
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// Converts `bytes[range]`, already checked against a decimal number grammar, to a Double.
    ///
    /// The grammar check comes first because the standard library's parser also accepts
    /// "nan", "inf" and hexadecimal, which no geometry text format allows.
    func number(in range: Range<Int>) -> Double? {
        Double(String(decoding: bytes[range], as: UTF8.self))
    }
}

/// How the text codecs write a coordinate.
enum CoordinateText {
    /// Appends the shortest decimal text that reads back as exactly `value`.
    ///
    /// Integral values are written without a fraction (`10`, not `10.0`), in every text
    /// format alike: it is what JSON writers and GEOS produce, and it reads back the same.
    /// Magnitudes from 2^53 up, and tiny ones, use an exponent (`1e+16`), which JSON and WKT
    /// readers accept. Callers refuse non-finite values before getting here.
    static func append(_ value: Double, to out: inout String) {
        let text = value.description
        if text.hasSuffix(".0") {
            out += text.dropLast(2)
        } else {
            out += text
        }
    }
}

/// Throws unless every coordinate of `geometry` is finite, since no text format can write NaN
/// or infinity. Empty points (both NaN) have no vertex and pass; each encoder decides how to
/// write them. An encoding error's offset is the vertex's index in storage order.
func requireFiniteCoordinates(_ geometry: Geometry, format: GeometryCodecError.Format) throws {
    var index = 0
    var bad: (index: Int, point: Point)?
    geometry.forEachPoint { p in
        if bad == nil && !p.isFinite { bad = (index, p) }
        index += 1
    }
    if let bad {
        throw GeometryCodecError(format, offset: bad.index,
                                 "vertex \(bad.index) (\(bad.point.x) \(bad.point.y)) is not finite and cannot be written as \(format.rawValue)")
    }
}
