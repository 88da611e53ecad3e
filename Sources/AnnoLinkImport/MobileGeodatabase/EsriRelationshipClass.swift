/// A relationship class of a geodatabase (`DERelationshipClassInfo`): how rows of an origin
/// table relate to rows of a destination table.
///
/// Feature-linked annotation is a composite relationship class from the origin feature class
/// to the annotation feature class: the origin's `GlobalID` (`originPrimaryKey`) is stored in
/// the annotation's `FeatureGlobalID` (`originForeignKey`).
public struct EsriRelationshipClass: Hashable, Sendable {
    /// The relationship class's own name (`main.Anno_14_33`).
    public var name: String
    /// Origin class names as stored (`main.ParcelLines_1`).
    public var originClassNames: [String]
    /// Destination class names as stored (`main.ParcelLinesAnno_1`).
    public var destinationClassNames: [String]
    /// The origin field the relationship keys on (`GlobalID`).
    public var originPrimaryKey: String?
    /// The destination field holding the origin's key (`FeatureGlobalID`).
    public var originForeignKey: String?
    /// `esriRelCardinalityOneToMany`, …
    public var cardinality: String?
    /// Whether destination rows live and die with their origin (true for feature-linked
    /// annotation).
    public var isComposite: Bool
    /// `esriRelNotificationForward`, …
    public var notification: String?
    /// The label of the origin-to-destination direction.
    public var forwardPathLabel: String?
    /// The label of the destination-to-origin direction.
    public var backwardPathLabel: String?

    /// Creates a relationship class.
    public init(
        name: String, originClassNames: [String], destinationClassNames: [String], originPrimaryKey: String? = nil,
        originForeignKey: String? = nil, cardinality: String? = nil, isComposite: Bool = false,
        notification: String? = nil, forwardPathLabel: String? = nil, backwardPathLabel: String? = nil
    ) {
        self.name = name
        self.originClassNames = originClassNames
        self.destinationClassNames = destinationClassNames
        self.originPrimaryKey = originPrimaryKey
        self.originForeignKey = originForeignKey
        self.cardinality = cardinality
        self.isComposite = isComposite
        self.notification = notification
        self.forwardPathLabel = forwardPathLabel
        self.backwardPathLabel = backwardPathLabel
    }

    /// The SQLite table of the (first) origin class (`ParcelLines_1`), or nil if none is named.
    public var originTableName: String? {
        originClassNames.first.map(GeodatabaseItemDefinition.tableName(ofItemName:))
    }

    /// The SQLite table of the (first) destination class (`ParcelLinesAnno_1`), or nil.
    public var destinationTableName: String? {
        destinationClassNames.first.map(GeodatabaseItemDefinition.tableName(ofItemName:))
    }
}
