import AnnoLinkStore

/// An annotation class made ready for evaluation: its expression parsed once, its font's
/// metrics loaded once, its units worked out once.
public struct CompiledClass {
    public let definition: AnnotationClass
    public let expression: LabelExpression
    /// The class's where clause, checked as one read-only condition on the origin table; nil
    /// when the class labels every feature.
    public let condition: SQLCondition?
    public let metrics: TextMetrics
    /// How freely its labels may leave the rule placement (`placement_parameters`).
    public let preferences: PlacementPreferences
    /// Map units (of the annotation table's CRS) per point of text at the reference scale.
    public let mapUnitsPerPoint: Double
    /// The size in metres of the origin CRS's unit, for `Length(…)`.
    public let originMetresPerUnit: Double?
}
