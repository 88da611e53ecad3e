internal import CFreeType
import Foundation

/// Where a font family was found: a font file and the face in it.
public struct FontLocation: Hashable, Sendable {
    /// The family name as the font gives it, e.g. `Tahoma`.
    public var family: String
    /// The style name as the font gives it, e.g. `Regular`, `Bold`.
    public var style: String
    /// The font file.
    public var path: String
    /// The face's index in the file (0 except in font collections such as `.ttc`).
    public var faceIndex: Int

    /// A location of the face `faceIndex` in the file at `path`.
    public init(family: String, style: String, path: String, faceIndex: Int) {
        self.family = family
        self.style = style
        self.path = path
        self.faceIndex = faceIndex
    }
}

/// Owns one fontconfig configuration (`FcConfig`): the fonts a `FontSearchPath` names, to be
/// matched by family name.
///
/// Not `Sendable`: it belongs to the `FontLibrary` that made it.
final class FontconfigConfiguration {
    /// The `FcConfig *`.
    let handle: OpaquePointer
    let handleCounter: FontHandleCounter?

    /// Loads fontconfig's configured fonts (when the search path includes them) and adds the
    /// font files in the search path's folders and their subfolders.
    ///
    /// Folders that do not exist, and folders fontconfig's configuration already covers, are
    /// skipped. Files are added one by one (`FcConfigAppFontAddFile`) rather than by folder
    /// (`FcConfigAppFontAddDir`), because adding a folder makes fontconfig write a cache for
    /// it, or print an error to stderr when it has nowhere to write one. Only outline fonts
    /// (`.ttf`, `.otf`, `.ttc`, `.otc`) are added; files fontconfig cannot read are passed over.
    ///
    /// - Throws: `FontError.libraryMissing` when libfontconfig cannot be loaded (it is loaded on
    ///   first use), `FontError.fontconfig` when fontconfig cannot make the configuration.
    ///   Wraps `FcInitLoadConfigAndFonts` (or `FcConfigCreate` without the system fonts).
    init(searchPath: FontSearchPath, handleCounter: FontHandleCounter?) throws {
        guard annolink_fontconfig_load() == 0 else {
            throw FontError.libraryMissing(annolink_fontconfig_load_error().map { String(cString: $0) } ?? "cannot load fontconfig")
        }
        let function = searchPath.includesSystemFonts ? "FcInitLoadConfigAndFonts" : "FcConfigCreate"
        guard let handle = searchPath.includesSystemFonts ? FcInitLoadConfigAndFonts() : FcConfigCreate() else {
            throw FontError.fontconfig(function: function)
        }
        self.handle = handle
        self.handleCounter = handleCounter
        handleCounter?.fontconfig += 1
        let covered = configuredFolders()
        for folder in searchPath.folders {
            let resolved = URL(fileURLWithPath: folder).resolvingSymlinksInPath().path
            guard !covered.contains(where: { resolved == $0 || resolved.hasPrefix($0 + "/") }) else { continue }
            for file in Self.fontFiles(in: resolved) {
                // FcFalse: not a font fontconfig can read; the lookup goes on without it.
                _ = FcConfigAppFontAddFile(handle, file)
            }
        }
    }

    /// The folders fontconfig's configuration scans, symbolic links resolved.
    /// Wraps `FcConfigGetFontDirs`.
    private func configuredFolders() -> [String] {
        guard let list = FcConfigGetFontDirs(handle) else { return [] }
        defer { FcStrListDone(list) }
        var folders: [String] = []
        while let folder = FcStrListNext(list) {
            folders.append(URL(fileURLWithPath: String(cString: folder)).resolvingSymlinksInPath().path)
        }
        return folders
    }

    /// The outline font files in `folder` and its subfolders, in a stable order.
    private static func fontFiles(in folder: String) -> [String] {
        guard let walk = FileManager.default.enumerator(atPath: folder) else { return [] }
        var files: [String] = []
        while let relative = walk.nextObject() as? String {
            let suffix = relative.split(separator: ".").last.map { $0.lowercased() } ?? ""
            if ["ttf", "otf", "ttc", "otc"].contains(suffix) {
                files.append(folder + "/" + relative)
            }
        }
        return files.sorted()
    }

    deinit {
        FcConfigDestroy(handle)
        handleCounter?.fontconfig -= 1
    }

    /// The font fontconfig matches for `family` in the wanted style, or nil when its best match
    /// is another family: fontconfig always answers with *some* font, so the answer is only
    /// taken when one of its family names equals `family`, ignoring case and spaces as
    /// fontconfig itself does.
    ///
    /// - Throws: `FontError.fontconfig` when fontconfig cannot build or run the query.
    /// Wraps `FcFontMatch`.
    func match(family: String, bold: Bool, italic: Bool) throws -> FontLocation? {
        guard let pattern = FcPatternCreate() else {
            throw FontError.fontconfig(function: "FcPatternCreate")
        }
        defer { FcPatternDestroy(pattern) }
        let name = Array(family.utf8) + [0]
        guard FcPatternAddString(pattern, FC_FAMILY, name) == FcTrue,
              FcPatternAddInteger(pattern, FC_WEIGHT, bold ? FC_WEIGHT_BOLD : FC_WEIGHT_REGULAR) == FcTrue,
              FcPatternAddInteger(pattern, FC_SLANT, italic ? FC_SLANT_ITALIC : FC_SLANT_ROMAN) == FcTrue
        else {
            throw FontError.fontconfig(function: "FcPatternAdd")
        }
        guard FcConfigSubstitute(handle, pattern, FcMatchPattern) == FcTrue else {
            throw FontError.fontconfig(function: "FcConfigSubstitute")
        }
        FcDefaultSubstitute(pattern)
        var result = FcResultNoMatch
        // NULL means there are no fonts at all in the configuration.
        guard let match = FcFontMatch(handle, pattern, &result) else { return nil }
        defer { FcPatternDestroy(match) }

        let wanted = Self.comparable(family)
        guard let matchedFamily = Self.strings(match, FC_FAMILY).first(where: { Self.comparable($0) == wanted }),
              let path = Self.strings(match, FC_FILE).first
        else {
            return nil
        }
        var index: Int32 = 0
        if FcPatternGetInteger(match, FC_INDEX, 0, &index) != FcResultMatch {
            index = 0
        }
        return FontLocation(family: matchedFamily, style: Self.strings(match, FC_STYLE).first ?? "",
                            path: path, faceIndex: Int(index))
    }

    /// All values of a string property of a pattern (a font has one family name per language).
    private static func strings(_ pattern: OpaquePointer, _ object: String) -> [String] {
        var values: [String] = []
        var value: UnsafeMutablePointer<FcChar8>?
        while FcPatternGetString(pattern, object, Int32(values.count), &value) == FcResultMatch, let value {
            // The string belongs to the pattern: copy it before the pattern goes.
            values.append(String(cString: value))
        }
        return values
    }

    /// A family name as fontconfig compares them: without case and spaces.
    private static func comparable(_ family: String) -> String {
        String(family.lowercased().filter { $0 != " " })
    }
}

@available(*, unavailable)
extension FontconfigConfiguration: Sendable {}
