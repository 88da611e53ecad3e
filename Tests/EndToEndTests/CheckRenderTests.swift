import AnnoLinkTestSupport
import Foundation
import Testing

/// `check --render DIR`: a picture per problem and an index.
@Suite("check --render, end to end")
struct CheckRenderTests {
    @Test("on the Loudoun import: one 640 × 480 PNG per problem, named <code>-<table>-<fid>.png, and an index listing them")
    func loudoun() throws {
        let path = try #require(try Harness.importLoudoun())
        // Without their placement records (as annolink wrote them before it kept them), the 21
        // labels ArcGIS's engine placed off the rules' position read as stale placements.
        guard Harness.hasGDAL else { return }
        try Harness.gdalSQL(path, "UPDATE ParcelLinesAnno_1 SET PlacedFrom = NULL")
        try Harness.gdalSQL(path, "UPDATE Loudoun_Address_PointsAnno_1 SET PlacedFrom = NULL")
        let folder = try Harness.temporaryDirectory().appendingPathComponent("pictures")
        let json = try Harness.annolink("check", path, "--json", "--all")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let problems = try #require(object["problems"] as? [[String: Any]])
        #expect(problems.count == 21)
        let expected = problems.map { p in
            "\(p["code"] as! String)-\(p["annotationTable"] as? String ?? p["originTable"] as! String)-\((p["annotationFid"] ?? p["originFid"]) as! Int).png"
        }

        let result = try Harness.annolink("check", path, "--render", folder.path)
        #expect(result.status == 1)
        #expect(result.stderr == "wrote 21 pictures and index.html to \(folder.path)\n", "\(result.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(files == (expected + ["index.html"]).sorted())
        for file in expected {
            let info = try ExternalTool.require("gdalinfo", package: "gdal-bin").run([folder.appendingPathComponent(file).path])
            #expect(info.stdout.contains("Driver: PNG/Portable Network Graphics") && info.stdout.contains("Size is 640, 480"), "\(file): \(info.stderr)")
        }
        let index = try String(contentsOf: folder.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(index.hasPrefix("<!DOCTYPE html>"))
        #expect(index.components(separatedBy: "<tr><td><code>").count - 1 == 21)
        for (problem, file) in zip(problems, expected) {
            let message = (problem["message"] as! String).replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
            #expect(index.contains("<img src=\"\(file)\""), "\(file)")
            #expect(index.contains(message), "\(message)")
        }
        // A browser's parser reads it: Python's html.parser sees one table of 22 rows and 21 images.
        let parsed = try ExternalTool.run("/usr/bin/python3", ["-c", """
            import html.parser, sys
            class P(html.parser.HTMLParser):
                counts = {}
                def handle_starttag(self, tag, attrs): self.counts[tag] = self.counts.get(tag, 0) + 1
            p = P(); p.feed(open(sys.argv[1]).read()); p.close()
            print(p.counts.get("table"), p.counts.get("tr"), p.counts.get("img"))
            """, folder.appendingPathComponent("index.html").path,
        ])
        #expect(parsed.stdout == "1 22 21\n", "\(parsed.stderr)")

        // The same problems give the same pictures again: names are stable.
        #expect(try Harness.annolink("check", path, "--render", folder.path).status == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == files)
    }

    @Test("--render with --fix is a usage error; an unwritable folder is 73")
    func errors() throws {
        let path = try #require(try Harness.importLoudoun())
        let fix = try Harness.annolink("check", path, "--fix", "--render", "pictures")
        #expect(fix.status == 64 && fix.stderr.hasPrefix("error: --render draws the problems as found"), "\(fix.stderr)")
        let blocker = try Harness.temporaryDirectory().appendingPathComponent("file")
        try Data("x".utf8).write(to: blocker)
        let unwritable = try Harness.annolink("check", path, "--render", blocker.appendingPathComponent("pictures").path)
        #expect(unwritable.status == 73 && unwritable.stderr.hasPrefix("error: cannot write"), "\(unwritable.stderr)")
    }
}
