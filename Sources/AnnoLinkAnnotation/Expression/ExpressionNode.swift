import AnnoLinkGeometry

/// A parsed label expression: a tree evaluated per feature. Every node keeps the 1-based source
/// position that evaluation errors point at.
indirect enum ExpressionNode: Sendable {
    case literal(ExpressionValue)
    /// `$feature.NAME` or `$feature["NAME"]`.
    case field(String, position: Int)
    /// `Geometry($feature)`, or `$feature` as `Length`'s first argument.
    case featureGeometry(position: Int)
    case negate(ExpressionNode, position: Int)
    case unaryPlus(ExpressionNode, position: Int)
    case not(ExpressionNode, position: Int)
    case binary(BinaryOperator, ExpressionNode, ExpressionNode, position: Int)
    case and(ExpressionNode, ExpressionNode, position: Int)
    case or(ExpressionNode, ExpressionNode, position: Int)
    case iif(ExpressionNode, ExpressionNode, ExpressionNode, position: Int)
    case round(ExpressionNode, places: ExpressionNode?, position: Int)
    case text(ExpressionNode, format: FormatArgument?, position: Int)
    case upper(ExpressionNode, position: Int)
    case lower(ExpressionNode, position: Int)
    case trim(ExpressionNode, position: Int)
    /// `Concatenate([…], separator, format)`.
    case concatenateArray([ExpressionNode], separator: ExpressionNode?, format: FormatArgument?, position: Int)
    /// `Concatenate(a, b, …)`: the values' text, one after another.
    case concatenateValues([ExpressionNode], position: Int)
    case isEmpty(ExpressionNode)
    case defaultValue(ExpressionNode, ExpressionNode)
    case length(ExpressionNode, unit: UnitArgument?, position: Int)

    enum BinaryOperator: String, Sendable {
        case add = "+", subtract = "-", multiply = "*", divide = "/", remainder = "%"
        case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    }

    /// A format argument: compiled at parse time when it is a literal.
    enum FormatArgument: Sendable {
        /// A literal format; nil for the empty format, which formats nothing.
        case fixed(NumberFormatPattern?)
        case dynamic(ExpressionNode, position: Int)
    }

    /// A unit argument: resolved at parse time when it is a literal.
    enum UnitArgument: Sendable {
        case metres(Double)
        case dynamic(ExpressionNode, position: Int)
    }
}

extension ExpressionNode {
    /// The node's value for `feature`.
    ///
    /// Evaluation recurses once per level of the tree, so the frame on that path is kept small:
    /// the operators and the functions are worked out in functions of their own, never
    /// inlined. In a debug build one frame holding every case took 13 KB, and the longest chain
    /// the parser allows (500 terms) 6.5 MB of an 8 MB thread stack.
    func evaluate(_ feature: ExpressionContext) throws(ExpressionError) -> ExpressionValue {
        switch self {
        case .literal(let v):
            return v
        case .field(let name, let position):
            guard let value = feature.value(ofField: name) else { throw .unknownField(name, position: position) }
            return try ExpressionValue(value, field: name, position: position)
        case .featureGeometry:
            return feature.geometry.map { .geometry($0) } ?? .null
        case .binary(let op, let left, let right, let position):
            return try Self.binary(op, left, right, at: position, feature)
        case .negate, .unaryPlus, .not, .and, .or, .iif:
            return try evaluateOperator(feature)
        default:
            return try evaluateFunction(feature)
        }
    }

    /// `left op right`: the chains of `+` that labels are made of recurse through here.
    @inline(never)
    private static func binary(_ op: BinaryOperator, _ left: ExpressionNode, _ right: ExpressionNode, at position: Int,
                               _ feature: ExpressionContext) throws(ExpressionError) -> ExpressionValue {
        try apply(op, try left.evaluate(feature), try right.evaluate(feature), at: position)
    }

