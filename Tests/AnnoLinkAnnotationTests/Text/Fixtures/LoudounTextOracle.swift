import Testing

/// One annotation ArcGIS generated for the Loudoun sample (Tahoma 10 pt, reference scale 1:1200,
/// horizontal alignment center): its text and what ArcGIS stored about its size, in US survey
/// feet. The rows are in `LoudounTextOracle+Rows.swift`, written by
/// `scripts/extract-loudoun-text-fixture`.
struct LoudounTextOracle: Sendable, CustomTestStringConvertible {
    enum Table: Sendable, Equatable {
        case parcelLines
        case addressPoints
    }

    var table: Table
    var objectID: Int
    var text: String
    /// The length of the baseline stored in `Element`, feet.
    var baselineLength: Double
    /// Where the footprint rectangle (`SHAPE`) starts along the text, feet from the baseline's
    /// midpoint (the anchor of centred text), in the reading direction.
    var footprintStart: Double
    /// Where the footprint rectangle ends along the text, feet from the baseline's midpoint.
    var footprintEnd: Double
    /// The footprint rectangle's bottom, feet above the baseline (negative: below it).
    var footprintBottom: Double
    /// The footprint rectangle's top, feet above the baseline.
    var footprintTop: Double

    /// The footprint's length along the text, feet.
    var footprintLength: Double { footprintEnd - footprintStart }

    /// Feet on the ground per point of text at 1:1200: 1200 × 0.0254 / 72 m, in US survey feet
    /// (1200 / 3937 m each).
    static let feetPerPoint = 1200 * 0.0254 / 72 / (1200.0 / 3937)
    /// The text size of every row, points.
    static let pointSize = 10.0

    var testDescription: String { "\(table) \(objectID) \"\(text)\"" }
}
