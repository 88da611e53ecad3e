import AnnoLinkGeometry
import AnnoLinkPostGIS
import AnnoLinkStore
import AnnoLinkTestSupport
import Foundation
import Testing

/// Pictures of a PostGIS data set (issue 17): `annolink render`, `check --render` and `serve`'s
/// `/render.png` (and its overview) on Loudoun copied into PostGIS with `annolink copy` give the
/// same PNG, byte for byte, as on the GeoPackage it was copied from. Needs the throw-away cluster
/// (`scripts/test`).
@Suite("render on PostGIS", .serialized)
struct RenderPostGISTests {
    /// Loudoun imported, annotated by annolink's rules, and copied into a new database.
    func copied() throws -> (path: String, database: PostgresTestDatabase)? {
        guard let path = try Harness.importLoudoun() else { return nil }
        let database = try PostgresTestDatabase()
        let copy = try Harness.annolink("copy", path, database.connectionString)
        #expect(copy.status == 0, "copy into PostGIS: \(copy.stderr)")
        return (path, database)
    }

    func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    @Test("both stores read the same rows with the same index boxes (the R-tree's 32-bit boxes), in fid order, for every window and size asked")
    func sameIndexedRows() throws {
        guard let (path, database) = try copied() else { return }
        defer { try? database.drop() }
        let package = try GeoPackage(path: path, readOnly: true)
        let postGIS = try PostGISStore(database.connectionString)
        func rows(_ store: any FeatureStore, _ table: FeatureTable, _ box: Envelope?, _ size: IndexBoxSize, _ reading: IndexedRowReading) throws -> [String] {
            var lines: [String] = []
            try store.forEachIndexedRow(table, meeting: box, size: size, reading: reading) { row in
                let b = row.box
                var line = "\(row.fid) \(b.minX) \(b.minY) \(b.maxX) \(b.maxY)"
                if let g = row.geometry { line += " \(g)" }
                if let a = row.annotation { line += " \(a)" }
                lines.append(line)
            }
            return lines
        }
        let extent = try #require(try package.recordedExtent(of: package.featureTable("ParcelLines_1")))
        let middle = Envelope(minX: extent.minX + extent.width * 0.3, minY: extent.minY + extent.height * 0.3,
                              maxX: extent.minX + extent.width * 0.6, maxY: extent.minY + extent.height * 0.7)
        var compared = 0
        for name in try package.featureTableNames() {
            let table = try package.featureTable(name)
            let reading: IndexedRowReading = try package.annotationTableNames().contains(name) ? .annotation : .geometry
            // Every box: the R-tree's, read raw, is what the PostGIS store reports.
            let all = try rows(postGIS, try postGIS.featureTable(name), nil, .any, .box)
            let rtree = try Harness.sqlite(path, "SELECT id FROM \"\(table.spatialIndexName)\" ORDER BY id")
            #expect(all.count == rtree.split(separator: "\n").count, "\(name)")
            #expect(all == (try rows(package, table, nil, .any, .box)), "\(name)")
            for size: IndexBoxSize in [.any, .bothSidesAtLeast(20), .someSideUnder(20), .someSideAtLeast(60), .bothSidesUnder(60)] {
                for box in [nil, middle] {
                    let fromFile = try rows(package, table, box, size, reading)
                    let fromDatabase = try rows(postGIS, try postGIS.featureTable(name), box, size, reading)
                    #expect(fromDatabase == fromFile, "\(name) \(size) \(String(describing: box))")
                    compared += fromFile.count
                }
            }
        }
        #expect(compared > 1000)
    }

    @Test("annolink render: the same PNG from the GeoPackage and its PostGIS copy — the whole extent, a view with footprints and marks, two tables, another CRS")
    func samePictures() throws {
        guard let (path, database) = try copied() else { return }
        defer { try? database.drop() }
        let folder = try Harness.temporaryDirectory()
        let line = try Harness.sqlite(path, "SELECT min(fid) FROM ParcelLines_1")
        let label = try Harness.sqlite(path, "SELECT min(fid) FROM ParcelLinesAnno_1")
        let views: [[String]] = [
            [],
            ["--center", RenderTests.center, "--scale", "1:1200", "--footprints", "--highlight", "ParcelLines_1:\(line)",
             "--highlight", "ParcelLinesAnno_1:\(label)"],
            ["--bbox", "11787000,7055000,11792000,7060000", "--size", "300,300", "--tables", "ParcelLines_1,ParcelLinesAnno_1"],
            ["--crs", "EPSG:3857", "--size", "400,300"],
        ]
        for (i, view) in views.enumerated() {
            let fromFile = folder.appendingPathComponent("file-\(i).png").path, fromDatabase = folder.appendingPathComponent("db-\(i).png").path
            let a = try Harness.annolink(["render", path, fromFile, "--json"] + view)
            let b = try Harness.annolink(["render", database.connectionString, fromDatabase, "--json"] + view)
            #expect(a.status == 0 && b.status == 0, "\(view): \(a.stderr) \(b.stderr)")
            // What was drawn, said the same way (all but the path and the time).
            func counts(_ text: String) throws -> [String] {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
                return ["width", "height", "scale", "center", "features", "labels", "footprints", "highlighted"].map { "\(object[$0] ?? "")" }
            }
            #expect(try counts(b.stdout) == (try counts(a.stdout)), "\(view)")
            #expect(try bytes(fromDatabase) == (try bytes(fromFile)), "\(view): the pictures differ")
        }
        let unknown = try Harness.annolink("render", database.connectionString, folder.appendingPathComponent("x.png").path, "--tables", "nope")
        #expect(unknown.status == 65 && unknown.stderr.contains("nope"), "\(unknown.stderr)")
    }

