import Foundation

/// A command-line program from outside the project, used as a test oracle (PROJ's `cs2cs` and
/// `projinfo` from Debian's proj-bin).
struct ExternalTool {
    let url: URL

    /// The program `name` on the PATH (or in /usr/bin), or nil when it is not installed.
    static func find(_ name: String) -> ExternalTool? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin"]
        for directory in directories {
            let candidate = URL(fileURLWithPath: directory).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) {
                return ExternalTool(url: candidate)
            }
        }
        return nil
    }

    static let cs2cs = find("cs2cs")
    static let projinfo = find("projinfo")

    /// Runs the program with `arguments`, feeding it `input`, and returns its standard output.
    func run(_ arguments: [String], input: String = "") throws -> String {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        _ = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ToolFailure(command: ([url.path] + arguments).joined(separator: " "), status: process.terminationStatus)
        }
        return String(decoding: output, as: UTF8.self)
    }
}

struct ToolFailure: Error, CustomStringConvertible {
    var command: String
    var status: Int32
    var description: String { "\(command) exited with status \(status)" }
}
