import AnnoLinkAnnotation
import Testing

/// Every FreeType and fontconfig handle has one owner and is freed once, after everything
/// that needs it.
struct FontOwnershipTests {
    @Test
    func faceKeepsItsLibraryAlive() throws {
        let counter = FontHandleCounter()
        var face: FontFace?
        do {
            let library = try FontLibrary(searchPath: .standard, handleCounter: counter)
            #expect(counter.freeType == 1)
            face = try library.openFace(path: TestFonts.tahomaPath)
            #expect(counter.freeType == 2)
        }
        // The library object went out of scope; the face still holds it.
        #expect(counter.freeType == 2)
        #expect(try face?.extent(of: "178", pointSize: 10).advanceWidth ?? 0 > 0)
        face = nil
        #expect(counter.total == 0)
    }

    @Test func lookupsFreeWhatTheyMade() throws {
        let counter = FontHandleCounter()
        do {
            let library = try FontLibrary(searchPath: .standard, handleCounter: counter)
            _ = try library.locate(family: "No Such Font")
            #expect(counter.fontconfig == 1)
            let metrics = try library.textMetrics(family: "No Such Font")
            _ = try metrics.extent(of: "x", pointSize: 10)
            _ = try library.textMetrics(family: "Tahoma")
            // One fontconfig configuration per library, however many lookups.
            #expect(counter.fontconfig == 1)
        }
        #expect(counter.total == 0)
    }

    @Test func failedOpenLeavesNothingOpen() throws {
        let counter = FontHandleCounter()
        do {
            let library = try FontLibrary(searchPath: .standard, handleCounter: counter)
            #expect(throws: FontError.self) { _ = try library.openFace(path: "/no/such/font.ttf") }
            #expect(counter.freeType == 1)
        }
        #expect(counter.total == 0)
    }
}
