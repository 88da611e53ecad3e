import Foundation

/// Where fonts are looked for by family name: fontconfig's own configuration (the fonts
/// `fc-list` shows) and a list of folders added to it.
///
/// The standard path is fontconfig's fonts plus `/usr/share/wine/fonts` (where Debian's
/// `fonts-wine` puts its Tahoma-compatible `tahoma.ttf`, which fontconfig does not list),
/// `/usr/share/fonts` and `/usr/local/share/fonts`. The environment variable
/// `ANNOLINK_FONT_PATH`, a colon-separated list of folders, replaces all of it: only the fonts
/// in those folders are used, which makes measurements independent of the fonts installed.
public struct FontSearchPath: Hashable, Sendable {
    /// Folders whose font files, in them and their subfolders, are added to the lookup.
    public var folders: [String]
    /// Whether the fonts in fontconfig's configuration are searched too.
    public var includesSystemFonts: Bool

    /// A search path of `folders`, with or without fontconfig's configured fonts.
    public init(folders: [String], includesSystemFonts: Bool) {
        self.folders = folders
        self.includesSystemFonts = includesSystemFonts
    }

    /// The environment variable that overrides the search path: colon-separated folders.
    public static let environmentVariable = "ANNOLINK_FONT_PATH"

    /// The folders searched in addition to fontconfig's configuration when
    /// `ANNOLINK_FONT_PATH` is not set.
    public static let standardFolders = ["/usr/share/wine/fonts", "/usr/share/fonts", "/usr/local/share/fonts"]

    /// fontconfig's fonts plus `standardFolders`.
    public static let standard = FontSearchPath(folders: standardFolders, includesSystemFonts: true)

    /// The search path the environment asks for: the folders in `ANNOLINK_FONT_PATH` alone
    /// when it is set and names at least one folder, otherwise `standard`.
    ///
    /// - Parameter environment: the variables to read, by default the process's own (read with
    ///   `getenv`: `ProcessInfo`'s whole environment dictionary cost a one-edit command more
    ///   than reading the font); pass a dictionary to test.
    public static func fromEnvironment(_ environment: [String: String]? = nil) -> FontSearchPath {
        let value = environment.map { $0[environmentVariable] } ?? getenv(environmentVariable).map { String(cString: $0) }
        guard let value else { return standard }
        let folders = value.split(separator: ":").map(String.init).filter { !$0.isEmpty }
        return folders.isEmpty ? standard : FontSearchPath(folders: folders, includesSystemFonts: false)
    }
}
