/// Counts the FreeType and fontconfig objects alive that were made through the font libraries
/// given this counter, so that a test can show that everything it made was freed.
///
/// Pass a counter to `FontLibrary(searchPath:handleCounter:)`: the library (`FT_Library`), every
/// face opened through it (`FT_Face`) and its fontconfig configuration (`FcConfig`) count
/// themselves here from their creation to their `deinit`. Each test makes its own counter, so
/// tests running in parallel do not disturb each other's counts.
///
/// Like the objects it counts, a counter stays in one isolation domain.
public final class FontHandleCounter {
    /// FreeType objects alive: libraries (`FT_Init_FreeType`) and faces (`FT_New_Face`).
    public internal(set) var freeType = 0
    /// fontconfig configurations alive (`FcInitLoadConfigAndFonts`, `FcConfigCreate`).
    public internal(set) var fontconfig = 0

    /// A counter at zero.
    public init() {}

    /// All FreeType and fontconfig objects alive.
    public var total: Int { freeType + fontconfig }
}

@available(*, unavailable)
extension FontHandleCounter: Sendable {}
