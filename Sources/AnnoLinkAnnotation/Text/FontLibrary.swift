internal import CFreeType
import Foundation

/// Owns one FreeType library (`FT_Init_FreeType` … `FT_Done_FreeType`) and finds fonts for it
/// by family name.
///
/// Faces opened through a library (`FontFace`) keep it alive, so a face stays usable after the
/// last other reference to its library is gone. A library, its faces and the `TextMetrics`
/// made from them belong to one isolation domain (they are not `Sendable`); make one library
/// per task.
public final class FontLibrary {
    /// The `FT_Library`.
    let handle: FT_Library
    let handleCounter: FontHandleCounter?
    /// Where fonts are looked for by family name.
    public let searchPath: FontSearchPath
    /// Made on the first lookup by family name: loading fontconfig's fonts takes a while and
    /// measuring a font file given by path does not need it.
    private var fontconfig: FontconfigConfiguration?

    /// Opens a FreeType library.
    ///
    /// - Parameters:
    ///   - searchPath: where `locate(family:bold:italic:)` and `textMetrics(family:bold:italic:)`
    ///     look for fonts; by default fontconfig's fonts plus the standard folders, or
    ///     `ANNOLINK_FONT_PATH` when set (see `FontSearchPath`).
    ///   - handleCounter: counts this library and everything opened through it while alive.
    /// - Throws: `FontError.libraryMissing` when libfreetype cannot be loaded (it is loaded on
    ///   first use), `FontError.freeType` when FreeType cannot start. Wraps `FT_Init_FreeType`.
    public init(searchPath: FontSearchPath = .fromEnvironment(), handleCounter: FontHandleCounter? = nil) throws {
        guard annolink_freetype_load() == 0 else {
            throw FontError.libraryMissing(annolink_freetype_load_error().map { String(cString: $0) } ?? "cannot load FreeType")
        }
        var library: FT_Library?
        let error = FT_Init_FreeType(&library)
        guard error == 0, let library else {
            throw FontError.freeType("FT_Init_FreeType", error)
        }
        self.handle = library
        self.handleCounter = handleCounter
        self.searchPath = searchPath
        handleCounter?.freeType += 1
    }

    deinit {
        // Faces hold the library, so none is left when this runs; the fontconfig configuration
        // is freed by its own owner.
        FT_Done_FreeType(handle)
        handleCounter?.freeType -= 1
    }

    /// Opens the face `faceIndex` of the font file at `path`.
    ///
    /// - Throws: `FontError.freeType` when the file cannot be read as a font (FreeType's error
    ///   code and text, e.g. "cannot open resource", "unknown file format"), and
    ///   `FontError.notScalable` for bitmap fonts. Wraps `FT_New_Face`.
    public func openFace(path: String, faceIndex: Int = 0) throws -> FontFace {
        try FontFace(library: self, path: path, faceIndex: faceIndex)
    }

    /// Where the search path holds the font family `family` in the wanted style, or nil when it
    /// does not hold that family.
    ///
    /// Asks fontconfig (`FcFontMatch`) and takes its answer only when the matched font's family
    /// is `family` (ignoring case and spaces); a family found in another style than asked (say a
    /// regular face for a bold request) is returned as found. The first call loads fontconfig's
    /// configuration and scans the search path's folders.
    ///
    /// - Throws: `FontError.fontconfig` when fontconfig fails.
    public func locate(family: String, bold: Bool = false, italic: Bool = false) throws -> FontLocation? {
        try fontconfigConfiguration().match(family: family, bold: bold, italic: italic)
    }

    /// The text metrics of the font family `family`, or of the fallback when the search path
    /// does not hold it.
    ///
    /// Each call opens the font anew, with an empty glyph cache: keep the result and measure
    /// every text in that font with it. (The library does not keep it for you, since the
    /// metrics keep the library alive.)
    ///
    /// The fallback is `TextMetrics.fallbackFamily` (DejaVu Sans) when present, and otherwise
    /// the fixed-ratio model (`FontSource.fixedRatioModel`). Either way the result says
    /// `isFallback` and carries a `fallbackWarning` the caller can show; the library prints
    /// nothing.
    ///
    /// - Throws: `FontError` when fontconfig fails, or when a font found cannot be opened.
    public func textMetrics(family: String, bold: Bool = false, italic: Bool = false) throws -> TextMetrics {
        if !bold, !italic, let face = namedFontFile(family: family) {
            let location = FontLocation(family: face.familyName, style: face.styleName, path: face.path, faceIndex: 0)
            return TextMetrics(requestedFamily: family, face: face, location: location, isFallback: false)
        }
        if let location = try locate(family: family, bold: bold, italic: italic) {
            let face = try openFace(path: location.path, faceIndex: location.faceIndex)
            return TextMetrics(requestedFamily: family, face: face, location: location, isFallback: false)
        }
        if let location = try locate(family: TextMetrics.fallbackFamily, bold: bold, italic: italic) {
            let face = try openFace(path: location.path, faceIndex: location.faceIndex)
            return TextMetrics(requestedFamily: family, face: face, location: location, isFallback: true)
        }
        return TextMetrics(fixedRatioModelFor: family)
    }

    /// The regular face of `family` when a search-path folder holds it under the family's own
    /// name (`tahoma.ttf` for Tahoma, spaces left out, at the folder's top level) and the file
    /// says it is that family in a regular style; nil otherwise.
    ///
    /// Tried before fontconfig because loading fontconfig's configuration (parsing its XML,
    /// scanning font folders) was a third of the instructions of a whole `annolink set`
    /// (callgrind, docs/benchmarks.md), and Tahoma from `fonts-wine` is found this way.
    func namedFontFile(family: String) -> FontFace? {
        let base = family.lowercased().filter { $0 != " " }
        guard !base.isEmpty, !base.contains("/") else { return nil }
        for folder in searchPath.folders {
            for suffix in ["ttf", "otf"] {
                let path = "\(folder)/\(base).\(suffix)"
                guard FileManager.default.fileExists(atPath: path), let face = try? openFace(path: path) else { continue }
                let sameFamily = face.familyName.lowercased().filter { $0 != " " } == base
                if sameFamily, ["regular", "book", "normal", "roman"].contains(face.styleName.lowercased()) { return face }
            }
        }
        return nil
    }

    private func fontconfigConfiguration() throws -> FontconfigConfiguration {
        if let fontconfig {
            return fontconfig
        }
        let configuration = try FontconfigConfiguration(searchPath: searchPath, handleCounter: handleCounter)
        fontconfig = configuration
        return configuration
    }
}

@available(*, unavailable)
extension FontLibrary: Sendable {}

