/// The horizontal metrics of one glyph in font units (design units: `FontFace.unitsPerEm` of
/// them make an em), unhinted, as the font's `hmtx` and glyph outline give them.
///
/// Along the baseline, from the pen position where the glyph starts: the ink (the outline's
/// extent) runs from `inkMinX` to `inkMaxX`, and the next glyph starts at `advance`.
public struct GlyphMetrics: Hashable, Sendable {
    /// The glyph's index in the font; 0 is `.notdef`, the glyph for missing characters.
    public var glyphIndex: UInt32
    /// The advance width, in font units.
    public var advance: Int32
    /// Where the ink starts: the left side bearing, in font units.
    public var inkMinX: Int32
    /// Where the ink ends (left side bearing + outline width), in font units.
    public var inkMaxX: Int32
    /// Whether the glyph has an outline; a space has none, and then `inkMinX` and `inkMaxX` are
    /// 0 and take no part in a text's ink.
    public var hasInk: Bool

    /// Metrics with the given values, in font units.
    public init(glyphIndex: UInt32, advance: Int32, inkMinX: Int32, inkMaxX: Int32, hasInk: Bool) {
        self.glyphIndex = glyphIndex
        self.advance = advance
        self.inkMinX = inkMinX
        self.inkMaxX = inkMaxX
        self.hasInk = hasInk
    }

    /// Whether the font has no glyph for the character and these are `.notdef`'s metrics.
    public var isMissing: Bool { glyphIndex == 0 }

    /// The left side bearing, in font units: the pen position to the ink's left edge.
    public var leftSideBearing: Int32 { inkMinX }

    /// The right side bearing, in font units: the ink's right edge to the advance
    /// (advance − (left side bearing + outline width)).
    public var rightSideBearing: Int32 { advance - inkMaxX }
}
