import AnnoLinkStore
import Testing
@testable import AnnoLinkAnnotation

@Suite("Operators")
struct OperatorTests {
    @Test(arguments: [
        ("1 + 2 * 3", "7"),
        ("(1 + 2) * 3", "9"),
        ("10 - 4 - 3", "3"),
        ("2 * 3 % 4", "2"),
        ("7 / 2", "3.5"),
        ("-7 % 3", "-1"),
        ("-2 * 3", "-6"),
        ("-(2 + 3)", "-5"),
        ("- -2", "2"),
        ("+'4' + 1", "5"),
        ("1 + 2 + 'x'", "3x"),
        ("'x' + 1 + 2", "x12"),
        ("'x' + (1 + 2)", "x3"),
        ("1 + 2 == 3", "true"),
        ("1 < 2 == true", "true"),
        ("1 < 2 && 2 < 3 || false", "true"),
        ("false && true || true", "true"),
        ("false && (true || true)", "false"),
        ("true || false && false", "true"),
        ("!true || true", "true"),
        ("!(true || true)", "false"),
        ("'5' * '2'", "10"),
        ("'a' * 2", "NaN"),
        ("1 / 0", "Infinity"),
        ("0.1 * 3", "0.30000000000000004"),
        ("PI", "3.141592653589793"),
    ])
    func arithmeticAndPrecedence(source: String, text: String) throws {
        #expect(try label(source) == text)
    }

    @Test(arguments: [
        ("1 == 1", true), ("1 == 1.0", true), ("1 != 2", true), ("1 == '1'", false), ("'a' == 'a'", true),
        ("'a' == 'A'", false), ("null == null", true), ("null == 0", false), ("null == ''", false),
        ("true == 1", false), ("2 < 10", true), ("'2' < '10'", false), ("'10' < 2", false), ("'apple' < 'banana'", true),
        ("3 <= 3", true), ("3 >= 4", false), ("4 > 3", true), ("null < 1", false), ("null > -1", false),
        ("(0/0) == (0/0)", false), ("(0/0) < 1", false),
    ])
    func comparisons(source: String, result: Bool) throws {
        #expect(try value(source) == .boolean(result))
    }

    // Arcade's implicit casts: null is empty text next to text, 0 in arithmetic.
    @Test(arguments: [
        ("$feature.N + 'x'", "x"),
        ("'x' + $feature.N", "x"),
        ("$feature.N + ' ' + $feature.S", " ELMWOOD"),
        ("$feature.N + 1", "1"),
        ("$feature.N * 2", "0"),
        ("-$feature.N", "0"),
        ("$feature.N", ""),
        ("$feature.N + $feature.N", "0"),
        ("IIf($feature.N == null, 'none', 'some')", "none"),
        ("IIf($feature.N < 5, 'small', 'not small')", "not small"),
        ("IsEmpty($feature.N)", "true"),
        ("DefaultValue($feature.N, 'n/a')", "n/a"),
        ("Upper($feature.N)", ""),
    ])
    func nullHandling(source: String, text: String) throws {
        #expect(try label(source, ["N": .null, "S": .text("ELMWOOD")]) == text)
    }

    @Test(arguments: [
        ("IIf(1, 'a', 'b')", "IIf needs a boolean, not a number", 1),
        ("1 && true", "'&&' needs a boolean, not a number", 3),
        ("false || 'x'", "'||' needs a boolean, not text", 7),
        ("!5", "'!' needs a boolean, not a number", 1),
        ("Geometry($feature) + 1", "a geometry cannot be used as a number", 20),
        ("'a' + Geometry($feature)", "a geometry cannot be used as text", 5),
    ])
    func typeErrors(source: String, message: String, position: Int) throws {
        let line = straightLine(1)
        #expect(try evaluationError(source, geometry: line) == .typeMismatch(message, position: position))
    }

    @Test func logicalOperatorsShortCircuit() throws {
        // The right side would fail (a number is no condition); it is never evaluated.
        #expect(try value("false && 1") == .boolean(false))
        #expect(try value("true || 1") == .boolean(true))
        #expect(try label("IIf(true, 'a', $feature.MISSING)") == "a")
    }

    @Test func integerAttributesStayExact() throws {
        #expect(try label("$feature.A + 1", ["A": .integer(9_007_199_254_740_991)]) == "9007199254740992")
        #expect(try label("$feature.A", ["A": .integer(-42)]) == "-42")
        #expect(try label("$feature.A", ["A": .real(42)]) == "42")
    }
}
