import Testing
@testable import AnnoLinkAnnotation

@Suite("Numbers as Arcade writes them")
struct NumberRenderingTests {
    // Expected texts are JavaScript's Number.prototype.toString, which Arcade's reference
    // implementation uses; 5.4, 178 and 4.97 are texts ArcGIS wrote in the Loudoun annotation.
    @Test(arguments: [
        (5.4, "5.4"), (178.0, "178"), (4.97, "4.97"), (21505, "21505"), (-3.5, "-3.5"), (0.5, "0.5"),
        (0.1 + 0.2, "0.30000000000000004"), (100.25, "100.25"), (-0.0, "0"), (0, "0"),
        (1e20, "100000000000000000000"), (123456789012345680000.0, "123456789012345680000"),
        (1152921504606846976.0, "1152921504606847000"),  // 2^60: shortest digits, then zeros
        (1e21, "1e+21"), (1.5e22, "1.5e+22"), (1.7976931348623157e308, "1.7976931348623157e+308"),
        (201.15, "201.15"), (-0.05, "-0.05"), (0.0001, "0.0001"), (12345.6789, "12345.6789"), (0.00001, "0.00001"),
        (0.000001, "0.000001"), (0.0000015, "0.0000015"), (1e-7, "1e-7"), (1.5e-7, "1.5e-7"),
        (Double.leastNonzeroMagnitude, "5e-324"),
        (Double.nan, "NaN"), (Double.infinity, "Infinity"), (-Double.infinity, "-Infinity"),
    ])
    func renders(number: Double, text: String) {
        #expect(ExpressionValue.render(number) == text)
    }

    // Integers and numbers of up to four decimals take a fast path; it must agree with the
    // general one (shortest round-trip digits) everywhere.
    @Test(arguments: [1.0, 10, 100, 1000, 10000])
    func fastPathAgreesWithShortestDigits(denominator: Double) {
        var disagreements: [Double] = []
        for i in stride(from: -200_003, through: 200_003, by: 61) {
            for v in [Double(i) / denominator, Double(i) / denominator * 1.000002, Double(i) * 1e6 / denominator] where v != 0 {
                if NumberText.render(v) != NumberText.renderDigits(v) { disagreements.append(v) }
            }
        }
        #expect(disagreements.isEmpty)
    }

    @Test(arguments: [
        ("178.0", "178"), ("5.40", "5.4"), ("-0.5", "-0.5"), (".5", "0.5"), ("1e3", "1000"), ("2.5E-3", "0.0025"),
    ])
    func numberLiteralsRenderTheirValue(source: String, text: String) throws {
        #expect(try label(source) == text)
    }

    // Round: halves away from zero, judged on the shortest decimal of the value.
    @Test(arguments: [
        ("Round(5.399, 2)", "5.4"),            // docs/expressions.md, "Decisions"
        ("Round(2316.2562, 2)", "2316.26"),    // Arcade's Round page example
        ("Round(178.0, 2)", "178"),
        ("Round(1.005, 2)", "1.01"),           // the double is 1.00499999999999989…
        ("Round(8.345, 2)", "8.35"),           // 8.34499999999999975…
        ("Round(0.285, 2)", "0.29"),
        ("Round(9.995, 2)", "10"),
        ("Round(1.45, 1)", "1.5"),
        ("Round(2.5)", "3"),
        ("Round(-2.5)", "-3"),
        ("Round(-1.005, 2)", "-1.01"),
        ("Round(2.4999, 0)", "2"),
        ("Round(-0.001, 2)", "0"),
        ("Round(1234.5678, -2)", "1200"),
        ("Round(1250, -2)", "1300"),
        ("Round(123.456, 0)", "123"),
        ("Round(0.1 + 0.2, 2)", "0.3"),
        ("Round(1e300, 2)", "1e+300"),
        ("Round(123456789.123456789, 25)", "123456789.12345679"),
    ])
    func rounds(source: String, text: String) throws {
        #expect(try label(source) == text)
    }

    @Test func roundNeedsWholePlaces() throws {
        #expect(try evaluationError("Round(1.5, 0.5)") == .typeMismatch("Round needs a whole number of decimal places, not 0.5", position: 1))
    }

    @Test func roundOfNullIsZeroAsArcadeCastsNullToZero() throws {
        #expect(try label("Round($feature.X, 2)", ["X": .null]) == "0")
    }
}
