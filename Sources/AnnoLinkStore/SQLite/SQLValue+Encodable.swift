extension SQLValue: Encodable {
    /// Encodes the value as JSON has it: `null`, a whole number, a number, a string; a blob as
    /// a string of lowercase hexadecimal digits (`"0a1b"`), the way `--json` has always shown
    /// blobs.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .integer(let v): try container.encode(v)
        case .real(let v): try container.encode(v)
        case .text(let v): try container.encode(v)
        case .blob(let v): try container.encode(Self.hex(v))
        }
    }

    /// `bytes` as lowercase hexadecimal digits.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xf)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
