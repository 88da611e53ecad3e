import AnnoLinkTestSupport
import Foundation
import Testing

/// The harness runs the `annolink` of this very build, never one left from another.
@Suite("harness")
struct HarnessTests {
    @Test("the binary is the one built beside this test run's bundle, and it runs")
    func binaryOfThisBuild() throws {
        let binary = URL(fileURLWithPath: Harness.binary)
        #expect(FileManager.default.isExecutableFile(atPath: binary.path))
        #if os(Linux)
        // The running test executable (the .xctest file) sits in the build folder.
        let running = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        #expect(binary.deletingLastPathComponent().path == running.deletingLastPathComponent().path)
        #endif
        let version = try Harness.annolink("--version")
        #expect(version.status == 0, "\(version.stderr)")
        #expect(!version.stdout.isEmpty)
    }
}
