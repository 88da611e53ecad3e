import AnnoLinkGeometry
import Foundation
import Testing

/// `annolink check` and `check --fix` on files corrupted by SQL written here, and on ArcGIS's
/// own annotation of the Loudoun data.
@Suite("check and check --fix, end to end")
struct CheckTests {
    /// A problem as the JSON output names it; nil for null.
    struct Found: Hashable, CustomStringConvertible {
        var code: String
        var annotationTable: String?
        var annotationFid: Int64?
        var originTable: String?
        var originFid: Int64?

        var description: String {
            "\(code) \(annotationTable ?? "-") \(annotationFid.map(String.init) ?? "-") \(originTable ?? "-") \(originFid.map(String.init) ?? "-")"
        }
    }

    /// `check --json` (with `extra` arguments): exit status, problems with their messages, the
    /// whole object. Only the consistency checks unless `extra` says `--only`: the sample's
    /// labels overlap (CheckReviewTests has the review checks).
    func check(_ path: String, _ extra: String...,
               sourceLocation: SourceLocation = #_sourceLocation) throws -> (status: Int32, problems: [Found: String], object: [String: Any]) {
        let only = extra.contains("--only") ? [] : ["--only", CheckReviewTests.consistency]
        let result = try Harness.annolink(["check", path, "--json"] + only + extra)
        #expect(result.stderr.isEmpty, "\(result.stderr)", sourceLocation: sourceLocation)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)",
            sourceLocation: sourceLocation)
        var problems: [Found: String] = [:]
        for p in object["problems"] as? [[String: Any]] ?? [] {
            let found = Found(code: p["code"] as! String, annotationTable: p["annotationTable"] as? String,
                              annotationFid: (p["annotationFid"] as? NSNumber)?.int64Value,
                              originTable: p["originTable"] as? String, originFid: (p["originFid"] as? NSNumber)?.int64Value)
            #expect(problems[found] == nil, "reported twice: \(found)", sourceLocation: sourceLocation)
            problems[found] = p["message"] as? String
        }
        return (result.status, problems, object)
    }

    /// Runs each statement with GDAL (`ogrinfo`), whose GeoPackage driver has the functions the
    /// R-tree triggers call, as another tool writing behind annolink's back would.
    func outside(_ path: String, _ statements: String..., sourceLocation: SourceLocation = #_sourceLocation) throws {
        for sql in statements { try Harness.gdalSQL(path, sql, sourceLocation: sourceLocation) }
    }

    func sample(parcels: Int) throws -> String {
        let path = try Harness.temporaryDirectory().appendingPathComponent("sample.gpkg").path
        #expect(try Harness.annolink("sample", path, "--parcels", String(parcels)).status == 0)
        return path
    }

    func integer(_ path: String, _ sql: String) throws -> Int64 {
        try #require(Int64(try Harness.sqlite(path, sql)), "\(sql)")
    }

    @Test("a fresh sample is clean: exit 0, no problems, in text and JSON")
    func clean() throws {
        let path = try sample(parcels: 20)
        let text = try Harness.annolink("check", path, "--only", CheckReviewTests.consistency)
        #expect(text.status == 0)
        #expect(text.stdout.hasPrefix("\(path): no problems ("), "\(text.stdout)")
        let json = try check(path)
        #expect(json.status == 0)
        #expect(json.problems.isEmpty)
        #expect((json.object["counts"] as? [String: Any])?.isEmpty == true)
    }

    @Test("every kind of corruption is reported exactly; --fix repairs it all as one entry that undo reverts")
    func corruptAndRepair() throws {
        guard Harness.hasGDAL else { return }
        let path = try sample(parcels: 30)
        // A second annotation table whose two classes split the lines by their Length
        // attribute, so that changing it without regeneration puts annotation in the wrong class.
        let expression = "Round(Length(Geometry($feature), 'feet'), 1)"
        for (id, name, clause) in [("0", "Short", "Length <= 100"), ("1", "Long", "Length > 100")] {
            let made = try Harness.annolink("annotate", path, "--origin", "parcel_lines", "--into", "length_anno", "--class-id", id,
                                            "--name", name, "--where", clause, "--expression", expression, "--placement", "line")
            #expect(made.status == 0, "\(made.stderr)")
        }
        // A hand-placed label, moved with 'set' (Override position): never stale.
        let handPlaced = try integer(path, "SELECT fid FROM address_points_anno WHERE FeatureID = 8")
        #expect(try Harness.annolink("set", path, "address_points_anno", String(handPlaced), "AnchorX=11880000").status == 0)
        #expect(try check(path).status == 0)

        func anno(_ table: String, _ feature: Int64) throws -> Int64 {
            try integer(path, "SELECT fid FROM \(table) WHERE FeatureID = \(feature)")
        }
        let short = try integer(path, "SELECT min(fid) FROM parcel_lines WHERE Length <= 100")
        let short2 = try integer(path, "SELECT min(fid) FROM parcel_lines WHERE Length <= 100 AND fid > \(short)")
        let gone = try integer(path, "SELECT max(fid) FROM parcel_lines")
        let (goneLine, goneLength) = (try anno("parcel_lines_anno", gone), try anno("length_anno", gone))
        let (movedShort, nulled) = (try anno("length_anno", short), try anno("length_anno", short2))
        let (retexted, moved, copied) = (try anno("address_points_anno", 3), try anno("address_points_anno", 4), try anno("parcel_lines_anno", 5))
        let (wrongBox, unindexed) = (try anno("address_points_anno", 6), try anno("address_points_anno", 7))
        let (misshapen, unlabelled) = (try anno("address_points_anno", 9), try anno("parcel_lines_anno", 12))

        try outside(path,
            "DELETE FROM parcel_lines WHERE fid = \(gone)",
            "UPDATE address_points_anno SET TextString = 'WRONG' WHERE fid = \(retexted)",
            "UPDATE address_points_anno SET AnchorX = AnchorX + 10 WHERE fid = \(moved)",
            """
            INSERT INTO parcel_lines_anno (geom, FeatureID, AnnotationClassID, TextString, FontName, FontSize, HorizontalAlignment,
              VerticalAlignment, AnchorX, AnchorY, Angle, XOffset, YOffset, Status, Override)
            SELECT geom, FeatureID, AnnotationClassID, TextString, FontName, FontSize, HorizontalAlignment, VerticalAlignment, AnchorX,
              AnchorY, Angle, XOffset, YOffset, Status, Override FROM parcel_lines_anno WHERE fid = \(copied)
            """,
            "UPDATE parcel_lines SET Length = 500 WHERE fid = \(short)",
            "UPDATE parcel_lines SET Length = NULL WHERE fid = \(short2)",
            "UPDATE address_points_anno SET geom = (SELECT geom FROM address_points_anno WHERE fid = \(retexted)) WHERE fid = \(misshapen)",
            "DELETE FROM parcel_lines_anno WHERE fid = \(unlabelled)")
        let copy = try integer(path, "SELECT max(fid) FROM parcel_lines_anno")
        // The R-tree module is in the plain sqlite3 shell: no triggers involved.
        _ = try Harness.sqlite(path, """
            UPDATE rtree_address_points_anno_geom SET minx = minx - 50 WHERE id = \(wrongBox);
            DELETE FROM rtree_address_points_anno_geom WHERE id = \(unindexed);
            INSERT INTO rtree_address_points_anno_geom VALUES (999999, 1, 2, 3, 4);
            DELETE FROM rtree_parcel_lines_geom WHERE id = 11;
            """)

        let expected: Set<Found> = [
            Found(code: "orphan", annotationTable: "parcel_lines_anno", annotationFid: goneLine, originTable: "parcel_lines", originFid: gone),
            Found(code: "orphan", annotationTable: "length_anno", annotationFid: goneLength, originTable: "parcel_lines", originFid: gone),
            Found(code: "stale-text", annotationTable: "address_points_anno", annotationFid: retexted, originTable: "address_points", originFid: 3),
            Found(code: "stale-placement", annotationTable: "address_points_anno", annotationFid: moved, originTable: "address_points", originFid: 4),
            Found(code: "duplicate", annotationTable: "parcel_lines_anno", annotationFid: copy, originTable: "parcel_lines", originFid: 5),
            Found(code: "wrong-class", annotationTable: "length_anno", annotationFid: movedShort, originTable: "parcel_lines", originFid: short),
            Found(code: "wrong-class", annotationTable: "length_anno", annotationFid: nulled, originTable: "parcel_lines", originFid: short2),
            Found(code: "footprint", annotationTable: "address_points_anno", annotationFid: misshapen, originTable: "address_points", originFid: 9),
            Found(code: "missing", annotationTable: "parcel_lines_anno", originTable: "parcel_lines", originFid: 12),
            Found(code: "index", annotationTable: "address_points_anno", annotationFid: wrongBox),
            Found(code: "index", annotationTable: "address_points_anno", annotationFid: unindexed),
            Found(code: "index", annotationTable: "address_points_anno", annotationFid: 999999),
            Found(code: "index", originTable: "parcel_lines", originFid: 11),
        ]
        let found = try check(path)
        #expect(found.status == 1)
        #expect(Set(found.problems.keys) == expected,
                "unexpected: \(Set(found.problems.keys).subtracting(expected)); not found: \(expected.subtracting(found.problems.keys))")
        #expect(found.object["counts"] as? [String: Int] == [
            "orphan": 2, "stale-text": 1, "stale-placement": 1, "duplicate": 1, "wrong-class": 2, "index": 4, "footprint": 1, "missing": 1,
        ])
        let shortKey = Found(code: "wrong-class", annotationTable: "length_anno", annotationFid: movedShort, originTable: "parcel_lines", originFid: short)
        #expect(found.problems[shortKey] == "class 0 'Short' no longer selects parcel_lines fid \(short); class 1 'Long' does")
        let corrupted = try Harness.dump(path)

        let fix = try check(path, "--fix")
        #expect(fix.status == 0)
        #expect(fix.object["repaired"] as? [String: Int] == found.object["counts"] as? [String: Int])
        #expect((fix.object["left"] as? [String: Int])?.isEmpty == true)
        let entry = try #require(fix.object["journalEntry"] as? Int)
        #expect(entry == 2, "the set made entry 1")
        #expect(try check(path).status == 0)
        #expect(try Harness.validate(path) == "")
        // The reclassified label now is in the Long class; the hand-placed one stayed put.
        #expect(try Harness.sqlite(path, "SELECT AnnotationClassID FROM length_anno WHERE fid = \(movedShort)") == "1")
        #expect(try Harness.sqlite(path, "SELECT AnchorX FROM address_points_anno WHERE fid = \(handPlaced)") == "11880000.0")
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM parcel_lines_anno WHERE fid IN (\(goneLine), \(copy))") == "0")
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM length_anno WHERE FeatureID = \(gone) OR fid = \(nulled)") == "0")
        let repaired = try Harness.dump(path)

        let undo = try Harness.annolink("undo", path)
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(try Harness.dump(path) == corrupted)
        #expect(Set(try check(path).problems.keys) == expected)
        let redo = try Harness.annolink("redo", path)
        #expect(redo.status == 0, "\(redo.stderr)")
        #expect(try Harness.dump(path) == repaired)
        #expect(try check(path).status == 0)
    }

    @Test("an invalid polygon origin and an unregistered class are reported and left by --fix, which repairs the rest")
    func leftUnrepaired() throws {
        let path = try sample(parcels: 5)
        // A polygon feature table (no spatial index, so the plain sqlite3 shell can write it)
        // with a class labelling it, registered while it is empty.
        _ = try Harness.sqlite(path, """
            CREATE TABLE parcels (fid INTEGER PRIMARY KEY AUTOINCREMENT, geom POLYGON, name TEXT);
            INSERT INTO gpkg_contents (table_name, data_type, identifier, srs_id) VALUES ('parcels', 'features', 'parcels', 2924);
            INSERT INTO gpkg_geometry_columns VALUES ('parcels', 'geom', 'POLYGON', 2924, 0, 0);
            """)
        let annotate = try Harness.annolink("annotate", path, "--origin", "parcels", "--into", "parcel_names", "--expression", "$feature.name",
            "--placement", "point")
        #expect(annotate.status == 0, "\(annotate.stderr)")
        let bowTie = Polygon(exterior: LineString([(0, 0), (10, 10), (10, 0), (0, 10), (0, 0)].map { Point(x: 11_880_000 + $0.0, y: 7_020_000 + $0.1) }))
        let blob = GeoPackageGeometry.encode(.polygon(bowTie), srsID: 2924).map { String(format: "%02X", $0) }.joined()
        // Written past the change capture (docs/follow.md), so that check finds the damage.
        _ = try Harness.sqlite(path, """
            UPDATE annolink_changes_state SET writing = 1; INSERT INTO parcels (fid, geom, name) VALUES (1, X'\(blob)', 'bow tie');
            UPDATE annolink_changes_state SET writing = 0
            """)
        let invalid = Found(code: "invalid-geometry", originTable: "parcels", originFid: 1)
        #expect(Array(try check(path).problems.keys) == [invalid])
        // A label moved to a class nobody registered: its feature is left without one.
        let stray = try integer(path, "SELECT fid FROM address_points_anno WHERE FeatureID = 2")
        if Harness.hasGDAL { try outside(path, "UPDATE address_points_anno SET AnnotationClassID = 5 WHERE fid = \(stray)") }
        let expected: Set<Found> = Harness.hasGDAL ? [
            invalid, Found(code: "unknown-class", annotationTable: "address_points_anno", annotationFid: stray, originFid: 2),
            Found(code: "missing", annotationTable: "address_points_anno", originTable: "address_points", originFid: 2),
        ] : [invalid]

        let found = try check(path)
        #expect(found.status == 1)
        #expect(Set(found.problems.keys) == expected)
        #expect(found.problems[invalid] == "invalid geometry: Self-intersection[11880005 7020005]")

        let before = try Harness.dump(path)
        let fix = try check(path, "--fix")
        #expect(fix.status == 1, "problems are left")
        guard Harness.hasGDAL else { return }
        #expect(fix.object["left"] as? [String: Int] == ["invalid-geometry": 1, "unknown-class": 1])
        #expect(fix.object["repaired"] as? [String: Int] == ["missing": 1])
        #expect(fix.object["journalEntry"] as? Int == 1)
        #expect(Set(try check(path).problems.keys) == expected.subtracting([expected.first { $0.code == "missing" }!]))
        let text = try Harness.annolink("check", path, "--fix", "--only", CheckReviewTests.consistency)
        #expect(text.status == 1)
        #expect(text.stdout.contains("\nleft: 1 invalid-geometry, 1 unknown-class (no repair exists"), "\(text.stdout)")
        #expect(!text.stdout.contains("repaired"), "nothing was left to repair: \(text.stdout)")
        #expect(try Harness.annolink("undo", path).status == 0)
        #expect(try Harness.dump(path) == before)
    }

    @Test("ArcGIS's Loudoun annotation is clean as imported: its slides are recorded as ArcGIS's choice, not problems; a feature moved under its label is")
    func loudoun() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let found = try check(path)
        #expect(found.status == 0, "\(found.problems)")
        #expect(found.problems.isEmpty)
        // Each label records that ArcGIS placed it, and how far from the rule placement: the
        // 21 labels ArcGIS's engine put off the rules' position (loudoun-facts.md) are known by
        // their recorded offsets — two address labels off their point, four of the 71 two-point
        // lines slid along the line — in US survey feet.
        let offsets: [(String, Int64, Double)] = [
            ("Loudoun_Address_PointsAnno_1", 10, 29.25), ("Loudoun_Address_PointsAnno_1", 24, 4.55),
            ("ParcelLinesAnno_1", 21, 5.14), ("ParcelLinesAnno_1", 31, 5.67), ("ParcelLinesAnno_1", 75, 30.04), ("ParcelLinesAnno_1", 82, 6.40),
        ]
        for (table, fid, feet) in offsets {
            let text = try Harness.sqlite(path, "SELECT PlacedFrom FROM \(table) WHERE fid = \(fid)")
            let parts = text.split(separator: " ")
            #expect(parts.first == "arcgis", "\(table) \(fid): \(text)")
            let distance = parts.count == 4 ? (Double(parts[1])! * Double(parts[1])! + Double(parts[2])! * Double(parts[2])!).squareRoot() : -1
            #expect(abs(distance - feet) < 0.005, "\(table) \(fid): \(text)")
        }
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM ParcelLinesAnno_1 WHERE PlacedFrom NOT LIKE 'arcgis %'") == "0")
        // On request, as information: the 21 labels ArcGIS put off the rule position — two address
        // labels off their point, four two-point lines slid, 15 labels elsewhere on their curves.
        let offRule = try check(path, "--only", "off-rule")
        #expect(Set(offRule.problems.keys.map(\.code)) == ["off-rule"])
        #expect(Set(offRule.problems.keys.filter { $0.annotationTable == "Loudoun_Address_PointsAnno_1" }.compactMap(\.annotationFid)) == [10, 24])
        #expect(Set(offRule.problems.keys.filter { $0.annotationTable == "ParcelLinesAnno_1" }.compactMap(\.annotationFid))
            == [2, 7, 10, 14, 15, 17, 21, 31, 43, 52, 61, 72, 75, 82, 89, 94, 96, 102, 106])
        #expect(offRule.problems.values.allSatisfy { $0.hasPrefix("placed by arcgis ") })

        // Regeneration keeps every label: their features are unchanged.
        let before = try Harness.dump(path)
        #expect(try Harness.annolink("annotate", path, "--regenerate").status == 0)
        #expect(try Harness.dump(path) == before)

        // Another program moves label 10 by 12 ft without saying it was by hand: what it records
        // no longer matches its feature, so it is stale, and only it.
        guard Harness.hasGDAL else { return }
        try Harness.gdalSQL(path, "UPDATE Loudoun_Address_PointsAnno_1 SET AnchorX = AnchorX - 12 WHERE fid = 10")
        let moved = try check(path, "--table", "Loudoun_Address_Points_1")
        #expect(Set(moved.problems.keys.map { "\($0.code) \($0.annotationFid!)" }) == ["stale-placement 10"], "\(moved.problems)")
        #expect(moved.problems.values.first?.contains("since the label was placed") == true, "\(moved.problems)")

        // Placed again, all together, by annolink's conflict-aware placement: every label has
        // room, none overlaps another, nothing is stale (label 10 included).
        #expect(try Harness.annolink("annotate", path, "--regenerate", "--replace").status == 0)
        let replaced = try check(path)
        #expect(replaced.status == 0, "\(replaced.problems)")
    }

    @Test("bad input: one error line and the documented status; a GeoPackage without annotation says so")
    func badInput() throws {
        func expectError(_ result: Harness.Result, _ status: Int32, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(result.status == status, "\(result.stderr)", sourceLocation: sourceLocation)
            #expect(result.stderrLines.first?.hasPrefix("error: ") == true, sourceLocation: sourceLocation)
            #expect(result.stderrLines.count == (status == 64 ? 2 : 1), "\(result.stderr)", sourceLocation: sourceLocation)
            #expect(result.stderr.contains(text), "\(result.stderr)", sourceLocation: sourceLocation)
            #expect(result.stdout.isEmpty, sourceLocation: sourceLocation)
        }
        let dir = try Harness.temporaryDirectory()
        expectError(try Harness.annolink("check", dir.appendingPathComponent("none.gpkg").path), 66, "no such file")
        let text = dir.appendingPathComponent("notes.gpkg")
        try Data("not a database\n".utf8).write(to: text)
        expectError(try Harness.annolink("check", text.path), 65, "not a GeoPackage")

        let path = try sample(parcels: 3)
        expectError(try Harness.annolink("check", path, "--table", "nope"), 65, "no feature table named 'nope'")
        expectError(try Harness.annolink("check", path, "--position-tolerance", "-1"), 64, "--position-tolerance expects")
        expectError(try Harness.annolink("check", path, "--frobnicate"), 64, "unknown option --frobnicate")

        _ = try Harness.sqlite(path, "DELETE FROM annolink_annotation_classes")
        expectError(try Harness.annolink("check", path), 65, "annotation tables (address_points_anno, parcel_lines_anno) but no annotation classes")

        _ = try Harness.sqlite(path, "DELETE FROM gpkg_extensions WHERE extension_name = 'annolink_feature_linked_annotation'")
        let none = try Harness.annolink("check", path)
        #expect(none.status == 0)
        #expect(none.stdout == "\(path) has no annotation tables or classes; nothing to check\n")
        let noneJSON = try check(path)
        #expect(noneJSON.status == 0)
        #expect(noneJSON.problems.isEmpty)
    }
}
