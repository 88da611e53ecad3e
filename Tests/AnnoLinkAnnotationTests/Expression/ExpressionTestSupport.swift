import AnnoLinkGeometry
import AnnoLinkStore
@testable import AnnoLinkAnnotation

/// Evaluates `source` for a feature with `attributes` (in a metre CRS unless told) and returns the label text.
func label(
    _ source: String, _ attributes: [String: SQLValue] = [:], geometry: Geometry? = nil, metresPerUnit: Double? = 1
) throws -> String {
    try LabelExpression(source).text(for: ExpressionContext(attributes: attributes, geometry: geometry, metresPerUnit: metresPerUnit))
}

/// Evaluates `source` for a feature with `attributes` (in a metre CRS) and returns the value.
func value(_ source: String, _ attributes: [String: SQLValue] = [:], geometry: Geometry? = nil) throws -> ExpressionValue {
    try LabelExpression(source).evaluate(ExpressionContext(attributes: attributes, geometry: geometry, metresPerUnit: 1))
}

/// The error parsing `source` throws, or nil when it parses.
func parseError(_ source: String) -> ExpressionError? {
    do {
        _ = try LabelExpression(source)
        return nil
    } catch {
        return error
    }
}

/// The error evaluating `source` for a feature with `attributes` throws, or nil.
func evaluationError(
    _ source: String, _ attributes: [String: SQLValue] = [:], geometry: Geometry? = nil, metresPerUnit: Double? = 1
) throws -> ExpressionError? {
    let expression = try LabelExpression(source)
    do {
        _ = try expression.text(for: ExpressionContext(attributes: attributes, geometry: geometry, metresPerUnit: metresPerUnit))
        return nil
    } catch {
        return error
    }
}

/// A two-point line from the origin along x, `length` CRS units long.
func straightLine(_ length: Double) -> Geometry {
    .lineString(LineString([Point(x: 0, y: 0), Point(x: length, y: 0)]))
}
