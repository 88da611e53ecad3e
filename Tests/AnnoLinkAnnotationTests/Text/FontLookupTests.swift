import AnnoLinkAnnotation
import Foundation
import Testing

/// Finding fonts by family name, and the fallbacks when a family is missing.
struct FontLookupTests {
    @Test
    func tahomaIsFoundThroughTheStandardFolders() throws {
        let library = try FontLibrary(searchPath: .standard)
        let location = try #require(try library.locate(family: "Tahoma"))
        #expect(location.family == "Tahoma")
        #expect(location.style == "Regular")
        let metrics = try library.textMetrics(family: "tahoma")
        #expect(!metrics.isFallback)
        #expect(metrics.fallbackWarning == nil)
        #expect(metrics.face?.familyName == "Tahoma")
    }

    @Test
    func boldIsAskedFor() throws {
        let wineFonts = FontSearchPath(folders: ["/usr/share/wine/fonts"], includesSystemFonts: false)
        let library = try FontLibrary(searchPath: wineFonts)
        let regular = try #require(try library.locate(family: "Tahoma"))
        let bold = try #require(try library.locate(family: "Tahoma", bold: true))
        #expect(regular.path == TestFonts.tahomaPath)
        #expect(bold.style == "Bold")
        #expect(bold.path != regular.path)
    }

    @Test func missingFamilyIsNotLocated() throws {
        let library = try FontLibrary(searchPath: .standard)
        // fontconfig answers with some other font; that is not taken as "No Such Font".
        #expect(try library.locate(family: "No Such Font") == nil)
    }

    @Test
    func missingFamilyFallsBackToDejaVuSans() throws {
        let library = try FontLibrary(searchPath: .standard)
        let metrics = try library.textMetrics(family: "No Such Font")
        #expect(metrics.isFallback)
        #expect(metrics.requestedFamily == "No Such Font")
        guard case let .font(location) = metrics.source else {
            Issue.record("expected DejaVu Sans, got \(metrics.source)")
            return
        }
        #expect(location.family == "DejaVu Sans")
        let warning = try #require(metrics.fallbackWarning)
        #expect(warning.hasPrefix("font \"No Such Font\" not found; text is measured with DejaVu Sans ("))
        #expect(try metrics.extent(of: "123", pointSize: 10).advanceWidth > 0)
    }

    @Test func withoutAnyFontTheFixedRatioModelIsUsed() throws {
        let folder = try TestFonts.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let library = try FontLibrary(searchPath: FontSearchPath(folders: [folder.path], includesSystemFonts: false))
        let metrics = try library.textMetrics(family: "Tahoma")
        #expect(metrics.isFallback)
        #expect(metrics.source == .fixedRatioModel)
        #expect(metrics.face == nil)
        #expect(metrics.fallbackWarning == "font \"Tahoma\" not found, nor DejaVu Sans; text is measured with a "
            + "fixed-ratio model (0.55 em per character)")
        let extent = try metrics.extent(of: "12.5", pointSize: 10)
        #expect(abs(extent.advanceWidth - 22) < 1e-9)
        #expect(extent.inkStart == 0)
        #expect(abs(extent.inkEnd - 22) < 1e-9)
        #expect(abs(extent.ascent - 9.05) < 1e-9)
        #expect(abs(extent.descent - 2.12) < 1e-9)
    }

    @Test
    func searchPathOfOneFolderFindsOnlyItsFonts() throws {
        let folder = try TestFonts.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent("t.ttf").path
        try FileManager.default.copyItem(atPath: TestFonts.tahomaPath, toPath: copy)
        let library = try FontLibrary(searchPath: FontSearchPath(folders: [folder.path], includesSystemFonts: false))
        let location = try #require(try library.locate(family: "Tahoma"))
        #expect(location.path == copy)
        #expect(try library.locate(family: "DejaVu Sans") == nil)
    }

    @Test func environmentVariableReplacesTheSearchPath() {
        #expect(FontSearchPath.fromEnvironment([:]) == .standard)
        #expect(FontSearchPath.fromEnvironment(["ANNOLINK_FONT_PATH": ""]) == .standard)
        #expect(FontSearchPath.fromEnvironment(["ANNOLINK_FONT_PATH": "/a/fonts::/b"])
            == FontSearchPath(folders: ["/a/fonts", "/b"], includesSystemFonts: false))
        #expect(FontSearchPath.standard.folders.contains("/usr/share/wine/fonts"))
        #expect(FontSearchPath.standard.folders.contains("/usr/share/fonts"))
        #expect(FontSearchPath.standard.includesSystemFonts)
    }
}
