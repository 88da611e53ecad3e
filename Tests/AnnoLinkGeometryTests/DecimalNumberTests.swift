import Testing

import AnnoLinkGeometry

/// Numbers on the command line and in request parameters are decimal (issue 16, D11: `--to 0x10,0x20` was read as
/// hexadecimal; issue 25: `/coordinates?x=0x10` too).
@Suite("decimal numbers")
struct DecimalNumberTests {
    @Test("decimal notation is read", arguments: [
        ("12", 12.0), ("-77.4011", -77.4011), ("+3.", 3.0), (".5", 0.5), ("1e3", 1000.0), ("2.5E-2", 0.025), ("11790500", 11_790_500.0),
    ])
    func decimal(text: String, value: Double) {
        #expect(decimalNumber(text) == value)
    }

    @Test("hexadecimal and other forms are not numbers", arguments: ["0x10", "0X1p4", "1_000", "", "-", ".", "e5", "1e", "1e+", "1.2.3", "12a", "--1", " 1"])
    func refused(text: String) {
        #expect(decimalNumber(text) == nil)
    }

    @Test("nan and infinity are read, so that callers can say they are not finite")
    func nonFinite() {
        #expect(decimalNumber("nan")?.isNaN == true)
        #expect(decimalNumber("-Inf") == -.infinity)
        #expect(decimalNumber("infinity") == .infinity)
    }
}
