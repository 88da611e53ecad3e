import Foundation

/// A command-line program from outside the project, used as a test oracle: PROJ's `cs2cs` and
/// `projinfo` (Debian's proj-bin), SQLite's `sqlite3`, GDAL's `ogrinfo` and `validate_gpkg.py`
/// (gdal-bin, python3-gdal). `scripts/install-deps --test` installs them all; a test that needs
/// one fails with the package's name when it is missing rather than skip.
public struct ExternalTool: Sendable {
    /// The program's path.
    public let path: String

    /// The program at `path`.
    public init(path: String) { self.path = path }

    /// The program `name` in /usr/bin, else on the PATH, or nil when it is not installed.
    ///
    /// /usr/bin comes first: the oracles are Debian's packages, and another copy on the PATH (a
    /// Python environment's GDAL, say) may be another version with other output.
    public static func find(_ name: String) -> ExternalTool? {
        let searchPath = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = ["/usr/bin"] + searchPath.split(separator: ":").map(String.init) + ["/usr/local/bin"]
        for directory in directories {
            let candidate = URL(fileURLWithPath: directory).appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return ExternalTool(path: candidate) }
        }
        return nil
    }

    /// The program `name`, or a `ToolFailure.missing` naming the Debian package to install.
    public static func require(_ name: String, package: String) throws -> ExternalTool {
        guard let tool = find(name) else { throw ToolFailure.missing(tool: name, package: package) }
        return tool
    }

    /// What a finished process printed and its exit status.
    public struct Result: Sendable {
        /// The exit status.
        public var status: Int32
        /// Everything written to standard output.
        public var stdout: String
        /// Everything written to standard error.
        public var stderr: String

        /// The lines of standard error.
        public var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }
    }

    /// Runs the program with `arguments`, feeding it `stdin` (none when nil), and waits for it.
    ///
    /// Output goes to temporary files rather than pipes: Foundation's pipe reading traps on an
    /// interrupted system call when many tests run processes at once, and a full pipe blocks.
    /// Throws when the program cannot be started; a non-zero exit status is returned, not thrown.
    public func run(_ arguments: [String], stdin: String? = nil) throws -> Result {
        try Self.run(path, arguments, stdin: stdin)
    }

    /// Runs the program with `arguments` and `input`, and returns its standard output; throws
    /// `ToolFailure.failed` when it exits with a status other than 0.
    public func output(_ arguments: [String], input: String? = nil) throws -> String {
        let result = try run(arguments, stdin: input)
        guard result.status == 0 else {
            throw ToolFailure.failed(command: ([path] + arguments).joined(separator: " "), status: result.status, stderr: result.stderr)
        }
        return result.stdout
    }

    /// Runs `executable` with `arguments`, feeding it `stdin` (none when nil), and waits for it.
    /// See `run(_:stdin:)`.
    public static func run(_ executable: String, _ arguments: [String], stdin: String? = nil) throws -> Result {
        let folder = try ScratchDirectory(prefix: "process")
        let outURL = folder.url.appendingPathComponent("stdout"), errURL = folder.url.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = out
        process.standardError = err
        if let stdin {
            let inURL = folder.url.appendingPathComponent("stdin")
            try Data(stdin.utf8).write(to: inURL)
            process.standardInput = try FileHandle(forReadingFrom: inURL)
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        return Result(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }
}

extension ExternalTool {
    /// PROJ's `cs2cs` (Debian package proj-bin).
    public static var cs2cs: ExternalTool { get throws { try require("cs2cs", package: "proj-bin") } }
    /// PROJ's `projinfo` (Debian package proj-bin).
    public static var projinfo: ExternalTool { get throws { try require("projinfo", package: "proj-bin") } }
    /// SQLite's command-line shell (Debian package sqlite3), without annolink's functions.
    public static var sqlite3: ExternalTool { get throws { try require("sqlite3", package: "sqlite3") } }
    /// GDAL's `ogrinfo` (Debian package gdal-bin).
    public static var ogrinfo: ExternalTool { get throws { try require("ogrinfo", package: "gdal-bin") } }
}

/// Why an outside program could not give an answer.
public enum ToolFailure: Error, CustomStringConvertible {
    /// The program is not installed.
    case missing(tool: String, package: String)
    /// The program exited with a status other than 0.
    case failed(command: String, status: Int32, stderr: String)

    public var description: String {
        switch self {
        case .missing(let tool, let package):
            "\(tool) is not installed: scripts/install-deps --test installs it (Debian package \(package))"
        case .failed(let command, let status, let stderr):
            "\(command) exited with status \(status)" + (stderr.isEmpty ? "" : ": \(stderr)")
        }
    }
}
