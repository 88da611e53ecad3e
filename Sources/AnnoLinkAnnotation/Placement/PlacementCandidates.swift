import AnnoLinkGeometry
import Foundation

/// The positions a label may take when the rule's position is taken: candidate 0 is always the
/// rule's (`PlacementRules.place`, cost 0), the others cost more the further they stray.
///
/// Anchors are expressed for the row's alignments and offsets: `PlacementRules.footprint` of a
/// candidate's placement with the same alignments and offsets is the candidate's footprint.
/// Distances are in points of text at the reference scale unless they say map units.
public enum PlacementCandidates {
    /// The zones around a point, in the order they are tried after the rule's position (above,
    /// centred): Maplex's default zone priorities (above right 1, above centre 2, centre right 3,
    /// above left 4, below right 5, centre left 6, below centre 7, below left 8), the labelling
    /// engine that made the Loudoun annotation. QGIS PAL's "cartographic" order (top right, top
    /// left, bottom right, bottom left, right, left, …) differs only in ranking the corners
    /// before the sides.
    public enum PointZone: Int, CaseIterable, Sendable {
        /// Up and to the right, the box's lower left corner diagonally off the point.
        case aboveRight = 1
        /// To the right, centred on the point's y.
        case centerRight
        /// Up and to the left.
        case aboveLeft
        /// Down and to the right.
        case belowRight
        /// To the left, centred on the point's y.
        case centerLeft
        /// Under the point: the rule's box mirrored.
        case belowCenter
        /// Down and to the left.
        case belowLeft
    }

    /// The cost of a point candidate in zone rank `r` (1 for above right … 7 for below left).
    public static func pointZoneCost(_ zone: PointZone) -> Double { Double(zone.rawValue) / 8 }

    /// Candidates for a point label: the rule's position (centred above the point, the text's
    /// baseline `offset` above it), then, when `preferences.aroundPoint`, the zones of
    /// `PointZone` in order, all horizontal.
    ///
    /// Every zone keeps the footprint as far from the point as the rule's footprint is (the
    /// gap below its box: for Loudoun's 3.35 pt offset and Tahoma's descent, 1.28 pt): a side
    /// zone's box starts that far right or left of the point, centred on its y; a corner zone's
    /// box has its nearest corner that far away diagonally; below centre is the rule's box
    /// mirrored under the point. When the rule's box covers the point, the gap is `offset`
    /// (1 pt when `offset` is not positive).
    public static func point(
        _ p: Point, extent: TextExtent, horizontalAlignment: Int, verticalAlignment: Int,
        xOffset: Double = 0, yOffset: Double = 0, offset: Double, mapUnitsPerPoint: Double,
        preferences: PlacementPreferences = PlacementPreferences()
    ) -> [LabelCandidate] {
        let box = PlacementRules.footprintBox(
            extent: extent, horizontalAlignment: horizontalAlignment, verticalAlignment: verticalAlignment,
            xOffset: xOffset, yOffset: yOffset)
        func candidate(_ placement: Placement, cost: Double) -> LabelCandidate {
            LabelCandidate(placement: placement, footprint: PlacementRules.footprint(
                placement, extent: extent, horizontalAlignment: horizontalAlignment, verticalAlignment: verticalAlignment,
                xOffset: xOffset, yOffset: yOffset, mapUnitsPerPoint: mapUnitsPerPoint), cost: cost)
        }
        let rule = PlacementRules.place(point: p, offset: offset, mapUnitsPerPoint: mapUnitsPerPoint)
        var result = [candidate(rule, cost: 0)]
        guard preferences.aroundPoint else { return result }

        // The rule's box relative to the point, in points.
        let ruleU0 = box.u0, ruleV0 = box.v0 + offset
        let width = box.u1 - box.u0, height = box.v1 - box.v0
        let gap = ruleV0 > 0 ? ruleV0 : (offset > 0 ? offset : 1)
        let diagonal = gap / 2.squareRoot()
        for zone in PointZone.allCases {
            // The zone's box's lower left corner relative to the point.
            let (u, v): (Double, Double)
            switch zone {
            case .aboveRight: (u, v) = (diagonal, diagonal)
            case .centerRight: (u, v) = (gap, -height / 2)
            case .aboveLeft: (u, v) = (-diagonal - width, diagonal)
            case .belowRight: (u, v) = (diagonal, -diagonal - height)
            case .centerLeft: (u, v) = (-gap - width, -height / 2)
            case .belowCenter: (u, v) = (ruleU0, -gap - height)
            case .belowLeft: (u, v) = (-diagonal - width, -diagonal - height)
            }
            if abs(u - ruleU0) < 1e-9 && abs(v - ruleV0) < 1e-9 { continue }
            let anchor = Point(x: p.x + (u - box.u0) * mapUnitsPerPoint, y: p.y + (v - box.v0) * mapUnitsPerPoint)
            result.append(candidate(Placement(anchor: anchor, angle: 0), cost: pointZoneCost(zone)))
        }
        return result
    }

