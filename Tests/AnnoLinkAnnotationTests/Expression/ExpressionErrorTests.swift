import AnnoLinkStore
import Foundation
import Testing
@testable import AnnoLinkAnnotation

@Suite("Expression errors")
struct ExpressionErrorTests {
    @Test(arguments: [
        // Unclosed string: the position of its opening quote.
        (#"$feature.A + "abc"#, ExpressionError.unterminatedString(position: 14)),
        ("'abc", .unterminatedString(position: 1)),
        // Unknown function, by the name as written.
        ("Foo(1)", .unknownFunction("Foo", position: 1)),
        ("Round(Lenght(Geometry($feature)), 2)", .unknownFunction("Lenght", position: 7)),
        // Missing arguments.
        ("Round(1, )", .syntax("expected an expression, found ')'", position: 10)),
        ("IIf(true, 'a')", .argumentCount(function: "IIf", expected: "3", got: 2, position: 1)),
        ("Round()", .argumentCount(function: "Round", expected: "1 or 2", got: 0, position: 1)),
        ("Upper('a', 'b')", .argumentCount(function: "Upper", expected: "1", got: 2, position: 1)),
        ("x + Concatenate()", .unsupported("unknown name 'x' (variables are not supported)", position: 1)),
        ("'a' + Concatenate()", .argumentCount(function: "Concatenate", expected: "at least 1", got: 0, position: 7)),
        ("Concatenate(['a'], ',', '#', 'x')",
         .argumentCount(function: "Concatenate", expected: "1 to 3 (an array, a separator, a format)", got: 4, position: 1)),
        ("Round(1, 2", .syntax("expected ',' or ')', found the end of the expression", position: 11)),
        ("Round(1 2)", .syntax("expected ',' or ')', found '2'", position: 9)),
        // Trailing tokens.
        ("1 2", .syntax("expected the end of the expression, found '2'", position: 3)),
        ("$feature.A $feature.B", .syntax("expected the end of the expression, found '$feature'", position: 12)),
        ("Round(1, 2))", .syntax("expected the end of the expression, found ')'", position: 12)),
        // $feature without a field name.
        ("$feature.", .syntax("expected a field name after '$feature.'", position: 10)),
        ("$feature. + 1", .syntax("expected a field name after '$feature.'", position: 11)),
        ("$feature", .syntax("expected '.' or '[' after '$feature'", position: 9)),
        ("$feature[1]", .unsupported("a field name in $feature[…] must be a text literal", position: 10)),
        ("$feature['A'", .syntax("expected ']', found the end of the expression", position: 13)),
        // Parentheses and operators.
        ("(1 + 2", .syntax("expected ')', found the end of the expression", position: 7)),
        ("1 +", .syntax("expected an expression, found the end of the expression", position: 4)),
        ("", .syntax("expected an expression, found the end of the expression", position: 1)),
        ("1 + * 2", .syntax("expected an expression, found '*'", position: 5)),
        ("1 # 2", .syntax("unexpected character '#'", position: 3)),
        ("1.2.3", .syntax("malformed number '1.2.3'", position: 1)),
        ("12abc", .syntax("malformed number", position: 1)),
        (#"'\q'"#, .syntax(#"unknown escape '\q'"#, position: 2)),
        ("/* open", .syntax("unterminated comment", position: 1)),
        // Outside the subset.
        ("var x = 1; return x;", .unsupported("'var' statements are not supported; only a single expression is", position: 1)),
        ("1; 2", .unsupported("multi-statement expressions are not supported; only a single expression is", position: 4)),
        ("if (true) { 1 }", .unsupported("'if' statements are not supported; only a single expression is", position: 1)),
        ("$feature.A = 1", .unsupported("assignment is not supported (use '==' to compare)", position: 12)),
        ("$layer.NAME", .unsupported("the profile variable '$layer' is not supported; only $feature is", position: 1)),
        ("`x`", .unsupported("template literals (`…`) are not supported", position: 1)),
        ("Upper([1, 2])", .unsupported("arrays are supported only as Concatenate's first argument", position: 7)),
        ("Geometry($feature.A)", .unsupported("Geometry() supports only $feature", position: 10)),
        ("TextFormatting.Bell", .unsupported("unknown constant 'TextFormatting.Bell'", position: 16)),
        // Units given as literals are checked when parsing.
        ("Length($feature, 'furlongs')", .unknownUnit("furlongs", position: 18)),
        ("Length($feature, 'acres')", .unknownUnit("acres", position: 18)),
    ])
    func parseErrors(source: String, error: ExpressionError) {
        #expect(parseError(source) == error)
    }

    @Test func sizeLimitsKeepEvaluationOffTheStackLimit() throws {
        // The longest chain allowed evaluates; deeper nesting and longer sources are refused.
        let chain = Array(repeating: "1", count: 500).joined(separator: "+")
        #expect(try label(chain) == "500")
        let nested = String(repeating: "(", count: 63) + "1" + String(repeating: ")", count: 63)
        #expect(try label(nested) == "1")
        #expect(parseError(String(repeating: "(", count: 64) + "1" + String(repeating: ")", count: 64))
            == .unsupported("expression nested too deeply (more than 64 levels)", position: 65))
        #expect(parseError(String(repeating: "-", count: 70) + "1")
            == .unsupported("expression nested too deeply (more than 64 levels)", position: 64))
        #expect(parseError(Array(repeating: "1", count: 501).joined(separator: "+"))
            == .unsupported("expression too long (more than 1000 tokens)", position: 1001))
        #expect(try label("Text(1e308, '#%')") == "Infinity")
    }

    /// The longest chain and the deepest nesting evaluate on a thread of 2 MB of stack (a
    /// quarter of Linux's default), in whatever build runs the tests: evaluation keeps its
    /// recursive frame small (`ExpressionNode.evaluate`). With every case in one frame a debug
    /// build needed 6.5 MB for the chain, and overflowed under ThreadSanitizer.
    @Test func theLimitsEvaluateOnASmallStack() throws {
        let sources = [
            Array(repeating: "1", count: 500).joined(separator: "+"),
            String(repeating: "Upper(", count: 63) + "'a'" + String(repeating: ")", count: 63),
            String(repeating: "-", count: 63) + "1",
            String(repeating: "IIf(true, ", count: 63) + "1" + String(repeating: ", 0)", count: 63),
        ]
        let results = LockedResults()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            for source in sources { results.append(Result { try label(source) }) }
            done.signal()
        }
        thread.stackSize = 2 << 20
        thread.start()
        done.wait()
        let texts = results.values.map { try? $0.get() }
        #expect(texts == ["500", "A", "-1", "1"])
    }

    @Test func descriptionsNameThePosition() {
        #expect(ExpressionError.syntax("expected ')', found the end of the expression", position: 17).description
            == "expected ')', found the end of the expression at position 17")
        #expect(ExpressionError.unknownField("ST_NAME", position: 1).description == "unknown field 'ST_NAME' at position 1")
        #expect(ExpressionError.argumentCount(function: "Upper", expected: "1", got: 2, position: 4).description
            == "Upper takes 1 argument, not 2 at position 4")
        #expect(ExpressionError.unterminatedString(position: 14).description == "unterminated string at position 14")
    }

    @Test func unknownFieldNamesOnlyTheField() throws {
        let error = try evaluationError("$feature.AD_ADDRESS + ' ' + $feature.ST_NAME", ["AD_ADDRESS": .integer(1), "ST_STR_NAM": .text("X")])
        #expect(error == .unknownField("ST_NAME", position: 29))
        #expect(error?.description == "unknown field 'ST_NAME' at position 29")
    }

    @Test func blobFieldsAreRefused() throws {
        #expect(try evaluationError("$feature.B", ["B": .blob([1, 2])])
            == .typeMismatch("field 'B' holds a blob, which label expressions cannot use", position: 1))
    }

    @Test func checkFieldsAgainstATableBeforeLabelling() throws {
        let expression = try LabelExpression("$feature.AD_ADDRESS + ' ' + $feature.st_str_nam + $feature.SUFFIX")
        try expression.checkFields(["fid", "ad_address", "ST_STR_NAM", "suffix"])
        #expect(throws: ExpressionError.unknownField("SUFFIX", position: 51)) {
            try expression.checkFields(["AD_ADDRESS", "ST_STR_NAM"])
        }
    }
}

/// Results handed from the test's own thread.
private final class LockedResults: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Result<String, any Error>] = []
    func append(_ result: Result<String, any Error>) { lock.withLock { stored.append(result) } }
    var values: [Result<String, any Error>] { lock.withLock { stored } }
}
