import AnnoLinkTestSupport
import Foundation
import Testing

extension EditedData {
    /// The data set as a GeoPackage file: the file itself, or the database copied into a new
    /// one by `annolink copy` (its rows as they are, fids kept), so that both stores are read by
    /// the same SQL and their rows compared exactly.
    func asGeoPackage() throws -> String {
        guard store == .postGIS else { return target }
        let path = try Harness.temporaryDirectory().appendingPathComponent("copy.gpkg").path
        let copied = try Harness.annolink("copy", target, path)
        try #require(copied.status == 0, "\(copied.stdout) \(copied.stderr)")
        return path
    }

    /// What annotation work leaves, read from `asGeoPackage()`: the class registry, every row
    /// of the annotation tables `tables` (anchors and angles to the last bit, footprints as
    /// their blobs), for each of `laidOut` (tables annolink made) its columns and contents
    /// row, and for these and `styled` (tables annolink registered a class in) annolink's QGIS
    /// style.
    func annotationDump(_ tables: [String], laidOut: [String] = [], styled: [String] = []) throws -> String {
        let path = try asGeoPackage()
        var text = try Harness.sqlite(path, "SELECT * FROM annolink_annotation_classes ORDER BY annotation_table, class_id") + "\n"
        for table in laidOut {
            text += "== layout of \(table)\n"
            text += try Harness.sqlite(path, """
                SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info('\(table)') ORDER BY cid
                """) + "\n"
            text += try Harness.sqlite(path, """
                SELECT c.table_name, c.data_type, c.identifier, c.description, c.srs_id, g.column_name, g.geometry_type_name, g.srs_id
                FROM gpkg_contents c JOIN gpkg_geometry_columns g ON g.table_name = c.table_name WHERE c.table_name = '\(table)'
                """) + "\n"
        }
        for table in laidOut + styled {
            text += "== style of \(table)\n"
            text += try Harness.sqlite(path, """
                SELECT f_table_name, f_geometry_column, styleName, useAsDefault, styleQML FROM layer_styles
                WHERE f_table_name = '\(table)' AND styleName = 'annolink'
                """) + "\n"
        }
        for table in tables {
            text += "== rows of \(table)\n"
            text += try Harness.sqlite(path, """
                SELECT fid, FeatureID, AnnotationClassID, TextString, FontName, printf('%!.17g', FontSize), HorizontalAlignment,
                  VerticalAlignment, printf('%!.17g', AnchorX), printf('%!.17g', AnchorY), printf('%!.17g', Angle), XOffset, YOffset,
                  Status, Override, hex(geom)
                FROM "\(table)" ORDER BY fid
                """) + "\n"
        }
        return text
    }
}

/// `annotate` (both forms, with and without a dry run) and `sketch` on both stores.
extension StoreEditTests {
    static let streetLabels = [
        "--origin", "Loudoun_Address_Points_1", "--into", "street_anno", "--expression", "$feature.ST_STR_NAM", "--placement", "point",
        "--where", "AD_ADDRESS > 20000", "--font", "Arial", "--size", "8",
    ]
    static let longLines = [
        "--origin", "ParcelLines_1", "--into", "ParcelLinesAnno_1", "--class-id", "7", "--name", "long lines",
        "--expression", "Round(Length(Geometry($feature), 'feet'), 1) + \"'\"", "--placement", "line", "--where", "FID > 60",
        "--reference-scale", "2400",
    ]

