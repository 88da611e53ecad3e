import AnnoLinkGeometry

/// One position a label could take: where its anchor and angle would be, the footprint it
/// would have there, and how much worse than the rule's position it is.
public struct LabelCandidate: Hashable, Sendable {
    /// The anchor (for the row's alignments) and the angle.
    public var placement: Placement
    /// The footprint's outline, for conflict tests.
    public var outline: LabelOutline
    /// The footprint as `PlacementRules.footprint` gives it for `placement` with the row's
    /// alignments and offsets (counter-clockwise, closed): what goes into the annotation row.
    public var footprint: Polygon
    /// 0 for the rule's position, rising with how far the candidate strays from it (no unit;
    /// comparable across labels, since the solver sums it).
    public var cost: Double

    /// A candidate whose outline is `footprint`'s hull.
    public init(placement: Placement, footprint: Polygon, cost: Double) {
        self.placement = placement
        self.outline = LabelOutline(footprint)
        self.footprint = footprint
        self.cost = cost
    }

    /// A candidate with an outline of the caller's (it should cover `footprint`).
    public init(placement: Placement, outline: LabelOutline, footprint: Polygon, cost: Double) {
        self.placement = placement
        self.outline = outline
        self.footprint = footprint
        self.cost = cost
    }
}
