internal import CFreeType

/// Owns one FreeType face (`FT_New_Face` … `FT_Done_Face`): one font of a font file, measured
/// in its design units, with a cache of the glyph metrics read so far.
///
/// A face keeps its `FontLibrary` alive. Glyphs are read unhinted at their design size
/// (`FT_LOAD_NO_SCALE`), so measurements are exact in font units and scale linearly with the
/// point size; each character costs one FreeType call the first time it is measured and a
/// table look-up after that (an array for ASCII, a dictionary for the rest).
///
/// Not `Sendable`: it belongs to its library's isolation domain.
public final class FontFace {
    /// The `FT_Face`.
    let handle: FT_Face
    /// The FreeType face itself, for drawing text with the very glyphs that were measured
    /// (Cairo's `cairo_ft_font_face_create_for_ft_face`). Borrowed: valid while this face lives
    /// (keep a reference to it), never freed by the caller, and only used in its isolation domain.
    /// Opaque so that this module's clients need not see FreeType's headers: it is an `FT_Face`.
    public var freeTypeFace: OpaquePointer { OpaquePointer(handle) }
    /// The library the face was opened in; FreeType needs it alive as long as the face.
    public let library: FontLibrary
    /// The font file.
    public let path: String
    /// The face's index in the file.
    public let faceIndex: Int
    /// The family name the font gives, e.g. `Tahoma`.
    public let familyName: String
    /// The style name the font gives, e.g. `Regular`.
    public let styleName: String
    /// Font units per em (the `head` table's `unitsPerEm`), e.g. 2048.
    public let unitsPerEm: Int
    /// The ascent above the baseline, in font units (positive); see `verticalMetrics`.
    public let ascent: Int
    /// The descent below the baseline, in font units (positive); see `verticalMetrics`.
    public let descent: Int
    /// Which of the font's tables `ascent` and `descent` come from.
    public let verticalMetrics: VerticalMetricsSource
    /// Where the font's kerning comes from.
    public let kerningSource: KerningSource
    /// The `GPOS` kerning, when that is the source.
    private let openTypeKerning: OpenTypePairKerning?

    /// Glyph metrics of the ASCII characters, by code point; `notRead` until read. Memory this
    /// face allocates and frees itself: measuring is the hot path of bulk moves, and a class's
    /// array property would cost an exclusivity check and a uniqueness check per character.
    private let asciiGlyphs: UnsafeMutablePointer<GlyphMetrics>
    /// Glyph metrics of the other characters read so far, by code point.
    private var otherGlyphs: [UInt32: GlyphMetrics] = [:]
    /// Kerning of the ASCII character pairs, at `left * 128 + right`, in font units;
    /// `Int32.min` for pairs not read yet. Allocated and freed by this face, like `asciiGlyphs`;
    /// nil for a font without kerning.
    private let asciiKerning: UnsafeMutablePointer<Int32>?
    /// Kerning of the other glyph pairs met so far (left index in the high half), in font units.
    private var kerningPairs: [UInt64: Int32] = [:]

    /// Where a face's kerning comes from.
    public enum KerningSource: Hashable, Sendable {
        /// The font has no kerning: every pair is 0.
        case none
        /// The pair adjustments of the `GPOS` table's `kern` feature (read by annolink; see
        /// docs/text-metrics.md for what is left out). Preferred when a font has both tables,
        /// as text shapers do.
        case openTypePositioning
        /// The `kern` table, read by FreeType (`FT_HAS_KERNING`, `FT_Get_Kerning`).
        case kernTable
    }

    /// Whether the font kerns (`kerningSource` is not `.none`).
    public var hasKerning: Bool { kerningSource != .none }

    /// Where the ascent and descent of a face come from.
    public enum VerticalMetricsSource: Hashable, Sendable {
        /// The `OS/2` table's `usWinAscent` and `usWinDescent`: what Windows (and so ArcGIS)
        /// takes as the font's ascent and descent.
        case windows
        /// The `hhea` table's ascender and descender, for fonts without an `OS/2` table.
        case horizontalHeader
    }

