import AnnoLinkAnnotation
import AnnoLinkGeometry
import AnnoLinkTestSupport
import Foundation
import Testing

/// `LabelOutline`: the convex hull of a footprint and the separating-axis test with clearance,
/// against known cases and a brute-force polygon distance.
struct LabelOutlineTests {
    private func box(_ x: Double, _ y: Double, _ w: Double, _ h: Double, angle: Double = 0) -> LabelOutline {
        LabelOutline(PlacementFixtures.box(centre: Point(x: x, y: y), width: w, height: h, angle: angle))
    }

    @Test("axis-aligned boxes: overlapping, touching, a gap below and above the clearance")
    func axisAligned() {
        let a = box(0, 0, 10, 2)
        #expect(a.intersects(box(5, 1, 10, 2), clearance: 0))
        #expect(a.intersects(box(10, 0, 10, 2), clearance: 0), "touching edges count as a conflict")
        #expect(!a.intersects(box(11, 0, 10, 2), clearance: 0))
        #expect(!a.intersects(box(11, 0, 10, 2), clearance: 0.99))
        #expect(a.intersects(box(11, 0, 10, 2), clearance: 1.01))
        #expect(a.intersects(box(0, 2.5, 10, 2), clearance: 0.6))
        #expect(!a.intersects(box(0, 2.5, 10, 2), clearance: 0.4))
    }

    @Test("rotated boxes whose envelopes overlap but which are apart")
    func rotated() {
        // Two 45° bars side by side: their envelopes overlap widely, the bars are 1 apart.
        let d = 1 / 2.squareRoot()
        let a = box(0, 0, 20, 2, angle: 45)
        let b = box(-3 * d, 3 * d, 20, 2, angle: 45)
        #expect(a.envelope.intersects(b.envelope))
        #expect(!a.intersects(b, clearance: 0))
        #expect(!a.intersects(b, clearance: 0.95))
        #expect(a.intersects(b, clearance: 1.05))
        #expect(a.intersects(box(-2 * d, 2 * d, 20, 2, angle: 45), clearance: 0), "1 closer: touching")
        #expect(a.intersects(box(-1.5 * d, 1.5 * d, 20, 2, angle: 45), clearance: 0), "1.5 closer: overlapping")
        // A box turned across the other one's end.
        #expect(a.intersects(box(7, 7, 6, 2, angle: -45), clearance: 0))
    }

    @Test("the outline of a polygon is the convex hull of its exterior, counter-clockwise")
    func hull() {
        let notch = Polygon(exterior: LineString([
            Point(x: 0, y: 0), Point(x: 4, y: 0), Point(x: 4, y: 4), Point(x: 2, y: 1), Point(x: 0, y: 4), Point(x: 0, y: 0),
        ]))
        let outline = LabelOutline(notch)
        #expect(outline.vertices == [Point(x: 0, y: 0), Point(x: 4, y: 0), Point(x: 4, y: 4), Point(x: 0, y: 4)])
        #expect(outline.envelope == Envelope(minX: 0, minY: 0, maxX: 4, maxY: 4))
        // The notch's hull covers (2, 3), which the polygon itself does not.
        #expect(outline.intersects(LabelOutline(hullOf: [Point(x: 2, y: 3)]), clearance: 0))
        let clockwise = LabelOutline(Polygon(exterior: LineString([
            Point(x: 0, y: 0), Point(x: 0, y: 1), Point(x: 1, y: 1), Point(x: 1, y: 0), Point(x: 0, y: 0),
        ])))
        #expect(clockwise.vertices == [Point(x: 0, y: 0), Point(x: 1, y: 0), Point(x: 1, y: 1), Point(x: 0, y: 1)])
    }

    @Test("an empty outline conflicts with nothing; a segment (empty text) is tested as one")
    func degenerate() {
        let empty = LabelOutline(Polygon(rings: []))
        #expect(empty.vertices.isEmpty)
        #expect(!empty.intersects(box(0, 0, 1, 1), clearance: 10))
        let segment = LabelOutline(hullOf: [Point(x: 0, y: 0), Point(x: 0, y: 0), Point(x: 10, y: 10)])
        #expect(segment.vertices.count == 2)
        #expect(segment.intersects(box(5, 5, 1, 1), clearance: 0))
        #expect(!segment.intersects(box(9, 1, 1, 1), clearance: 0))
        #expect(!segment.intersects(box(12, 12, 1, 1), clearance: 1), "beyond the segment's end, along its direction")
    }

    @Test("random rotated boxes agree with the brute-force distance: exact at clearance 0, never lax above it")
    func bruteForce() {
        var random = SplitMix64(seed: 7)
        var apartCount = 0, conflictCount = 0
        for _ in 0..<4000 {
            let a = PlacementFixtures.box(centre: Point(x: 0, y: 0), width: .random(in: 0.5...20, using: &random),
                                          height: .random(in: 0.5...5, using: &random), angle: .random(in: 0..<360, using: &random))
            let b = PlacementFixtures.box(centre: Point(x: .random(in: -15...15, using: &random), y: .random(in: -15...15, using: &random)),
                                          width: .random(in: 0.5...20, using: &random), height: .random(in: 0.5...5, using: &random),
                                          angle: .random(in: 0..<360, using: &random))
            let distance = PlacementFixtures.distance(a, b)
            let oa = LabelOutline(a), ob = LabelOutline(b)
            let clearance = Double.random(in: 0...2, using: &random)
            // Tolerances keep float noise at the boundary out of the verdict.
            if distance > 1e-9 { #expect(!oa.intersects(ob, clearance: 0)) }
            if distance < 1e-12 { #expect(oa.intersects(ob, clearance: 0)) }
            if distance < clearance - 1e-9 { #expect(oa.intersects(ob, clearance: clearance), "gap \(distance) < \(clearance)") }
            if !oa.intersects(ob, clearance: clearance) {
                #expect(distance >= clearance - 1e-9)
                apartCount += 1
            } else {
                conflictCount += 1
            }
            #expect(oa.intersects(ob, clearance: clearance) == ob.intersects(oa, clearance: clearance))
        }
        #expect(apartCount > 500 && conflictCount > 500, "both verdicts occur: \(apartCount) apart, \(conflictCount) in conflict")
    }
}
