import AnnoLinkGeometry
import AnnoLinkStore
import AnnoLinkTestSupport
import Foundation
import Testing
@testable import AnnoLinkAnnotation

/// The two label expressions of Esri's Loudoun sample, against the text ArcGIS wrote.
@Suite("Loudoun expressions")
struct LoudounExpressionTests {
    static let address = #"$feature.AD_ADDRESS + " " + $feature.ST_STR_NAM"#
    static let parcel = "Round(Length(Geometry($feature), 'feet'), 2)"
    static let usSurveyFoot = 1200.0 / 3937.0

    // Rows of Loudoun_Address_Points_1 and the TextString of their annotation.
    @Test(arguments: [
        (45763, "ELMWOOD", "45763 ELMWOOD"), (45752, "WOODLAND", "45752 WOODLAND"), (21505, "ELMWOOD", "21505 ELMWOOD"),
    ])
    func addressText(number: Int64, street: String, text: String) throws {
        #expect(try label(Self.address, ["AD_ADDRESS": .integer(number), "ST_STR_NAM": .text(street)]) == text)
    }

    // Texts ArcGIS wrote on parcel lines (loudoun-facts.md): Arcade drops trailing zeros.
    @Test(arguments: [(4.97, "4.97"), (5.4, "5.4"), (178, "178")])
    func parcelText(feet: Double, text: String) throws {
        let length = feet / (Self.usSurveyFoot / 0.3048)
        #expect(try label(Self.parcel, geometry: straightLine(length), metresPerUnit: Self.usSurveyFoot) == text)
    }

    @Test func everyAddressPointGetsArcGISsText() throws {
        let db = try Connection(path: Fixtures.loudoun, mode: .readOnly)
        let rows = try db.rows("""
            SELECT p.AD_ADDRESS, p.ST_STR_NAM, a.TextString
            FROM Loudoun_Address_Points_1 p JOIN Loudoun_Address_PointsAnno_1 a ON a.FeatureGlobalID = p.GlobalID
            """)
        #expect(rows.count == 33)
        let expression = try LabelExpression(Self.address)
        for row in rows {
            let text = try expression.text(for: ExpressionContext(attributes: ["AD_ADDRESS": row[0], "ST_STR_NAM": row[1]]))
            #expect(text == row[2].textValue)
        }
    }

    @Test func everyParcelLineGetsArcGISsText() throws {
        let db = try Connection(path: Fixtures.loudoun, mode: .readOnly)
        let rows = try db.rows("""
            SELECT l.Shape, a.TextString
            FROM ParcelLines_1 l JOIN ParcelLinesAnno_1 a ON a.FeatureGlobalID = l.GlobalID
            """)
        #expect(rows.count == 115)
        let expression = try LabelExpression(Self.parcel)
        var withoutConversion = 0
        for row in rows {
            let blob = try #require(row[0].blobValue)
            let line = try #require(Self.decodeLine(blob))
            let feature = ExpressionContext(attributes: [:], geometry: line, metresPerUnit: Self.usSurveyFoot)
            #expect(try expression.text(for: feature) == row[1].textValue)
            var inFeet = feature
            inFeet.metresPerUnit = 0.3048
            if try expression.text(for: inFeet) != row[1].textValue { withoutConversion += 1 }
        }
        // Without the US-survey-foot conversion six lines round differently: the three that
        // loudoun-facts.md names (201.15, 256.25, 265.01) and 245.5, 498.85 and 652.36.
        #expect(withoutConversion == 6)
    }

    /// The vertices of a single-part ST_Geometry line blob, as loudoun-facts.md describes them:
    /// the vertex count at bytes 4–7, the coordinates as the last 2N signed varints (the first
    /// vertex absolute, the others deltas), mapped with the table's coordinate grid.
    static func decodeLine(_ blob: [UInt8]) -> Geometry? {
        let xOrigin = -110_512_500.0, yOrigin = -88_858_000.0, scale = 3048.006096
        guard blob.count > 8 else { return nil }
        let n = Int(blob[4]) | Int(blob[5]) << 8 | Int(blob[6]) << 16 | Int(blob[7]) << 24
        // Walk back over 2N varints: each ends in a byte without the continuation bit.
        var start = blob.count
        var ends = 0
        var i = blob.count - 1
        while i >= 8 {
            if blob[i] & 0x80 == 0 {
                if ends == 2 * n { break }
                ends += 1
            }
            start = i
            i -= 1
        }
        guard ends == 2 * n else { return nil }
        var values: [Int64] = []
        var j = start
        while j < blob.count {
            let first = blob[j]
            var magnitude = Int64(first & 0x3F)
            var shift: Int64 = 6
            var more = first & 0x80 != 0
            j += 1
            while more && j < blob.count {
                magnitude |= Int64(blob[j] & 0x7F) << shift
                shift += 7
                more = blob[j] & 0x80 != 0
                j += 1
            }
            values.append(first & 0x40 != 0 ? -magnitude : magnitude)
        }
        guard values.count == 2 * n else { return nil }
        var points: [Point] = []
        var x: Int64 = 0, y: Int64 = 0
        for k in 0..<n {
            x += values[2 * k]
            y += values[2 * k + 1]
            points.append(Point(x: Double(x) / scale + xOrigin, y: Double(y) / scale + yOrigin))
        }
        return .lineString(LineString(points))
    }
}