    /// Opens the face `faceIndex` of the font file at `path` in `library`.
    ///
    /// - Throws: `FontError.freeType` when FreeType cannot open the file as a font,
    ///   `FontError.notScalable` for a font without outlines. Wraps `FT_New_Face`.
    init(library: FontLibrary, path: String, faceIndex: Int) throws {
        var face: FT_Face?
        let error = FT_New_Face(library.handle, path, FT_Long(faceIndex), &face)
        guard error == 0, let face else {
            throw FontError.freeType("FT_New_Face", error, path: path)
        }
        let record = face.pointee
        let flags = record.face_flags
        guard flags & FT_Long(FT_FACE_FLAG_SCALABLE) != 0, record.units_per_EM > 0 else {
            FT_Done_Face(face)
            throw FontError.notScalable(path: path)
        }
        self.handle = face
        self.library = library
        self.path = path
        self.faceIndex = faceIndex
        self.familyName = record.family_name.map { String(cString: $0) } ?? ""
        self.styleName = record.style_name.map { String(cString: $0) } ?? ""
        self.unitsPerEm = Int(record.units_per_EM)
        do {
            let gpos = flags & FT_Long(FT_FACE_FLAG_SFNT) != 0 ? try Self.loadTable(face, "GPOS", path: path) : nil
            self.openTypeKerning = gpos.flatMap { OpenTypePairKerning(gpos: $0) }
        } catch {
            FT_Done_Face(face)
            throw error
        }
        if openTypeKerning != nil {
            self.kerningSource = .openTypePositioning
        } else if flags & FT_Long(FT_FACE_FLAG_KERNING) != 0 {
            self.kerningSource = .kernTable
        } else {
            self.kerningSource = .none
        }
        if let table = FT_Get_Sfnt_Table(face, FT_SFNT_OS2) {
            let os2 = table.assumingMemoryBound(to: TT_OS2.self).pointee
            if os2.version != 0xFFFF, Int(os2.usWinAscent) + Int(os2.usWinDescent) > 0 {
                self.ascent = Int(os2.usWinAscent)
                self.descent = Int(os2.usWinDescent)
                self.verticalMetrics = .windows
            } else {
                self.ascent = Int(record.ascender)
                self.descent = -Int(record.descender)
                self.verticalMetrics = .horizontalHeader
            }
        } else {
            self.ascent = Int(record.ascender)
            self.descent = -Int(record.descender)
            self.verticalMetrics = .horizontalHeader
        }
        self.asciiGlyphs = .allocate(capacity: 128)
        asciiGlyphs.initialize(repeating: Self.notRead, count: 128)
        if kerningSource == .none {
            self.asciiKerning = nil
        } else {
            let pairs = UnsafeMutablePointer<Int32>.allocate(capacity: 128 * 128)
            pairs.initialize(repeating: Int32.min, count: 128 * 128)
            self.asciiKerning = pairs
        }
        library.handleCounter?.freeType += 1
    }

    deinit {
        asciiGlyphs.deallocate()
        asciiKerning?.deallocate()
        FT_Done_Face(handle)
        library.handleCounter?.freeType -= 1
    }

    /// The metrics of the glyph the font maps `character` to, or of `.notdef` (glyph 0) when
    /// it has none (then `isMissing` is true); in font units.
    ///
    /// Read from FreeType on the first request for a character and cached.
    /// - Throws: `FontError.freeType` when FreeType cannot load the glyph.
    ///   Wraps `FT_Get_Char_Index` and `FT_Load_Glyph`.
    public func glyphMetrics(for character: Unicode.Scalar) throws -> GlyphMetrics {
        try glyphMetrics(character.value)
    }

    /// The metrics of the glyph for the Unicode code point `code`, cached.
    private func glyphMetrics(_ code: UInt32) throws -> GlyphMetrics {
        if code < 128 {
            let cached = asciiGlyphs[Int(code)]
            if cached.glyphIndex != Self.notRead.glyphIndex {
                return cached
            }
            let glyph = try loadGlyph(code)
            asciiGlyphs[Int(code)] = glyph
            return glyph
        }
        if let glyph = otherGlyphs[code] {
            return glyph
        }
        let glyph = try loadGlyph(code)
        otherGlyphs[code] = glyph
        return glyph
    }

