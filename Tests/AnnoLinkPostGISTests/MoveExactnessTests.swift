import AnnoLinkPostGIS
import Testing

@Suite("MoveExactness: a range-wide promise that moving back restores every coordinate")
struct MoveExactnessTests {
    /// Whether (x + d) − d gives x back bit for bit, the way a row-by-row test would see it.
    static func restored(_ x: Double, _ d: Double) -> Bool { ((x + d) - d).bitPattern == x.bitPattern }

    @Test("a promised range holds for every coordinate tried in it, ends included")
    func promisesHold() {
        var generator = SystemRandomNumberGenerator()
        let cases: [(ClosedRange<Double>, Double)] = [
            (11_780_000...11_800_000.75, 10), (11_780_000...11_800_000, -20), (7_050_000.1...7_060_000.3, 20),
            (-8_500_000...(-8_400_000), 12.5), (0.5...0.7, 0.25), (2_500_000...2_600_000, 0.5),
        ]
        for (range, d) in cases {
            #expect(MoveExactness.restores(range, by: d), "\(range) by \(d)")
            var xs = [range.lowerBound, range.upperBound, range.lowerBound.nextUp, range.upperBound.nextDown]
            for _ in 0..<20_000 { xs.append(Double.random(in: range, using: &generator)) }
            for x in xs { #expect(Self.restored(x, d), "\(x) by \(d)") }
        }
    }

    @Test("no promise where some coordinate would not come back, or across binades and zero")
    func refusals() {
        // 0.1 + 10 − 10 is not 0.1: a range reaching down there gets no promise.
        #expect(!Self.restored(0.1, 10))
        #expect(!MoveExactness.restores(0.1...11_800_000, by: 10))
        // A shift finer than the coordinates' spacing: 11,789,000.3 + 10.1 rounds.
        #expect(!MoveExactness.restores(11_780_000...11_800_000, by: 10.1))
        #expect(!MoveExactness.restores(11_780_000...11_800_000, by: 0.3))
        // Crossing 2^24 (16,777,216) and crossing zero.
        #expect(!MoveExactness.restores(16_000_000...17_000_000, by: 10))
        #expect(!MoveExactness.restores(-5...5, by: 1))
        // A shift that carries the largest coordinate out of its binade.
        #expect(!MoveExactness.restores(16_777_000...16_777_215, by: 1000))
        #expect(!MoveExactness.restores(1...1.5, by: .nan))
        #expect(!MoveExactness.restores(1...Double.infinity, by: 1))
        #expect(MoveExactness.restores(nil, by: 0.1))
    }
}
