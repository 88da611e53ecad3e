/// How much room a line of text takes at a given size, in points: along the baseline its
/// advance box and its ink, across it the font's ascent and descent.
///
/// Offsets along the baseline are measured from the start of the advance box (the pen position
/// before the first glyph), in the reading direction. The ink is the union of the glyphs'
/// outlines: for a text whose first and last glyphs have ink, it starts at the first glyph's
/// left side bearing and ends at the advance width less the last glyph's right side bearing.
public struct TextExtent: Hashable, Sendable {
    /// The sum of the advance widths, in points, with `kerning` included.
    public var advanceWidth: Double
    /// Where the ink starts along the baseline, in points from the start of the advance box.
    /// For a text without ink (empty, or only spaces) the ink is empty and sits at the middle
    /// of the advance box: `inkStart == inkEnd == advanceWidth / 2`.
    public var inkStart: Double
    /// Where the ink ends along the baseline, in points from the start of the advance box.
    public var inkEnd: Double
    /// The font's ascent above the baseline, in points (positive).
    public var ascent: Double
    /// The font's descent below the baseline, in points (positive).
    public var descent: Double
    /// The kerning included in `advanceWidth`, in points: the sum of the pair adjustments,
    /// negative when pairs were moved closer; 0 when measured without kerning.
    public var kerning: Double
    /// How many characters the font has no glyph for; they were measured with `.notdef`.
    public var missingGlyphCount: Int

    /// An extent with the given values (points).
    public init(advanceWidth: Double, inkStart: Double, inkEnd: Double, ascent: Double, descent: Double,
                kerning: Double = 0, missingGlyphCount: Int = 0) {
        self.advanceWidth = advanceWidth
        self.inkStart = inkStart
        self.inkEnd = inkEnd
        self.ascent = ascent
        self.descent = descent
        self.kerning = kerning
        self.missingGlyphCount = missingGlyphCount
    }

    /// The ink's length along the baseline, in points: the footprint's length.
    public var inkWidth: Double { inkEnd - inkStart }

    /// Descent plus ascent, in points: the footprint's height across the text.
    public var height: Double { ascent + descent }

    /// Whether some character was measured with `.notdef` because the font lacks it.
    public var hasMissingGlyphs: Bool { missingGlyphCount > 0 }
}
