import AnnoLinkTestSupport
import Foundation

/// The fonts the text-metrics tests measure with. `scripts/install-deps` installs both; a test
/// whose font is missing fails with FreeType's "cannot open resource" and the font's path.
enum TestFonts {
    /// The Tahoma-compatible font of Debian's `fonts-wine`, the font the Loudoun facts were
    /// measured with.
    static let tahomaPath = "/usr/share/wine/fonts/tahoma.ttf"
    /// DejaVu Sans from Debian's `fonts-dejavu-core`, a font with a `kern` table.
    static let dejaVuSansPath = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

    /// A new empty folder, removed by the caller.
    static func temporaryFolder() throws -> URL {
        try ScratchDirectory.make(prefix: "fonts")
    }
}
