import AnnoLinkGeometry
import Foundation

/// The placement rules of docs/placement.md ("Rules"), measured on ArcGIS's own output for the Loudoun data.
///
/// Distances in the rules are in points of text at the reference scale; `mapUnitsPerPoint`
/// converts them into the CRS's unit.
public enum PlacementRules {
    /// Map units per point of text at scale 1:`referenceScale`: `S × 0.0254 / 72` metres,
    /// divided by the CRS unit's size in metres (1200/3937 for the US survey foot).
    public static func mapUnitsPerPoint(referenceScale: Double, metresPerUnit: Double) -> Double {
        referenceScale * 0.0254 / 72 / metresPerUnit
    }

    /// Point features: horizontal text centred on the point's x, its baseline `offset` points
    /// above the point.
    public static func place(point: Point, offset: Double, mapUnitsPerPoint: Double) -> Placement {
        Placement(anchor: Point(x: point.x, y: point.y + offset * mapUnitsPerPoint), angle: 0)
    }

    /// Line features: text parallel to the line, the anchor at the point halfway along the
    /// line's length moved `offset` points to the text's upper side; the angle is the line's
    /// direction there, turned by 180° when needed so that the text reads upright (stored
    /// angles lie in [0, 90] ∪ (270, 360)).
    ///
    /// - Throws: `PlacementError.zeroLengthLine` or `.emptyGeometry`.
    public static func place(line: LineString, offset: Double, mapUnitsPerPoint: Double) throws(PlacementError) -> Placement {
        let points = line.points
        guard points.count >= 2 else { throw .emptyGeometry }
        let total = line.length
        guard total > 0 else { throw .zeroLengthLine }
        var remaining = total / 2
        var middle = points[0], direction = (dx: 0.0, dy: 0.0)
        for i in 1..<points.count {
            let a = points[i - 1], b = points[i]
            let length = a.distance(to: b)
            guard length > 0 else { continue }
            direction = ((b.x - a.x) / length, (b.y - a.y) / length)
            if remaining <= length || i == points.count - 1 {
                let t = min(remaining, length)
                middle = Point(x: a.x + direction.dx * t, y: a.y + direction.dy * t)
                break
            }
            remaining -= length
        }
        var angle = atan2(direction.dy, direction.dx) * 180 / .pi
        var reading = direction
        if angle > 90 || angle <= -90 {
            angle += 180
            reading = (-direction.dx, -direction.dy)
        }
        // The text's upper side is to the left of its reading direction.
        let shift = offset * mapUnitsPerPoint
        let anchor = Point(x: middle.x - reading.dy * shift, y: middle.y + reading.dx * shift)
        return Placement(anchor: anchor, angle: normalizedAngle(angle))
    }

    /// Places a label for `geometry` in `style`: points (a multipoint's first point) with point
    /// placement, lines (a multiline's longest part) with line placement.
    public static func place(_ geometry: Geometry, style: PlacementStyleKind, offset: Double, mapUnitsPerPoint: Double) throws(PlacementError) -> Placement {
        switch (style, geometry) {
        case (.point, .point(let p)):
            guard !p.isEmpty else { throw .emptyGeometry }
            return place(point: p, offset: offset, mapUnitsPerPoint: mapUnitsPerPoint)
        case (.point, .multiPoint(let m)):
            guard let p = m.points.first(where: { !$0.isEmpty }) else { throw .emptyGeometry }
            return place(point: p, offset: offset, mapUnitsPerPoint: mapUnitsPerPoint)
        case (.line, .lineString(let l)):
            return try place(line: l, offset: offset, mapUnitsPerPoint: mapUnitsPerPoint)
        case (.line, .multiLineString(let m)):
            guard let longest = m.lines.max(by: { $0.length < $1.length }) else { throw .emptyGeometry }
            return try place(line: longest, offset: offset, mapUnitsPerPoint: mapUnitsPerPoint)
        default:
            throw .wrongGeometryKind(expected: style.rawValue, got: geometry.kind.rawValue.lowercased())
        }
    }

    /// `angle` degrees brought into [0, 360).
    public static func normalizedAngle(_ angle: Double) -> Double {
        let a = angle.truncatingRemainder(dividingBy: 360)
        return a < 0 ? a + 360 : (a == 360 ? 0 : a)
    }

    /// The footprint's box in the text's own frame, in points from the anchor: `u` along the
    /// reading direction, `v` across it (up). The alignments and offsets mean what they mean for
    /// `footprint(_:extent:horizontalAlignment:verticalAlignment:xOffset:yOffset:mapUnitsPerPoint:)`.
    public static func footprintBox(
        extent: TextExtent, horizontalAlignment: Int, verticalAlignment: Int, xOffset: Double = 0, yOffset: Double = 0
    ) -> (u0: Double, u1: Double, v0: Double, v1: Double) {
        let start: Double
        switch horizontalAlignment {
        case 0: start = 0
        case 2: start = -extent.advanceWidth
        default: start = -extent.advanceWidth / 2
        }
        let height = extent.ascent + extent.descent
        let bottom: Double
        switch verticalAlignment {
        case 0: bottom = -height
        case 1: bottom = -height / 2
        case 3: bottom = 0
        default: bottom = -extent.descent
        }
        return (start + extent.inkStart + xOffset, start + extent.inkEnd + xOffset, bottom + yOffset, bottom + height + yOffset)
    }

    /// The footprint: the box around the text's ink, from the font's descent to its ascent,
    /// rotated by the placement's angle around the anchor. The horizontal alignment (0 left,
    /// 1 center, 2 right, 3 full = center) says where the anchor sits along the text's advance
    /// box, the vertical one (0 top, 1 center, 2 baseline, 3 bottom) across it; `xOffset` and
    /// `yOffset` (points, along and across the text) move the text off its anchor.
    ///
    /// The ring is counter-clockwise and closed. An empty text gives a box of zero width.
    public static func footprint(
        _ placement: Placement, extent: TextExtent, horizontalAlignment: Int, verticalAlignment: Int,
        xOffset: Double = 0, yOffset: Double = 0, mapUnitsPerPoint: Double
    ) -> Polygon {
        let (u0, u1, v0, v1) = footprintBox(
            extent: extent, horizontalAlignment: horizontalAlignment, verticalAlignment: verticalAlignment,
            xOffset: xOffset, yOffset: yOffset)
        let radians = placement.angle * .pi / 180
        let c = cos(radians) * mapUnitsPerPoint, s = sin(radians) * mapUnitsPerPoint
        func map(_ u: Double, _ v: Double) -> Point {
            Point(x: placement.anchor.x + u * c - v * s, y: placement.anchor.y + u * s + v * c)
        }
        let first = map(u0, v0)
        return Polygon(exterior: LineString([first, map(u1, v0), map(u1, v1), map(u0, v1), first]))
    }
}
