/// A value as it crosses the wire in PostgreSQL's binary format: parameters are sent as these,
/// results and COPY fields are read as these.
///
/// Each case fixes the type a parameter is sent as (its OID) and how its bytes are written:
/// integers and doubles big-endian, text as UTF-8, bytea as it is. A value of a type not listed
/// here is read as `.binary` with its type OID and raw bytes (a PostGIS geometry, for one: its
/// binary form is EWKB, see `EWKB`).
public enum PostgreSQLValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case int2(Int16)
    case int4(Int32)
    case int8(Int64)
    case float4(Float)
    case float8(Double)
    case text(String)
    case bytea([UInt8])
    /// Bytes in the binary form of the type with OID `oid`; sent with that type (or with
    /// type 0, "let the server infer it", when `oid` is 0 — how a geometry parameter is sent,
    /// since the geometry type's OID differs from database to database).
    case binary(oid: UInt32, bytes: [UInt8])

    /// The type OIDs of PostgreSQL's built-in types (`pg_type.oid`; fixed in every database).
    public enum TypeOID {
        public static let bool: UInt32 = 16
        public static let bytea: UInt32 = 17
        public static let name: UInt32 = 19
        public static let int8: UInt32 = 20
        public static let int2: UInt32 = 21
        public static let int4: UInt32 = 23
        public static let text: UInt32 = 25
        public static let oid: UInt32 = 26
        public static let float4: UInt32 = 700
        public static let float8: UInt32 = 701
        public static let bpchar: UInt32 = 1042
        public static let varchar: UInt32 = 1043
        public static let unknown: UInt32 = 705
    }

    /// The OID the value is sent as.
    public var typeOID: UInt32 {
        switch self {
        case .null: 0
        case .bool: TypeOID.bool
        case .int2: TypeOID.int2
        case .int4: TypeOID.int4
        case .int8: TypeOID.int8
        case .float4: TypeOID.float4
        case .float8: TypeOID.float8
        case .text: TypeOID.text
        case .bytea: TypeOID.bytea
        case .binary(let oid, _): oid
        }
    }

    /// The value's binary wire form; nil for NULL.
    public var binaryBytes: [UInt8]? {
        switch self {
        case .null: return nil
        case .bool(let b): return [b ? 1 : 0]
        case .int2(let v): return bigEndianBytes(UInt16(bitPattern: v))
        case .int4(let v): return bigEndianBytes(UInt32(bitPattern: v))
        case .int8(let v): return bigEndianBytes(UInt64(bitPattern: v))
        case .float4(let v): return bigEndianBytes(v.bitPattern)
        case .float8(let v): return bigEndianBytes(v.bitPattern)
        case .text(let s): return Array(s.utf8)
        case .bytea(let b): return b
        case .binary(_, let b): return b
        }
    }

    /// Decodes the binary wire form `bytes` of a value of type `oid`. Types this enum does not
    /// name come back as `.binary(oid:bytes:)`.
    ///
    /// - Throws: `PostgreSQLError` when the bytes have the wrong length for the type.
    public static func decode(oid: UInt32, bytes: UnsafeRawBufferPointer) throws -> PostgreSQLValue {
        func need(_ n: Int) throws {
            guard bytes.count == n else {
                throw PostgreSQLError(sqlState: nil, message: "a binary value of type \(oid) has \(bytes.count) bytes, not \(n)")
            }
        }
        switch oid {
        case TypeOID.bool:
            try need(1)
            return .bool(bytes[0] != 0)
        case TypeOID.int2:
            try need(2)
            return .int2(Int16(bitPattern: readBigEndian(bytes, as: UInt16.self)))
        case TypeOID.int4:
            try need(4)
            return .int4(Int32(bitPattern: readBigEndian(bytes, as: UInt32.self)))
        case TypeOID.oid:
            try need(4)
            return .int8(Int64(readBigEndian(bytes, as: UInt32.self)))
        case TypeOID.int8:
            try need(8)
            return .int8(Int64(bitPattern: readBigEndian(bytes, as: UInt64.self)))
        case TypeOID.float4:
            try need(4)
            return .float4(Float(bitPattern: readBigEndian(bytes, as: UInt32.self)))
        case TypeOID.float8:
            try need(8)
            return .float8(Double(bitPattern: readBigEndian(bytes, as: UInt64.self)))
        case TypeOID.text, TypeOID.varchar, TypeOID.bpchar, TypeOID.name, TypeOID.unknown:
            return .text(String(decoding: bytes, as: UTF8.self))
        case TypeOID.bytea:
            return .bytea(Array(bytes))
        default:
            return .binary(oid: oid, bytes: Array(bytes))
        }
    }

    public var isNull: Bool { if case .null = self { true } else { false } }

    /// The value as a 64-bit integer when it is an integer of any width.
    public var integerValue: Int64? {
        switch self {
        case .int2(let v): Int64(v)
        case .int4(let v): Int64(v)
        case .int8(let v): v
        default: nil
        }
    }

    /// The value as a double when it is a number.
    public var doubleValue: Double? {
        switch self {
        case .float4(let v): Double(v)
        case .float8(let v): v
        default: integerValue.map(Double.init)
        }
    }

    /// The value when it is text.
    public var textValue: String? { if case .text(let s) = self { s } else { nil } }

    /// The bytes of a bytea or of a value of another type (`.binary`).
    public var bytesValue: [UInt8]? {
        switch self {
        case .bytea(let b), .binary(_, let b): b
        default: nil
        }
    }

    /// The value when it is a boolean.
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
}

extension PostgreSQLValue: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByFloatLiteral, ExpressibleByNilLiteral {
    public init(integerLiteral value: Int64) { self = .int8(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(floatLiteral value: Double) { self = .float8(value) }
    public init(nilLiteral: ()) { self = .null }
}

extension PostgreSQLValue {
    /// Text, or NULL for nil.
    public init(_ value: String?) { self = value.map { .text($0) } ?? .null }
}

@inline(__always)
func bigEndianBytes<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: value.bigEndian) { Array($0) }
}

@inline(__always)
func readBigEndian<T: FixedWidthInteger>(_ bytes: UnsafeRawBufferPointer, at offset: Int = 0, as: T.Type) -> T {
    T(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
}
