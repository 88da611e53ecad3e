import AnnoLinkGeometry
import AnnoLinkTestSupport
import Foundation
import Testing

/// `annolink copy` between a GeoPackage and a real PostGIS database (scripts/pg-test-cluster),
/// checked by a dump comparison of the file that comes back, by `annolink check`, by GDAL's
/// validator and by GDAL's `ogrinfo` reading the PostGIS tables.
@Suite struct CopyTests {
    /// Loudoun imported and repaired (`check --fix`), so that `check` is clean before the copy.
    func cleanLoudoun() throws -> String? {
        guard let path = try Harness.importLoudoun() else { return nil }
        let fixed = try Harness.annolink("check", path, "--fix")
        #expect(fixed.status == 0, "check --fix: \(fixed.stderr)")
        let clean = try Harness.annolink("check", path)
        #expect(clean.status == 0, "check after --fix: \(clean.stdout)")
        // One journal entry, so that the copies have a journal to leave behind.
        let replaced = try Harness.annolink("annotate", path, "--regenerate", "--replace")
        #expect(replaced.stdout.contains("journal entry 1"), "\(replaced.stdout) \(replaced.stderr)")
        return path
    }

    @Test func loudounThereAndBackGivesTheSameRows() throws {
        guard let original = try cleanLoudoun() else { return }
        let database = try PostgresTestDatabase()
        defer { try? database.drop() }

        let there = try Harness.annolink("copy", original, database.connectionString)
        #expect(there.status == 0, "copy into PostGIS: \(there.stderr)")
        #expect(there.stdout.contains("ParcelLinesAnno_1: 115 POLYGON annotation"))
        #expect(there.stdout.contains("not copied:\n  the edit journal"))

        // GDAL reads the PostGIS tables: counts, and one geometry per kind equal to the file's.
        let gdal = try database.gdalConnectionString
        if Harness.hasGDAL {
            for (table, count) in [("Loudoun_Address_Points_1", 33), ("ParcelLines_1", 115), ("Loudoun_Subdivision_1", 6),
                                   ("ParcelLinesAnno_1", 115), ("Loudoun_Address_PointsAnno_1", 33),
            ] {
                let summary = try ExternalTool.ogrinfo.output(["-ro", "-so", gdal, table])
                #expect(summary.contains("Feature Count: \(count)"), "\(table): \(summary)")
                #expect(summary.contains("ID[\"EPSG\",2924]"), "\(table) CRS")
                let fid = try Harness.sqlite(original, "SELECT min(fid) FROM \"\(table)\"")
                let fromPostGIS = try geometryLines(try ExternalTool.ogrinfo.output(["-ro", gdal, table, "-fid", fid]))
                let fromFile = try geometryLines(try ExternalTool.ogrinfo.output(["-ro", original, table, "-fid", fid]))
                #expect(!fromFile.isEmpty && fromPostGIS == fromFile, "\(table) fid \(fid)")
            }
        }

        let back = original.replacingOccurrences(of: "loudoun.gpkg", with: "back.gpkg")
        let copiedBack = try Harness.annolink("copy", gdal, back)
        #expect(copiedBack.status == 0, "copy back: \(copiedBack.stderr)")

        // Every table, every column value, the schema and the fid sequences.
        let before = try normalisedDump(original), after = try normalisedDump(back)
        #expect(before.count > 1000)
        let same = after == before
        #expect(same, "first difference: \(firstDifference(before, after))")
        // Extents are rebuilt from the new R-trees, whose boxes are 32-bit floats rounded
        // outwards: equal within that rounding, and never smaller.
        let extents = "SELECT table_name, min_x, min_y, max_x, max_y FROM gpkg_contents WHERE data_type = 'features' ORDER BY table_name"
        let originalExtents = try Harness.sqlite(original, extents).split(separator: "\n")
        let backExtents = try Harness.sqlite(back, extents).split(separator: "\n")
        #expect(originalExtents.count == 8 && backExtents.count == 8)
        for (a, b) in zip(originalExtents, backExtents) {
            let x = a.split(separator: "|"), y = b.split(separator: "|")
            #expect(x[0] == y[0])
            for i in 1...4 {
                let u = Double(x[i]) ?? .nan, v = Double(y[i]) ?? .nan
                #expect(abs(u - v) <= 2, "\(x[0]) extent \(i): \(u) vs \(v)")
                #expect(i <= 2 ? v <= u : v >= u, "\(x[0]) extent \(i) shrank: \(u) vs \(v)")
            }
        }
        let check = try Harness.annolink("check", back)
        #expect(check.status == 0, "check on the copy: \(check.stdout)")
        if Harness.hasGDAL { #expect(try Harness.validate(back) == "") }
    }

    @Test func existingTablesAndFilesAreRefusedUnlessOverwrite() throws {
        guard let original = try Harness.importLoudoun() else { return }
        let database = try PostgresTestDatabase()
        defer { try? database.drop() }
        #expect(try Harness.annolink("copy", original, database.connectionString).status == 0)
        let again = try Harness.annolink("copy", original, database.connectionString)
        #expect(again.status == 73)
        #expect(again.stderr.contains("'ParcelLines_1'") && again.stderr.contains("--overwrite"))
        let replaced = try Harness.annolink("copy", "--overwrite", original, database.connectionString)
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(try database.psql("SELECT count(*) FROM public.\"ParcelLines_1\"").trimmingCharacters(in: .whitespacesAndNewlines) == "115")
        #expect(try database.psql("SELECT count(*) FROM annolink.annotation_classes").trimmingCharacters(in: .whitespacesAndNewlines) == "2")
        #expect(try database.psql("SELECT count(*) FROM annolink.contents").trimmingCharacters(in: .whitespacesAndNewlines) == "9")

        // A GeoPackage destination: refused when it exists, replaced with --overwrite.
        let back = original.replacingOccurrences(of: "loudoun.gpkg", with: "back.gpkg")
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: back))
        let refused = try Harness.annolink("copy", database.connectionString, back)
        #expect(refused.status == 73)
        #expect(try String(contentsOfFile: back, encoding: .utf8) == "not a database")
        let overwritten = try Harness.annolink("copy", "--overwrite", database.connectionString, back)
        #expect(overwritten.status == 0, "\(overwritten.stderr)")
        #expect(try Harness.sqlite(back, "SELECT count(*) FROM ParcelLinesAnno_1") == "115")
    }

    @Test func aValueThatCannotGoLeavesTheDatabaseUntouched() throws {
        guard let original = try Harness.importLoudoun(), Harness.hasGDAL else { return }
        // Text in a MEDIUMINT column: SQLite keeps it, PostgreSQL's bigint cannot.
        let fid = try Harness.sqlite(original, "SELECT max(fid) FROM ParcelLines_1")
        try Harness.gdalSQL(original, "UPDATE ParcelLines_1 SET LEFT_FID = 'left' WHERE fid = \(fid)")
        let database = try PostgresTestDatabase()
        defer { try? database.drop() }
        let failed = try Harness.annolink("copy", original, database.connectionString)
        #expect(failed.status == 65)
        #expect(failed.stderr.contains("ParcelLines_1 fid \(fid), column LEFT_FID: 'left' cannot be stored in a MEDIUMINT column"), "\(failed.stderr)")
        // One transaction: no table, no annolink schema, nothing in spatial_ref_sys beyond PostGIS's own.
        #expect(try database.psql("""
            SELECT count(*) FROM pg_tables WHERE schemaname IN ('public', 'annolink') AND tablename <> 'spatial_ref_sys'
            """).trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        #expect(try database.psql("SELECT count(*) FROM pg_namespace WHERE nspname = 'annolink'").trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }

    /// PostgreSQL would cut a longer name to 63 bytes without a word (two names could become
    /// one): the copy refuses it by name before writing anything, and a name of exactly 63 bytes
    /// goes there and comes back whole.
    @Test func namesLongerThanPostgreSQLKeepsAreRefused() throws {
        guard let original = try Harness.importLoudoun(), Harness.hasGDAL else { return }
        let fits = String(repeating: "é", count: 30) + "abc"
        let tooLong = fits + "d"
        try Harness.gdalSQL(original, "ALTER TABLE ParcelLines_1 RENAME COLUMN LEFT_FID TO \"\(tooLong)\"")
        let database = try PostgresTestDatabase()
        defer { try? database.drop() }
        let failed = try Harness.annolink("copy", original, database.connectionString)
        #expect(failed.status == 65)
        #expect(failed.stderr == "error: '\(tooLong)' (in table 'ParcelLines_1') is longer than PostgreSQL's 63-byte names; rename it first\n", "\(failed.stderr)")
        #expect(try database.psql("SELECT count(*) FROM pg_namespace WHERE nspname = 'annolink'").trimmingCharacters(in: .whitespacesAndNewlines) == "0")

        try Harness.gdalSQL(original, "ALTER TABLE ParcelLines_1 RENAME COLUMN \"\(tooLong)\" TO \"\(fits)\"")
        let copied = try Harness.annolink("copy", original, database.connectionString)
        #expect(copied.status == 0, "\(copied.stderr)")
        #expect(try database.psql("""
            SELECT count(*) FROM information_schema.columns WHERE table_name = 'ParcelLines_1' AND column_name = '\(fits)'
            """).trimmingCharacters(in: .whitespacesAndNewlines) == "1")
        let back = URL(fileURLWithPath: original).deletingLastPathComponent().appendingPathComponent("back.gpkg").path
        #expect(try Harness.annolink("copy", database.connectionString, back).status == 0)
        let values = "SELECT count(\"\(fits)\"), total(\"\(fits)\") FROM ParcelLines_1"
        #expect(try Harness.sqlite(back, values) == Harness.sqlite(original, values))
    }

    @Test func aGeometryThatCannotComeBackLeavesNoFile() throws {
        guard let original = try Harness.importLoudoun() else { return }
        let database = try PostgresTestDatabase()
        defer { try? database.drop() }
        #expect(try Harness.annolink("copy", original, database.connectionString).status == 0)
        // A geometry collection (annolink stores none) in the last table, after every other
        // table has been written to the new file.
        try database.psql("""
            ALTER TABLE public."ParcelLinesAnno_1" ALTER COLUMN geom TYPE geometry(Geometry, 2924);
            UPDATE public."ParcelLinesAnno_1" SET geom = 'SRID=2924;GEOMETRYCOLLECTION(POINT(1 2))' WHERE fid = (SELECT max(fid) FROM public."ParcelLinesAnno_1")
            """)
        let folder = URL(fileURLWithPath: original).deletingLastPathComponent()
        let back = folder.appendingPathComponent("back.gpkg").path
        let failed = try Harness.annolink("copy", database.connectionString, back)
        #expect(failed.status == 65)
        #expect(failed.stderr.contains("the geometry of ParcelLinesAnno_1 fid"), "\(failed.stderr)")
        // No file under the name, no temporary file beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["loudoun.gpkg"])
    }

    @Test func columnsAddedInPostGISComeBackAndOtherTablesAreListed() throws {
        guard let original = try Harness.importLoudoun() else { return }
        let database = try PostgresTestDatabase()
        defer { try? database.drop() }
        #expect(try Harness.annolink("copy", original, database.connectionString).status == 0)
        // Another program adds columns to a copied table, and a table of its own.
        try database.psql("""
            ALTER TABLE public."ParcelLines_1" ADD COLUMN surveyed date DEFAULT '2024-05-01', ADD COLUMN share numeric DEFAULT 1.5,
              ADD COLUMN checked boolean NOT NULL DEFAULT true;
            CREATE TABLE public.other (id integer PRIMARY KEY, g geometry(Point, 4326))
            """)
        let back = original.replacingOccurrences(of: "loudoun.gpkg", with: "back.gpkg")
        let copied = try Harness.annolink("copy", database.connectionString, back)
        #expect(copied.status == 0, "\(copied.stderr)")
        #expect(copied.stdout.contains("not copied:\n  other: a PostGIS table that is not part of the annolink data set"), "\(copied.stdout)")
        #expect(try Harness.sqlite(back, "SELECT DISTINCT surveyed, share, checked FROM ParcelLines_1") == "2024-05-01|1.5|1")
        #expect(try Harness.sqlite(back, "SELECT group_concat(name || ' ' || type, ', ') FROM pragma_table_info('ParcelLines_1') WHERE cid >= 10")
            == "surveyed TEXT, share DOUBLE, checked BOOLEAN")
        let check = try Harness.annolink("check", back)
        #expect(check.status == 0 || check.status == 1, "\(check.stderr)")
    }

    @Test func aCopyKilledWhileStreamingLeavesNothing() throws {
        let folder = try Harness.temporaryDirectory()
        let sample = folder.appendingPathComponent("sample.gpkg").path
        let made = try Harness.annolink("sample", sample, "--parcels", "20000", "--seed", "3")
        #expect(made.status == 0, "\(made.stderr)")
        let database = try PostgresTestDatabase()
        defer { try? database.drop() }
        // Killed (SIGKILL: no handler runs) once a COPY of it is under way on the server.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["--default-signal=INT,TERM,HUP", Harness.binary, "copy", sample, database.connectionString]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let activity = "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(database.name)'"
        var copying = false
        for _ in 0..<600 where process.isRunning {
            if try PostgresTestServer.psql(activity + " AND query LIKE 'COPY%'").trimmingCharacters(in: .whitespacesAndNewlines) != "0" {
                copying = true
                break
            }
            usleep(50_000)
        }
        #expect(copying, "the copy ended before a COPY was seen")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        // The server ends the session and rolls its transaction back.
        for _ in 0..<200 where try PostgresTestServer.psql(activity).trimmingCharacters(in: .whitespacesAndNewlines) != "0" { usleep(50_000) }
        #expect(try database.psql("""
            SELECT count(*) FROM pg_tables WHERE schemaname IN ('public', 'annolink') AND tablename <> 'spatial_ref_sys'
            """).trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }

    @Test func twoDataSetsShareOneDatabase() throws {
        guard let loudoun = try Harness.importLoudoun() else { return }
        let folder = URL(fileURLWithPath: loudoun).deletingLastPathComponent()
        let helsinki = folder.appendingPathComponent("helsinki.gpkg").path
        #expect(try Harness.annolink("import", Fixtures.helsinki, helsinki).status == 0)
        let annotated = try Harness.annolink("annotate", helsinki, "--origin", "address_points", "--into", "address_anno",
                                             "--expression", "$feature.street + \" \" + $feature.house_number", "--placement", "point")
        #expect(annotated.status == 0, "\(annotated.stderr)")
        let database = try PostgresTestDatabase()
        defer { try? database.drop() }
        #expect(try Harness.annolink("copy", loudoun, database.connectionString).status == 0)
        #expect(try Harness.annolink("copy", helsinki, database.connectionString).status == 0)
        // Both CRSs: EPSG:2924 and EPSG:3067 are PostGIS's own SRIDs.
        #expect(try database.psql("SELECT string_agg(DISTINCT srid::text, ',') FROM public.geometry_columns").trimmingCharacters(in: .whitespacesAndNewlines)
            == "2924,3067")
        let both = folder.appendingPathComponent("both.gpkg").path
        let back = try Harness.annolink("copy", database.connectionString, both)
        #expect(back.status == 0, "\(back.stderr)")
        #expect(try Harness.sqlite(both, "SELECT count(*) FROM gpkg_contents WHERE data_type = 'features'") == "10")
        #expect(try Harness.sqlite(both, "SELECT count(*) FROM address_points") == "1278")
        #expect(try Harness.sqlite(both, "SELECT count(*) FROM annolink_annotation_classes") == "3")
        // Helsinki's part is Helsinki's file again, row for row (its annotation is clean). GDAL
        // wrote its points without a header envelope, annolink writes one: equal once normalised.
        for table in ["address_points", "address_anno"] {
            let select = "SELECT * FROM \"\(table)\" ORDER BY fid"
            func rows(_ path: String) throws -> [String] {
                try ExternalTool.sqlite3.output(["-cmd", ".mode quote", path, select]).split(separator: "\n").map { normaliseGeometry(String($0)) }
            }
            let original = try rows(helsinki), copied = try rows(both)
            #expect(original.count > 1000 && copied == original, "\(table): \(firstDifference(original, copied))")
        }
        // Consistent; Helsinki's entrances of one address stack their labels (overlaps).
        let check = try Harness.annolink("check", both, "--table", "address_anno", "--only", CheckReviewTests.consistency)
        #expect(check.status == 0, "\(check.stdout)")
    }

    @Test func jsonOutputHasTheDocumentedKeys() throws {
        guard let original = try Harness.importLoudoun() else { return }
        let database = try PostgresTestDatabase()
        defer { try? database.drop() }
        let result = try Harness.annolink("copy", original, database.connectionString, "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["tables", "annotationClasses", "layerStyles", "spatialReferenceSystems", "notCopied"])
        let tables = try #require(object["tables"] as? [[String: Any]])
        #expect(tables.count == 8)
        #expect(Set(tables[0].keys) == ["name", "geometryTypeName", "srsID", "rows", "isAnnotation"])
        #expect(object["annotationClasses"] as? Int == 2)
    }

    @Test func wrongDestinationsAreToldByExitStatus() throws {
        guard let original = try Harness.importLoudoun() else { return }
        let missing = try Harness.annolink("copy", original, try PostgresTestServer.connectionString(database: "annolink_no_such_database"))
        #expect(missing.status == 66, "\(missing.stderr)")
        #expect(missing.stderr.contains("annolink_no_such_database"))
        let unreachable = try Harness.annolink("copy", original, "postgresql://editor:secret@127.0.0.1:1/county?connect_timeout=2")
        #expect(unreachable.status == 75, "\(unreachable.stderr)")
        #expect(!unreachable.stderr.contains("secret"))
        let twoFiles = try Harness.annolink("copy", original, original + ".copy")
        #expect(twoFiles.status == 64)
        let noFile = try Harness.annolink("copy", original + ".missing", "postgresql://127.0.0.1:1/x")
        #expect(noFile.status == 66)
        // A database without annolink's layout has no data set to copy back.
        let empty = try PostgresTestDatabase()
        defer { try? empty.drop() }
        let nothing = try Harness.annolink("copy", empty.connectionString, original + ".back")
        #expect(nothing.status == 65)
        #expect(!FileManager.default.fileExists(atPath: original + ".back"))
    }

    /// The geometry lines of `ogrinfo`'s feature listing (the WKT under the attributes).
    func geometryLines(_ output: String) throws -> [String] {
        output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { ["POINT", "LINESTRING", "POLYGON", "MULTIPOINT", "MULTILINESTRING", "MULTIPOLYGON"].contains(String($0.prefix { $0 != " " })) }
    }

    /// The file's content for a there-and-back comparison: the schema (`sqlite_master`), the
    /// fid sequences, and every row of every table (R-trees by their entries; the journal and
    /// its `gpkg_extensions` rows, and `gpkg_contents`' extents, left out), each table's rows
    /// sorted, GeoPackage geometry blobs decoded and encoded again (the normalisation: the
    /// same geometry gives the same bytes).
    func normalisedDump(_ path: String) throws -> [String] {
        var lines = try Harness.sqlite(path, """
            SELECT type || ' ' || name || ': ' || coalesce(sql, '') FROM sqlite_master
            WHERE name NOT LIKE 'sqlite_%' AND name NOT LIKE 'annolink_journal%' ORDER BY name
            """).split(separator: "\n").map(String.init)
        lines += try Harness.sqlite(path, "SELECT 'sequence ' || name || ' ' || seq FROM sqlite_sequence WHERE name NOT LIKE 'annolink_journal%' ORDER BY name")
            .split(separator: "\n").map(String.init)
        let tables = try Harness.sqlite(path, """
            SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'annolink_journal%'
              AND NOT (name LIKE 'rtree_%' AND (name LIKE '%_node' OR name LIKE '%_parent' OR name LIKE '%_rowid')) ORDER BY name
            """).split(separator: "\n").map(String.init)
        for table in tables {
            let select: String
            switch table {
            case "gpkg_contents": select = "SELECT table_name, data_type, identifier, description, last_change, srs_id FROM gpkg_contents"
            case "gpkg_extensions": select = "SELECT * FROM gpkg_extensions WHERE table_name IS NULL OR table_name NOT LIKE 'annolink_journal%'"
            default: select = "SELECT * FROM \"\(table)\""
            }
            let rows = try ExternalTool.sqlite3.output(["-cmd", ".mode quote", path, select]).split(separator: "\n").map { normaliseGeometry(String($0)) }
            lines += rows.sorted().map { "\(table): \($0)" }
        }
        return lines
    }

    /// `line` with each GeoPackage blob literal (`X'4750…'`) decoded and encoded again.
    func normaliseGeometry(_ line: String) -> String {
        var result = ""
        var rest = Substring(line)
        while let start = rest.range(of: "X'4750") {
            result += rest[..<start.lowerBound]
            let hexStart = rest.index(start.lowerBound, offsetBy: 2)
            guard let end = rest[hexStart...].firstIndex(of: "'") else { break }
            let hex = rest[hexStart..<end]
            var bytes: [UInt8] = []
            var index = hex.startIndex
            while index < hex.endIndex {
                let next = hex.index(index, offsetBy: 2)
                bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
                index = next
            }
            if let geometry = try? GeoPackageGeometry(blob: bytes) {
                result += "X'" + GeoPackageGeometry.encode(geometry.geometry, srsID: geometry.srsID).map { String(format: "%02X", $0) }.joined() + "'"
            } else {
                result += "X'\(hex)'"
            }
            rest = rest[rest.index(after: end)...]
        }
        return result + rest
    }

    func firstDifference(_ a: [String], _ b: [String]) -> String {
        for (x, y) in zip(a, b) where x != y { return "\n  \(x.prefix(300))\n  \(y.prefix(300))" }
        return "lengths \(a.count) and \(b.count)"
    }
}
