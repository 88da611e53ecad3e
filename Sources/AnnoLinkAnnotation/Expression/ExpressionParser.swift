/// A recursive-descent parser for the Arcade subset, with JavaScript's precedence:
/// `||` < `&&` < `==` `!=` < `<` `<=` `>` `>=` < `+` `-` < `*` `/` `%` < unary `-` `+` `!`.
struct ExpressionParser {
    private var tokens: [ExpressionToken]
    private var index = 0
    /// Fields read, with the position of their first `$feature`, in order of first appearance,
    /// deduplicated without regard to case.
    private(set) var fields: [(name: String, position: Int)] = []
    private var lowercasedFields: Set<String> = []
    private(set) var usesGeometry = false

    /// Statement keywords of full Arcade, refused with a message that says so.
    private static let statementKeywords: Set<String> = [
        "var", "if", "else", "for", "while", "function", "return", "break", "continue", "import", "export",
    ]

    /// Limits that keep the tree shallow enough to parse and evaluate recursively without
    /// exhausting a thread's stack; a label needs a few dozen tokens.
    static let maximumTokens = 1000
    static let maximumNesting = 64
    private var nesting = 0

    init(_ source: String) throws(ExpressionError) {
        tokens = try ExpressionTokenizer.tokenize(source)
        if tokens.count - 1 > Self.maximumTokens {  // the end token does not count
            throw .unsupported("expression too long (more than \(Self.maximumTokens) tokens)", position: tokens[Self.maximumTokens].position)
        }
    }

    private var current: ExpressionToken { tokens[index] }
    private var nextToken: ExpressionToken { tokens[Swift.min(index + 1, tokens.count - 1)] }

    private mutating func advance() -> ExpressionToken {
        let token = tokens[index]
        if index < tokens.count - 1 { index += 1 }
        return token
    }

    private func isSymbol(_ s: String, _ token: ExpressionToken? = nil) -> Bool {
        (token ?? current).kind == .symbol(s)
    }

    private mutating func expect(_ s: String) throws(ExpressionError) {
        guard isSymbol(s) else { throw .syntax("expected '\(s)', found \(current.quoted)", position: current.position) }
        _ = advance()
    }

    /// The whole expression: one expression, optionally written as `return expression`, with
    /// optional trailing semicolons. Anything more is a second statement, which is refused.
    mutating func parseProgram() throws(ExpressionError) -> ExpressionNode {
        if case .identifier(let word) = current.kind, word.lowercased() == "return" {
            _ = advance()
        }
        let node = try parseExpression()
        while isSymbol(";") { _ = advance() }
        if current.kind != .end {
            if isSymbol("=") {
                throw .unsupported("assignment is not supported (use '==' to compare)", position: current.position)
            }
            if isSymbol(";", tokens[index - 1]) {
                throw .unsupported("multi-statement expressions are not supported; only a single expression is", position: current.position)
            }
            throw .syntax("expected the end of the expression, found \(current.quoted)", position: current.position)
        }
        return node
    }

    private mutating func parseExpression() throws(ExpressionError) -> ExpressionNode {
        nesting += 1
        defer { nesting -= 1 }
        guard nesting <= Self.maximumNesting else {
            throw .unsupported("expression nested too deeply (more than \(Self.maximumNesting) levels)", position: current.position)
        }
        return try parseOr()
    }

    private mutating func parseOr() throws(ExpressionError) -> ExpressionNode {
        var left = try parseAnd()
        while isSymbol("||") {
            let op = advance()
            left = .or(left, try parseAnd(), position: op.position)
        }
        return left
    }

    private mutating func parseAnd() throws(ExpressionError) -> ExpressionNode {
        var left = try parseEquality()
        while isSymbol("&&") {
            let op = advance()
            left = .and(left, try parseEquality(), position: op.position)
        }
        return left
    }

    private mutating func parseEquality() throws(ExpressionError) -> ExpressionNode {
        try parseBinary(["==", "!="], next: { (p: inout ExpressionParser) throws(ExpressionError) in try p.parseComparison() })
    }

    private mutating func parseComparison() throws(ExpressionError) -> ExpressionNode {
        try parseBinary(["<", "<=", ">", ">="], next: { (p: inout ExpressionParser) throws(ExpressionError) in try p.parseAdditive() })
    }

    private mutating func parseAdditive() throws(ExpressionError) -> ExpressionNode {
        try parseBinary(["+", "-"], next: { (p: inout ExpressionParser) throws(ExpressionError) in try p.parseMultiplicative() })
    }

    private mutating func parseMultiplicative() throws(ExpressionError) -> ExpressionNode {
        try parseBinary(["*", "/", "%"], next: { (p: inout ExpressionParser) throws(ExpressionError) in try p.parseUnary() })
    }

