import Foundation
import Testing

/// Bad input: one `error:` line on standard error and the documented exit status (docs/cli.md, "Exit statuses").
@Suite("errors, end to end")
struct ErrorTests {
    /// Asserts that `result` failed with `status` and exactly one line on stderr starting `error:`
    /// (usage errors add a second line pointing at --help).
    func expectError(_ result: Harness.Result, status: Int32, mentioning text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == status, "stderr: \(result.stderr)", sourceLocation: sourceLocation)
        let lines = result.stderrLines
        #expect(lines.first?.hasPrefix("error: ") == true, "stderr: \(result.stderr)", sourceLocation: sourceLocation)
        #expect(lines.count == (status == 64 ? 2 : 1), "stderr: \(result.stderr)", sourceLocation: sourceLocation)
        #expect(lines.first?.contains(text) == true, "stderr: \(result.stderr)", sourceLocation: sourceLocation)
        #expect(!result.stderr.contains("Fatal error"), sourceLocation: sourceLocation)
    }

    @Test func missingFile() throws {
        expectError(try Harness.annolink("info", "/nonexistent/x.gpkg"), status: 66, mentioning: "no such file")
    }

    @Test func notAGeoPackage() throws {
        let dir = try Harness.temporaryDirectory()
        let text = dir.appendingPathComponent("notes.gpkg")
        try Data("just some text, not a database\n".utf8).write(to: text)
        expectError(try Harness.annolink("info", text.path), status: 65, mentioning: "not a GeoPackage")

        let plain = dir.appendingPathComponent("plain.sqlite").path
        _ = try Harness.sqlite(plain, "CREATE TABLE t(x)")
        expectError(try Harness.annolink("info", plain), status: 65, mentioning: "not a GeoPackage")
    }

    @Test func usageErrors() throws {
        expectError(try Harness.annolink("sample"), status: 64, mentioning: "missing DEST.gpkg")
        expectError(try Harness.annolink("sample", "x.gpkg", "--parcels", "many"), status: 64, mentioning: "--parcels")
        expectError(try Harness.annolink("info", "x.gpkg", "--bogus"), status: 64, mentioning: "--bogus")
        let unknown = try Harness.annolink("frobnicate")
        #expect(unknown.status == 64)
        #expect(unknown.stderr.hasPrefix("error: unknown command 'frobnicate'"))
    }

    @Test func sampleRefusesToOverwrite() throws {
        let dir = try Harness.temporaryDirectory()
        let path = dir.appendingPathComponent("s.gpkg").path
        #expect(try Harness.annolink("sample", path, "--parcels", "5").status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        expectError(try Harness.annolink("sample", path), status: 73, mentioning: "exists already")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        expectError(try Harness.annolink("sample", dir.appendingPathComponent("no/such/folder/s.gpkg").path), status: 73, mentioning: "does not exist")
    }

    @Test("every command answers --help with its usage")
    func help() throws {
        for command in ["import", "sample", "info", "annotate", "show", "set", "move", "move-vertex", "add", "delete", "check", "sketch"] {
            let result = try Harness.annolink(command, "--help")
            #expect(result.status == 0)
            #expect(result.stdout.hasPrefix("usage: annolink \(command)"))
        }
        let top = try Harness.annolink("--help")
        #expect(top.status == 0)
        #expect(top.stdout.contains("commands:"))
    }
}

@Suite("info --table, end to end")
struct InfoTableTests {
    @Test func oneTableWithColumns() throws {
        let path = try Harness.temporaryDirectory().appendingPathComponent("s.gpkg").path
        #expect(try Harness.annolink("sample", path, "--parcels", "10").status == 0)
        let result = try Harness.annolink("info", path, "--table", "PARCEL_LINES")
        #expect(result.status == 0)
        #expect(result.stdout.contains("parcel_lines (features): 31 LINESTRING"))
        #expect(result.stdout.contains("    Length DOUBLE\n"))
        #expect(!result.stdout.contains("address_points"))

        let missing = try Harness.annolink("info", path, "--table", "no_such_table")
        #expect(missing.status == 65)
        #expect(missing.stderr == "error: no feature table named 'no_such_table'\n")
    }
}
