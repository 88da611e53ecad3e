/// A label expression: the Arcade subset of docs/expressions.md, parsed once and evaluated per feature.
///
/// ```swift
/// let expression = try LabelExpression("$feature.AD_ADDRESS + \" \" + $feature.ST_STR_NAM")
/// let text = try expression.text(for: ExpressionContext(attributes: ["AD_ADDRESS": .integer(21505),
///                                                                    "ST_STR_NAM": .text("ELMWOOD")]))
/// // "21505 ELMWOOD"
/// ```
///
/// Parsing builds a tree once; evaluation walks it with no re-parsing, no regular expressions and
/// no Foundation formatters, so one value is cheap enough for bulk edits of millions of features.
/// The supported language, and where it departs from Arcade, is in `docs/expressions.md`.
public struct LabelExpression: Sendable, CustomStringConvertible {
    /// The expression as written.
    public let source: String
    /// The fields the expression reads, as first written in it (names that differ only in case
    /// count once). Compare them with column names without regard to case: an edit to any other
    /// field cannot change the text.
    public let referencedFields: Set<String>
    /// Whether the value depends on the feature's geometry (`Geometry($feature)` or
    /// `Length($feature)`), so that a shape change must regenerate the text.
    public let usesGeometry: Bool

    private let root: ExpressionNode
    private let fieldsInOrder: [(name: String, position: Int)]

    /// Parses `source`. Throws an `ExpressionError` naming the position of the first problem:
    /// a syntax error, an unknown function, a wrong number of arguments, an unsupported literal
    /// format or unit, or Arcade outside the subset (statements, variables).
    public init(_ source: String) throws(ExpressionError) {
        var parser = try ExpressionParser(source)
        root = try parser.parseProgram()
        self.source = source
        fieldsInOrder = parser.fields
        referencedFields = Set(parser.fields.map(\.name))
        usesGeometry = parser.usesGeometry
    }

    /// The expression's value for `feature`.
    ///
    /// Throws `unknownField` when the feature lacks a field the expression reads, `typeMismatch`
    /// for values of the wrong type (a non-boolean condition, a blob field, …), and the format and
    /// unit errors for arguments that are not literals.
    public func evaluate(_ feature: ExpressionContext) throws(ExpressionError) -> ExpressionValue {
        try root.evaluate(feature)
    }

    /// The expression's value for `feature` as label text: a null value is empty text, a number
    /// is written as Arcade writes it (`5.4`, `178`, `21505`). Throws as `evaluate(_:)` does, and
    /// `typeMismatch` when the value is a geometry or an array.
    public func text(for feature: ExpressionContext) throws(ExpressionError) -> String {
        try root.evaluate(feature).labelText()
    }

    /// Checks that every field the expression reads is one of `fieldNames` (compared without
    /// regard to case), so that a class can be refused before any feature is labelled. Throws
    /// `unknownField` for the first missing one.
    public func checkFields(_ fieldNames: some Sequence<String>) throws(ExpressionError) {
        let available = Set(fieldNames.map { $0.lowercased() })
        for field in fieldsInOrder where !available.contains(field.name.lowercased()) {
            throw .unknownField(field.name, position: field.position)
        }
    }

    /// The source.
    public var description: String { source }
}
