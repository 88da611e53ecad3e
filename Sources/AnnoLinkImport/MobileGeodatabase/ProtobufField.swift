/// One field of a protocol-buffers message, as read from the wire without a schema.
///
/// `ProtobufField.parseMessage(_:)` reads a whole message; a length-delimited value can be read
/// again as a nested message with `nestedMessage()`. Groups (wire types 3 and 4, deprecated in
/// protobuf) are refused.
public struct ProtobufField: Hashable, Sendable {
    /// A value as the wire format carries it.
    public enum Value: Hashable, Sendable {
        /// Wire type 0: an unsigned varint (ints, bools, enums; zigzag for sint).
        case varint(UInt64)
        /// Wire type 1: eight little-endian bytes (double, fixed64).
        case fixed64(UInt64)
        /// Wire type 2: bytes (strings, nested messages, packed arrays).
        case lengthDelimited([UInt8])
        /// Wire type 5: four little-endian bytes (float, fixed32).
        case fixed32(UInt32)
    }

    /// The field number (1 or more).
    public var number: Int
    /// The value.
    public var value: Value
    /// Offset of the field's key from the start of the message it was read from.
    public var offset: Int

    /// Creates a field.
    public init(number: Int, value: Value, offset: Int) {
        self.number = number
        self.value = value
        self.offset = offset
    }

    /// The value as a double, for a fixed64 field.
    public var doubleValue: Double? {
        if case .fixed64(let bits) = value { return Double(bitPattern: bits) }
        return nil
    }

    /// The value as an integer, for a varint field.
    public var integerValue: UInt64? {
        if case .varint(let v) = value { return v }
        return nil
    }

    /// The value as UTF-8 text, for a length-delimited field holding valid UTF-8.
    public var stringValue: String? {
        guard case .lengthDelimited(let bytes) = value else { return nil }
        // String(decoding:) repairs bad UTF-8 with U+FFFD; the round trip tells whether it had to.
        let text = String(decoding: bytes, as: UTF8.self)
        return text.utf8.elementsEqual(bytes) ? text : nil
    }

    /// Reads a length-delimited value as a nested message.
    ///
    /// - Throws: `ProtobufError` when the field is not length-delimited or its bytes are not a
    ///   well-formed message; offsets are relative to the nested bytes.
    public func nestedMessage() throws(ProtobufError) -> [ProtobufField] {
        guard case .lengthDelimited(let bytes) = value else {
            throw ProtobufError(offset: offset, message: "field \(number) is not length-delimited")
        }
        return try Self.parseMessage(bytes)
    }

    /// Reads every field of a message, in order (a repeated field appears once per value).
    ///
    /// - Throws: `ProtobufError` for a truncated field, a varint longer than 10 bytes or
    ///   overflowing 64 bits, field number 0 or above 2^29 − 1, a group or unknown wire type.
    public static func parseMessage(_ bytes: some Collection<UInt8>) throws(ProtobufError) -> [ProtobufField] {
        let bytes = Array(bytes)
        var offset = 0
        var fields: [ProtobufField] = []
        while offset < bytes.count {
            let keyOffset = offset
            let key = try readVarint(bytes, &offset)
            let number = key >> 3
            guard number >= 1, number <= 536_870_911 else {
                throw ProtobufError(offset: keyOffset, message: "invalid field number \(number)")
            }
            let value: Value
            switch key & 7 {
            case 0:
                value = .varint(try readVarint(bytes, &offset))
            case 1:
                value = .fixed64(try readFixed(bytes, &offset, width: 8))
            case 2:
                let lengthOffset = offset
                let length = try readVarint(bytes, &offset)
                guard length <= UInt64(bytes.count - offset) else {
                    throw ProtobufError(offset: lengthOffset, message: "field \(number) claims \(length) bytes, \(bytes.count - offset) remain")
                }
                value = .lengthDelimited(Array(bytes[offset..<(offset + Int(length))]))
                offset += Int(length)
            case 5:
                value = .fixed32(UInt32(try readFixed(bytes, &offset, width: 4)))
            case let wireType:
                throw ProtobufError(offset: keyOffset, message: "field \(number) has unsupported wire type \(wireType)")
            }
            fields.append(ProtobufField(number: Int(number), value: value, offset: keyOffset))
        }
        return fields
    }

    /// Reads a base-128 varint (low group first, bit 7 = more bytes follow).
    private static func readVarint(_ bytes: [UInt8], _ offset: inout Int) throws(ProtobufError) -> UInt64 {
        let start = offset
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < bytes.count else {
                throw ProtobufError(offset: start, message: "truncated varint")
            }
            let byte = bytes[offset]
            offset += 1
            let group = UInt64(byte & 0x7F)
            guard shift < 64, (group << shift) >> shift == group else {
                throw ProtobufError(offset: start, message: "varint overflows 64 bits")
            }
            result |= group << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
    }

    /// Reads `width` little-endian bytes.
    private static func readFixed(_ bytes: [UInt8], _ offset: inout Int, width: Int) throws(ProtobufError) -> UInt64 {
        guard bytes.count - offset >= width else {
            throw ProtobufError(offset: offset, message: "truncated \(width * 8)-bit value")
        }
        var result: UInt64 = 0
        for i in 0..<width {
            result |= UInt64(bytes[offset + i]) << (8 * UInt64(i))
        }
        offset += width
        return result
    }
}
