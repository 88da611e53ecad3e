import AnnoLinkTestSupport
import Foundation
import Testing

/// Runs the `annolink` binary built for this test run and the outside tools the end-to-end tests
/// compare with.
enum Harness {
    /// The package root, found from the test support's source path.
    static let packageRoot = Fixtures.packageRoot

    /// The `annolink` binary built for this test run: beside the test bundle, in the same build
    /// folder (`.build/<triple>/<configuration>`). `EndToEndTests` depends on the `annolink`
    /// target, so `swift test` builds the binary before it runs these tests, in every
    /// configuration; a binary left over from another build is never used.
    static let binary: String = {
        #if os(macOS)
        let bundle = Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }?.bundleURL
        #else
        let bundle = Bundle.main.executableURL
        #endif
        guard let folder = bundle?.resolvingSymlinksInPath().deletingLastPathComponent() else {
            preconditionFailure("cannot find the test bundle, so not the annolink built beside it")
        }
        return folder.appendingPathComponent("annolink").path
    }()

    /// Esri's Loudoun mobile geodatabase in the repository's `Fixtures/`.
    static var loudoun: String { Fixtures.loudoun }

    /// What a finished process printed and its exit status.
    typealias Result = ExternalTool.Result

    /// Runs `executable` with `arguments` and waits for it (see `ExternalTool.run`).
    static func run(_ executable: String, _ arguments: [String], stdin: String? = nil) throws -> Result {
        try ExternalTool.run(executable, arguments, stdin: stdin)
    }

    /// Runs `annolink` with `arguments`.
    static func annolink(_ arguments: String...) throws -> Result { try run(binary, arguments) }
    static func annolink(_ arguments: [String]) throws -> Result { try run(binary, arguments) }

    /// A fresh temporary folder for one test.
    static func temporaryDirectory() throws -> URL {
        try ScratchDirectory.make(prefix: "e2e")
    }

    /// Whether GDAL's tools (`ogrinfo`, `validate_gpkg.py`) are installed; when they are not,
    /// the test fails with what to install rather than pass without its checks.
    static var hasGDAL: Bool {
        let installed = FileManager.default.fileExists(atPath: GeoPackageValidator.script) && ExternalTool.find("ogrinfo") != nil
        if !installed { Issue.record("GDAL's tools are not installed: scripts/install-deps --test installs them (gdal-bin, python3-gdal)") }
        return installed
    }

    /// Whether the outside program `name` is installed; when it is not, the test fails with the
    /// Debian package to install rather than pass without its checks.
    static func hasTool(_ name: String, package: String) -> Bool {
        if ExternalTool.find(name) != nil { return true }
        Issue.record("\(ToolFailure.missing(tool: name, package: package))")
        return false
    }

    /// Runs `validate_gpkg.py` on `path`; an empty string means it passed.
    static func validate(_ path: String) throws -> String { try GeoPackageValidator.problems(path) }

    /// Runs `sqlite3` (Debian's CLI) with one SQL statement, without annolink's functions.
    static func sqlite(_ path: String, _ sql: String) throws -> String {
        try ExternalTool.sqlite3.run([path, sql]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

extension Harness {
    /// Every table's rows, each row quoted as SQL, in key order, the journal and R-tree node
    /// blobs left out: see `contentDump(of:excluding:)` in AnnoLinkTestSupport.
    static func dump(_ path: String, excluding: Set<String> = ["annolink_journal"]) throws -> String {
        try contentDump(of: path, excluding: excluding)
    }

    /// `dump(path)` with the edit times (`gpkg_contents.last_change`, ISO 8601 text) made
    /// equal, for comparing a file with a second run of the same edit; "(no file)" when there
    /// is none.
    static func dumpIgnoringTimes(_ path: String) throws -> String {
        guard FileManager.default.fileExists(atPath: path) else { return "(no file)" }
        return try dump(path).replacingOccurrences(of: #"'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z'"#, with: "'time'", options: .regularExpression)
    }

    /// Copies the database `from` to `to`, removing whatever database (and WAL, shared-memory
    /// or journal file) was at `to`.
    static func copyDatabase(_ from: String, to: String) throws {
        removeDatabase(to)
        try FileManager.default.copyItem(atPath: from, toPath: to)
    }

    /// Removes a database file and the files SQLite keeps beside it.
    static func removeDatabase(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// Writes with one SQL statement through GDAL (`ogrinfo`, SQLite dialect), whose ST_
    /// functions serve the GeoPackage R-tree triggers, as another program would: the plain
    /// `sqlite3` shell cannot write a feature table's geometry.
    ///
    /// The damage is left for `check` to find, not followed: the write goes past the change
    /// capture, whose state says "annolink is writing" meanwhile (committed, so the triggers
    /// pass over every connection's writes), as if the program had written to a file without
    /// the capture (docs/follow.md). Tests of following edit through GDAL's own API instead
    /// (FollowTests).
    static func gdalSQL(_ path: String, _ sql: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let captured = try sqlite(path, "SELECT count(*) FROM sqlite_master WHERE name = 'annolink_changes_state'") == "1"
        if captured { _ = try sqlite(path, "UPDATE annolink_changes_state SET writing = 1") }
        let result = try ExternalTool.ogrinfo.run(["-q", path, "-dialect", "SQLite", "-sql", sql])
        if captured { _ = try sqlite(path, "UPDATE annolink_changes_state SET writing = 0") }
        #expect(result.status == 0 && !result.stderr.contains("ERROR"), "\(sql): \(result.stderr)", sourceLocation: sourceLocation)
    }

    /// Loudoun imported into a new folder and served by `annolink serve` (`ServeProcess`) with
    /// `arguments`; nil, with an issue recorded, when the import fails.
    static func serveLoudoun(_ arguments: [String] = []) throws -> (path: String, server: ServeProcess)? {
        guard let path = try importLoudoun() else { return nil }
        return (path, try ServeProcess(file: path, arguments: arguments))
    }

    /// The program `name` (`python`, `esri2geojson`, `st`) of the test venv, which
    /// scripts/test-venv makes when it is missing or its requirements changed.
    static func venvTool(_ name: String) throws -> String {
        let made = try run(packageRoot.appendingPathComponent("scripts/test-venv").path, [])
        #expect(made.status == 0, "scripts/test-venv: \(made.stderr)")
        return packageRoot.appendingPathComponent(".test/venv/bin/\(name)").path
    }

    /// Imports the Loudoun geodatabase into a new file in a fresh folder; nil, with an issue
    /// recorded, when the import fails.
    static func importLoudoun() throws -> String? {
        let path = try temporaryDirectory().appendingPathComponent("loudoun.gpkg").path
        let result = try annolink("import", loudoun, path)
        guard result.status == 0 else {
            Issue.record("import failed: \(result.stderr)")
            return nil
        }
        return path
    }

    /// Runs one SQL statement through GDAL (`ogrinfo`, SQLite dialect with SpatiaLite's
    /// functions) and returns the named result fields of its first row.
    static func ogrSQL(_ path: String, _ sql: String) throws -> [String: String] {
        let result = try ExternalTool.ogrinfo.run(["-ro", "-q", path, "-dialect", "SQLite", "-sql", sql])
        var fields: [String: String] = [:]
        for line in result.stdout.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let name = parts[0].split(separator: " ").first else { continue }
            fields[String(name)] = parts[1]
        }
        return fields
    }
}
