/// Where an annotation class puts its text, as its CIM label class describes it.
///
/// Values are kept as Esri spells them (`OffsetStraightFromLine`, `AboveLine`, …) so that
/// nothing is lost; offsets are in `primaryOffsetUnit` (points for the Loudoun classes).
public struct EsriLabelPlacement: Hashable, Sendable {
    /// The label engine whose properties these are.
    public enum Engine: String, Hashable, Sendable {
        case maplex = "Maplex"
        case standard = "Standard"
    }

    /// The engine the annotation feature class uses (`GeneralPlacementProperties`).
    public var engine: Engine
    /// `Point`, `Line` or `Polygon`: the kind of origin feature the properties are set for.
    public var featureType: String?
    /// The placement method for that feature type (Maplex `pointPlacementMethod`,
    /// `linePlacementMethod` or `polygonPlacementMethod`; Standard `pointPlacementMethod` for
    /// points): `AroundPoint`, `OffsetStraightFromLine`, …
    public var method: String?
    /// The distance between the feature and the text (Maplex `primaryOffset`).
    public var primaryOffset: Double?
    /// The unit of `primaryOffset` (`Point`, `Map`, …).
    public var primaryOffsetUnit: String?
    /// Which side of a line the text may go to (Maplex `constrainOffset`: `AboveLine`,
    /// `NoConstraint`, …).
    public var constrainOffset: String?
    /// Where along a line (Maplex `offsetAlongLineProperties.placementMethod`:
    /// `BestPositionAlongLine`, …).
    public var alongLinePlacement: String?
    /// Which point of the label is measured along the line (`CenterOfLabel`, …).
    public var alongLineAnchor: String?
    /// Unit of distances along the line (`Map`, `Percentage`, …).
    public var alongLineDistanceUnit: String?
    /// Whether "above" follows the line's digitized direction (`useLineDirection`).
    public var usesLineDirection: Bool?
    /// Priorities of the positions around a point, by CIM name (`aboveCenter`: 1 = preferred).
    public var pointZonePriorities: [String: Int]
    /// Standard engine line positions (`above`, `inLine`, `parallel`, …) that are switched on.
    public var linePositions: [String: Bool]
    /// How a rotation field is read (`Arithmetic`, `Geographic`).
    public var rotationType: String?
    /// How rotated text is aligned (`Straight`, …).
    public var alignmentType: String?
    /// How multi-part features are labeled (`OneLabelPerFeature`, `OneLabelPerPart`).
    public var multiPartOption: String?

    /// Creates a placement description.
    public init(
        engine: Engine, featureType: String? = nil, method: String? = nil, primaryOffset: Double? = nil,
        primaryOffsetUnit: String? = nil, constrainOffset: String? = nil, alongLinePlacement: String? = nil,
        alongLineAnchor: String? = nil, alongLineDistanceUnit: String? = nil, usesLineDirection: Bool? = nil,
        pointZonePriorities: [String: Int] = [:], linePositions: [String: Bool] = [:], rotationType: String? = nil,
        alignmentType: String? = nil, multiPartOption: String? = nil
    ) {
        self.engine = engine
        self.featureType = featureType
        self.method = method
        self.primaryOffset = primaryOffset
        self.primaryOffsetUnit = primaryOffsetUnit
        self.constrainOffset = constrainOffset
        self.alongLinePlacement = alongLinePlacement
        self.alongLineAnchor = alongLineAnchor
        self.alongLineDistanceUnit = alongLineDistanceUnit
        self.usesLineDirection = usesLineDirection
        self.pointZonePriorities = pointZonePriorities
        self.linePositions = linePositions
        self.rotationType = rotationType
        self.alignmentType = alignmentType
        self.multiPartOption = multiPartOption
    }
}
