import Foundation
#if canImport(Glibc)
import Glibc
private let systemWrite = Glibc.write
#else
import Darwin
private let systemWrite = Darwin.write
#endif

/// Where commands write: results to standard output, diagnostics and progress to standard error.
enum Output {
    /// Writes `text` and a newline to standard output.
    static func line(_ text: String = "") {
        write(text + "\n", to: STDOUT_FILENO)
    }

    /// Writes `text` to standard output as it is, without a newline.
    static func write(_ text: String) {
        write(text, to: STDOUT_FILENO)
    }

    /// Writes `text` and a newline to standard error.
    static func diagnostic(_ text: String) {
        write(text + "\n", to: STDERR_FILENO)
    }

    /// Writes all of `text` to the file descriptor, unbuffered as `FileHandle` wrote, with
    /// `write(2)` itself: `FileHandle.write(Data(...))` made its `Data` through a dynamic cast
    /// whose first use scans the binary's protocol conformances. A write that fails (a closed
    /// pipe with SIGPIPE ignored, a full disk) ends this output; the command goes on.
    static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }

    /// Whether standard error is a terminal (progress is shown only then).
    static let stderrIsTerminal = isatty(2) == 1

    /// Encodes `value` as pretty JSON with sorted keys (stable output for scripts and tests).
    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

/// Progress of a long operation on standard error, redrawn in place at most ten times a
/// second, and only when standard error is a terminal.
final class Progress {
    private let label: String
    private let total: Int?
    private var lastDraw = Date.distantPast
    private let enabled: Bool

    init(_ label: String, total: Int? = nil, enabled: Bool = Output.stderrIsTerminal) {
        self.label = label
        self.total = total
        self.enabled = enabled
    }

    /// Reports that `done` items are finished.
    func update(_ done: Int) {
        guard enabled else { return }
        let now = Date()
        guard now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = now
        draw(done)
    }

    /// Draws the final count and ends the line.
    func finish(_ done: Int) {
        guard enabled else { return }
        draw(done)
        Output.write("\n", to: STDERR_FILENO)
    }

    private func draw(_ done: Int) {
        var text = "\r\(label): \(done)"
        if let total, total > 0 { text += " of \(total) (\(done * 100 / total)%)" }
        Output.write(text, to: STDERR_FILENO)
    }
}

/// One `Progress` line per stage of a long operation (a table copied, imported or drawn, a phase
/// of `sample`) on a terminal's standard error: a stage's line ends when the next begins.
final class StageProgress {
    private var current: (label: String, progress: Progress)?
    private var lastDone = 0

    /// Reports that `done` items of stage `label` (of `total`, when known) are finished.
    func update(_ label: String, _ done: Int, of total: Int? = nil) {
        if current?.label != label {
            finish()
            current = (label, Progress(label, total: total))
        }
        lastDone = done
        current?.progress.update(done)
    }

    /// Ends the current stage's line with its last count.
    func finish() {
        current?.progress.finish(lastDone)
        current = nil
    }
}
