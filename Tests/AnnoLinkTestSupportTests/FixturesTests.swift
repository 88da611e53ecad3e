import AnnoLinkTestSupport
import Foundation
import Testing

/// The data sets in Fixtures/ are the files Fixtures/README.md describes, and the helpers find
/// them from any working directory.
@Suite("Fixtures/")
struct FixturesTests {
    struct File: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: Int
        /// The size as the README writes it.
        var size: String
        var sha256: String
        var testDescription: String { name }
    }

    static let files = [
        File(name: "loudoun_anno.geodatabase", bytes: 1_241_088, size: "1,241,088", sha256: "a5796c7751f7aa3eb2b9a23cfdf10006e4331e059f84c674909fa422eeb72c2a"),
        File(name: "bubenec_parcel_segments.gpkg", bytes: 782_336, size: "782,336", sha256: "76ce901cc687d2bc376f1ea8499b7cf101f8db9973fcf3fd872b52c4737d86f8"),
        File(name: "helsinki_address_points.gpkg", bytes: 249_856, size: "249,856", sha256: "6fd35ec897960090e18370b3c2080c2c87fa364afb4236543781fd17a85871b4"),
    ]

    @Test("each data set has the size and sha256 the README states", arguments: files)
    func isTheDocumentedFile(_ file: File) throws {
        let path = Fixtures.path(file.name)
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        #expect(size == file.bytes)
        let sum = try ExternalTool.require("sha256sum", package: "coreutils").output([path])
        #expect(sum.hasPrefix(file.sha256 + " "), "\(sum)")
        let readme = try String(contentsOf: Fixtures.url("README.md"), encoding: .utf8)
        #expect(readme.contains("`\(file.name)` | \(file.size) | `\(file.sha256)`"))
    }

    @Test("the named paths are the three data sets in the package's Fixtures/")
    func namedPaths() {
        #expect(FileManager.default.fileExists(atPath: Fixtures.packageRoot.appendingPathComponent("Package.swift").path))
        #expect(Fixtures.directory == Fixtures.packageRoot.appendingPathComponent("Fixtures"))
        #expect([Fixtures.loudoun, Fixtures.bubenec, Fixtures.helsinki] == Self.files.map { Fixtures.path($0.name) })
        for path in [Fixtures.loudoun, Fixtures.bubenec, Fixtures.helsinki] {
            #expect(FileManager.default.isReadableFile(atPath: path), "\(path)")
        }
    }

    @Test("a copy is writable, holds the same content, and leaves the fixture as it was")
    func copy() throws {
        let scratch = try ScratchDirectory()
        let before = try dump(of: Fixtures.helsinki)
        let copy = try Fixtures.copy("helsinki_address_points.gpkg", into: scratch.url, as: "h.gpkg")
        #expect(copy == scratch.path("h.gpkg"))
        #expect(FileManager.default.isWritableFile(atPath: copy))
        #expect(try dump(of: copy) == before)
        _ = try ExternalTool.sqlite3.output([copy, "DELETE FROM address_points WHERE fid = 1"])
        #expect(try dump(of: copy) != before)
        #expect(try dump(of: Fixtures.helsinki) == before)
    }
}
