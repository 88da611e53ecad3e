import AnnoLinkAnnotation
import AnnoLinkEditing
import AnnoLinkGeometry
import AnnoLinkStore
import Foundation
import Testing

/// Bulk `set` and `delete` over a selection, dry runs of every request, and the refusal of
/// empty values a label reads.
@Suite struct BulkEditTests {
    /// A sample whose address labels have two classes in one table: "Main" for the points of
    /// MAIN ST (class 1), "Default" for the others (class 0).
    static func twoClasses(_ package: GeoPackage) throws {
        var classes = try package.annotationClasses()
        var main = try #require(classes.first { $0.annotationTable == "address_points_anno" })
        let index = try #require(classes.firstIndex { $0.annotationTable == "address_points_anno" })
        classes[index].whereClause = "ST_STR_NAM <> 'MAIN ST'"
        try package.saveAnnotationClass(classes[index])
        main.classID = 1
        main.name = "Main"
        main.whereClause = "ST_STR_NAM = 'MAIN ST'"
        try package.saveAnnotationClass(main)
    }

    /// The rows of every table but the journal's, for before/after comparisons.
    func content(_ s: EditScratch) throws -> [String] {
        try s.dump().filter { line in
            !line.contains("annolink_journal") && !line.hasPrefix("rtree_") && !line.contains("| rtree_")
        }
    }

    // MARK: Bulk set

    @Test("a street rename by where clause changes every matching point and its label, in one journal entry that undo reverts")
    func renameStreet() throws {
        let s = try EditScratch()
        let before = try content(s)
        let woodland = try s.package.connection.rows("SELECT fid FROM address_points WHERE ST_STR_NAM = 'WOODLAND' ORDER BY fid").compactMap { $0[0].integerValue }
        #expect(woodland.count == 12)
        let others = try s.package.connection.rows("SELECT * FROM address_points_anno WHERE FeatureID NOT IN (\(woodland.map(String.init).joined(separator: ","))) ORDER BY fid")

        let result = try s.service.run(SetFieldsBulk(table: "address_points", selection: .condition("ST_STR_NAM = 'WOODLAND'"),
                                                     values: [FieldAssignment(field: "ST_STR_NAM", text: "WOODLAND CT")], reportChanges: true, command: "test"))
        #expect(result.features == 12 && !result.dryRun)
        #expect(result.annotation == BulkEditResult.AnnotationCounts(created: 0, updated: 12, deleted: 0, reclassified: 0))
        let changes = try #require(result.changes)
        #expect(changes.map(\.fid) == woodland)
        for (change, fid) in zip(changes, woodland) {
            let address = try #require(s.feature("address_points", fid).attributes["AD_ADDRESS"]?.integerValue)
            #expect(change.fields.map(\.old) == [.text("WOODLAND")] && change.fields.map(\.new) == [.text("WOODLAND CT")])
            #expect(change.annotation.map(\.newText) == ["\(address) WOODLAND CT"])
            #expect(try s.annotation("address_points_anno", feature: fid).text == "\(address) WOODLAND CT")
        }
        #expect(try s.count("SELECT count(*) FROM address_points WHERE ST_STR_NAM = 'WOODLAND'") == 0)
        #expect(try s.package.connection.rows("SELECT * FROM address_points_anno WHERE FeatureID NOT IN (\(woodland.map(String.init).joined(separator: ","))) ORDER BY fid") == others)
        let entries = try s.service.journal().entries(limit: nil)
        #expect(entries.count == 1 && entries[0].id == result.journalEntry && entries[0].kind == .bulk)
        #expect(entries[0].summary == "set ST_STR_NAM of 12 features of address_points")

        _ = try s.service.run(Undo())
        #expect(try content(s) == before)
        _ = try s.service.run(Redo())
        #expect(try s.count("SELECT count(*) FROM address_points_anno WHERE TextString LIKE '% WOODLAND CT'") == 12)
    }

