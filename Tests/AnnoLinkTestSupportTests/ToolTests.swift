import AnnoLinkGeometry
import AnnoLinkTestSupport
import Foundation
import Testing

/// The outside programs, scratch folders and small helpers the test targets share.
@Suite("test support")
struct ToolTests {
    @Test("Debian's programs are found in /usr/bin first")
    func findsDebiansTools() throws {
        #expect(try ExternalTool.sqlite3.path == "/usr/bin/sqlite3")
        #expect(ExternalTool.find("no-such-program-annolink") == nil)
    }

    @Test("a missing program is an error that names the package to install")
    func missingTool() {
        #expect {
            _ = try ExternalTool.require("no-such-program-annolink", package: "annolink-nothing")
        } throws: { error in
            String(describing: error) == "no-such-program-annolink is not installed: scripts/install-deps --test installs it (Debian package annolink-nothing)"
        }
    }

    @Test("run returns the status and both outputs; output throws on a failing status")
    func runAndOutput() throws {
        let shell = ExternalTool(path: "/bin/sh")
        let result = try shell.run(["-c", "cat; echo oops >&2; exit 3"], stdin: "in\n")
        #expect(result.status == 3)
        #expect(result.stdout == "in\n")
        #expect(result.stderrLines == ["oops"])
        #expect(try shell.output(["-c", "echo fine"]) == "fine\n")
        #expect {
            _ = try shell.output(["-c", "echo bad >&2; exit 2"])
        } throws: { error in
            String(describing: error) == "/bin/sh -c echo bad >&2; exit 2 exited with status 2: bad\n"
        }
    }

    @Test("a scratch folder exists while its value lives and is gone after")
    func scratchDirectory() throws {
        var url: URL?
        do {
            let scratch = try ScratchDirectory(prefix: "support")
            url = scratch.url
            #expect(scratch.url.lastPathComponent.hasPrefix("annolink-support-"))
            try Data("x".utf8).write(to: URL(fileURLWithPath: scratch.path("f")))
            #expect(FileManager.default.fileExists(atPath: scratch.path("f")))
        }
        #expect(!FileManager.default.fileExists(atPath: try #require(url).path))
        #expect(try ScratchDirectory.make() != (try ScratchDirectory.make()))
    }

    @Test func hexAndPoints() {
        #expect(hex("00 0a\nFF 7f") == [0x00, 0x0A, 0xFF, 0x7F])
        #expect(hex("") == [])
        #expect(p(1.5, -2) == Point(x: 1.5, y: -2))
    }
}
