import AnnoLinkGeometry
import AnnoLinkStore

/// Where a label goes: the anchor its alignments refer to and its angle.
public struct Placement: Hashable, Sendable {
    /// The point the horizontal and vertical alignments refer to, in map units.
    public var anchor: Point
    /// Degrees counter-clockwise from east, in [0, 360).
    public var angle: Double

    public init(anchor: Point, angle: Double) {
        self.anchor = anchor
        self.angle = angle
    }
}

/// The two placement styles (mirrors `AnnoLinkStore.PlacementStyle`, which the registry stores).
public typealias PlacementStyleKind = AnnoLinkStore.PlacementStyle