    @Test("without a listing and without class where clauses, a bulk set streams through SQLite and gives the same file and counts",
          arguments: [("ST_STR_NAM", "WOODLAND CT"), ("FULL_ADDRE", "somewhere"), ("AD_ADDRESS", "7")])
    func streamingMatchesFeatureByFeature(field: String, value: String) throws {
        var contents: [[String]] = []
        var counts: [BulkEditResult.AnnotationCounts] = []
        for listing in [true, false] {
            let s = try EditScratch()
            // A label gone missing (say, deleted by hand) is made again by both.
            try s.package.connection.run("DELETE FROM address_points_anno WHERE FeatureID = 3")
            let result = try s.service.run(SetFieldsBulk(table: "address_points", selection: .condition("fid % 2 = 1"),
                                                         values: [FieldAssignment(field: field, text: value)], reportChanges: listing, command: "t"))
            #expect(result.features == 12 && (result.changes == nil) == !listing)
            counts.append(result.annotation)
            // gpkg_contents holds the time of the edit, layer_styles the time each file was made.
            contents.append(try content(s).filter { !$0.hasPrefix("gpkg_contents") && !$0.hasPrefix("layer_styles") })
            _ = try s.service.run(Undo())
            #expect(try s.count("SELECT count(*) FROM address_points_anno WHERE FeatureID = 3") == 0, "undo takes the made label away again")
        }
        #expect(counts[0] == counts[1])
        #expect(counts[0].created == 1)
        #expect(counts[0].updated == (field == "FULL_ADDRE" ? 0 : 11))
        let differences = zip(contents[0], contents[1]).filter { $0 != $1 }
        #expect(contents[0].count == contents[1].count && differences.isEmpty, "first difference: \(differences.first.map { "\($0.0)\n→ \($0.1)" } ?? "")")
    }

    @Test("a bulk set moves a feature whose class where clause now selects another class to that class, and undo moves it back")
    func reclassifies() throws {
        let s = try EditScratch(prepare: Self.twoClasses)
        let before = try content(s)
        let result = try s.service.run(SetFieldsBulk(table: "address_points", selection: .fids([1, 2]),
                                                     values: [FieldAssignment(field: "ST_STR_NAM", text: "MAIN ST")], reportChanges: true, command: "test"))
        #expect(result.annotation == BulkEditResult.AnnotationCounts(created: 0, updated: 0, deleted: 0, reclassified: 2))
        #expect(try s.annotation("address_points_anno", feature: 1).classID == 1)
        #expect(try s.annotation("address_points_anno", feature: 3).classID == 0)
        _ = try s.service.run(Undo())
        #expect(try content(s) == before)
    }

    @Test("bulk set by box takes the features inside it; nothing selected changes nothing and records no entry")
    func byBox() throws {
        let s = try EditScratch()
        let p = try s.point(5)
        let box = Envelope(minX: p.x - 0.001, minY: p.y - 0.001, maxX: p.x + 0.001, maxY: p.y + 0.001)
        let result = try s.service.run(SetFieldsBulk(table: "address_points", selection: .boundingBox(box),
                                                     values: [FieldAssignment(field: "AD_ADDRESS", text: "1")], command: "test"))
        #expect(result.features == 1 && result.changes == nil)
        #expect(try s.feature("address_points", 5).attributes["AD_ADDRESS"] == .integer(1))
        let before = try s.dump()
        let none = try s.service.run(SetFieldsBulk(table: "address_points", selection: .condition("AD_ADDRESS < 0"),
                                                   values: [FieldAssignment(field: "AD_ADDRESS", text: "1")], command: "test"))
        #expect(none.features == 0 && none.journalEntry == nil)
        #expect(try s.dump() == before)
    }

