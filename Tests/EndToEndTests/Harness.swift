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
    ///
    /// Output goes to temporary files rather than pipes: Foundation's pipe reading traps on
    /// an interrupted system call when many tests run processes at once.
    static func run(_ executable: String, _ arguments: [String], stdin: String? = nil) throws -> Result {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let outURL = folder.appendingPathComponent("stdout"), errURL = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = out
        process.standardError = err
        if let stdin {
            let inURL = folder.appendingPathComponent("stdin")
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

extension Harness {
    /// Every table's rows, each row quoted as SQL, in key order: a file's content for
    /// before/after comparisons. R-trees are compared by their entries, not by the node blobs
    /// of their shadow tables (which a rebuild lays out differently for the same entries);
    /// `excluding` leaves tables out (the journal, whose entries record the edits).
    static func dump(_ path: String, excluding: Set<String> = ["annolink_journal"]) throws -> String {
        let names = try sqlite(path, """
            SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
              AND NOT (name LIKE 'rtree_%' AND (name LIKE '%_node' OR name LIKE '%_parent' OR name LIKE '%_rowid'))
              AND name NOT LIKE 'annolink_journal_%'
            ORDER BY name
            """).split(separator: "\n").map(String.init).filter { !excluding.contains($0) }
        var text = ""
        for name in names {
            let quoted = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            // The journal registers itself on the first edit and stays registered after undo.
            let filter = name == "gpkg_extensions" ? " WHERE table_name NOT LIKE 'annolink_journal%'" : ""
            text += "-- \(name)\n" + (try run("/usr/bin/sqlite3", ["-cmd", ".mode quote", path, "SELECT * FROM \(quoted)\(filter) ORDER BY 1"]).stdout)
        }
        return text
    }

    /// Imports the Loudoun geodatabase into a new file in a fresh folder; nil, with a message,
    /// when `../shared/data` is absent.
    static func importLoudoun() throws -> String? {
        guard let source = loudoun else {
            print("skipped: ../shared/data/loudoun_anno.geodatabase is absent")
            return nil
        }
        let path = try temporaryDirectory().appendingPathComponent("loudoun.gpkg").path
        let result = try annolink("import", source, path)
        guard result.status == 0 else {
            Issue.record("import failed: \(result.stderr)")
            return nil
        }
        return path
    }

    /// Runs one SQL statement through GDAL (`ogrinfo`, SQLite dialect with SpatiaLite's
    /// functions) and returns the named result fields of its first row.
    static func ogrSQL(_ path: String, _ sql: String) throws -> [String: String] {
        let result = try run("/usr/bin/ogrinfo", ["-ro", "-q", path, "-dialect", "SQLite", "-sql", sql])
        var fields: [String: String] = [:]
        for line in result.stdout.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let name = parts[0].split(separator: " ").first else { continue }
            fields[String(name)] = parts[1]
        }
        return fields
    }
}
