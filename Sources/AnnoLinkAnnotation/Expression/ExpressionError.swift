/// Why a label expression could not be read or evaluated, in the user's words, with the 1-based
/// character position in the expression's source where the problem is.
///
/// Parse errors (`syntax`, `unterminatedString`, `unknownFunction`, `argumentCount`,
/// `unsupported`, and `unsupportedFormat`/`unknownUnit` for literal arguments) come from
/// `LabelExpression.init`; the others come from evaluating an expression for one feature.
public enum ExpressionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The source does not follow the grammar, e.g. "expected ')'".
    case syntax(String, position: Int)
    /// A string literal opened at `position` is never closed.
    case unterminatedString(position: Int)
    /// A call to a function the language does not have (the name as written).
    case unknownFunction(String, position: Int)
    /// A function called with a number of arguments it does not take; `expected` reads
    /// like "2", "1 or 2" or "at least 1".
    case argumentCount(function: String, expected: String, got: Int, position: Int)
    /// Arcade that is valid but outside the supported subset (variables, statements, …).
    case unsupported(String, position: Int)
    /// The feature has no field of this name (compared without regard to case).
    case unknownField(String, position: Int)
    /// A value of the wrong type for an operator or function, e.g. "IIf needs a boolean condition".
    case typeMismatch(String, position: Int)
    /// A `Text` or `Concatenate` format that is not one of the supported number formats.
    case unsupportedFormat(String, position: Int)
    /// A `Length` unit that is not a linear unit the language knows.
    case unknownUnit(String, position: Int)
    /// `Length` with a unit on a feature whose CRS has no linear unit (a geographic CRS), or
    /// whose context does not give it.
    case noLinearUnit(position: Int)

    /// The 1-based character position in the source the error refers to.
    public var position: Int {
        switch self {
        case .syntax(_, let p), .unterminatedString(let p), .unknownFunction(_, let p),
             .argumentCount(_, _, _, let p), .unsupported(_, let p), .unknownField(_, let p),
             .typeMismatch(_, let p), .unsupportedFormat(_, let p), .unknownUnit(_, let p),
             .noLinearUnit(let p):
            p
        }
    }

    /// What was wrong, without the position.
    public var message: String {
        switch self {
        case .syntax(let m, _): m
        case .unterminatedString: "unterminated string"
        case .unknownFunction(let name, _): "unknown function '\(name)'"
        case .argumentCount(let f, let expected, let got, _):
            "\(f) takes \(expected) argument\(expected == "1" ? "" : "s"), not \(got)"
        case .unsupported(let m, _): m
        case .unknownField(let name, _): "unknown field '\(name)'"
        case .typeMismatch(let m, _): m
        case .unsupportedFormat(let f, _):
            "unsupported format '\(f)' (supported: number patterns of '#', '0', ',', '.', with optional '%' and literal text)"
        case .unknownUnit(let u, _):
            "unknown length unit '\(u)' (use feet, meters, us-survey-feet, kilometers, miles, yards or nautical-miles)"
        case .noLinearUnit: "Length with a unit needs the CRS's linear unit (the CRS is geographic, or its unit was not given)"
        }
    }

    /// The message followed by the position, e.g. "expected ')' at position 17".
    public var description: String { "\(message) at position \(position)" }
}
