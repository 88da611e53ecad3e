import Foundation
import Testing

/// The libraries only some commands need are loaded on first use (Sources/CLazyLibrary): a
/// command that never talks to PostgreSQL, serves, draws, reprojects or measures text does not
/// pay the dynamic loader for libpq, libmicrohttpd, Cairo, GEOS, PROJ, FreeType or fontconfig and
/// what they bring (GSSAPI, OpenSSL, pixman, X11's libraries, curl, libpng, …); and none loads
/// libxml2 and ICU, which definition documents no longer need (`DefinitionXMLReader`). The
/// loader says what it initialised under `LD_DEBUG=libs`.
@Suite
struct StartupLibraryTests {
    /// The shared objects the loader initialised while `annolink arguments` ran.
    func librariesLoaded(_ arguments: [String]) throws -> [String] {
        let result = try Harness.run("/usr/bin/env", ["LD_DEBUG=libs", Harness.binary] + arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr.suffix(500))")
        return result.stderr.split(separator: "\n").compactMap { line in
            guard let range = line.range(of: "calling init: ") else { return nil }
            return String(line[range.upperBound...])
        }
    }

    /// The libraries loaded on first use, by soname prefix, and the ones no command needs.
    static let lazy = ["libpq.so", "libmicrohttpd.so", "libcairo.so", "libgeos_c.so", "libproj.so", "libfreetype.so", "libfontconfig.so"]
    static let unused = ["libxml2.so", "libicuuc.so"]

    @Test func versionLoadsNoLazyLibrary() throws {
        let loaded = try librariesLoaded(["--version"])
        #expect(!loaded.isEmpty, "LD_DEBUG=libs listed no library")
        for library in Self.lazy + Self.unused {
            #expect(!loaded.contains { $0.contains(library) }, "--version loaded \(library): \(loaded)")
        }
    }

    /// An attribute edit regenerates the label, so it measures text with FreeType (and asks
    /// fontconfig when the font is not found by its file name), and loads nothing else lazy.
    @Test func anAttributeEditLoadsFreeTypeAlone() throws {
        let folder = try Harness.temporaryDirectory()
        let file = folder.appendingPathComponent("sample.gpkg").path
        #expect(try Harness.annolink("sample", "--parcels", "10", file).status == 0)
        let loaded = try librariesLoaded(["set", file, "address_points", "1", "AD_ADDRESS=123"])
        #expect(loaded.contains { $0.contains("libfreetype.so") }, "set did not load FreeType: \(loaded)")
        for library in Self.lazy + Self.unused where library != "libfreetype.so" && library != "libfontconfig.so" {
            #expect(!loaded.contains { $0.contains(library) }, "set loaded \(library): \(loaded)")
        }
    }

    /// The other side: a command that draws loads Cairo when it first draws, and no other.
    @Test func renderLoadsCairoOnFirstUse() throws {
        let folder = try Harness.temporaryDirectory()
        let file = folder.appendingPathComponent("sample.gpkg").path
        #expect(try Harness.annolink("sample", "--parcels", "10", file).status == 0)
        let loaded = try librariesLoaded(["render", file, folder.appendingPathComponent("view.png").path])
        #expect(loaded.contains { $0.contains("libcairo.so") }, "render did not load Cairo: \(loaded)")
        for library in ["libpq.so", "libmicrohttpd.so"] {
            #expect(!loaded.contains { $0.contains(library) }, "render loaded \(library): \(loaded)")
        }
    }
}
