/// A value as SQLite stores it: one of its five storage classes.
public enum SQLValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// The SQLite name of the storage class, as `typeof()` returns it.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .integer: "integer"
        case .real: "real"
        case .text: "text"
        case .blob: "blob"
        }
    }

    public var isNull: Bool { if case .null = self { true } else { false } }

    /// The value as an integer when it is one (a real with no fraction counts).
    public var integerValue: Int64? {
        switch self {
        case .integer(let v): v
        case .real(let v) where v.rounded() == v && abs(v) < 9.2e18: Int64(v)
        default: nil
        }
    }

    /// The value as a double when it is a number.
    public var doubleValue: Double? {
        switch self {
        case .integer(let v): Double(v)
        case .real(let v): v
        default: nil
        }
    }

    public var textValue: String? { if case .text(let s) = self { s } else { nil } }
    public var blobValue: [UInt8]? { if case .blob(let b) = self { b } else { nil } }
}

extension SQLValue: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByFloatLiteral, ExpressibleByNilLiteral {
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(nilLiteral: ()) { self = .null }
}

extension SQLValue {
    public init(_ value: Int) { self = .integer(Int64(value)) }
    public init(_ value: Int64) { self = .integer(value) }
    public init(_ value: Double) { self = .real(value) }
    public init(_ value: String) { self = .text(value) }
    public init(_ value: String?) { self = value.map { .text($0) } ?? .null }
}
