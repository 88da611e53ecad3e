/// A token of a label expression, with the 1-based character position where it starts.
struct ExpressionToken: Equatable {
    enum Kind: Equatable {
        case number(Double)
        case string(String)
        /// A name; profile variables keep their `$` (`$feature`).
        case identifier(String)
        /// Punctuation and operators: `( ) [ ] { } , . ; + - * / % == != < <= > >= && || ! =`
        /// (braces only so that a block of full Arcade gets a clear error).
        case symbol(String)
        case end
    }

    var kind: Kind
    var position: Int

    /// The token as the user wrote it, for messages ("found ')'").
    var quoted: String {
        switch kind {
        case .number(let n): "'\(NumberText.render(n))'"
        case .string: "a text literal"
        case .identifier(let s): "'\(s)'"
        case .symbol(let s): "'\(s)'"
        case .end: "the end of the expression"
        }
    }
}

/// Splits a label expression into tokens. Comments (`//…` and `/*…*/`) and white space are
/// skipped.
struct ExpressionTokenizer {
    private let chars: [Character]
    private var index = 0

    init(_ source: String) {
        chars = Array(source)
    }

    /// All tokens, ending with `.end`.
    static func tokenize(_ source: String) throws(ExpressionError) -> [ExpressionToken] {
        var tokenizer = ExpressionTokenizer(source)
        var tokens: [ExpressionToken] = []
        while true {
            let token = try tokenizer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private var position: Int { index + 1 }

    private func peek(_ offset: Int = 0) -> Character? {
        index + offset < chars.count ? chars[index + offset] : nil
    }

    private mutating func next() throws(ExpressionError) -> ExpressionToken {
        try skipSpaceAndComments()
        let start = position
        guard let c = peek() else { return ExpressionToken(kind: .end, position: start) }

        if c == "\"" || c == "'" { return ExpressionToken(kind: .string(try string(quote: c)), position: start) }
        if c == "`" {
            throw .unsupported("template literals (`…`) are not supported", position: start)
        }
        if c.isASCIIDigit || (c == "." && peek(1)?.isASCIIDigit == true) {
            return ExpressionToken(kind: .number(try number()), position: start)
        }
        if c.isLetter || c == "_" || c == "$" {
            var name = String(c)
            index += 1
            while let d = peek(), d.isLetter || d.isNumber || d == "_" || d == "$" {
                name.append(d)
                index += 1
            }
            return ExpressionToken(kind: .identifier(name), position: start)
        }
        let two = peek(1).map { String(c) + String($0) }
        if let two, ["==", "!=", "<=", ">=", "&&", "||"].contains(two) {
            index += 2
            return ExpressionToken(kind: .symbol(two), position: start)
        }
        if "()[]{},.;+-*/%<>!=".contains(c) {
            index += 1
            return ExpressionToken(kind: .symbol(String(c)), position: start)
        }
        throw .syntax("unexpected character '\(c)'", position: start)
    }

    private mutating func skipSpaceAndComments() throws(ExpressionError) {
        while let c = peek() {
            if c.isWhitespace {
                index += 1
            } else if c == "/" && peek(1) == "/" {
                while let d = peek(), !d.isNewline { index += 1 }
            } else if c == "/" && peek(1) == "*" {
                let start = position
                index += 2
                while true {
                    guard let d = peek() else { throw .syntax("unterminated comment", position: start) }
                    if d == "*" && peek(1) == "/" {
                        index += 2
                        break
                    }
                    index += 1
                }
            } else {
                return
            }
        }
    }

    private mutating func number() throws(ExpressionError) -> Double {
        let start = position
        var text = ""
        while let c = peek(), c.isASCIIDigit || c == "." {
            text.append(c)
            index += 1
        }
        if let e = peek(), e == "e" || e == "E" {
            text.append(e)
            index += 1
            if let sign = peek(), sign == "+" || sign == "-" {
                text.append(sign)
                index += 1
            }
            while let c = peek(), c.isASCIIDigit {
                text.append(c)
                index += 1
            }
        }
        if let c = peek(), c.isLetter || c == "_" || c == "$" || c == "." {
            throw .syntax("malformed number", position: start)
        }
        guard text.filter({ $0 == "." }).count <= 1, let value = Double(text), value.isFinite else {
            throw .syntax("malformed number '\(text)'", position: start)
        }
        return value
    }

    /// A string literal; escapes as in JavaScript: \n \t \r \b \f \v \0 \\ \' \" \/ \uXXXX \u{X…}.
    private mutating func string(quote: Character) throws(ExpressionError) -> String {
        let start = position
        index += 1
        var out = ""
        while true {
            guard let c = peek() else { throw .unterminatedString(position: start) }
            index += 1
            if c == quote { return out }
            guard c == "\\" else {
                out.append(c)
                continue
            }
            let escapePosition = position - 1
            guard let e = peek() else { throw .unterminatedString(position: start) }
            index += 1
            switch e {
            case "n": out.append("\n")
            case "t": out.append("\t")
            case "r": out.append("\r")
            case "b": out.append("\u{08}")
            case "f": out.append("\u{0C}")
            case "v": out.append("\u{0B}")
            case "0": out.append("\u{00}")
            case "\\", "'", "\"", "/": out.append(e)
            case "u": out.unicodeScalars.append(try unicodeEscape(at: escapePosition))
            default: throw .syntax("unknown escape '\\\(e)'", position: escapePosition)
            }
        }
    }

    private mutating func unicodeEscape(at escapePosition: Int) throws(ExpressionError) -> Unicode.Scalar {
        var hex = ""
        let braced = peek() == "{"
        if braced {
            index += 1
            while let c = peek(), c != "}" {
                hex.append(c)
                index += 1
            }
            guard peek() == "}" else { throw .syntax("malformed \\u escape", position: escapePosition) }
            index += 1
        } else {
            while hex.count < 4, let c = peek() {
                hex.append(c)
                index += 1
            }
        }
        guard braced ? (1...6).contains(hex.count) : hex.count == 4,
              let code = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(code) else {
            throw .syntax("malformed \\u escape", position: escapePosition)
        }
        return scalar
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
