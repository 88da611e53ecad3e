import AnnoLinkAnnotation
import Foundation
import Testing

/// One face's metrics, checked against numbers read from the font files by hand (a short
/// Python reading of their `head`, `hhea`, `OS/2`, `hmtx`, `glyf`, `kern` and `GPOS` tables).
struct FontFaceTests {
    @Test
    func tahomaDesignMetrics() throws {
        let face = try FontLibrary(searchPath: .standard).openFace(path: TestFonts.tahomaPath)
        #expect(face.familyName == "Tahoma")
        #expect(face.styleName == "Regular")
        #expect(face.unitsPerEm == 2048)
        // OS/2 usWinAscent and usWinDescent; hhea agrees, OS/2 typo (1566, 423) does not.
        #expect(face.ascent == 2049)
        #expect(face.descent == 423)
        let zero = try face.glyphMetrics(for: "0")
        #expect(zero == GlyphMetrics(glyphIndex: 19, advance: 1118, inkMinX: 83, inkMaxX: 1035, hasInk: true))
        #expect(zero.rightSideBearing == 83)
        let space = try face.glyphMetrics(for: " ")
        #expect(space == GlyphMetrics(glyphIndex: 3, advance: 639, inkMinX: 0, inkMaxX: 0, hasInk: false))
        let w = try face.glyphMetrics(for: "W")
        #expect(w.leftSideBearing == 27)
        #expect(w.rightSideBearing == 1847 - 1822)
    }

    @Test
    func extentOfAnAddressInPoints() throws {
        let face = try FontLibrary(searchPath: .standard).openFace(path: TestFonts.tahomaPath)
        let extent = try face.extent(of: "45763 ELMWOOD", pointSize: 10, kerning: false)
        // 16113 font units of advance; ink from 40 ("4" LSB) to 16047 (the "D"'s right edge).
        #expect(abs(extent.advanceWidth - 16113.0 / 2048 * 10) < 1e-9)
        #expect(abs(extent.inkStart - 40.0 / 2048 * 10) < 1e-9)
        #expect(abs(extent.inkEnd - 16047.0 / 2048 * 10) < 1e-9)
        #expect(abs(extent.ascent - 2049.0 / 2048 * 10) < 1e-9)
        #expect(abs(extent.descent - 423.0 / 2048 * 10) < 1e-9)
        #expect(extent.kerning == 0)
        #expect(!extent.hasMissingGlyphs)
    }

    @Test
    func tahomaKerningFromItsPositioningTable() throws {
        let face = try FontLibrary(searchPath: .standard).openFace(path: TestFonts.tahomaPath)
        #expect(face.kerningSource == .openTypePositioning)
        let seven = try face.glyphMetrics(for: "7").glyphIndex
        let period = try face.glyphMetrics(for: ".").glyphIndex
        let a = try face.glyphMetrics(for: "A").glyphIndex
        let v = try face.glyphMetrics(for: "V").glyphIndex
        #expect(try face.kerning(between: seven, and: period) == -150)
        #expect(try face.kerning(between: period, and: seven) == -49)
        #expect(try face.kerning(between: a, and: v) == -55)
        #expect(try face.kerning(between: seven, and: seven) == 0)
        let kerned = try face.extent(of: "37.48", pointSize: 10)
        let plain = try face.extent(of: "37.48", pointSize: 10, kerning: false)
        #expect(abs(kerned.kerning - -150.0 / 2048 * 10) < 1e-9)
        #expect(abs(plain.advanceWidth + kerned.kerning - kerned.advanceWidth) < 1e-9)
    }

    @Test
    func nonASCIITextIsMeasuredAndKernedAlike() throws {
        let face = try FontLibrary(searchPath: .standard).openFace(path: TestFonts.tahomaPath)
        // é 1077, T 1196, o 1112 units; T–o kerned by −209.
        let extent = try face.extent(of: "éTo", pointSize: 2048)
        #expect(extent.advanceWidth == 1077 + 1196 + 1112 - 209)
        #expect(extent.kerning == -209)
        #expect(try face.extent(of: "To", pointSize: 2048).kerning == -209)
    }

