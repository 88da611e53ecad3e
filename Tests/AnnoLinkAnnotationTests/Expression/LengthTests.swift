import AnnoLinkGeometry
import Testing
@testable import AnnoLinkAnnotation

@Suite("Length(geometry, unit)")
struct LengthTests {
    static let usSurveyFoot = 1200.0 / 3937.0
    static let parcelExpression = "Round(Length(Geometry($feature), 'feet'), 2)"

    // loudoun-facts.md: the Loudoun CRS is in US survey feet and the expression asks for
    // (international) feet, so lengths grow by 1.000002 before rounding; these three lines
    // round differently without that conversion.
    @Test(arguments: [(201.1447, "201.15"), (256.2447, "256.25"), (265.0045, "265.01")])
    func usSurveyFeetAreConvertedToFeetBeforeRounding(length: Double, text: String) throws {
        #expect(try label(Self.parcelExpression, geometry: straightLine(length), metresPerUnit: Self.usSurveyFoot) == text)
    }

    @Test(arguments: [(201.1447, "201.14"), (256.2447, "256.24"), (265.0045, "265")])
    func internationalFeetNeedNoConversion(length: Double, text: String) throws {
        #expect(try label(Self.parcelExpression, geometry: straightLine(length), metresPerUnit: 0.3048) == text)
    }

    @Test func usSurveyFeetInUSSurveyFeetAreUnchanged() throws {
        #expect(try label("Round(Length($feature, 'us-survey-feet'), 4)", geometry: straightLine(201.1447), metresPerUnit: Self.usSurveyFoot) == "201.1447")
    }

    static let foot = 1000 / 0.3048
    static let usFoot = 3937.0 / 1.2
    static let mile = 1000 / 1609.344

    // A 1000 m line in a metre CRS, in every unit.
    @Test(arguments: [
        ("meters", 1000.0), ("meter", 1000.0), ("metres", 1000.0), ("metre", 1000.0), ("m", 1000.0),
        ("Meters", 1000.0), ("square-meters", 1000.0),
        ("feet", foot), ("foot", foot), ("ft", foot), ("FEET", foot),
        ("us-survey-feet", usFoot), ("us-survey-foot", usFoot),
        ("kilometers", 1.0), ("kilometres", 1.0), ("km", 1.0), ("miles", mile), ("mile", mile),
        ("yards", 1000 / 0.9144), ("nautical-miles", 1000 / 1852.0),
    ] as [(String, Double)])
    func units(unit: String, expected: Double) throws {
        let result = try value("Length(Geometry($feature), '\(unit)')", geometry: straightLine(1000))
        guard case .number(let length) = result else {
            Issue.record("not a number: \(result)")
            return
        }
        #expect(abs(length - expected) <= expected * 1e-15)
    }

    @Test func unitFromAField() throws {
        #expect(try label("Length($feature, $feature.U)", ["U": .text("km")], geometry: straightLine(1500)) == "1.5")
        #expect(try evaluationError("Length($feature, $feature.U)", ["U": .text("parsecs")], geometry: straightLine(1))
            == .unknownUnit("parsecs", position: 18))
    }

    @Test func withoutAUnitTheLengthIsInCRSUnits() throws {
        #expect(try label("Length($feature)", geometry: straightLine(201.1447), metresPerUnit: Self.usSurveyFoot) == "201.1447")
        #expect(try label("Length($feature)", geometry: straightLine(3), metresPerUnit: nil) == "3")
    }

    @Test func aGeographicCRSHasNoLinearUnit() throws {
        #expect(try evaluationError("Length($feature, 'meters')", geometry: straightLine(1), metresPerUnit: nil) == .noLinearUnit(position: 1))
    }

    @Test func aContextWithoutAUnitDoesNotGuessOne() throws {
        let expression = try LabelExpression("Length($feature, 'feet')")
        #expect(throws: ExpressionError.noLinearUnit(position: 1)) {
            try expression.text(for: ExpressionContext(attributes: [:], geometry: straightLine(1)))
        }
    }

    @Test func lengthsOfEveryKind() throws {
        let square = LineString([Point(x: 0, y: 0), Point(x: 0, y: 10), Point(x: 10, y: 10), Point(x: 10, y: 0), Point(x: 0, y: 0)])
        let hole = LineString([Point(x: 4, y: 4), Point(x: 6, y: 4), Point(x: 6, y: 6), Point(x: 4, y: 6), Point(x: 4, y: 4)])
        let bent = LineString([Point(x: 0, y: 0), Point(x: 3, y: 4), Point(x: 3, y: 10)])
        let cases: [(Geometry, String)] = [
            (.point(Point(x: 5, y: 5)), "0"),
            (.multiPoint(MultiPoint([Point(x: 0, y: 0), Point(x: 9, y: 9)])), "0"),
            (.lineString(bent), "11"),
            (.polygon(Polygon(exterior: square)), "40"),
            (.polygon(Polygon(exterior: square, holes: [hole])), "48"),  // perimeter, holes included
            (.multiLineString(MultiLineString([bent, bent])), "22"),
            (.multiPolygon(MultiPolygon([Polygon(exterior: square), Polygon(exterior: hole)])), "48"),
            (.lineString(LineString([])), "0"),
        ]
        for (geometry, text) in cases {
            #expect(try label("Length($feature, 'meters')", geometry: geometry) == text, "\(geometry.kind)")
        }
    }

    @Test func aFeatureWithoutGeometryHasLengthZero() throws {
        #expect(try label(Self.parcelExpression) == "0")
    }

    @Test func lengthOfANonGeometryIsATypeError() throws {
        #expect(try evaluationError("Length('abc')") == .typeMismatch("Length needs a geometry, not text", position: 1))
    }
}
