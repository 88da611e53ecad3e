import AnnoLinkTestSupport
import Foundation
import Testing
#if canImport(FoundationXML)
import FoundationXML
#endif

/// `annolink render`: views, formats read back by other programs, and errors.
@Suite("render, end to end")
struct RenderTests {
    /// The address point of `45759 ELMWOOD` in the Loudoun data (EPSG:2924, US survey feet).
    static let center = "11790668.63,7056461.09"

    /// One Loudoun import for the suite's read-only runs.
    static let loudoun: String? = try? Harness.importLoudoun()

    func json(_ result: Harness.Result, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        #expect(result.status == 0, "\(result.stderr)", sourceLocation: sourceLocation)
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)",
                            sourceLocation: sourceLocation)
    }

    /// `gdalinfo`'s "Size is W, H" for a raster GDAL can read.
    func rasterSize(_ path: String) throws -> String? {
        let result = try ExternalTool.require("gdalinfo", package: "gdal-bin").run([path])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").first { $0.hasPrefix("Size is") }.map(String.init)
    }

    @Test("a PNG at 1:1200 around an address point: GDAL reads it at the size asked, with the labels of the view")
    func png() throws {
        let path = try #require(Self.loudoun)
        let out = try Harness.temporaryDirectory().appendingPathComponent("view.png").path
        let object = try json(try Harness.annolink("render", path, out, "--center", Self.center, "--scale", "1:1200", "--json"))
        // The keys docs/cli.md documents.
        let documented: Set<String> = [
            "path", "width", "height", "scale", "center", "features", "featuresFromIndex", "labels", "labelsUnderMinimum", "footprints",
            "highlighted", "seconds", "warnings",
        ]
        #expect(Set(object.keys) == documented)
        #expect((object["seconds"] as? Double ?? -1) > 0)
        #expect(object["width"] as? Int == 1024 && object["height"] as? Int == 768)
        #expect(object["scale"] as? Double == 1200)
        // 21 address numbers and 36 parcel lengths meet this 1024 × 768 view.
        #expect(object["labels"] as? Int == 57, "\(object)")
        #expect(try rasterSize(out) == "Size is 1024, 768")
        let text = try Harness.annolink("render", path, out, "--center", Self.center, "--scale", "1:600", "--size", "300,200")
        #expect(text.status == 0 && text.stdout == "wrote \(out): 300×200 px at 1:600, 9 features, 2 labels\n", "\(text.stdout)\(text.stderr)")
        #expect(try rasterSize(out) == "Size is 300, 200")
    }

    @Test("an SVG is well-formed XML whose page is the picture's size in points, with the text as glyphs")
    func svg() throws {
        let path = try #require(Self.loudoun)
        let out = try Harness.temporaryDirectory().appendingPathComponent("view.svg").path
        let object = try json(try Harness.annolink("render", path, out, "--center", Self.center, "--scale", "1:1200", "--size", "800,600", "--json"))
        #expect((object["labels"] as? Int ?? 0) > 20)
        let document = try XMLDocument(contentsOf: URL(fileURLWithPath: out))
        let root = try #require(document.rootElement())
        #expect(root.name == "svg")
        // 800 × 600 pixels at 96 dpi are 600 × 450 points.
        let attributes = Dictionary((root.attributes ?? []).map { ($0.name ?? "", $0.stringValue ?? "") }, uniquingKeysWith: { a, _ in a })
        #expect(attributes["width"] == "600pt" && attributes["height"] == "450pt", "\(attributes)")
        let source = try String(contentsOfFile: out, encoding: .utf8)
        #expect(source.components(separatedBy: "id=\"glyph").count > 10)
    }

    @Test("a PDF is read by poppler (pdftoppm) into a page of the picture's size, not blank")
    func pdf() throws {
        let path = try #require(Self.loudoun)
        let folder = try Harness.temporaryDirectory()
        let out = folder.appendingPathComponent("view.pdf").path
        _ = try json(try Harness.annolink("render", path, out, "--center", Self.center, "--scale", "1:1200", "--size", "640,480", "--json"))
        let pdftoppm = try ExternalTool.require("pdftoppm", package: "poppler-utils")
        let result = try pdftoppm.run(["-r", "96", "-png", "-singlefile", out, folder.appendingPathComponent("page").path])
        #expect(result.status == 0, "\(result.stderr)")
        let page = folder.appendingPathComponent("page.png").path
        #expect(try rasterSize(page) == "Size is 640, 480")
        // Not blank: GDAL's statistics of the first band find dark pixels (lines and text).
        let stats = try ExternalTool.require("gdalinfo", package: "gdal-bin").run(["-stats", page])
        let minimum = stats.stdout.split(separator: "\n").first { $0.contains("STATISTICS_MINIMUM=") }
        #expect(minimum.map { Int($0.split(separator: "=")[1]) ?? 255 }.map { $0 < 100 } == true, "\(stats.stdout)")
    }

    @Test("the default view is the extent of every table; another CRS through PROJ; rotation; footprints and marks")
    func defaultsAndOptions() throws {
        let path = try #require(Self.loudoun)
        let folder = try Harness.temporaryDirectory()
        let all = try json(try Harness.annolink("render", path, folder.appendingPathComponent("all.png").path, "--json"))
        #expect(all["labels"] as? Int == 148)
        #expect(all["width"] as? Int == 1024)
        let mercator = try json(try Harness.annolink("render", path, folder.appendingPathComponent("m.png").path, "--crs", "EPSG:3857", "--json"))
        #expect(mercator["labels"] as? Int == 148)
        let marked = try json(try Harness.annolink(
            "render", path, folder.appendingPathComponent("r.png").path, "--center", Self.center, "--scale", "1:1200", "--rotation", "30",
            "--footprints", "--highlight", "ParcelLinesAnno_1:1,2", "--highlight", "Loudoun_Address_Points_1:834", "--tables",
            "ParcelLines_1,ParcelLinesAnno_1,Loudoun_Address_Points_1", "--json"))
        #expect(marked["highlighted"] as? Int == 3)
        #expect((marked["footprints"] as? Int ?? 0) == (marked["labels"] as? Int ?? -1))
    }

    @Test("views that do not parse are usage errors (64), one line each", arguments: [
        (["--center", "1,2"], "--center needs --scale"),
        (["--bbox", "1,2,3"], "--bbox expects MINX,MINY,MAXX,MAXY"),
        (["--bbox", "3,0,1,1"], "--bbox needs MINX < MAXX"),
        (["--bbox", "0,0,1,1", "--center", "1,2", "--scale", "100"], "give either --bbox or --center"),
        (["--bbox", "0,0,1,1", "--scale", "100"], "--bbox sets the scale itself"),
        (["--center", "1,2", "--scale", "1:0"], "--scale expects 1:N"),
        (["--center", "1,2", "--scale", "1:big"], "--scale expects 1:N"),
        (["--center", "1,nan", "--scale", "1:100"], "--center expects X,Y"),
        (["--size", "0,10"], "--size expects W,H"),
        (["--size", "10.5,10"], "--size expects W,H"),
        (["--dpi", "0"], "--dpi expects a number from 1 to 2400"),
        (["--rotation", "left"], "--rotation expects degrees"),
        (["--highlight", "ParcelLines_1"], "--highlight expects TABLE:FID"),
        (["--highlight", "ParcelLines_1:x"], "--highlight expects TABLE:FID"),
    ])
    func usageErrors(arguments: [String], message: String) throws {
        let out = try Harness.temporaryDirectory().appendingPathComponent("x.png").path
        let result = try Harness.annolink(["render", Harness.loudoun, out] + arguments)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("error: \(message)"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test("an unknown format, table, fid, CRS or file, and an unwritable output, each with its status")
    func otherErrors() throws {
        let path = try #require(Self.loudoun)
        let folder = try Harness.temporaryDirectory()
        let out = folder.appendingPathComponent("x.png").path
        let jpeg = try Harness.annolink("render", path, folder.appendingPathComponent("x.jpg").path)
        #expect(jpeg.status == 64 && jpeg.stderr.hasPrefix("error: cannot tell the image format of"), "\(jpeg.stderr)")
        let table = try Harness.annolink("render", path, out, "--tables", "Nowhere")
        #expect(table.status == 65 && table.stderr.contains("Nowhere"), "\(table.stderr)")
        let fid = try Harness.annolink("render", path, out, "--highlight", "ParcelLines_1:999999")
        #expect(fid.status == 65 && fid.stderr.contains("999999"), "\(fid.stderr)")
        let crs = try Harness.annolink("render", path, out, "--crs", "EPSG:999999")
        #expect(crs.status == 65, "\(crs.stderr)")
        let missing = try Harness.annolink("render", folder.appendingPathComponent("none.gpkg").path, out)
        #expect(missing.status == 66, "\(missing.stderr)")
        let unwritable = try Harness.annolink("render", path, folder.appendingPathComponent("no/such/folder/x.png").path)
        #expect(unwritable.status == 73 && unwritable.stderr.hasPrefix("error: "), "\(unwritable.stderr)")
        // Issue 25: exit 73 (cannot create) from Cairo's matrix before; the view is bad data.
        let huge = try Harness.annolink("render", path, out, "--bbox", "-1e300,-1e300,1e300,1e300")
        #expect(huge.status == 65 && huge.stderr.contains("one pixel would cover"), "\(huge.stderr)")
        for result in [jpeg, table, fid, crs, missing, unwritable, huge] {
            #expect(result.stderr.split(separator: "\n").first?.hasPrefix("error: ") == true)
        }
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