    /// The kerning between two glyphs (by glyph index), in font units: the change in the left
    /// glyph's advance, negative when the pair is set closer; 0 when the font has no kerning.
    ///
    /// Read on the first request for a pair, from `kerningSource`, and cached.
    /// - Throws: `FontError.freeType` when FreeType cannot read the `kern` table.
    ///   Wraps `FT_Get_Kerning` with `FT_KERNING_UNSCALED` for `.kernTable`.
    public func kerning(between left: UInt32, and right: UInt32) throws -> Int32 {
        let key = UInt64(left) << 32 | UInt64(right)
        if let value = kerningPairs[key] {
            return value
        }
        let value = try readKerning(left, right)
        kerningPairs[key] = value
        return value
    }

    /// The kerning between the glyphs of two characters, in font units, cached by character
    /// for ASCII pairs (a flat table: no hashing in the common case).
    private func kerning(_ left: UInt32, _ leftGlyph: UInt32, _ right: UInt32, _ rightGlyph: UInt32) throws -> Int32 {
        guard left < 128, right < 128, let asciiKerning else {
            return try kerning(between: leftGlyph, and: rightGlyph)
        }
        let slot = Int(left) * 128 + Int(right)
        let cached = asciiKerning[slot]
        if cached != Int32.min {
            return cached
        }
        let value = try readKerning(leftGlyph, rightGlyph)
        asciiKerning[slot] = value
        return value
    }

    /// Reads a pair's kerning from the font, in font units.
    private func readKerning(_ left: UInt32, _ right: UInt32) throws -> Int32 {
        switch kerningSource {
        case .none:
            return 0
        case .openTypePositioning:
            return openTypeKerning?.kerning(left, right) ?? 0
        case .kernTable:
            var vector = FT_Vector()
            let error = FT_Get_Kerning(handle, left, right, FT_KERNING_UNSCALED.rawValue, &vector)
            guard error == 0 else {
                throw FontError.freeType("FT_Get_Kerning", error, path: path)
            }
            return Int32(clamping: vector.x)
        }
    }

    /// The bytes of the SFNT table `tag`, or nil when the font has no such table.
    /// Wraps `FT_Load_Sfnt_Table`.
    private static func loadTable(_ face: FT_Face, _ tag: String, path: String) throws -> [UInt8]? {
        let code = tag.utf8.reduce(FT_ULong(0)) { $0 << 8 | FT_ULong($1) }
        var length: FT_ULong = 0
        var error = FT_Load_Sfnt_Table(face, code, 0, nil, &length)
        if error == tableMissing {
            return nil
        }
        guard error == 0 else {
            throw FontError.freeType("FT_Load_Sfnt_Table(\(tag))", error, path: path)
        }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        error = bytes.withUnsafeMutableBufferPointer { buffer in
            FT_Load_Sfnt_Table(face, code, 0, buffer.baseAddress, &length)
        }
        guard error == 0 else {
            throw FontError.freeType("FT_Load_Sfnt_Table(\(tag))", error, path: path)
        }
        return bytes
    }

    /// The mark of an ASCII glyph not read yet (no font has 2³² − 1 glyphs).
    private static let notRead = GlyphMetrics(glyphIndex: .max, advance: 0, inkMinX: 0, inkMaxX: 0, hasInk: false)

    /// FreeType's `FT_Err_Table_Missing`.
    private static let tableMissing: FT_Error = 0x8E