    private mutating func parseBinary(
        _ operators: [String], next: (inout ExpressionParser) throws(ExpressionError) -> ExpressionNode
    ) throws(ExpressionError) -> ExpressionNode {
        var left = try next(&self)
        while case .symbol(let s) = current.kind, operators.contains(s) {
            let op = advance()
            let right = try next(&self)
            left = .binary(ExpressionNode.BinaryOperator(rawValue: s)!, left, right, position: op.position)
        }
        return left
    }

    private mutating func parseUnary() throws(ExpressionError) -> ExpressionNode {
        guard case .symbol(let s) = current.kind, ["-", "+", "!"].contains(s) else { return try parsePrimary() }
        let op = advance()
        nesting += 1
        defer { nesting -= 1 }
        guard nesting <= Self.maximumNesting else {
            throw .unsupported("expression nested too deeply (more than \(Self.maximumNesting) levels)", position: op.position)
        }
        let operand = try parseUnary()
        switch s {
        case "-":
            if case .literal(.number(let n)) = operand { return .literal(.number(-n)) }
            return .negate(operand, position: op.position)
        case "+": return .unaryPlus(operand, position: op.position)
        default: return .not(operand, position: op.position)
        }
    }

    private mutating func parsePrimary() throws(ExpressionError) -> ExpressionNode {
        let token = current
        switch token.kind {
        case .number(let n):
            _ = advance()
            return .literal(.number(n))
        case .string(let s):
            _ = advance()
            return .literal(.text(s))
        case .symbol("("):
            _ = advance()
            let inner = try parseExpression()
            try expect(")")
            return inner
        case .symbol("["):
            throw .unsupported("arrays are supported only as Concatenate's first argument", position: token.position)
        case .symbol("="):
            throw .unsupported("assignment is not supported (use '==' to compare)", position: token.position)
        case .identifier(let name):
            return try parseName(name, at: token)
        case .end:
            throw .syntax("expected an expression, found the end of the expression", position: token.position)
        case .symbol:
            throw .syntax("expected an expression, found \(token.quoted)", position: token.position)
        }
    }

    private mutating func parseName(_ name: String, at token: ExpressionToken) throws(ExpressionError) -> ExpressionNode {
        let lower = name.lowercased()
        if lower == "$feature" { return try parseField() }
        if name.hasPrefix("$") {
            throw .unsupported("the profile variable '\(name)' is not supported; only $feature is", position: token.position)
        }
        if isSymbol("(", nextToken) { return try parseCall(name, at: token) }
        _ = advance()
        switch lower {
        case "true": return .literal(.boolean(true))
        case "false": return .literal(.boolean(false))
        case "null": return .literal(.null)
        case "pi": return .literal(.number(Double.pi))
        case "infinity": return .literal(.number(.infinity))
        case "textformatting": return try parseTextFormatting(at: token)
        default: break
        }
        if Self.statementKeywords.contains(lower) {
            throw .unsupported("'\(name)' statements are not supported; only a single expression is", position: token.position)
        }
        throw .unsupported("unknown name '\(name)' (variables are not supported)", position: token.position)
    }

    /// `$feature.NAME` or `$feature["NAME"]`; the name is recorded in `fields`.
    private mutating func parseField() throws(ExpressionError) -> ExpressionNode {
        let feature = advance()
        let name: String
        if isSymbol(".") {
            _ = advance()
            guard case .identifier(let field) = current.kind else {
                throw .syntax("expected a field name after '$feature.'", position: current.position)
            }
            _ = advance()
            name = field
        } else if isSymbol("[") {
            _ = advance()
            guard case .string(let field) = current.kind else {
                throw .unsupported("a field name in $feature[…] must be a text literal", position: current.position)
            }
            _ = advance()
            try expect("]")
            name = field
        } else {
            throw .syntax("expected '.' or '[' after '$feature'", position: current.position)
        }
        if lowercasedFields.insert(name.lowercased()).inserted { fields.append((name, feature.position)) }
        return .field(name, position: feature.position)
    }

    private mutating func parseTextFormatting(at token: ExpressionToken) throws(ExpressionError) -> ExpressionNode {
        try expect(".")
        guard case .identifier(let member) = current.kind else {
            throw .syntax("expected a TextFormatting constant after 'TextFormatting.'", position: current.position)
        }
        let constants: [String: String] = [
            "newline": "\n", "tab": "\t", "singlequote": "'", "doublequote": "\"",
            "backwardslash": "\\", "forwardslash": "/",
        ]
        guard let text = constants[member.lowercased()] else {
            throw .unsupported("unknown constant 'TextFormatting.\(member)'", position: current.position)
        }
        _ = advance()
        return .literal(.text(text))
    }

