import Foundation
import Testing

@testable import AnnoLinkService

/// The map editor's files as the binary holds them (`EmbeddedAssets`, written at build time by
/// Plugins/EmbedAssets) against the files in Sources/AnnoLinkService/MapPage/Assets.
@Suite struct EmbeddedAssetsTests {
    /// Sources/AnnoLinkService/MapPage/Assets, found from this file's place in the package.
    static let assets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/AnnoLinkService/MapPage/Assets")

    @Test func everyFileIsEmbeddedByteForByteAndNothingElse() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.assets.path).filter { !$0.hasPrefix(".") }.sorted()
        #expect(EmbeddedAssets.files.keys.sorted() == names)
        for name in names {
            let disk = try Data(contentsOf: Self.assets.appendingPathComponent(name))
            #expect(EmbeddedAssets.files[name].map { Data($0.utf8) } == disk, "\(name)")
        }
    }

    @Test func theFilesAreThePageTheCoreAndEachModulesScriptAndStyle() {
        let used = ["editor.html", "editor.js", "editor.css"] + MapPageModule.all.flatMap { [$0.name + ".js", $0.name + ".css"] }
        #expect(EmbeddedAssets.files.keys.sorted() == used.sorted())
    }

    @Test func thePageFillsEveryPlaceholderAndLeavesAPlaceholderInANameAsItIs() {
        let html = MapPageAssets.html(dataset: "a{{base}}b")
        #expect(!html.replacingOccurrences(of: "a{{base}}b", with: "").contains("{{"))
        #expect(html.contains("<title>annolink — a{{base}}b</title>"))
        #expect(html.contains(#"<base href="/">"#))
    }
}
