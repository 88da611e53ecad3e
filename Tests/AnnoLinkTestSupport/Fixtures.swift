import Foundation

/// The real data sets in the repository's top-level `Fixtures/` folder (see its README.md for
/// what each file is, where it came from and its licence).
///
/// The folder is found from this source file's path, so tests read the files of the checkout
/// they were built from, whatever the working directory. Open them read-only, or copy them
/// first with `copy(_:into:)`: tests must never change them.
public enum Fixtures {
    /// The package root: the folder holding `Package.swift`, two levels above this file's folder.
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The repository's `Fixtures/` folder.
    public static let directory = packageRoot.appendingPathComponent("Fixtures")

    /// The URL of the fixture file `name` (e.g. `"loudoun_anno.geodatabase"`).
    public static func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    /// The path of the fixture file `name`.
    public static func path(_ name: String) -> String { url(name).path }

    /// Esri's Loudoun sample mobile geodatabase: 33 address points, 115 parcel lines and the
    /// feature-linked annotation ArcGIS made for them, in EPSG:2924 (US survey feet).
    public static var loudoun: String { path("loudoun_anno.geodatabase") }

    /// 4,727 two-point parcel boundary segments in Prague-Bubeneč, EPSG:5514 (metres).
    public static var bubenec: String { path("bubenec_parcel_segments.gpkg") }

    /// 1,278 OpenStreetMap address points in central Helsinki, EPSG:3067 (metres).
    public static var helsinki: String { path("helsinki_address_points.gpkg") }

    /// Copies the fixture `name` into `folder`, writable (the committed files may be read-only),
    /// and returns the copy's path.
    ///
    /// Throws what `FileManager` throws when the copy fails.
    public static func copy(_ name: String, into folder: URL, as newName: String? = nil) throws -> String {
        let target = folder.appendingPathComponent(newName ?? name)
        try FileManager.default.copyItem(at: url(name), to: target)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: target.path)
        return target.path
    }
}
