import AnnoLinkGeometry
import AnnoLinkStore

/// A value a label expression computes: Arcade's types as far as the supported subset needs them.
///
/// Arcade has one number type, a double (its guide: "Numbers are a single data type"); integer
/// attributes become numbers and still render without decimals (`21505`).
public enum ExpressionValue: Hashable, Sendable {
    /// No value: a NULL attribute, `null`, or a missing geometry.
    case null
    /// A number (a double), from an INTEGER or REAL attribute or arithmetic.
    case number(Double)
    /// Text, from a TEXT attribute, a literal or a text function.
    case text(String)
    /// The result of a comparison or logical operator, `true` or `false`.
    case boolean(Bool)
    /// A feature's geometry, from `Geometry($feature)`.
    case geometry(Geometry)
    /// An array literal, which the subset allows only as `Concatenate`'s first argument.
    case array([ExpressionValue])

    /// The value as label text, the way Arcade turns a result into text: null is empty text,
    /// numbers render as `ExpressionValue.render(_:)` does, booleans as `true`/`false`.
    /// Throws `typeMismatch` for a geometry or an array, which have no label text.
    public func labelText() throws(ExpressionError) -> String {
        try text(at: 1)
    }

    /// Arcade's rendering of a number as text, the way JavaScript's `Number.prototype.toString`
    /// writes it (Arcade's reference implementation is JavaScript): the shortest digits that
    /// read back as the same double, no trailing `.0` (`178`), plain notation from 1e-6 up to
    /// 1e21 and exponent notation outside (`1e+21`, `1e-7`), `NaN`, `Infinity`, `-Infinity`.
    public static func render(_ number: Double) -> String {
        NumberText.render(number)
    }

    /// A short name of the value's type for error messages.
    var typeName: String {
        switch self {
        case .null: "null"
        case .number: "a number"
        case .text: "text"
        case .boolean: "a boolean"
        case .geometry: "a geometry"
        case .array: "an array"
        }
    }

    /// Arcade's implicit cast to text (null is empty text). `position` is where an error points.
    ///
    /// Null as empty text is how Arcade concatenates (`null + 'x'` is "x"), and matches its
    /// `IsEmpty` and `DefaultValue`, which treat null and '' alike (Arcade data functions page).
    func text(at position: Int) throws(ExpressionError) -> String {
        switch self {
        case .null: return ""
        case .text(let s): return s
        case .number(let n): return NumberText.render(n)
        case .boolean(let b): return b ? "true" : "false"
        case .geometry, .array:
            throw .typeMismatch("\(typeName) cannot be used as text", position: position)
        }
    }

    /// Arcade's implicit cast to a number: null is 0, booleans 1 and 0, text is parsed (NaN when
    /// it is not a number). `position` is where an error points.
    ///
    /// The rules are those the ArcGIS Maps SDKs document for casting an Arcade result to a number
    /// (`ArcadeExpressionReturnType.Number`: "booleans return 1 if true, 0 otherwise … null is
    /// converted to 0 … strings are parsed as float64 … all other types are converted to NaN"),
    /// except that geometries and arrays are an error here rather than a silent NaN.
    func number(at position: Int) throws(ExpressionError) -> Double {
        switch self {
        case .null: return 0
        case .number(let n): return n
        case .boolean(let b): return b ? 1 : 0
        case .text(let s): return NumberText.parse(s)
        case .geometry, .array:
            throw .typeMismatch("\(typeName) cannot be used as a number", position: position)
        }
    }

    /// Whether Arcade's `IsEmpty` holds: "true if the provided value is null or an empty string
    /// (e.g. ''). Returns false for all other cases" (Arcade data functions page), so ' ' and 0
    /// are not empty.
    var isEmpty: Bool {
        switch self {
        case .null: true
        case .text(let s): s.isEmpty
        default: false
        }
    }

    /// The value of a stored attribute; blobs have no expression value.
    init(_ value: SQLValue, field: String, position: Int) throws(ExpressionError) {
        switch value {
        case .null: self = .null
        case .integer(let i): self = .number(Double(i))
        case .real(let r): self = .number(r)
        case .text(let s): self = .text(s)
        case .blob:
            throw .typeMismatch("field '\(field)' holds a blob, which label expressions cannot use", position: position)
        }
    }
}
