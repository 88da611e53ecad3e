import Foundation
import Testing

/// Runs the built `annolink` binary and the outside tools the end-to-end tests compare with.
enum Harness {
    /// The package root, found from this file's path.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The `annolink` binary: `$ANNOLINK_BIN`, or the debug build.
    static let binary: String = {
        if let path = ProcessInfo.processInfo.environment["ANNOLINK_BIN"] { return path }
        return packageRoot.appendingPathComponent(".build/debug/annolink").path
    }()

    /// `../shared/data` next to the checkout, when it is there.
    static let sharedData: URL? = {
        let url = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/data")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }()

    /// The Loudoun mobile geodatabase, when `../shared/data` is there.
    static var loudoun: String? { sharedData?.appendingPathComponent("loudoun_anno.geodatabase").path }

    /// What a finished process printed and its exit status.
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String

        /// The lines of standard error.
        var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }
    }

    /// Runs `executable` with `arguments` and waits for it.
    static func run(_ executable: String, _ arguments: [String], stdin: String? = nil) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        if let stdin {
            let input = Pipe()
            process.standardInput = input
            try process.run()
            input.fileHandleForWriting.write(Data(stdin.utf8))
            try input.fileHandleForWriting.close()
        } else {
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }
        // Read both pipes before waiting, so a large output cannot fill a pipe and block.
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Runs `annolink` with `arguments`.
    static func annolink(_ arguments: String...) throws -> Result { try run(binary, arguments) }
    static func annolink(_ arguments: [String]) throws -> Result { try run(binary, arguments) }

    /// A fresh temporary folder for one test.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("annolink-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Debian's GDAL validator, run by Debian's Python (the only one with `osgeo`).
    static let validator = "/usr/lib/python3/dist-packages/osgeo_utils/samples/validate_gpkg.py"

    /// Whether GDAL's tools are installed (scripts/test installs them).
    static var hasGDAL: Bool { FileManager.default.fileExists(atPath: validator) && FileManager.default.fileExists(atPath: "/usr/bin/ogrinfo") }

    /// Runs `validate_gpkg.py` on `path`; an empty string means it passed.
    static func validate(_ path: String) throws -> String {
        let result = try run("/usr/bin/python3", [validator, path])
        return result.status == 0 ? "" : "status \(result.status): \(result.stdout)\(result.stderr)"
    }

    /// Runs `sqlite3` (Debian's CLI) with one SQL statement, without annolink's functions.
    static func sqlite(_ path: String, _ sql: String) throws -> String {
        try run("/usr/bin/sqlite3", [path, sql]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