    /// The unary and logical operators and `IIf`.
    @inline(never)
    private func evaluateOperator(_ feature: ExpressionContext) throws(ExpressionError) -> ExpressionValue {
        switch self {
        case .negate(let operand, let position):
            return .number(-(try operand.evaluate(feature).number(at: position)))
        case .unaryPlus(let operand, let position):
            return .number(try operand.evaluate(feature).number(at: position))
        case .not(let operand, let position):
            return .boolean(!(try operand.evaluate(feature).boolean(for: "'!'", at: position)))
        case .and(let left, let right, let position):
            guard try left.evaluate(feature).boolean(for: "'&&'", at: position) else { return .boolean(false) }
            return .boolean(try right.evaluate(feature).boolean(for: "'&&'", at: position))
        case .or(let left, let right, let position):
            if try left.evaluate(feature).boolean(for: "'||'", at: position) { return .boolean(true) }
            return .boolean(try right.evaluate(feature).boolean(for: "'||'", at: position))
        case .iif(let condition, let yes, let no, let position):
            // Only the chosen branch is evaluated: a label never fails on the branch it does not show.
            return try condition.evaluate(feature).boolean(for: "IIf", at: position)
                ? try yes.evaluate(feature) : try no.evaluate(feature)
        default:
            preconditionFailure("evaluateOperator of a node that is not an operator")
        }
    }

    /// The functions: `Round`, `Text`, `Upper`, `Lower`, `Trim`, `Concatenate`, `IsEmpty`,
    /// `DefaultValue`, `Length`.
    @inline(never)
    private func evaluateFunction(_ feature: ExpressionContext) throws(ExpressionError) -> ExpressionValue {
        switch self {
        case .round(let value, let placesNode, let position):
            let number = try value.evaluate(feature).number(at: position)
            var places = 0
            if let placesNode {
                let p = try placesNode.evaluate(feature).number(at: position)
                guard p.rounded() == p, Swift.abs(p) <= 340 else {
                    throw .typeMismatch("Round needs a whole number of decimal places, not \(NumberText.render(p))", position: position)
                }
                places = Int(p)
            }
            return .number(NumberText.round(number, places: places))
        case .text(let value, let format, let position):
            return .text(try Self.text(try value.evaluate(feature), format: try format?.pattern(feature), at: position))
        case .upper(let value, let position):
            return .text(try value.evaluate(feature).text(at: position).uppercased())
        case .lower(let value, let position):
            return .text(try value.evaluate(feature).text(at: position).lowercased())
        case .trim(let value, let position):
            return .text(try value.evaluate(feature).text(at: position).trimmingWhitespace())
        case .concatenateArray(let elements, let separatorNode, let format, let position):
            let separator = try separatorNode?.evaluate(feature).text(at: position) ?? ""
            let pattern = try format?.pattern(feature)
            var out = ""
            for (i, element) in elements.enumerated() {
                if i > 0 { out += separator }
                out += try Self.text(try element.evaluate(feature), format: pattern, at: position)
            }
            return .text(out)
        case .concatenateValues(let values, let position):
            var out = ""
            for value in values { out += try value.evaluate(feature).text(at: position) }
            return .text(out)
        case .isEmpty(let value):
            return .boolean(try value.evaluate(feature).isEmpty)
        case .defaultValue(let value, let fallback):
            let v = try value.evaluate(feature)
            return v.isEmpty ? try fallback.evaluate(feature) : v
        case .length(let geometryNode, let unit, let position):
            let length: Double
            switch try geometryNode.evaluate(feature) {
            case .geometry(let g): length = g.arcadeLength
            case .null: length = 0
            case let other:
                throw .typeMismatch("Length needs a geometry, not \(other.typeName)", position: position)
            }
            guard let unit else { return .number(length) }
            let target = try unit.metres(feature)
            guard let metresPerUnit = feature.metresPerUnit else { throw .noLinearUnit(position: position) }
            return .number(length * (metresPerUnit / target))
        case .literal, .field, .featureGeometry, .binary, .negate, .unaryPlus, .not, .and, .or, .iif:
            preconditionFailure("evaluateFunction of a node that is not a function")
        }
    }