    @Test("annotate registers a class into a new table and into an existing one, and regenerates: the same rows, classes, layout and styles on both stores")
    func annotateSame() throws {
        var dumps: [EditedStore: String] = [:], outputs: [EditedStore: [String]] = [:]
        for store in EditedStore.allCases {
            guard let data = try EditedData(store) else { return }
            defer { data.drop() }
            var out: [String] = []
            func run(_ arguments: [String]) throws {
                let result = try Harness.annolink(["annotate", data.target] + arguments)
                #expect(result.status == 0, "\(store) \(arguments): \(result.stderr)")
                out.append(result.stdout)
            }
            try run(Self.streetLabels + ["--json"])
            try run(Self.longLines + ["--json"])
            // Changed behind annolink's back: a street renamed and a line reshaped.
            let points = try data.query("SELECT \"fid\" FROM \"Loudoun_Address_Points_1\" WHERE \"AD_ADDRESS\" > 20000 ORDER BY \"fid\" LIMIT 3")
                .split(separator: "\n").joined(separator: ", ")
            try data.writeBehindAnnolink("UPDATE \"Loudoun_Address_Points_1\" SET \"ST_STR_NAM\" = 'RENAMED' WHERE \"fid\" IN (\(points))")
            try data.writeBehindAnnolink("UPDATE \"Loudoun_Address_Points_1\" SET \"AD_ADDRESS\" = 5 WHERE \"fid\" = (SELECT max(\"fid\") FROM \"Loudoun_Address_Points_1\")")
            let before = try data.snapshot()
            try run(["--regenerate", "--dry-run", "--json"])
            #expect(try data.snapshot() == before, "\(store): a dry run writes nothing")
            try run(["--regenerate", "--into", "street_anno", "--json"])
            #expect(try data.query("SELECT count(*) FROM \"street_anno\" WHERE \"TextString\" = 'RENAMED'") == "3", "\(store)")
            let checked = try Harness.annolink("check", data.target, "--json", "--only", CheckReviewTests.consistency)
            #expect(checked.status == 0, "\(store): \(checked.stdout) \(checked.stderr)")
            outputs[store] = out
            dumps[store] = try data.annotationDump(["street_anno", "ParcelLinesAnno_1", "Loudoun_Address_PointsAnno_1"],
                                                   laidOut: ["street_anno"], styled: ["ParcelLinesAnno_1"])
        }
        let geoPackage = try #require(dumps[.geoPackage]), postGIS = try #require(dumps[.postGIS])
        #expect(geoPackage.contains("ParcelLinesAnno_1|7|long lines|ParcelLines_1|FID > 60|") && geoPackage.contains("street_anno|0|Default|Loudoun_Address_Points_1|"),
                "\(geoPackage.prefix(2000))")
        #expect(geoPackage.contains("street_anno|geom|annolink|1|<") && geoPackage.contains("ParcelLinesAnno_1|geom|annolink|1|<"), "styles are there")
        #expect(postGIS == geoPackage)
        if postGIS != geoPackage {
            let a = geoPackage.split(separator: "\n"), b = postGIS.split(separator: "\n")
            for (x, y) in zip(a, b) where x != y {
                Issue.record("first difference:\nGeoPackage: \(x.prefix(600))\nPostGIS:    \(y.prefix(600))")
                break
            }
        }
        #expect(outputs[.postGIS] == outputs[.geoPackage])
        let counts = try #require(try JSONSerialization.jsonObject(with: Data((outputs[.geoPackage]?[3] ?? "").utf8)) as? [String: Any])
        #expect(counts["updated"] as? Int ?? 0 >= 3, "\(counts)")
    }

    @Test("annotate --regenerate is one journal entry on both stores: undo gives every row back, redo the regeneration", arguments: EditedStore.allCases)
    func regenerateJournal(store: EditedStore) throws {
        guard let data = try EditedData(store) else { return }
        defer { data.drop() }
        let fid = try data.firstPoint()
        #expect(try Harness.annolink("set", data.target, "Loudoun_Address_Points_1", fid, "AD_ADDRESS=4711").status == 0)
        try data.writeBehindAnnolink("UPDATE \"Loudoun_Address_Points_1\" SET \"ST_STR_NAM\" = 'PLANTED' WHERE \"fid\" <> \(fid)")
        let before = try data.snapshot()
        let result = try Harness.annolink("annotate", data.target, "--regenerate")
        #expect(result.status == 0, "\(result.stderr)")
        let after = try data.snapshot()
        #expect(after != before)
        #expect(try data.query("""
            SELECT count(*) FROM "Loudoun_Address_PointsAnno_1" a JOIN "Loudoun_Address_Points_1" p ON p."fid" = a."FeatureID"
            WHERE p."ST_STR_NAM" = 'PLANTED' AND a."TextString" <> p."AD_ADDRESS" || ' ' || p."ST_STR_NAM"
            """) == "0")
        #expect(try data.query("SELECT count(*) FROM \"Loudoun_Address_PointsAnno_1\" WHERE \"TextString\" LIKE '% PLANTED'") != "0")
        let log = try Harness.annolink("log", data.target, "--json")
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]], "\(log.stdout) \(log.stderr)")
        #expect(result.stdout.contains("journal entry 2, undo with 'annolink undo'"), "\(result.stdout)")
        #expect(entries.count == 2 && entries.first?["summary"] as? String == "annotate --regenerate", "\(entries)")
        let undo = try Harness.annolink("undo", data.target)
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(try data.snapshot() == before)
        let redo = try Harness.annolink("redo", data.target)
        #expect(redo.status == 0, "\(redo.stderr)")
        #expect(try data.snapshot() == after)
        // Undo again, then the set's undo too: the regeneration's rows are back as the set left them.
        #expect(try Harness.annolink("undo", data.target).status == 0)
        #expect(try Harness.annolink("undo", data.target).status == 0)
        // A regeneration that finds nothing to change makes no entry.
        #expect(try Harness.annolink("annotate", data.target, "--regenerate").status == 0)
        #expect(try Harness.annolink("annotate", data.target, "--regenerate").stdout.contains("journal entry") == false)
    }

    @Test("bad input to annotate: the same one-line error and exit status on both stores, nothing written")
    func annotateBadInput() throws {
        let base = ["--into", "bad_anno", "--expression", "$feature.ST_STR_NAM", "--placement", "point"]
        let cases: [[String]] = [
            ["--origin", "NoSuchTable"] + base,
            ["--regenerate", "--into", "NoSuchTable"],
            ["--origin", "Loudoun_Address_Points_1", "--into", "Loudoun_Address_PointsAnno_1", "--class-id", "0", "--expression", "$feature.ST_STR_NAM",
             "--placement", "point"],
            ["--origin", "Loudoun_Address_Points_1", "--into", "ParcelLines_1", "--expression", "$feature.ST_STR_NAM", "--placement", "point"],
            ["--origin", "Loudoun_Address_Points_1", "--into", "bad_anno", "--expression", "$feature.", "--placement", "point"],
            ["--origin", "Loudoun_Address_Points_1", "--where", "1; DROP TABLE x"] + base,
            ["--origin", "Loudoun_Address_Points_1", "--where", "NoSuchColumn = 1"] + base,
            ["--origin", "Loudoun_Address_Points_1", "--into", "bad_anno", "--expression", "$feature.NoSuchField", "--placement", "point"],
            ["--origin", "Loudoun_Address_Points_1", "--placement", "point"],
        ]
        var found: [EditedStore: [String]] = [:]
        for store in EditedStore.allCases {
            guard let data = try EditedData(store) else { return }
            defer { data.drop() }
            let before = try data.snapshot()
            var lines: [String] = []
            for arguments in cases {
                let result = try Harness.annolink(["annotate", data.target] + arguments)
                let error = result.stderr.replacingOccurrences(of: data.target, with: "FILE")
                #expect(result.status != 0, "\(store) \(arguments): \(result.stdout)")
                // One error line (a usage error adds where to read the usage).
                #expect(error.split(separator: "\n").filter { $0.hasPrefix("error: ") }.count == 1, "\(store) \(arguments): \(error)")
                lines.append("\(result.status) \(error)")
            }
            #expect(try data.snapshot() == before, "\(store)")
            // No table was left behind by the refusals that came after it was made.
            #expect(try Harness.annolink("info", data.target, "--table", "bad_anno").status == 65, "\(store)")
            found[store] = lines
        }
        let geoPackage = try #require(found[.geoPackage])
        #expect(found[.postGIS] == geoPackage)
        #expect(geoPackage.allSatisfy { $0.hasPrefix("65 ") || $0.hasPrefix("64 ") }, "\(geoPackage)")
    }

    @Test("annotate --into a name longer than PostgreSQL's 63 bytes: refused on PostGIS naming the limit, nothing written; 63 bytes is made whole")
    func annotateIntoALongName() throws {
        guard let data = try EditedData(.postGIS) else { return }
        defer { data.drop() }
        let before = try data.snapshot()
        // Multi-byte characters: the limit is in bytes, not characters (31 × 2 + 1 = 63, + 2 = 65).
        let fits = String(repeating: "ä", count: 31) + "a"
        let tooLong = String(repeating: "ä", count: 32) + "a"
        let labels = ["--origin", "Loudoun_Address_Points_1", "--expression", "$feature.ST_STR_NAM", "--placement", "point", "--where", "AD_ADDRESS > 40000"]
        let refused = try Harness.annolink(["annotate", data.target, "--into", tooLong] + labels)
        #expect(refused.status == 65, "\(refused.stdout)")
        #expect(refused.stderr == "error: '\(tooLong)' is longer than PostgreSQL's 63-byte names; choose a shorter name\n", "\(refused.stderr)")
        #expect(try data.snapshot() == before)
        #expect(try data.query("SELECT count(*) FROM annolink.annotation_tables WHERE table_name LIKE 'ä%'") == "0")
        let made = try Harness.annolink(["annotate", data.target, "--into", fits] + labels)
        #expect(made.status == 0, "\(made.stderr)")
        // The table has the whole name (not cut by PostgreSQL) and holds the labels.
        #expect(try data.query("SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename = '\(fits)'") == "1")
        #expect(try data.query("SELECT count(*) > 0 FROM \"\(fits)\"") == "t")
        #expect(try Harness.annolink("check", data.target).status == 0)
    }

    @Test("sketch on both stores: a tapped point dragged and a new two-point parcel line saved through the edit service; the same output and rows, undo gives every row back")
    func sketchSame() throws {
        var outputs: [EditedStore: String] = [:], dumps: [EditedStore: String] = [:]
        for store in EditedStore.allCases {
            guard let data = try EditedData(store) else { return }
            defer { data.drop() }
            let fid = try data.firstPoint()
            let shown = try Harness.annolink("show", data.target, "Loudoun_Address_Points_1", fid, "--json")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any], "\(shown.stderr)")
            let point = try #require((object["geometry"] as? [String: Any])?["coordinates"] as? [Double])
            let u = SketchTests.feetPerPoint
            let script = """
                view \(point[0] + 20 * u),\(point[1]) 1200
                tap 380,300
                button
                pan 24,-12
                button
                save
                new ParcelLines_1
                view 11789200,7057600 1200
                button
                pan 100,40
                button
                save GlobalID={00000000-0000-0000-0000-0000000000CD}
                quit
                """
            let before = try data.snapshot()
            let result = try Harness.run(Harness.binary, ["sketch", data.target], stdin: script)
            #expect(result.status == 0, "\(store): \(result.stderr)")
            #expect(result.stdout.contains("saved: reshaped Loudoun_Address_Points_1 fid \(fid) (journal entry 1"), "\(store): \(result.stdout)")
            #expect(result.stdout.contains("saved: added ParcelLines_1 fid"), "\(store): \(result.stdout)")
            outputs[store] = result.stdout
            #expect(try Harness.annolink("check", data.target).status == 0, "\(store)")
            dumps[store] = try data.annotationDump(["Loudoun_Address_PointsAnno_1", "ParcelLinesAnno_1"]) + (try Harness.sqlite(data.asGeoPackage(), """
                SELECT 'point', fid, hex(geom) FROM Loudoun_Address_Points_1 UNION ALL SELECT 'line', fid, hex(geom) FROM ParcelLines_1 ORDER BY 1, 2
                """))
            #expect(try Harness.annolink("undo", data.target).status == 0)
            #expect(try Harness.annolink("undo", data.target).status == 0)
            #expect(try data.snapshot() == before, "\(store)")
        }
        #expect(outputs[.postGIS] == outputs[.geoPackage])
        #expect(dumps[.postGIS] == dumps[.geoPackage])
    }

    @Test("bad input to sketch: the same one-line error and exit status on both stores")
    func sketchBadInput() throws {
        let cases = ["edit NoSuchTable 1", "edit Loudoun_Address_Points_1 999999", "edit Loudoun_Address_PointsAnno_1 1", "new NoSuchTable"]
        var found: [EditedStore: [String]] = [:]
        for store in EditedStore.allCases {
            guard let data = try EditedData(store) else { return }
            defer { data.drop() }
            found[store] = try cases.map { script in
                let result = try Harness.run(Harness.binary, ["sketch", data.target], stdin: script)
                #expect(result.stderr.split(separator: "\n").count == 1, "\(store) \(script): \(result.stderr)")
                return "\(result.status) \(result.stderr.replacingOccurrences(of: data.target, with: "FILE"))"
            }
        }
        #expect(found[.postGIS] == found[.geoPackage])
        #expect(found[.geoPackage]?.allSatisfy { $0.hasPrefix("65 ") || $0.hasPrefix("64 ") } == true, "\(found)")
    }
}
