import AnnoLinkGeometry
import Foundation

/// Why an annotation is where it is, stored in the annotation table's `PlacedFrom` column
/// (docs/format.md, "Placement provenance").
///
/// A label is placed from its feature's geometry and its class's placement parameters; the
/// rules turn them into one *rule placement* (`PlacementRules.place`: above the point, at the
/// middle of the line). Conflict-aware placement, ArcGIS's label engine or a person may then put
/// the label elsewhere. The basis records the rule placement the label was placed from, as an
/// offset from the label's own anchor and a turn from its own angle, so that later one can tell
/// whether what it was placed from has changed (the rule placement moved: the feature's shape or
/// the class changed; or the label itself was moved behind annolink's back) without storing the
/// geometry. Being relative to the label, it survives a rigid move of feature and label
/// together unchanged.
public struct PlacementBasis: Hashable, Sendable {
    /// Who chose the position.
    public enum Source: String, Hashable, Sendable, CaseIterable {
        /// annolink's rules, conflict-aware (the rule position or one of its candidates).
        case rules
        /// Imported as ArcGIS placed it (its label engine's choice, slides included).
        case arcgis
        /// Set by a person (with `Override` bits saying what).
        case person
    }

    public var source: Source
    /// The rule placement's anchor minus the label's anchor, in map units, when it was placed.
    public var ruleOffset: (dx: Double, dy: Double)
    /// The rule placement's angle minus the label's angle when it was placed, in degrees, in
    /// (−180, 180].
    public var ruleTurn: Double

    public init(source: Source, ruleOffset: (dx: Double, dy: Double), ruleTurn: Double) {
        self.source = source
        self.ruleOffset = ruleOffset
        self.ruleTurn = ruleTurn
    }

    /// The basis of a label at `anchor` and `angle` placed by `source` from the rule placement
    /// (`ruleAnchor`, `ruleAngle`).
    public init(source: Source, anchor: Point, angle: Double, ruleAnchor: Point, ruleAngle: Double) {
        self.init(source: source, ruleOffset: (ruleAnchor.x - anchor.x, ruleAnchor.y - anchor.y), ruleTurn: Self.turn(ruleAngle - angle))
    }

    /// The rule anchor the label at `anchor` was placed from.
    public func ruleAnchor(from anchor: Point) -> Point {
        Point(x: anchor.x + ruleOffset.dx, y: anchor.y + ruleOffset.dy)
    }

    /// The rule angle the label at `angle` was placed from, in [0, 360).
    public func ruleAngle(from angle: Double) -> Double {
        let a = (angle + ruleTurn).truncatingRemainder(dividingBy: 360)
        return a < 0 ? a + 360 : (a == 360 ? 0 : a)
    }

    /// Whether the rule placement (`ruleAnchor`, `ruleAngle`) is still the one the label at
    /// `anchor` and `angle` was placed from: within `distance` map units and `degrees`.
    public func holds(anchor: Point, angle: Double, ruleAnchor: Point, ruleAngle: Double, distance: Double, degrees: Double) -> Bool {
        self.ruleAnchor(from: anchor).distance(to: ruleAnchor) <= distance && abs(Self.turn(ruleAngle - self.ruleAngle(from: angle))) <= degrees
    }

    /// `degrees` brought into (−180, 180].
    static func turn(_ degrees: Double) -> Double {
        var t = degrees.truncatingRemainder(dividingBy: 360)
        if t > 180 { t -= 360 } else if t <= -180 { t += 360 }
        return t
    }

    /// The stored text: `source dx dy turn`, the numbers in the shortest form that reads back
    /// exactly, e.g. `rules 0 0 0` or `arcgis -12.5 3.25 0`.
    public var text: String {
        "\(source.rawValue) \(Self.number(ruleOffset.dx)) \(Self.number(ruleOffset.dy)) \(Self.number(ruleTurn))"
    }

    /// The basis `text` says; nil for text that is not one (another program's value, or none).
    public init?(text: String) {
        let parts = text.split(separator: " ")
        guard parts.count == 4, let source = Source(rawValue: String(parts[0])),
              let dx = Double(parts[1]), let dy = Double(parts[2]), let angle = Double(parts[3]),
              dx.isFinite, dy.isFinite, angle.isFinite
        else { return nil }
        self.init(source: source, ruleOffset: (dx, dy), ruleTurn: angle)
    }

    private static func number(_ value: Double) -> String {
        if value == 0 { return "0" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.source == b.source && a.ruleOffset.dx == b.ruleOffset.dx && a.ruleOffset.dy == b.ruleOffset.dy && a.ruleTurn == b.ruleTurn
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(source)
        hasher.combine(ruleOffset.dx)
        hasher.combine(ruleOffset.dy)
        hasher.combine(ruleTurn)
    }
}
