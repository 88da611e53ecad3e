import Testing

@testable import AssetEmbedder

/// How `AssetEmbedder` writes a file as a Swift literal (Plugins/EmbedAssets; docs/editor.md,
/// "Where the page's files live"): delimiters no file can end, and files it cannot carry refused.
@Suite struct AssetEmbedderTests {
    @Test(arguments: [
        ("plain", "#"),
        (##"a """# b"##, "##"),
        (###"\#(x) and "##"###, "###"),
        ("###### in a CSS colour #fff", "#######"),
    ])
    func theDelimiterHasOneHashMoreThanTheLongestRunInTheText(text: String, hashes: String) throws {
        let literal = try literal(of: text, named: "f.js")
        #expect(literal == hashes + "\"\"\"\n" + text + "\n\"\"\"" + hashes)
    }

    @Test(arguments: ["a\r\nb", "a\u{0}b", "bell\u{7}", "delete\u{7f}"])
    func aFileALiteralCannotCarryExactlyIsRefusedByName(text: String) {
        #expect(throws: Refusal.self) { try literal(of: text, named: "f.js") }
        #expect((try? literal(of: text, named: "f.js")) == nil)
    }

    @Test func tabsAndLineBreaksAreKept() throws {
        #expect(try literal(of: "a\tb\n\nc", named: "f.js") == "#\"\"\"\na\tb\n\nc\n\"\"\"#")
    }
}
