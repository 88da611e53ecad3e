import AnnoLinkAnnotation
import AnnoLinkGeometry
import Foundation
import Testing

/// `PlacementCandidates`: candidate 0 is the rule's placement, the others sit around the point
/// or slide along the line as documented, with footprints the rules would draw for them.
struct PlacementCandidatesTests {
    let fpp = PlacementFixtures.feetPerPoint
    let extent = PlacementFixtures.extent(width: 40)

    /// The distance from `p` to a convex polygon (0 inside).
    private func distance(_ p: Point, _ polygon: Polygon) -> Double {
        PlacementFixtures.distance(p, polygon)
    }

    @Test("point: candidate 0 is the rule's placement and footprint, exactly, at cost 0", arguments: [(1, 2), (0, 0), (2, 3), (1, 1)])
    func pointRule(alignments: (Int, Int)) {
        let p = Point(x: 11_845_123.25, y: 7_012_345.5)
        let candidates = PlacementCandidates.point(p, extent: extent, horizontalAlignment: alignments.0, verticalAlignment: alignments.1,
                                                   xOffset: 1, yOffset: -0.5, offset: 3.35, mapUnitsPerPoint: fpp)
        let rule = PlacementRules.place(point: p, offset: 3.35, mapUnitsPerPoint: fpp)
        #expect(candidates[0].placement == rule)
        #expect(candidates[0].cost == 0)
        #expect(candidates[0].footprint == PlacementRules.footprint(
            rule, extent: extent, horizontalAlignment: alignments.0, verticalAlignment: alignments.1, xOffset: 1, yOffset: -0.5, mapUnitsPerPoint: fpp))
        for c in candidates {
            #expect(c.footprint == PlacementRules.footprint(
                c.placement, extent: extent, horizontalAlignment: alignments.0, verticalAlignment: alignments.1,
                xOffset: 1, yOffset: -0.5, mapUnitsPerPoint: fpp), "the anchor is expressed for the row's alignments")
            #expect(c.outline == LabelOutline(c.footprint))
        }
    }

    @Test("point: the zones sit around the point in Maplex's order, as far from it as the rule's footprint, never covering it")
    func pointZones() throws {
        let p = Point(x: 1000, y: 2000)
        let candidates = PlacementCandidates.point(p, extent: extent, horizontalAlignment: 1, verticalAlignment: 2, offset: 3.35, mapUnitsPerPoint: fpp)
        #expect(candidates.count == 8)
        // The rule's gap: the baseline 3.35 pt up, the box's bottom one descent below it.
        let gap = (3.35 - 423.0 / 2048 * 10) * fpp
        #expect(abs(distance(p, candidates[0].footprint) - gap) < 1e-9)
        for c in candidates.dropFirst() {
            #expect(abs(distance(p, c.footprint) - gap) < 1e-6, "every zone keeps the rule's gap")
            #expect(c.placement.angle == 0)
        }
        #expect(candidates.map(\.cost) == candidates.map(\.cost).sorted())
        #expect(Set(candidates.map(\.cost)).count == 8, "costs rise strictly with rank")
        let e = candidates.map(\.outline.envelope)
        // Above right, centre right, above left, below right, centre left, below centre, below left.
        #expect(e[1].minX > p.x && e[1].minY > p.y)
        #expect(e[2].minX > p.x && e[2].minY < p.y && e[2].maxY > p.y && abs((e[2].minY + e[2].maxY) / 2 - p.y) < 1e-9)
        #expect(e[3].maxX < p.x && e[3].minY > p.y)
        #expect(e[4].minX > p.x && e[4].maxY < p.y)
        #expect(e[5].maxX < p.x && abs((e[5].minY + e[5].maxY) / 2 - p.y) < 1e-9)
        #expect(e[6].maxY < p.y && abs((e[6].minX + e[6].maxX) / 2 - p.x) < 0.3 * fpp)
        #expect(e[7].maxX < p.x && e[7].maxY < p.y)
        #expect(PlacementCandidates.point(p, extent: extent, horizontalAlignment: 1, verticalAlignment: 2, offset: 3.35, mapUnitsPerPoint: fpp,
                                          preferences: PlacementPreferences(aroundPoint: false)).count == 1)
    }

    private func reading(_ angle: Double) -> Point { Point(x: cos(angle * .pi / 180), y: sin(angle * .pi / 180)) }

    @Test("line: candidate 0 is the rule's; slides stay within the tolerance, on their side, upright; the other side mirrors them",
          arguments: [0.0, 30, 89, 90, 91, 150, 180, 200, 269, 271, 330])
    func straightLine(direction: Double) throws {
        let start = Point(x: 5000, y: 5000), length = 150.0
        let d = reading(direction)
        let end = Point(x: start.x + d.x * length, y: start.y + d.y * length)
        let line = LineString([start, end])
        let candidates = try PlacementCandidates.line(line, extent: extent, horizontalAlignment: 1, verticalAlignment: 2, offset: 1.5, mapUnitsPerPoint: fpp)
        let rule = try PlacementRules.place(line: line, offset: 1.5, mapUnitsPerPoint: fpp)
        #expect(candidates[0].placement == rule)
        #expect(candidates[0].footprint == PlacementRules.footprint(rule, extent: extent, horizontalAlignment: 1, verticalAlignment: 2, mapUnitsPerPoint: fpp))
        #expect(candidates[0].cost == 0)
        // The defaults: 3 steps each way up to 24 pt, both sides; the upper middle equals the rule.
        #expect(candidates.count == 1 + 6 + 7)
        let middle = Point(x: (start.x + end.x) / 2, y: (start.y + end.y) / 2)
        let tolerance = 24 * fpp
        var upperCosts: [Double] = [], lowerCosts: [Double] = []
        var costBySlide: [(slide: Double, cost: Double)] = []
        for c in candidates {
            let a = c.placement.angle
            #expect((0...90).contains(a) || (a > 270 && a < 360), "upright: \(a)")
            #expect(abs(sin((a - direction) * .pi / 180)) < 1e-9, "parallel to the line")
            let r = reading(a), n = Point(x: -r.y, y: r.x)
            let along = (c.placement.anchor.x - middle.x) * r.x + (c.placement.anchor.y - middle.y) * r.y
            let across = (c.placement.anchor.x - middle.x) * n.x + (c.placement.anchor.y - middle.y) * n.y
            #expect(abs(along) <= tolerance + 1e-9)
            if across > 0 {
                #expect(abs(across - 1.5 * fpp) < 1e-9, "upper side at the rule's offset")
                upperCosts.append(c.cost)
                costBySlide.append((abs(along), c.cost))
            } else {
                // The footprint mirrored: its top as far below the line as the rule's bottom is above.
                let ascent = 2049.0 / 2048 * 10, descent = 423.0 / 2048 * 10
                #expect(abs(across - (-(1.5 + ascent) + descent) * fpp) < 1e-9)
                lowerCosts.append(c.cost)
                // Its footprint is an upper candidate's mirrored across the line.
                let mirrored = c.footprint.exterior!.points.map { mirror($0, start, d) }
                #expect(candidates.contains { other in
                    mirrored.allSatisfy { m in other.footprint.exterior!.points.contains { $0.distance(to: m) < 1e-6 } }
                })
            }
            #expect(c.footprint == PlacementRules.footprint(c.placement, extent: extent, horizontalAlignment: 1, verticalAlignment: 2, mapUnitsPerPoint: fpp))
        }
        #expect(upperCosts.count == 7 && lowerCosts.count == 7)
        #expect(upperCosts.max()! < lowerCosts.min()!, "the other side costs more than any slide")
        let bySlide = costBySlide.sorted { $0.slide < $1.slide }
        #expect(zip(bySlide, bySlide.dropFirst()).allSatisfy { $0.slide + 1e-6 < $1.slide ? $0.cost < $1.cost : abs($0.cost - $1.cost) < 1e-9 },
                "cost rises with the slide")
    }

    @Test("line: on a densified zigzag the text follows the chord of its stretch, not the segment under the middle")
    func densifiedZigzag() throws {
        // 60 short segments east with a 1 ft zigzag: each segment is steep, the line runs east.
        let points = (0...60).map { i in Point(x: Double(i) * 2, y: i % 2 == 0 ? 0 : 1) }
        let line = LineString(points)
        let candidates = try PlacementCandidates.line(line, extent: extent, horizontalAlignment: 1, verticalAlignment: 2, offset: 1.5, mapUnitsPerPoint: fpp)
        let rule = try PlacementRules.place(line: line, offset: 1.5, mapUnitsPerPoint: fpp)
        #expect(candidates[0].placement == rule)
        #expect(abs(sin(rule.angle * .pi / 180)) > 0.4, "the rule takes the steep segment's angle (\(rule.angle))")
        // Every other candidate's window spans many segments, so its chord is within a couple of degrees of east.
        for c in candidates.dropFirst() {
            let a = c.placement.angle
            #expect(min(a, 360 - a) < 2.5, "chord angle \(a)")
            #expect(keepsRuleGap(c, points))
            #expect(c.cost > 0.05 + 0.5 * 0.04, "a bend costs: the zigzag spreads 1 ft across a 16.8 ft text")
        }
    }

    @Test("line: on a densified arc the angle is the chord of a text-long window, and the text clears the bend")
    func densifiedArc() throws {
        // A quarter circle of radius 300 ft in 200 segments, densified as Loudoun's parcel arcs are.
        let radius = 300.0
        let points = (0...200).map { i -> Point in
            let t = Double(i) / 200 * .pi / 2
            return Point(x: radius * cos(t), y: radius * sin(t))
        }
        let line = LineString(points)
        let candidates = try PlacementCandidates.line(line, extent: extent, horizontalAlignment: 1, verticalAlignment: 2, offset: 1.5, mapUnitsPerPoint: fpp)
        let total = line.length
        for c in candidates.dropFirst() {
            // The arc position under the anchor: the angle of the anchor seen from the centre.
            let phi = atan2(c.placement.anchor.y, c.placement.anchor.x)
            let s = phi * radius
            #expect(abs(s - total / 2) <= 24 * fpp + 0.5, "within the slide tolerance")
            // The chord from s − L/2 to s + L/2 is perpendicular to the radius at s.
            let expected = PlacementRules.normalizedAngle(phi * 180 / .pi + 90 + 180)
            #expect(abs(c.placement.angle - expected) < 0.05, "chord angle \(c.placement.angle) vs \(expected)")
            #expect(keepsRuleGap(c, points))
        }
        // Outside the arc (the upper side, reading westward-down) the text clears the bulge.
        let upper = candidates.dropFirst().filter { hypot($0.placement.anchor.x, $0.placement.anchor.y) > radius }
        #expect(!upper.isEmpty)
    }

    @Test("multilines take the longest part, as the rule does; errors are the rule's")
    func multiline() throws {
        let short = LineString([Point(x: 0, y: 0), Point(x: 10, y: 0)])
        let long = LineString([Point(x: 100, y: 100), Point(x: 100, y: 300)])
        let geometry = Geometry.multiLineString(MultiLineString([short, long]))
        let candidates = try PlacementCandidates.candidates(for: geometry, style: .line, extent: extent, horizontalAlignment: 1, verticalAlignment: 2,
                                                            offset: 1.5, mapUnitsPerPoint: fpp)
        #expect(candidates[0].placement == (try PlacementRules.place(geometry, style: .line, offset: 1.5, mapUnitsPerPoint: fpp)))
        #expect(candidates.allSatisfy { $0.placement.anchor.y > 150 })
        #expect(throws: PlacementError.zeroLengthLine) {
            try PlacementCandidates.line(LineString([Point(x: 1, y: 1), Point(x: 1, y: 1)]), extent: extent, horizontalAlignment: 1,
                                         verticalAlignment: 2, offset: 1.5, mapUnitsPerPoint: fpp)
        }
        #expect(throws: PlacementError.wrongGeometryKind(expected: "point", got: "linestring")) {
            try PlacementCandidates.candidates(for: .lineString(short), style: .point, extent: extent, horizontalAlignment: 1,
                                               verticalAlignment: 2, offset: 1.5, mapUnitsPerPoint: fpp)
        }
    }

    @Test("line preferences: no other side, no slides; a short line keeps its slides on the line")
    func linePreferences() throws {
        let line = LineString([Point(x: 0, y: 0), Point(x: 200, y: 0)])
        let above = try PlacementCandidates.line(line, extent: extent, horizontalAlignment: 1, verticalAlignment: 2, offset: 1.5,
                                                 mapUnitsPerPoint: fpp, preferences: PlacementPreferences(otherSide: false))
        #expect(above.count == 7)
        #expect(above.allSatisfy { $0.placement.anchor.y > 0 })
        let none = try PlacementCandidates.line(line, extent: extent, horizontalAlignment: 1, verticalAlignment: 2, offset: 1.5,
                                                mapUnitsPerPoint: fpp, preferences: PlacementPreferences(slideTolerance: 0, otherSide: false))
        #expect(none.count == 1)
        let short = LineString([Point(x: 0, y: 0), Point(x: 20, y: 0)])
        let onShort = try PlacementCandidates.line(short, extent: extent, horizontalAlignment: 1, verticalAlignment: 2, offset: 1.5, mapUnitsPerPoint: fpp)
        // Steps of 8 pt (11.1 ft) do not fit within 10 ft of the middle: only the middle, both sides.
        #expect(onShort.count == 2)
        #expect(onShort.allSatisfy { abs($0.placement.anchor.x - 10) < 1e-9 })
    }

    /// Whether no vertex of the line under the text comes closer to the text's side than the
    /// rule's straight line does: on the upper side no vertex above the anchor's baseline less
    /// the 1.5 pt offset, on the lower side none below the mirrored position.
    private func keepsRuleGap(_ c: LabelCandidate, _ points: [Point]) -> Bool {
        let r = reading(c.placement.angle), n = Point(x: -r.y, y: r.x), a = c.placement.anchor
        let half = (extent.inkEnd - extent.inkStart) / 2 * fpp
        let ascent = 2049.0 / 2048 * 10, descent = 423.0 / 2048 * 10
        let under = points.filter { abs(($0.x - a.x) * r.x + ($0.y - a.y) * r.y) <= half }
        let across = under.map { ($0.x - a.x) * n.x + ($0.y - a.y) * n.y }
        guard let nearest = across.min(by: { abs($0) < abs($1) }) else { return false }
        return nearest < 0
            ? across.allSatisfy { $0 <= -1.5 * fpp + 1e-9 }
            : across.allSatisfy { $0 >= (1.5 + ascent - descent) * fpp - 1e-9 }
    }

    private func mirror(_ p: Point, _ origin: Point, _ d: Point) -> Point {
        let along = (p.x - origin.x) * d.x + (p.y - origin.y) * d.y
        let foot = Point(x: origin.x + d.x * along, y: origin.y + d.y * along)
        return Point(x: 2 * foot.x - p.x, y: 2 * foot.y - p.y)
    }
}
