import AnnoLinkChecks
import AnnoLinkGeometry
import Testing

@Suite("footprint and angle comparison")
struct FootprintComparisonTests {
    func rectangle(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> Polygon {
        Polygon(exterior: LineString([Point(x: x0, y: y0), Point(x: x1, y: y0), Point(x: x1, y: y1), Point(x: x0, y: y1), Point(x: x0, y: y0)]))
    }

    @Test("the same ring is 0 apart whatever its start vertex and orientation")
    func sameRing() {
        let a = rectangle(0, 0, 10, 2)
        let shifted = Polygon(exterior: LineString([Point(x: 10, y: 2), Point(x: 0, y: 2), Point(x: 0, y: 0), Point(x: 10, y: 0), Point(x: 10, y: 2)]))
        #expect(FootprintComparison.distance(a, a) == 0)
        #expect(FootprintComparison.distance(a, shifted) == 0)
    }

    @Test("a moved or wider box is as far off as its farthest corner")
    func offsets() {
        let a = rectangle(0, 0, 10, 2)
        #expect(abs(FootprintComparison.distance(a, rectangle(3, 4, 13, 6)) - 5) < 1e-12)
        #expect(abs(FootprintComparison.distance(a, rectangle(-1, 0, 11, 2)) - 1) < 1e-12)
        #expect(FootprintComparison.distance(a, Polygon(rings: [])) == .infinity)
    }

    /// The early exit must decide as the whole distance does, at the tolerance itself too.
    @Test("isWithin answers as the whole distance compared with the tolerance")
    func earlyExitAgrees() {
        var generator = SystemRandomNumberGenerator()
        let a = rectangle(0, 0, 10, 2)
        #expect(FootprintComparison.isWithin(a, a, tolerance: 0))
        #expect(!FootprintComparison.isWithin(a, Polygon(rings: []), tolerance: 1e9))
        #expect(FootprintComparison.isWithin(a, rectangle(-1, 0, 11, 2), tolerance: 1))
        #expect(!FootprintComparison.isWithin(a, rectangle(-1, 0, 11, 2), tolerance: 0.999))
        for _ in 0..<20_000 {
            let x = Double.random(in: -5...5, using: &generator), y = Double.random(in: -5...5, using: &generator)
            let b = rectangle(x, y, x + Double.random(in: 1...20, using: &generator), y + Double.random(in: 1...4, using: &generator))
            let unit = Double.random(in: 0.01...10, using: &generator)
            let distance = FootprintComparison.distance(a, b)
            for tolerance in [distance / unit, distance / unit * 0.999, distance / unit * 1.001, Double.random(in: 0...10, using: &generator)] {
                #expect(FootprintComparison.isWithin(a, b, tolerance: tolerance, unit: unit) == (distance / unit <= tolerance))
            }
        }
    }

    @Test("angle differences go the short way round", arguments: [(359.0, 1.0, 2.0), (0, 180, 180), (90, 45, 45), (10, 370, 0), (271, 89, 178)])
    func angles(a: Double, b: Double, expected: Double) {
        #expect(abs(FootprintComparison.angleDifference(a, b) - expected) < 1e-12)
    }
}