    @Test("check --render on PostGIS: the same pictures as on the GeoPackage for the same problems (the index problems, which PostGIS has not, aside)")
    func checkPictures() throws {
        guard let (path, database) = try copied() else { return }
        defer { try? database.drop() }
        // A planted problem in both: a label's anchor moved behind annolink's back.
        let fid = try Harness.sqlite(path, "SELECT min(fid) FROM ParcelLinesAnno_1")
        try Harness.gdalSQL(path, "UPDATE ParcelLinesAnno_1 SET AnchorX = AnchorX + 40 WHERE fid = \(fid)")
        try database.psqlBehindCapture("UPDATE \"ParcelLinesAnno_1\" SET \"AnchorX\" = \"AnchorX\" + 40 WHERE fid = \(fid)")
        let folder = try Harness.temporaryDirectory()
        let fromFile = folder.appendingPathComponent("file"), fromDatabase = folder.appendingPathComponent("db")
        let a = try Harness.annolink("check", path, "--render", fromFile.path)
        let b = try Harness.annolink("check", database.connectionString, "--render", fromDatabase.path)
        #expect(a.status == 1 && b.status == 1, "\(a.stderr) \(b.stderr)")
        let filePictures = Set(try FileManager.default.contentsOfDirectory(atPath: fromFile.path).filter { $0.hasSuffix(".png") })
        let databasePictures = Set(try FileManager.default.contentsOfDirectory(atPath: fromDatabase.path).filter { $0.hasSuffix(".png") })
        #expect(databasePictures == filePictures.filter { !$0.hasPrefix("index-") })
        #expect(databasePictures.contains { $0.hasSuffix("-ParcelLinesAnno_1-\(fid).png") }, "\(databasePictures.sorted())")
        #expect(databasePictures.count >= 1)
        for picture in databasePictures {
            #expect(try bytes(fromDatabase.appendingPathComponent(picture).path) == (try bytes(fromFile.appendingPathComponent(picture).path)), "\(picture)")
        }
        let index = try String(contentsOf: fromDatabase.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(index.components(separatedBy: "<img src=").count - 1 == databasePictures.count)
    }

    @Test("serve's /render.png on PostGIS: 200, the PNG annolink render draws; the overview the GeoPackage server's, features under a pixel drawn from the index")
    func servedPictures() throws {
        guard let (path, database) = try copied() else { return }
        defer { try? database.drop() }
        let fileServer = try ServeProcess(file: path, arguments: ["--read-only"])
        defer { _ = fileServer.stop() }
        let databaseServer = try ServeProcess(file: database.connectionString, arguments: ["--read-only"])
        defer { _ = databaseServer.stop() }
        let bbox = "11787000,7055000,11792000,7060000"
        let plain = try databaseServer.request("/render.png?bbox=\(bbox)&width=320&height=240")
        #expect(plain.status == 200 && plain.headers["content-type"] == "image/png", "\(plain.text)")
        let rendered = try Harness.temporaryDirectory().appendingPathComponent("render.png").path
        #expect(try Harness.annolink("render", database.connectionString, rendered, "--bbox", bbox, "--size", "320,240").status == 0)
        #expect(plain.body == (try bytes(rendered)), "/render.png is annolink render's picture")
        #expect(plain.body == (try fileServer.request("/render.png?bbox=\(bbox)&width=320&height=240")).body)

        // The overview of the whole data set in a small picture: most features under a pixel.
        let extent = try Harness.sqlite(path, "SELECT min(min_x) || ',' || min(min_y) || ',' || max(max_x) || ',' || max(max_y) FROM gpkg_contents WHERE data_type = 'features'")
        for size in ["64&height=48", "400&height=300"] {
            let query = "/render.png?bbox=\(extent)&width=\(size)&overview=true"
            let fromDatabase = try databaseServer.request(query), fromFile = try fileServer.request(query)
            #expect(fromDatabase.status == 200 && fromDatabase.headers["content-type"] == "image/png", "\(fromDatabase.text)")
            #expect(fromDatabase.body == fromFile.body, "\(query): the overviews differ")
            for header in ["x-annolink-features", "x-annolink-features-from-index", "x-annolink-features-sharing-pixels",
                           "x-annolink-labels", "x-annolink-labels-under-minimum"] {
                #expect(fromDatabase.headers[header] != nil && fromDatabase.headers[header] == fromFile.headers[header], "\(query) \(header)")
            }
        }
        let small = try databaseServer.request("/render.png?bbox=\(extent)&width=64&height=48&overview=true")
        #expect(Int(small.headers["x-annolink-features-from-index"] ?? "") ?? 0 > 50, "\(small.headers)")
        #expect(Int(small.headers["x-annolink-labels-under-minimum"] ?? "") ?? 0 > 0, "\(small.headers)")
    }
}
