import AnnoLinkGeometry
import AnnoLinkStore
import Testing
@testable import AnnoLinkAnnotation

@Suite("Functions")
struct FunctionTests {
    static let feature: [String: SQLValue] = [
        "CITY_NAME": .text("LOS_ANGELES"), "STATE_NAME": .text("CALIFORNIA"), "Name": .text("  Main St "),
        "Count": .integer(3), "Empty": .text(""), "Nothing": .null,
    ]

    @Test(arguments: [
        ("IIf(1 < 2, 'yes', 'no')", "yes"),
        ("IIf(1 > 2, 'yes', 'no')", "no"),
        ("IIf($feature.Count > 2, $feature.Count, 'few')", "3"),
        ("Upper('Hello')", "HELLO"),                                  // Arcade's Upper example
        ("Lower('HELLO')", "hello"),                                  // Arcade's Lower example
        ("Upper('straße')", "STRASSE"),
        ("Upper(5.40)", "5.4"),
        ("Trim('   hello world')", "hello world"),                    // Arcade's Trim example
        ("Trim($feature.Name)", "Main St"),
        ("Trim('\\t a b \\n')", "a b"),
        // Concatenate: an array and a separator (Arcade's example), or values one after another
        // (ArcGIS Pro's "Arcade expressions in charts" page joins CITY_NAME, ", " and STATE_NAME).
        ("Concatenate(['red', 'blue', 'green'], '/')", "red/blue/green"),
        ("Concatenate($feature.CITY_NAME, ', ', $feature.STATE_NAME)", "LOS_ANGELES, CALIFORNIA"),
        ("Concatenate(['a', 'b'])", "ab"),
        ("Concatenate([])", ""),
        ("Concatenate(['a', null, 'b'], '-')", "a--b"),
        ("Concatenate([1.5, 2, 'x'], ' ', '0.00')", "1.50 2.00 x"),
        ("Concatenate([$feature.Count, 'items'], ' ')", "3 items"),
        ("Concatenate('only')", "only"),
        ("Concatenate(1, 2, 3)", "123"),
        ("IsEmpty($feature.Empty)", "true"),
        ("IsEmpty($feature.Nothing)", "true"),
        ("IsEmpty(' ')", "false"),
        ("IsEmpty(0)", "false"),
        ("IsEmpty('hello world')", "false"),
        ("DefaultValue($feature.Empty, 'no data')", "no data"),
        ("DefaultValue($feature.Nothing, 'no data')", "no data"),
        ("DefaultValue($feature.Count, 'no data')", "3"),
        ("DefaultValue(0, 'no data')", "0"),
        ("'a' + TextFormatting.NewLine + 'b'", "a\nb"),
        ("TextFormatting.SingleQuote + TextFormatting.DoubleQuote + TextFormatting.BackwardSlash", "'\"\\"),
    ])
    func functions(source: String, text: String) throws {
        #expect(try label(source, Self.feature) == text)
    }

    @Test(arguments: ["round(5.399, 2)", "ROUND(5.399, 2)", "Round(5.399, 2)", "rOuNd(5.399,2)"])
    func functionNamesIgnoreCase(source: String) throws {
        #expect(try label(source) == "5.4")
    }

    @Test(arguments: [
        "$feature.AD_ADDRESS", "$feature.ad_address", "$feature.Ad_Address", "$feature[\"AD_ADDRESS\"]",
        "$feature['ad_address']", "$FEATURE.AD_ADDRESS",
    ])
    func fieldNamesIgnoreCase(source: String) throws {
        #expect(try label(source, ["AD_ADDRESS": .integer(21505)]) == "21505")
    }

    @Test func exactFieldNameWinsOverAnotherCase() throws {
        #expect(try label("$feature.a", ["A": .text("upper"), "a": .text("lower")]) == "lower")
    }

    @Test func geometryOfTheFeature() throws {
        let line = straightLine(5)
        #expect(try value("Geometry($feature)", geometry: line) == .geometry(line))
        #expect(try value("Geometry($feature)") == .null)
        #expect(try evaluationError("Geometry($feature)", geometry: line)
            == .typeMismatch("a geometry cannot be used as text", position: 1))
    }

    @Test func referencedFieldsAndGeometryUse() throws {
        let address = try LabelExpression(#"$feature.AD_ADDRESS + " " + $feature["ST_STR_NAM"] + $feature.ad_address"#)
        #expect(address.referencedFields == ["AD_ADDRESS", "ST_STR_NAM"])
        #expect(!address.usesGeometry)
        let parcel = try LabelExpression("Round(Length(Geometry($feature), 'feet'), 2)")
        #expect(parcel.referencedFields.isEmpty)
        #expect(parcel.usesGeometry)
        #expect(try LabelExpression("Length($feature)").usesGeometry)
        let both = try LabelExpression("IIf($feature.KIND == 'x', Text(Length($feature, 'm'), '#'), '')")
        #expect(both.referencedFields == ["KIND"])
        #expect(both.usesGeometry)
    }

    @Test func returnAndTrailingSemicolonAreOneExpression() throws {
        #expect(try label("return $feature.A;", ["A": .text("x")]) == "x")
        #expect(try label("$feature.A;;", ["A": .text("x")]) == "x")
        #expect(try label("RETURN ($feature.A + 'y')", ["A": .text("x")]) == "xy")
        #expect(parseError("return return 1") == .unsupported("'return' statements are not supported; only a single expression is", position: 8))
        // A comment is not a statement.
        #expect(try label("/* house */ $feature.A // number", ["A": .text("x")]) == "x")
    }

    @Test(arguments: [
        (#"'it\'s'"#, "it's"), (#""say \"hi\"""#, "say \"hi\""), (#"'a\nb'"#, "a\nb"), (#"'tab\there'"#, "tab\there"),
        (#"'back\\slash'"#, "back\\slash"), (#"'\u00e9'"#, "é"), (#"'\u{1F30D}'"#, "🌍"), (#""it's""#, "it's"),
    ])
    func stringLiterals(source: String, text: String) throws {
        #expect(try label(source) == text)
    }
}
