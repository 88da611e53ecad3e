import Foundation
import Testing

/// The fonts the text-metrics tests measure with, and whether they are installed.
enum TestFonts {
    /// The Tahoma-compatible font of Debian's `fonts-wine`, the font the Loudoun facts were
    /// measured with.
    static let tahomaPath = "/usr/share/wine/fonts/tahoma.ttf"
    /// DejaVu Sans from Debian's `fonts-dejavu-core`, a font with a `kern` table.
    static let dejaVuSansPath = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

    static var hasTahoma: Bool { FileManager.default.fileExists(atPath: tahomaPath) }
    static var hasDejaVuSans: Bool { FileManager.default.fileExists(atPath: dejaVuSansPath) }

    static let tahomaMissing: Comment = "needs \(tahomaPath) (Debian package fonts-wine)"
    static let dejaVuSansMissing: Comment = "needs \(dejaVuSansPath) (Debian package fonts-dejavu-core)"

    /// A new empty folder, removed by the caller.
    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("annolink-fonts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
