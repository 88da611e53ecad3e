import Foundation
import Testing
@testable import AnnoLinkCLI

/// `fixedDecimal` must write what `String(format: "%.Nf")` (glibc's printf) writes, digit for
/// digit: printf is the oracle, on the cases where rounding is hard and on many others.
@Suite("Fixed decimals")
struct FixedDecimalTests {
    static func printf(_ value: Double, _ places: Int) -> String { String(format: "%.\(places)f", value) }

    @Test("ties, near-ties, signs and zeros as printf writes them")
    func hardCases() {
        let values: [Double] = [
            0, -0.0, 0.125, 0.375, -0.125, 2.675, 1.005, 1.015, 1.025, 0.045, 1_234_567.125, -1_234_567.125,
            0.005, 0.015, 0.0049999999999999999, 99.995, 999_999.995, 2.5, 3.5, -2.5, 0.5, 1e-9, -1e-9, 4503599627370.495,
            -45_765.004999999, 1_160_812.6050000001, 12_345.6789, 1e15, -1e15, 1e300, .infinity, -.infinity, .nan,
        ]
        for value in values {
            for places in 0...6 {
                #expect(fixedDecimal(value, places: places) == Self.printf(value, places), "\(value) with \(places) places")
            }
        }
    }

    @Test("200,000 values of every size")
    func random() {
        var generator = SystemRandomNumberGenerator()
        var mismatches: [String] = []
        for i in 0..<200_000 {
            let magnitude = Double.random(in: -3...9, using: &generator)
            var value = Double.random(in: 0.5...1, using: &generator) * pow(10, magnitude.rounded(.down))
            if i % 3 == 0 { value = (value * 1000).rounded() / 1000 }  // many that look like ties in decimal
            if i % 2 == 1 { value = -value }
            let places = i % 7
            if fixedDecimal(value, places: places) != Self.printf(value, places), mismatches.count < 10 {
                mismatches.append("\(value) with \(places) places: \(fixedDecimal(value, places: places)) against \(Self.printf(value, places))")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
    }
}