    /// Candidates for a line label: the rule's position (parallel at the middle of the line,
    /// `offset` to the text's upper side, upright), then positions slid along the line from the
    /// middle both ways in `preferences.slideSteps` steps up to `preferences.slideTolerance`
    /// (kept on the line), upper side first, then, when `preferences.otherSide`, the same
    /// positions with the footprint mirrored to the line's other side.
    ///
    /// The text is straight and parallel to the chord of the stretch of line it covers (a window
    /// as long as the text, centred on the position): on a densified arc the chord, not the
    /// short segment under the middle, gives the angle. Where the stretch bends, the text is
    /// moved away from the line so that its footprint keeps the rule's gap from every vertex of
    /// the stretch. Angles read upright: [0, 90] ∪ (270, 360).
    ///
    /// Cost: 0.05 for leaving the rule, + 0.5 × slide / tolerance, + 0.5 × the stretch's bend
    /// (its vertices' spread across the chord, in text heights, at most 1), + 0.6 on the other
    /// side. A candidate equal to the rule's is left out.
    ///
    /// - Throws: what `PlacementRules.place(line:offset:mapUnitsPerPoint:)` throws.
    public static func line(
        _ line: LineString, extent: TextExtent, horizontalAlignment: Int, verticalAlignment: Int,
        xOffset: Double = 0, yOffset: Double = 0, offset: Double, mapUnitsPerPoint: Double,
        preferences: PlacementPreferences = PlacementPreferences()
    ) throws(PlacementError) -> [LabelCandidate] {
        let m = mapUnitsPerPoint
        func candidate(_ placement: Placement, cost: Double) -> LabelCandidate {
            LabelCandidate(placement: placement, footprint: PlacementRules.footprint(
                placement, extent: extent, horizontalAlignment: horizontalAlignment, verticalAlignment: verticalAlignment,
                xOffset: xOffset, yOffset: yOffset, mapUnitsPerPoint: m), cost: cost)
        }
        let rule = try PlacementRules.place(line: line, offset: offset, mapUnitsPerPoint: m)
        var result = [candidate(rule, cost: 0)]

        let measured = MeasuredLine(line)
        let box = PlacementRules.footprintBox(
            extent: extent, horizontalAlignment: horizontalAlignment, verticalAlignment: verticalAlignment,
            xOffset: xOffset, yOffset: yOffset)
        let textLength = max((box.u1 - box.u0) * m, 0)
        let textHeight = max((box.v1 - box.v0) * m, .ulpOfOne)
        // The anchor's distance across the line on either side (map units, along the upper
        // normal): the rule's above, and below the box mirrored so that its top keeps the gap
        // the rule's bottom keeps.
        let upper = offset * m
        let lower = (-(offset + box.v1) - box.v0) * m

        let tolerance = preferences.slideTolerance * m
        let steps = tolerance > 0 ? preferences.slideSteps : 0
        var slides: [Double] = [0]
        if steps > 0 {
            for k in 1...steps {
                for sign in [1.0, -1.0] { slides.append(sign * Double(k) * tolerance / Double(steps)) }
            }
        }
        let middle = measured.total / 2
        let sides: [Bool] = preferences.otherSide ? [false, true] : [false]
        for isLower in sides {
            for slide in slides where abs(slide) <= middle {
                let stretch = measured.stretch(at: middle + slide, length: textLength)
                let shift = isLower ? stretch.below + lower : stretch.above + upper
                let anchor = Point(x: stretch.point.x + stretch.normal.x * shift, y: stretch.point.y + stretch.normal.y * shift)
                let placement = Placement(anchor: anchor, angle: stretch.angle)
                if !isLower && abs(anchor.x - rule.anchor.x) <= 1e-9 * max(1, abs(rule.anchor.x))
                    && abs(anchor.y - rule.anchor.y) <= 1e-9 * max(1, abs(rule.anchor.y)) && abs(stretch.angle - rule.angle) < 1e-9 {
                    continue
                }
                let bend = min(1, stretch.spread / textHeight)
                let cost = 0.05 + (tolerance > 0 ? 0.5 * abs(slide) / tolerance : 0) + 0.5 * bend + (isLower ? 0.6 : 0)
                result.append(candidate(placement, cost: cost))
            }
        }
        return result
    }