    private mutating func parseCall(_ name: String, at token: ExpressionToken) throws(ExpressionError) -> ExpressionNode {
        guard let function = ExpressionFunction.named(name) else {
            if Self.statementKeywords.contains(name.lowercased()) {
                throw .unsupported("'\(name)' statements are not supported; only a single expression is", position: token.position)
            }
            throw .unknownFunction(name, position: token.position)
        }
        let position = token.position
        _ = advance()  // name
        _ = advance()  // (
        // Arcade's text functions page: Concatenate(textArray, separator?, format?), where the
        // separator is "text to concatenate, if a single value is provided for the first
        // parameter"; ArcGIS Pro's "Arcade expressions in charts" page calls
        // Concatenate($feature.CITY_NAME, ", ", $feature.STATE_NAME). So: an array literal first
        // means join with a separator; otherwise every argument's text, one after another.
        if function == .concatenate && isSymbol("[") { return try parseConcatenateArray(at: position) }

        var arguments: [ExpressionNode] = []
        var argumentPositions: [Int] = []
        if !isSymbol(")") {
            while true {
                argumentPositions.append(current.position)
                if arguments.isEmpty && (function == .geometry || function == .length),
                   current.kind.identifierLowercased == "$feature",
                   isSymbol(",", nextToken) || isSymbol(")", nextToken) {
                    let feature = advance()
                    usesGeometry = true
                    arguments.append(.featureGeometry(position: feature.position))
                } else if arguments.isEmpty && function == .geometry {
                    throw .unsupported("Geometry() supports only $feature", position: current.position)
                } else {
                    arguments.append(try parseExpression())
                }
                if isSymbol(",") {
                    _ = advance()
                    continue
                }
                guard isSymbol(")") else {
                    throw .syntax("expected ',' or ')', found \(current.quoted)", position: current.position)
                }
                break
            }
        }
        _ = advance()  // )
        guard function.arity.contains(arguments.count) else {
            throw .argumentCount(function: function.rawValue, expected: function.arityText, got: arguments.count, position: position)
        }
        let a = arguments
        switch function {
        case .iif: return .iif(a[0], a[1], a[2], position: position)
        case .round: return .round(a[0], places: a.count > 1 ? a[1] : nil, position: position)
        case .text:
            let format = a.count > 1 ? try formatArgument(a[1], at: argumentPositions[1]) : nil
            return .text(a[0], format: format, position: position)
        case .upper: return .upper(a[0], position: position)
        case .lower: return .lower(a[0], position: position)
        case .trim: return .trim(a[0], position: position)
        case .concatenate: return .concatenateValues(a, position: position)
        case .isEmpty: return .isEmpty(a[0])
        case .defaultValue: return .defaultValue(a[0], a[1])
        case .geometry: return a[0]
        case .length:
            let unit = a.count > 1 ? try unitArgument(a[1], at: argumentPositions[1]) : nil
            return .length(a[0], unit: unit, position: position)
        }
    }

    /// `Concatenate([a, b, …], separator?, format?)`, after the opening parenthesis.
    private mutating func parseConcatenateArray(at position: Int) throws(ExpressionError) -> ExpressionNode {
        _ = advance()  // [
        var elements: [ExpressionNode] = []
        if !isSymbol("]") {
            while true {
                elements.append(try parseExpression())
                if isSymbol(",") {
                    _ = advance()
                    continue
                }
                guard isSymbol("]") else {
                    throw .syntax("expected ',' or ']', found \(current.quoted)", position: current.position)
                }
                break
            }
        }
        _ = advance()  // ]
        var rest: [(node: ExpressionNode, position: Int)] = []
        while isSymbol(",") {
            _ = advance()
            let argumentPosition = current.position
            rest.append((try parseExpression(), argumentPosition))
        }
        try expect(")")
        guard rest.count <= 2 else {
            throw .argumentCount(function: "Concatenate", expected: "1 to 3 (an array, a separator, a format)", got: rest.count + 1, position: position)
        }
        let format = rest.count > 1 ? try formatArgument(rest[1].node, at: rest[1].position) : nil
        return .concatenateArray(elements, separator: rest.first?.node, format: format, position: position)
    }

    private func formatArgument(_ node: ExpressionNode, at position: Int) throws(ExpressionError) -> ExpressionNode.FormatArgument {
        guard case .literal(.text(let format)) = node else { return .dynamic(node, position: position) }
        if format.isEmpty { return .fixed(nil) }
        guard let pattern = NumberFormatPattern(format) else { throw .unsupportedFormat(format, position: position) }
        return .fixed(pattern)
    }

    private func unitArgument(_ node: ExpressionNode, at position: Int) throws(ExpressionError) -> ExpressionNode.UnitArgument {
        guard case .literal(.text(let unit)) = node else { return .dynamic(node, position: position) }
        guard let metres = LengthUnit.metres(per: unit) else { throw .unknownUnit(unit, position: position) }
        return .metres(metres)
    }
}

extension ExpressionToken.Kind {
    fileprivate var identifierLowercased: String? {
        if case .identifier(let s) = self { s.lowercased() } else { nil }
    }
}