    @Test("bulk set and delete refuse what translate refuses: bad where clauses, writing SQL, unknown fids; and values that do not fit")
    func refusals() throws {
        let s = try EditScratch()
        let value = [FieldAssignment(field: "ST_STR_NAM", text: "X")]
        for clause in ["NO_SUCH_COLUMN = 1", "1); DELETE FROM address_points; SELECT (1", "fid IN (SELECT fid FROM address_points) ; DROP TABLE address_points"] {
            try s.expectUnchanged(by: {
                _ = try s.service.run(SetFieldsBulk(table: "address_points", selection: .condition(clause), values: value, command: "test"))
            }, throws: EditError.self)
            try s.expectUnchanged(by: {
                _ = try s.service.run(DeleteFeatures(table: "address_points", selection: .condition(clause), command: "test"))
            }, throws: EditError.self)
        }
        let bad = try s.expectUnchanged(by: {
            _ = try s.service.run(SetFieldsBulk(table: "address_points", selection: .condition("NO_SUCH_COLUMN = 1"), values: value, command: "test"))
        }, throws: EditError.self)
        #expect(bad?.description == "invalid selection: the where clause does not compile: no such column: NO_SUCH_COLUMN")
        #expect(try s.expectUnchanged(by: {
            _ = try s.service.run(DeleteFeatures(table: "address_points", selection: .fids([1, 99]), command: "test"))
        }, throws: StoreError.self) == .unknownFeature(table: "address_points", fid: 99))
        try s.expectUnchanged(by: {
            _ = try s.service.run(SetFieldsBulk(table: "address_points", selection: .fids([1, 2]),
                                                values: [FieldAssignment(field: "AD_ADDRESS", text: "many")], command: "test"))
        }, throws: EditError.self)
        // A write in the where clause is refused before anything runs.
        try s.expectUnchanged(by: {
            _ = try s.service.run(SetFieldsBulk(table: "address_points", selection: .condition("fid = (SELECT load_extension('x'))"),
                                                values: value, command: "test"))
        }, throws: EditError.self)
    }

    @Test("a bulk set is rolled back whole when a label cannot be written after some features changed")
    func rollback() throws {
        let s = try EditScratch()
        try s.refuseWrites(to: "address_points_anno", on: "UPDATE")
        try s.expectUnchanged(by: {
            _ = try s.service.run(SetFieldsBulk(table: "address_points", selection: .condition("1"),
                                                values: [FieldAssignment(field: "ST_STR_NAM", text: "X")], command: "test"))
        }, throws: SQLiteError.self)
    }

    // MARK: Bulk delete

    @Test("a bulk delete removes the features and their labels in one entry; undo brings every row back exactly")
    func deleteMany() throws {
        let s = try EditScratch()
        let before = try content(s)
        let selected = try s.count("SELECT count(*) FROM parcel_lines WHERE fid % 3 = 0")
        #expect(selected > 10)
        #expect(try s.count("SELECT count(*) FROM rtree_parcel_lines_geom WHERE id % 3 = 0") == selected)
        let result = try s.service.run(DeleteFeatures(table: "parcel_lines", selection: .condition("fid % 3 = 0"), reportChanges: true, command: "test"))
        #expect(result.features == Int(selected) && result.kind == .delete)
        #expect(result.annotation.deleted == Int(selected))
        #expect(result.changes?.allSatisfy { $0.oldGeometry != nil && $0.annotation.map(\.kind) == [.deleted] } == true)
        #expect(try s.count("SELECT count(*) FROM parcel_lines WHERE fid % 3 = 0") == 0)
        #expect(try s.count("SELECT count(*) FROM parcel_lines_anno WHERE FeatureID % 3 = 0") == 0)
        #expect(try s.count("SELECT count(*) FROM rtree_parcel_lines_geom WHERE id % 3 = 0") == 0)
        #expect(try s.service.journal().entries(limit: nil).count == 1)
        _ = try s.service.run(Undo())
        #expect(try content(s) == before)
        #expect(try s.count("SELECT count(*) FROM rtree_parcel_lines_geom WHERE id % 3 = 0") == selected)
    }

    // MARK: Dry runs

    /// Runs `request` as a dry run and then for real on the same file, and checks that the
    /// dry run wrote nothing (the file's bytes and its side files) and reported what the real
    /// run then did.
    func expectDryRunMatches<R: EditRequest>(_ s: EditScratch, _ request: R, sourceLocation: SourceLocation = #_sourceLocation) throws
    where R.Result: DryRunReport {
        let directory = URL(fileURLWithPath: s.path).deletingLastPathComponent()
        let filesBefore = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: s.path))
        let dumpBefore = try s.dump()
        let preview = try s.service.run(DryRun(request))
        #expect(preview.dryRun && preview.journalEntry == nil, sourceLocation: sourceLocation)
        #expect(try Data(contentsOf: URL(fileURLWithPath: s.path)) == bytes, "the file's bytes changed", sourceLocation: sourceLocation)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == filesBefore, sourceLocation: sourceLocation)
        #expect(try s.dump() == dumpBefore, sourceLocation: sourceLocation)
        #expect(!s.package.connection.isInTransaction, sourceLocation: sourceLocation)
        var real = try s.service.run(request)
        #expect(real.journalEntry != nil, sourceLocation: sourceLocation)
        real.journalEntry = nil
        real.dryRun = true
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(String(decoding: try encoder.encode(preview), as: UTF8.self) == String(decoding: try encoder.encode(real), as: UTF8.self),
                "the dry run reported something else than the edit did", sourceLocation: sourceLocation)
    }

    @Test("a dry run of each request writes nothing and reports exactly what the edit then does")
    func dryRunsMatch() throws {
        let s = try EditScratch()
        let line = try s.line(4)
        try expectDryRunMatches(s, SetFields(table: "address_points", fid: 1, values: [FieldAssignment(field: "ST_STR_NAM", text: "OAK")], command: "t"))
        try expectDryRunMatches(s, MovePoint(table: "address_points", fid: 2, to: Point(x: 11_880_000, y: 7_020_000), command: "t"))
        try expectDryRunMatches(s, MoveVertex(table: "parcel_lines", fid: 4, to: Point(x: line.points[1].x + 5, y: line.points[1].y - 3), command: "t"))
        try expectDryRunMatches(s, AddFeature(table: "parcel_lines", geometry: .lineString(LineString([Point(x: 11_880_000, y: 7_020_000),
                                                                                                        Point(x: 11_880_050, y: 7_020_020)])), command: "t"))
        try expectDryRunMatches(s, DeleteFeature(table: "parcel_lines", fid: 5, command: "t"))
        try expectDryRunMatches(s, SetFieldsBulk(table: "address_points", selection: .condition("ST_STR_NAM = 'WOODLAND'"),
                                                 values: [FieldAssignment(field: "ST_STR_NAM", text: "WOODLAND CT")], reportChanges: true, command: "t"))
        try expectDryRunMatches(s, DeleteFeatures(table: "address_points", selection: .fids([3, 4, 7]), reportChanges: true, command: "t"))
    }

    @Test("a dry run of a refused edit throws what the edit throws and leaves no transaction open")
    func dryRunRefused() throws {
        let s = try EditScratch()
        try s.expectUnchanged(by: {
            _ = try s.service.run(DryRun(SetFields(table: "address_points", fid: 99, values: [FieldAssignment(field: "AD_ADDRESS", text: "1")], command: "t")))
        }, throws: StoreError.self)
    }

    // MARK: Empty values

    @Test("an empty or blank text for a field a label reads is refused, naming the class and expression, unless allowed")
    func emptyLabelValues() throws {
        let s = try EditScratch()
        let expected = EditError.emptyLabelValue(table: "address_points", field: "ST_STR_NAM", annotationTable: "address_points_anno", classID: 0,
                                                 className: "Default", expression: "$feature.AD_ADDRESS + \" \" + $feature.ST_STR_NAM")
        for text in ["", "   ", "\t"] {
            let error = try s.expectUnchanged(by: {
                _ = try s.service.run(SetFields(table: "address_points", fid: 1, values: [FieldAssignment(field: "ST_STR_NAM", text: text)], command: "t"))
            }, throws: EditError.self)
            #expect(error == expected)
        }
        #expect(expected.description == "address_points.ST_STR_NAM may not be empty or NULL: annotation class 'Default' (address_points_anno class 0) labels with " +
            "$feature.AD_ADDRESS + \" \" + $feature.ST_STR_NAM, which reads it")
        #expect(try s.expectUnchanged(by: {
            _ = try s.service.run(SetFieldsBulk(table: "address_points", selection: .fids([1, 2]), values: [FieldAssignment(field: "st_str_nam", text: " ")],
                                                command: "t"))
        }, throws: EditError.self) == expected)
        #expect(try s.expectUnchanged(by: {
            _ = try s.service.run(AddFeature(table: "address_points", geometry: .point(Point(x: 11_880_000, y: 7_020_000)),
                                             values: [FieldAssignment(field: "AD_ADDRESS", text: "5"), FieldAssignment(field: "ST_STR_NAM", text: "")], command: "t"))
        }, throws: EditError.self) == expected)

        let allowed = try s.service.run(SetFields(table: "address_points", fid: 1, values: [FieldAssignment(field: "ST_STR_NAM", text: "")],
                                                  allowEmpty: true, command: "t"))
        #expect(allowed.annotation.first?.newText == "20000 ")
        let bulk = try s.service.run(SetFieldsBulk(table: "address_points", selection: .fids([2]), values: [FieldAssignment(field: "ST_STR_NAM", text: "")],
                                                   allowEmpty: true, command: "t"))
        #expect(bulk.features == 1)
        // A field no label reads may be empty.
        _ = try s.service.run(SetFields(table: "address_points", fid: 3, values: [FieldAssignment(field: "FULL_ADDRE", text: "")], command: "t"))
    }
}
