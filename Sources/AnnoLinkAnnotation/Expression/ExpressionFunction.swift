/// The functions of the supported Arcade subset. Names are matched without regard to case, as
/// Arcade does (its guide: the language is not case sensitive).
enum ExpressionFunction: String, CaseIterable, Sendable {
    case iif = "IIf"
    case round = "Round"
    case text = "Text"
    case upper = "Upper"
    case lower = "Lower"
    case trim = "Trim"
    case concatenate = "Concatenate"
    case isEmpty = "IsEmpty"
    case defaultValue = "DefaultValue"
    case geometry = "Geometry"
    case length = "Length"

    /// The function called `name` in any case, or nil.
    static func named(_ name: String) -> ExpressionFunction? {
        byLowercasedName[name.lowercased()]
    }

    private static let byLowercasedName: [String: ExpressionFunction] =
        Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue.lowercased(), $0) })

    /// How many arguments the function takes. `Concatenate` takes any number of values, or an
    /// array, a separator and a format (checked by the parser).
    var arity: ClosedRange<Int> {
        switch self {
        case .iif: 3...3
        case .round, .text, .length: 1...2
        case .upper, .lower, .trim, .isEmpty, .geometry: 1...1
        case .defaultValue: 2...2
        case .concatenate: 1...Int.max
        }
    }

    /// The arity in words for error messages.
    var arityText: String {
        let a = arity
        if a.upperBound == Int.max { return "at least \(a.lowerBound)" }
        if a.lowerBound == a.upperBound { return "\(a.lowerBound)" }
        return "\(a.lowerBound) or \(a.upperBound)"
    }
}
