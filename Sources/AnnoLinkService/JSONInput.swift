import Foundation

/// A JSON value read from a request (`adds`, `updates`, `edits`, a geometry, a body), through
/// `JSONDecoder` so that `true`, `1` and `1.5` stay what they were: `7` sets an INTEGER
/// column and `7.5` does not. The one reader of JSON of the service interfaces.
public indirect enum JSONInput: Decodable, Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONInput])
    /// Members in no particular order (JSON objects have none).
    case object([String: JSONInput])

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null
        } else if let b = try? c.decode(Bool.self) { self = .bool(b)
        } else if let i = try? c.decode(Int64.self) { self = .integer(i)
        } else if let d = try? c.decode(Double.self) { self = .number(d)
        } else if let s = try? c.decode(String.self) { self = .string(s)
        } else if let a = try? c.decode([JSONInput].self) { self = .array(a)
        } else {
            self = .object(try c.decode([String: JSONInput].self))
        }
    }

    /// Parses `text`.
    ///
    /// - Throws: `DecodingError` (its description says where) for text that is not JSON.
    public init(parsing text: String) throws {
        self = try JSONDecoder().decode(JSONInput.self, from: Data(text.utf8))
    }

    /// Parses `bytes` (a request body) as one JSON value.
    ///
    /// - Throws: `DecodingError` for bytes that are not JSON.
    public init(parsing bytes: [UInt8]) throws {
        self = try JSONDecoder().decode(JSONInput.self, from: Data(bytes))
    }

    /// The members of an object; nil for any other value.
    public var objectMembers: [String: JSONInput]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The member `key` of an object.
    public subscript(key: String) -> JSONInput? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The value as a number, when it is one.
    public var doubleValue: Double? {
        switch self {
        case .integer(let i): Double(i)
        case .number(let d): d
        default: nil
        }
    }

    /// The value as a whole number, when it is one.
    public var integerValue: Int64? {
        switch self {
        case .integer(let i): i
        case .number(let d) where d == d.rounded() && abs(d) < 9.2e18: Int64(d)
        default: nil
        }
    }

    /// The value written back as JSON text.
    public var json: JSONText {
        switch self {
        case .null: .null
        case .bool(let b): .bool(b)
        case .integer(let i): .integer(i)
        case .number(let d): .number(d)
        case .string(let s): .string(s)
        case .array(let a): .array(a.map(\.json))
        case .object(let o): .object(o.sorted { $0.key < $1.key }.map { ($0.key, $0.value.json) })
        }
    }

    /// The value written as compact JSON text, object members sorted by key.
    public var jsonText: String { json.rendered() }
}
