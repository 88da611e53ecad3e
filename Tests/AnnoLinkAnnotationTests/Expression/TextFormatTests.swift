import Testing
@testable import AnnoLinkAnnotation

@Suite("Text(value, format)")
struct TextFormatTests {
    // The examples of Arcade's Text function page (function-reference/text_functions).
    @Test(arguments: [
        ("Text(123, '0000')", "0123"),
        ("Text(123, '00')", "23"),
        ("Text(1234, '#,###')", "1,234"),
        ("Text(12345678.123, '#,###.00')", "12,345,678.12"),
        ("Text(1234.55, '$#,###.00')", "$1,234.55"),
        ("Text(1.236, '#.00')", "1.24"),
        ("Text(1234.5678, '#,##0.00#')", "1,234.568"),
        ("Text(-2, 'Floor #;Basement #')", "Basement 2"),
        ("Text(2, 'Floor #;Basement #')", "Floor 2"),
        ("Text(0.3, '#%')", "30%"),
    ])
    func documentedExamples(source: String, text: String) throws {
        #expect(try label(source) == text)
    }

    @Test(arguments: [
        ("Text(5.4, '#')", "5"),
        ("Text(5.5, '#')", "6"),
        ("Text(-5.5, '#')", "-6"),
        ("Text(0, '#')", "0"),
        ("Text(5.4, '0')", "5"),
        ("Text(5.4, '0.00')", "5.40"),
        ("Text(123.456, '0.00')", "3.46"),   // an all-'0' integer part restricts the digits, as '00' does
        ("Text(123.456, '#0.00')", "123.46"),
        ("Text(5.456, '#.##')", "5.46"),
        ("Text(5, '#.##')", "5"),
        ("Text(5.1, '#.##')", "5.1"),
        ("Text(0.5, '#.##')", "0.5"),
        ("Text(1.005, '#.##')", "1.01"),
        ("Text(1234567, '#,###')", "1,234,567"),
        ("Text(123, '#,###')", "123"),
        ("Text(-1234.5, '#,###.0')", "-1,234.5"),
        ("Text(-0.001, '0.00')", "0.00"),
        ("Text(999.996, '#,###.00')", "1,000.00"),
        ("Text(21505, '#')", "21505"),
        ("Text(5.25, '# ft')", "5 ft"),
        ("Text(5.4, '')", "5.4"),
        ("Text(5.40)", "5.4"),
        ("Text('abc', '#.00')", "abc"),
        ("Text(true)", "true"),
        ("Text(null)", ""),
        ("Text(null, '#.00')", ""),
        ("Text(1/0, '#.00')", "Infinity"),
    ])
    func numberFormats(source: String, text: String) throws {
        #expect(try label(source) == text)
    }

    @Test(arguments: [
        ("Text($feature.D, 'YYYY-MM-DD')", "YYYY-MM-DD", 18),
        ("Text(1, 'dddd, MMMM D, Y')", "dddd, MMMM D, Y", 9),
        ("Text(1, '#.#.#')", "#.#.#", 9),
        ("Text(1, '#.#,#')", "#.#,#", 9),
        ("Text(1, 'a;b;c')", "a;b;c", 9),
        ("Concatenate([1], ',', 'Y')", "Y", 23),
    ])
    func unsupportedLiteralFormatsFailAtParse(source: String, format: String, position: Int) {
        #expect(parseError(source) == .unsupportedFormat(format, position: position))
    }

    @Test func unsupportedComputedFormatFailsAtEvaluation() throws {
        #expect(try evaluationError("Text(1, $feature.F)", ["F": .text("MMM")]) == .unsupportedFormat("MMM", position: 9))
        #expect(try label("Text(1.5, $feature.F)", ["F": .text("0.00")]) == "1.50")
    }
}
