import AnnoLinkAnnotation
import AnnoLinkGeometry
import Foundation

enum PlacementFixtures {
    /// Loudoun's text at 1:1200: one point of text in US survey feet.
    static let feetPerPoint = PlacementRules.mapUnitsPerPoint(referenceScale: 1200, metresPerUnit: 1200.0 / 3937)

    /// A Tahoma-like 10 pt extent of `width` points of advance: ink inset 0.2 pt each side,
    /// ascent 10.005, descent 2.065 (Tahoma's 2049 and 423 units of 2048 per em).
    static func extent(width: Double = 40) -> TextExtent {
        TextExtent(advanceWidth: width, inkStart: 0.2, inkEnd: width - 0.2, ascent: 2049.0 / 2048 * 10, descent: 423.0 / 2048 * 10)
    }

    /// A box of `width` × `height` centred at `centre`, turned by `angle` degrees, as a
    /// counter-clockwise closed ring.
    static func box(centre: Point, width: Double, height: Double, angle: Double) -> Polygon {
        let r = angle * .pi / 180, c = cos(r), s = sin(r)
        let corners = [(-width / 2, -height / 2), (width / 2, -height / 2), (width / 2, height / 2), (-width / 2, height / 2)].map { u, v in
            Point(x: centre.x + u * c - v * s, y: centre.y + u * s + v * c)
        }
        return Polygon(exterior: LineString(corners + [corners[0]]))
    }

    /// The distance from `p` to a convex counter-clockwise polygon (0 inside or on it).
    static func distance(_ p: Point, _ polygon: Polygon) -> Double {
        let ring = Array(polygon.exterior!.points.dropLast())
        var inside = true, best = Double.infinity
        for i in ring.indices {
            let s = ring[i], e = ring[(i + 1) % ring.count]
            if (e.x - s.x) * (p.y - s.y) - (e.y - s.y) * (p.x - s.x) < 0 { inside = false }
            let dx = e.x - s.x, dy = e.y - s.y
            let t = max(0, min(1, ((p.x - s.x) * dx + (p.y - s.y) * dy) / (dx * dx + dy * dy)))
            best = min(best, p.distance(to: Point(x: s.x + t * dx, y: s.y + t * dy)))
        }
        return inside ? 0 : best
    }

    /// The exact distance between two convex polygons (0 when they touch or overlap), by brute
    /// force: containment, crossing edges, then the nearest vertex–edge pair.
    static func distance(_ a: Polygon, _ b: Polygon) -> Double {
        let pa = Array(a.exterior!.points.dropLast()), pb = Array(b.exterior!.points.dropLast())
        func inside(_ p: Point, _ ring: [Point]) -> Bool {
            // Convex and counter-clockwise: left of (or on) every edge.
            for i in ring.indices {
                let s = ring[i], e = ring[(i + 1) % ring.count]
                if (e.x - s.x) * (p.y - s.y) - (e.y - s.y) * (p.x - s.x) < 0 { return false }
            }
            return true
        }
        if pa.contains(where: { inside($0, pb) }) || pb.contains(where: { inside($0, pa) }) { return 0 }
        func segmentDistance(_ p: Point, _ s: Point, _ e: Point) -> Double {
            let dx = e.x - s.x, dy = e.y - s.y
            guard dx * dx + dy * dy > 0 else { return p.distance(to: s) }
            let t = max(0, min(1, ((p.x - s.x) * dx + (p.y - s.y) * dy) / (dx * dx + dy * dy)))
            return p.distance(to: Point(x: s.x + t * dx, y: s.y + t * dy))
        }
        func crosses(_ a0: Point, _ a1: Point, _ b0: Point, _ b1: Point) -> Bool {
            func side(_ p: Point, _ q: Point, _ r: Point) -> Double { (q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x) }
            return side(a0, a1, b0) * side(a0, a1, b1) < 0 && side(b0, b1, a0) * side(b0, b1, a1) < 0
        }
        var best = Double.infinity
        for i in pa.indices {
            for j in pb.indices {
                let a0 = pa[i], a1 = pa[(i + 1) % pa.count], b0 = pb[j], b1 = pb[(j + 1) % pb.count]
                if crosses(a0, a1, b0, b1) { return 0 }
                best = min(best, segmentDistance(a0, b0, b1), segmentDistance(a1, b0, b1), segmentDistance(b0, a0, a1), segmentDistance(b1, a0, a1))
            }
        }
        return best
    }

    /// Point labels of `width` points at `points`, Loudoun's alignments (centre, baseline) and
    /// offset (3.35 pt), in US survey feet.
    static func pointLabels(_ points: [Point], width: Double = 40, preferences: PlacementPreferences = PlacementPreferences()) -> [[LabelCandidate]] {
        points.map {
            PlacementCandidates.point($0, extent: extent(width: width), horizontalAlignment: 1, verticalAlignment: 2,
                                      offset: 3.35, mapUnitsPerPoint: feetPerPoint, preferences: preferences)
        }
    }

    /// The pairs of placed labels whose chosen footprints conflict, by brute force over all pairs.
    static func conflicts(_ problem: LabelProblem, _ solution: LabelSolution) -> [(Int, Int)] {
        let placed = problem.labels.indices.filter { solution.placed[$0] }
        var result: [(Int, Int)] = []
        for (n, i) in placed.enumerated() {
            let a = problem.labels[i][solution.chosen[i]].outline
            for j in placed[(n + 1)...] where a.intersects(problem.labels[j][solution.chosen[j]].outline, clearance: problem.clearance) {
                result.append((i, j))
            }
            for o in problem.obstacles where a.intersects(o, clearance: problem.clearance) { result.append((i, -1)) }
        }
        return result
    }
}

extension PlacementFixtures {
    /// The same check as `conflicts`, for large problems: every placed footprint against those
    /// a `LabelIndex` finds near it (each pair tested exactly, by the separating-axis test).
    static func conflictsViaIndex(_ problem: LabelProblem, _ solution: LabelSolution) -> Int {
        let outlines = problem.labels.indices.map { problem.labels[$0][solution.chosen[$0]].outline }
        var index = LabelIndex(cellSize: LabelIndex.suggestedCellSize(for: outlines.map(\.envelope)))
        for i in outlines.indices where solution.placed[i] { index.insert(i, envelope: outlines[i].envelope) }
        let c = problem.clearance
        var count = 0
        for i in outlines.indices where solution.placed[i] {
            let e = outlines[i].envelope
            index.query(Envelope(minX: e.minX - c, minY: e.minY - c, maxX: e.maxX + c, maxY: e.maxY + c)) { j in
                if j > i && outlines[i].intersects(outlines[j], clearance: c) { count += 1 }
            }
            for o in problem.obstacles where outlines[i].intersects(o, clearance: c) { count += 1 }
        }
        return count
    }
}
