/// How an annotation class places its text relative to the feature.
public enum PlacementStyle: String, Sendable, CaseIterable {
    /// Horizontal text centred above a point (docs/placement.md, "Rules").
    case point
    /// Text parallel to a line, at the middle of its length, offset to the text's upper side.
    case line
}

/// One annotation class: which features of which origin table it labels, with what text, font
/// and placement. Stored in the `annolink_annotation_classes` registry table.
public struct AnnotationClass: Hashable, Sendable {
    /// The annotation feature table the class writes into.
    public var annotationTable: String
    /// The class id within the annotation table (`AnnotationClassID`).
    public var classID: Int64
    public var name: String
    /// The feature table whose features the class labels.
    public var originTable: String
    /// An SQL condition on the origin table selecting the features the class labels; nil for all.
    public var whereClause: String?
    /// The where clause that selects: nil when there is none or it is blank (every feature).
    /// Pasted into SQL only after `Connection.condition(_:on:)` has checked it.
    public var selectingClause: String? {
        whereClause.flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 }
    }
    /// The label expression (the Arcade subset of docs/expressions.md).
    public var expression: String
    /// Font family name, e.g. `Tahoma`.
    public var fontName: String
    /// Font size in points at the reference scale.
    public var fontSize: Double
    /// 0 left, 1 center, 2 right, 3 full.
    public var horizontalAlignment: Int
    /// 0 top, 1 center, 2 baseline, 3 bottom.
    public var verticalAlignment: Int
    /// The scale denominator at which `fontSize` is true (1200 for 1:1200).
    public var referenceScale: Double
    public var placement: PlacementStyle
    /// Distance in points between the feature and the text's baseline: above the point for
    /// point placement, to the text's upper side of the line for line placement.
    public var placementOffset: Double
    /// Other placement properties, as JSON text (for example those imported from an Esri class).
    public var placementParameters: String?
    /// Whether inserting a feature creates its annotation (Esri's AutoCreate).
    public var autoCreate: Bool
    /// Whether a geometry change re-places the annotation (Esri's UpdateOnShapeChange).
    public var updateOnShapeChange: Bool

    public init(
        annotationTable: String, classID: Int64, name: String, originTable: String, whereClause: String? = nil,
        expression: String, fontName: String = "Tahoma", fontSize: Double = 10, horizontalAlignment: Int = 1,
        verticalAlignment: Int = 2, referenceScale: Double, placement: PlacementStyle, placementOffset: Double,
        placementParameters: String? = nil, autoCreate: Bool = true, updateOnShapeChange: Bool = true
    ) {
        self.annotationTable = annotationTable
        self.classID = classID
        self.name = name
        self.originTable = originTable
        self.whereClause = whereClause
        self.expression = expression
        self.fontName = fontName
        self.fontSize = fontSize
        self.horizontalAlignment = horizontalAlignment
        self.verticalAlignment = verticalAlignment
        self.referenceScale = referenceScale
        self.placement = placement
        self.placementOffset = placementOffset
        self.placementParameters = placementParameters
        self.autoCreate = autoCreate
        self.updateOnShapeChange = updateOnShapeChange
    }
}
