import AnnoLinkStore
import AnnoLinkTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

@Suite("NewFile: files written under a temporary name")
struct NewFileTests {
    /// Several writes in progress at once in one process, as when tests build files on many
    /// threads: each keeps its own temporary name registered for removal on a signal. The
    /// registration was one global slot, and two writes ending together freed the same path
    /// twice (a double free that crashed the test process in CI).
    @Test func concurrentWritesEachGetTheirFile() throws {
        let folder = try ScratchDirectory(prefix: "newfile")
        let threads = 8, writesEach = 40
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for write in 0..<writesEach {
                let path = folder.path("t\(thread)-\(write).txt")
                do {
                    try NewFile.write(path) { temporary in
                        try Data("\(thread) \(write)".utf8).write(to: URL(fileURLWithPath: temporary))
                    }
                } catch {
                    failures.withLock { $0.append("\(path): \(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
        #expect(names.count == threads * writesEach)
        #expect(names.allSatisfy { !$0.hasPrefix(".") }, "a temporary file was left: \(names.filter { $0.hasPrefix(".") })")
        for thread in 0..<threads {
            for write in 0..<writesEach {
                let text = try String(contentsOfFile: folder.path("t\(thread)-\(write).txt"), encoding: .utf8)
                #expect(text == "\(thread) \(write)")
            }
        }
    }
}