    /// Candidates for `geometry` in `style`, taking the same part `PlacementRules.place` takes:
    /// a multipoint's first point, a multiline's longest part.
    ///
    /// - Throws: what `PlacementRules.place(_:style:offset:mapUnitsPerPoint:)` throws.
    public static func candidates(
        for geometry: Geometry, style: PlacementStyleKind, extent: TextExtent, horizontalAlignment: Int, verticalAlignment: Int,
        xOffset: Double = 0, yOffset: Double = 0, offset: Double, mapUnitsPerPoint: Double,
        preferences: PlacementPreferences = PlacementPreferences()
    ) throws(PlacementError) -> [LabelCandidate] {
        switch (style, geometry) {
        case (.point, .point(let p)):
            guard !p.isEmpty else { throw .emptyGeometry }
            return point(p, extent: extent, horizontalAlignment: horizontalAlignment, verticalAlignment: verticalAlignment,
                         xOffset: xOffset, yOffset: yOffset, offset: offset, mapUnitsPerPoint: mapUnitsPerPoint, preferences: preferences)
        case (.point, .multiPoint(let multi)):
            guard let p = multi.points.first(where: { !$0.isEmpty }) else { throw .emptyGeometry }
            return point(p, extent: extent, horizontalAlignment: horizontalAlignment, verticalAlignment: verticalAlignment,
                         xOffset: xOffset, yOffset: yOffset, offset: offset, mapUnitsPerPoint: mapUnitsPerPoint, preferences: preferences)
        case (.line, .lineString(let l)):
            return try line(l, extent: extent, horizontalAlignment: horizontalAlignment, verticalAlignment: verticalAlignment,
                            xOffset: xOffset, yOffset: yOffset, offset: offset, mapUnitsPerPoint: mapUnitsPerPoint, preferences: preferences)
        case (.line, .multiLineString(let multi)):
            guard let longest = multi.lines.max(by: { $0.length < $1.length }) else { throw .emptyGeometry }
            return try line(longest, extent: extent, horizontalAlignment: horizontalAlignment, verticalAlignment: verticalAlignment,
                            xOffset: xOffset, yOffset: yOffset, offset: offset, mapUnitsPerPoint: mapUnitsPerPoint, preferences: preferences)
        default:
            throw .wrongGeometryKind(expected: style.rawValue, got: geometry.kind.rawValue.lowercased())
        }
    }
}

/// A line with its vertices' distances along it, for finding the stretch a text covers.
struct MeasuredLine {
    let points: [Point]
    /// `along[i]`: the length of the line from its start to `points[i]`.
    let along: [Double]
    var total: Double { along.last ?? 0 }

    init(_ line: LineString) {
        points = line.points
        var along: [Double] = [0]
        along.reserveCapacity(points.count)
        for i in points.indices.dropFirst() { along.append(along[i - 1] + points[i - 1].distance(to: points[i])) }
        self.along = along
    }

    /// The segment holding distance `s`: the index of its end vertex.
    private func segment(at s: Double) -> Int {
        // The first vertex at or beyond s (binary search), at least 1.
        var low = 1, high = points.count - 1
        while low < high {
            let mid = (low + high) / 2
            if along[mid] < s { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The point at distance `s` along the line (clamped to the line).
    func point(at s: Double) -> Point {
        let i = segment(at: s)
        let a = points[i - 1], b = points[i]
        let length = along[i] - along[i - 1]
        guard length > 0 else { return b }
        let t = min(max((s - along[i - 1]) / length, 0), 1)
        return Point(x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t)
    }

    /// The text's stretch of line around distance `s`: the point there, the upright reading
    /// direction's angle (degrees) and upper normal from the chord of the window
    /// [s − length/2, s + length/2] along the line (clipped to it), how far the line reaches past
    /// the point to either side of that direction under the text (`above` ≥ 0, `below` ≤ 0, map
    /// units along the normal), and its spread across the chord there. "Under the text" is the
    /// line from `s` both ways until it leaves the band of the text's length across the reading
    /// direction, with the points where it leaves.
    func stretch(at s: Double, length: Double) -> (point: Point, angle: Double, normal: Point, above: Double, below: Double, spread: Double) {
        let start = max(s - length / 2, 0), end = min(s + length / 2, total)
        let here = point(at: s), a = point(at: start), b = point(at: end)
        var dx = b.x - a.x, dy = b.y - a.y
        var chord = (dx * dx + dy * dy).squareRoot()
        let next = segment(at: s)
        if chord <= 0 {
            // A window too short (or a closed loop): the direction of the segment under s.
            dx = points[next].x - points[next - 1].x
            dy = points[next].y - points[next - 1].y
            chord = max((dx * dx + dy * dy).squareRoot(), .leastNormalMagnitude)
        }
        var angle = atan2(dy, dx) * 180 / .pi
        var reading = Point(x: dx / chord, y: dy / chord)
        if angle > 90 || angle <= -90 {
            angle += 180
            reading = Point(x: -reading.x, y: -reading.y)
        }
        let normal = Point(x: -reading.y, y: reading.x)
        var above = 0.0, below = 0.0
        func measure(_ p: Point) {
            let h = (p.x - here.x) * normal.x + (p.y - here.y) * normal.y
            above = max(above, h)
            below = min(below, h)
        }
        let half = length / 2
        func walk(_ indices: some Sequence<Int>) {
            var previous = here, previousAlong = 0.0
            for i in indices {
                let p = points[i]
                let along = (p.x - here.x) * reading.x + (p.y - here.y) * reading.y
                if abs(along) <= half {
                    measure(p)
                    previous = p
                    previousAlong = along
                    continue
                }
                let t = ((along > 0 ? half : -half) - previousAlong) / (along - previousAlong)
                measure(Point(x: previous.x + (p.x - previous.x) * t, y: previous.y + (p.y - previous.y) * t))
                return
            }
        }
        walk(next..<points.count)
        walk((0..<next).reversed())
        return (here, PlacementRules.normalizedAngle(angle), normal, above, below, above - below)
    }
}