    /// The extent of `text` set on one line in this font at `pointSize` points, in points.
    ///
    /// Every Unicode scalar is one glyph (no shaping, ligatures or line breaks). With
    /// `kerning` (the default) the font's kerning pairs move the glyphs, and `advanceWidth` and
    /// the ink include it; without, the glyphs sit at their plain advances. (ArcGIS sets the
    /// baseline with kerning but its footprint from the unkerned glyphs: see
    /// docs/text-metrics.md.) Characters the font lacks are measured with `.notdef` and
    /// counted in `missingGlyphCount`. Once the glyphs and pairs are cached, a call costs a
    /// table look-up per character and allocates nothing.
    ///
    /// - Throws: `FontError.freeType` when a glyph or pair met for the first time cannot be read.
    public func extent(of text: String, pointSize: Double, kerning: Bool = true) throws -> TextExtent {
        var run = GlyphRun(kerns: kerning && hasKerning)
        // ASCII text, the common case, is read byte by byte without decoding UTF-8.
        let readAsASCII = try text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return false }
            for byte in bytes {
                try append(UInt32(byte), to: &run)
            }
            return true
        }
        if readAsASCII != true {
            for character in text.unicodeScalars {
                try append(character.value, to: &run)
            }
        }
        let pointsPerUnit = pointSize / Double(unitsPerEm)
        let advanceWidth = Double(run.pen) * pointsPerUnit
        let hasInk = run.inkMin <= run.inkMax
        return TextExtent(
            advanceWidth: advanceWidth,
            inkStart: hasInk ? Double(run.inkMin) * pointsPerUnit : advanceWidth / 2,
            inkEnd: hasInk ? Double(run.inkMax) * pointsPerUnit : advanceWidth / 2,
            ascent: Double(ascent) * pointsPerUnit,
            descent: Double(descent) * pointsPerUnit,
            kerning: Double(run.kerning) * pointsPerUnit,
            missingGlyphCount: run.missing)
    }

    /// Sets the character `code` after the glyphs of `run`.
    @inline(__always)
    private func append(_ code: UInt32, to run: inout GlyphRun) throws {
        let glyph = try glyphMetrics(code)
        if run.kerns {
            if run.hasPrevious {
                let adjustment = Int(try kerning(run.previousCode, run.previousGlyph, code, glyph.glyphIndex))
                run.pen += adjustment
                run.kerning += adjustment
            }
            run.hasPrevious = true
            run.previousCode = code
            run.previousGlyph = glyph.glyphIndex
        }
        if glyph.hasInk {
            run.inkMin = min(run.inkMin, run.pen + Int(glyph.inkMinX))
            run.inkMax = max(run.inkMax, run.pen + Int(glyph.inkMaxX))
        }
        if glyph.isMissing {
            run.missing += 1
        }
        run.pen += Int(glyph.advance)
    }

    /// Reads one glyph's metrics from FreeType, in font units.
    private func loadGlyph(_ code: UInt32) throws -> GlyphMetrics {
        let index = FT_Get_Char_Index(handle, FT_ULong(code))
        // NO_SCALE: design units, unhinted, no bitmaps.
        let error = FT_Load_Glyph(handle, index, FT_Int32(FT_LOAD_NO_SCALE))
        guard error == 0 else {
            throw FontError.freeType("FT_Load_Glyph", error, path: path)
        }
        let slot = handle.pointee.glyph.pointee
        let metrics = slot.metrics
        let hasInk = slot.format == FT_GLYPH_FORMAT_OUTLINE && slot.outline.n_points > 0
        return GlyphMetrics(
            glyphIndex: index,
            advance: Int32(clamping: metrics.horiAdvance),
            inkMinX: hasInk ? Int32(clamping: metrics.horiBearingX) : 0,
            inkMaxX: hasInk ? Int32(clamping: metrics.horiBearingX + metrics.width) : 0,
            hasInk: hasInk)
    }
}

@available(*, unavailable)
extension FontFace: Sendable {}

/// The glyphs set so far along a line, in font units.
private struct GlyphRun {
    /// Whether pairs are kerned.
    let kerns: Bool
    /// The pen position: the advances (and kerning) so far.
    var pen = 0
    /// The kerning in `pen`.
    var kerning = 0
    /// The ink's extent so far; `inkMin > inkMax` while there is none.
    var inkMin = Int.max
    var inkMax = Int.min
    /// Characters measured with `.notdef`.
    var missing = 0
    /// The last character and its glyph, for kerning the next pair.
    var hasPrevious = false
    var previousCode: UInt32 = 0
    var previousGlyph: UInt32 = 0

    init(kerns: Bool) {
        self.kerns = kerns
    }
}