    @Test
    func kerningNarrowsAV() throws {
        let face = try FontLibrary(searchPath: .standard).openFace(path: TestFonts.dejaVuSansPath)
        #expect(face.hasKerning)
        let a = try face.glyphMetrics(for: "A")
        let v = try face.glyphMetrics(for: "V")
        let pair = try face.extent(of: "AV", pointSize: 2048)
        // DejaVu Sans kerns A–V by −131 units in both its kern and GPOS tables.
        #expect(pair.advanceWidth == Double(a.advance + v.advance - 131))
        #expect(pair.kerning == -131)
        let apart = try face.extent(of: "AV", pointSize: 2048, kerning: false)
        #expect(apart.advanceWidth == Double(a.advance + v.advance))
        #expect(try face.extent(of: "To", pointSize: 2048).kerning == -348)
    }

    @Test
    func emptyText() throws {
        let face = try FontLibrary(searchPath: .standard).openFace(path: TestFonts.tahomaPath)
        let extent = try face.extent(of: "", pointSize: 10)
        #expect(extent.advanceWidth == 0)
        #expect(extent.inkStart == 0)
        #expect(extent.inkEnd == 0)
        #expect(extent.inkWidth == 0)
        #expect(extent.kerning == 0)
        #expect(abs(extent.height - 2472.0 / 2048 * 10) < 1e-9)
    }

    @Test
    func spacesHaveNoInk() throws {
        let face = try FontLibrary(searchPath: .standard).openFace(path: TestFonts.tahomaPath)
        let extent = try face.extent(of: "  ", pointSize: 10)
        #expect(abs(extent.advanceWidth - 2 * 639.0 / 2048 * 10) < 1e-9)
        #expect(extent.inkStart == extent.advanceWidth / 2)
        #expect(extent.inkWidth == 0)
        // Spaces around the text widen its advance box but not its ink.
        let padded = try face.extent(of: " 5 ", pointSize: 10)
        let bare = try face.extent(of: "5", pointSize: 10)
        #expect(abs(padded.inkWidth - bare.inkWidth) < 1e-9)
        #expect(abs(padded.inkStart - (bare.inkStart + 639.0 / 2048 * 10)) < 1e-9)
    }

    @Test
    func missingCharactersUseNotdef() throws {
        let face = try FontLibrary(searchPath: .standard).openFace(path: TestFonts.tahomaPath)
        let notdef = try face.glyphMetrics(for: "\u{10FFFD}")
        #expect(notdef.isMissing)
        #expect(notdef == GlyphMetrics(glyphIndex: 0, advance: 2048, inkMinX: 256, inkMaxX: 1792, hasInk: true))
        let extent = try face.extent(of: "1\u{10FFFD}2\u{10FFFD}", pointSize: 10)
        #expect(extent.missingGlyphCount == 2)
        #expect(extent.hasMissingGlyphs)
        #expect(abs(extent.advanceWidth - (2 * 1118.0 + 2 * 2048) / 2048 * 10) < 1e-9)
        // Cached: asking again gives the same, and a present non-ASCII character is found.
        #expect(try face.glyphMetrics(for: "\u{10FFFD}") == notdef)
        #expect(try !face.glyphMetrics(for: "é").isMissing)
    }

    @Test func missingFileIsAFreeTypeError() throws {
        let library = try FontLibrary(searchPath: .standard)
        #expect {
            _ = try library.openFace(path: "/no/such/font.ttf")
        } throws: { error in
            guard case let .freeType(function, code, message, path) = error as? FontError else { return false }
            return function == "FT_New_Face" && code == 0x01 && message == "cannot open resource"
                && path == "/no/such/font.ttf"
        }
    }

    @Test func nonFontFileIsAFreeTypeError() throws {
        let folder = try TestFonts.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("notes.ttf")
        try Data("not a font".utf8).write(to: file)
        let library = try FontLibrary(searchPath: .standard)
        #expect {
            _ = try library.openFace(path: file.path)
        } throws: { error in
            guard case let .freeType(_, code, message, _) = error as? FontError else { return false }
            return code == 0x02 && message == "unknown file format"
                && String(describing: error).contains("unknown file format (error 0x2)")
        }
    }

    /// /usr/share/wine/fonts/sserife.fon is a bitmap font of Debian's fonts-wine.
    @Test
    func bitmapFontIsRefused() throws {
        let library = try FontLibrary(searchPath: .standard)
        #expect(throws: FontError.notScalable(path: "/usr/share/wine/fonts/sserife.fon")) {
            _ = try library.openFace(path: "/usr/share/wine/fonts/sserife.fon")
        }
    }
}