    /// `value` as text, formatted with `pattern` when it is a number (Arcade's `Text`).
    private static func text(_ value: ExpressionValue, format pattern: NumberFormatPattern?, at position: Int) throws(ExpressionError) -> String {
        if let pattern, case .number(let n) = value { return pattern.format(n) }
        return try value.text(at: position)
    }

    private static func apply(_ op: BinaryOperator, _ a: ExpressionValue, _ b: ExpressionValue, at position: Int) throws(ExpressionError) -> ExpressionValue {
        switch op {
        case .add:
            // Text wins: if either side is text the other is cast to text (null as empty text).
            if case .text(let s) = a { return .text(s + (try b.text(at: position))) }
            if case .text(let s) = b { return .text((try a.text(at: position)) + s) }
            return .number(try a.number(at: position) + b.number(at: position))
        case .subtract: return .number(try a.number(at: position) - b.number(at: position))
        case .multiply: return .number(try a.number(at: position) * b.number(at: position))
        case .divide: return .number(try a.number(at: position) / b.number(at: position))
        case .remainder:
            return .number((try a.number(at: position)).truncatingRemainder(dividingBy: try b.number(at: position)))
        case .equal: return .boolean(a.arcadeEquals(b))
        case .notEqual: return .boolean(!a.arcadeEquals(b))
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            guard let order = try a.order(comparedTo: b, at: position) else { return .boolean(false) }
            switch op {
            case .less: return .boolean(order < 0)
            case .lessOrEqual: return .boolean(order <= 0)
            case .greater: return .boolean(order > 0)
            default: return .boolean(order >= 0)
            }
        }
    }
}

extension ExpressionNode.FormatArgument {
    /// The compiled pattern for this feature; nil for no formatting.
    func pattern(_ feature: ExpressionContext) throws(ExpressionError) -> NumberFormatPattern? {
        switch self {
        case .fixed(let pattern): return pattern
        case .dynamic(let node, let position):
            let text = try node.evaluate(feature).text(at: position)
            if text.isEmpty { return nil }
            guard let pattern = NumberFormatPattern(text) else { throw .unsupportedFormat(text, position: position) }
            return pattern
        }
    }
}

extension ExpressionNode.UnitArgument {
    /// Metres per unit of the requested unit.
    func metres(_ feature: ExpressionContext) throws(ExpressionError) -> Double {
        switch self {
        case .metres(let m): return m
        case .dynamic(let node, let position):
            let name = try node.evaluate(feature).text(at: position)
            guard let m = LengthUnit.metres(per: name) else { throw .unknownUnit(name, position: position) }
            return m
        }
    }
}

extension ExpressionValue {
    /// The value as a condition; Arcade requires a boolean and does not cast.
    func boolean(for what: String, at position: Int) throws(ExpressionError) -> Bool {
        guard case .boolean(let b) = self else {
            throw .typeMismatch("\(what) needs a boolean, not \(typeName)", position: position)
        }
        return b
    }

    /// `==`: values of the same type compare by value (numbers numerically, text exactly);
    /// values of different types are never equal, except that null equals only null.
    func arcadeEquals(_ other: ExpressionValue) -> Bool {
        switch (self, other) {
        case (.null, .null): true
        case (.number(let a), .number(let b)): a == b
        case (.text(let a), .text(let b)): a == b
        case (.boolean(let a), .boolean(let b)): a == b
        case (.geometry(let a), .geometry(let b)): a == b
        default: false
        }
    }

    /// -1, 0 or 1 for `<` and friends; nil when either side is null or NaN (every ordering
    /// comparison is then false). Text compares with text by character; otherwise both sides are
    /// cast to numbers.
    func order(comparedTo other: ExpressionValue, at position: Int) throws(ExpressionError) -> Int? {
        if case .null = self { return nil }
        if case .null = other { return nil }
        if case .text(let a) = self, case .text(let b) = other { return a < b ? -1 : (a == b ? 0 : 1) }
        let a = try number(at: position)
        let b = try other.number(at: position)
        if a.isNaN || b.isNaN { return nil }
        return a < b ? -1 : (a == b ? 0 : 1)
    }
}
