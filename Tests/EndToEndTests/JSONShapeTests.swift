import Foundation
import Testing

/// Every `--json` output decodes into the shape docs/cli.md documents: each command is run on a
/// fresh sample, its output decoded into a mirror of the documented shape, and each object's
/// keys compared with the documented keys (so that a key missing, renamed or added shows).
@Suite("--json shapes, end to end")
struct JSONShapeTests {
    // MARK: Mirrors of the documented shapes

    struct GeoJSONGeometry: Decodable {
        var type: String
        var coordinates: Coordinates
    }

    /// GeoJSON coordinates nested to any depth.
    indirect enum Coordinates: Decodable {
        case number(Double)
        case array([Coordinates])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let value = try? container.decode(Double.self) { self = .number(value) } else { self = .array(try container.decode([Coordinates].self)) }
        }
    }

    /// A field value: null, a number or a string.
    enum FieldValue: Decodable, Equatable {
        case null, number(Double), text(String)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let number = try? container.decode(Double.self) {
                self = .number(number)
            } else {
                self = .text(try container.decode(String.self))
            }
        }
    }

    struct AnnotationChange: Decodable {
        var change: String
        var annotationTable: String
        var annotationFid: Int64
        var classID: Int64
        var oldText: String?
        var newText: String?
        var oldAnchor: [Double]?
        var newAnchor: [Double]?
        var oldAngle: Double?
        var newAngle: Double?
    }

    struct EditResult: Decodable {
        struct Field: Decodable {
            var name: String
            var old: FieldValue
            var new: FieldValue
        }

        var edit: String
        var table: String
        var fid: Int64
        var fields: [Field]
        var annotation: [AnnotationChange]
        var journalEntry: Int64?
        var dryRun: Bool
        var oldGeometry: GeoJSONGeometry?
        var newGeometry: GeoJSONGeometry?
    }

    struct BulkEditResult: Decodable {
        struct Field: Decodable {
            var name: String
            var new: FieldValue
        }

        struct Counts: Decodable, Equatable {
            var created: Int
            var updated: Int
            var deleted: Int
            var reclassified: Int
        }

        var edit: String
        var table: String
        var features: Int
        var fields: [Field]
        var annotation: Counts
        var changes: [EditResult]
        var dryRun: Bool
        var journalEntry: Int64?
    }

    struct TranslateResult: Decodable {
        var table: String
        var dx: Double
        var dy: Double
        var features: Int
        var annotationRows: Int
        var dryRun: Bool
        var journalEntry: Int64?
    }

    struct JournalEntry: Decodable {
        var id: Int64
        var time: String
        var state: String
        var kind: String
        var summary: String
        var command: String
        var rows: Int
        var tables: [String]
    }

    struct FeatureReport: Decodable {
        struct Annotation: Decodable {
            var annotationTable: String
            var fid: Int64
            var classID: Int64
            var text: String
            var anchor: [Double]?
            var angle: Double
            var override: Int64
            var status: Int
        }

        var table: String
        var fid: Int64
        var fields: [String: FieldValue]
        var geometry: GeoJSONGeometry?
        var annotation: [Annotation]
    }

    struct IdentifyResult: Decodable {
        struct Searched: Decodable {
            var table: String
            var kind: String
            var location: [Double]
            var tolerance: Double
        }

        struct Feature: Decodable {
            var table: String
            var fid: Int64
            var geometryType: String
            var distance: Double
            var annotation: [FeatureReport.Annotation]
        }

        struct Annotation: Decodable {
            var annotationTable: String
            var fid: Int64
            var classID: Int64
            var text: String
            var anchor: [Double]?
            var angle: Double
            var distance: Double
            var originTable: String?
            var featureID: Int64?
        }

        var location: [Double]
        var crs: String?
        var searched: [Searched]
        var features: [Feature]
        var annotation: [Annotation]
    }

    struct PackageInfo: Decodable {
        struct Table: Decodable {
            struct Column: Decodable {
                var name: String
                var type: String
                var notNull: Bool
            }

            var name: String
            var kind: String
            var geometryType: String
            var srsID: Int64
            var crs: String
            var count: Int64
            var extent: [Double]?
            var columns: [Column]?
        }

        struct AnnotationClass: Decodable {
            var annotationTable: String
            var classID: Int64
            var name: String
            var originTable: String
            var whereClause: String?
            var expression: String
            var fontName: String
            var fontSize: Double
            var referenceScale: Double
            var placement: String
            var placementOffset: Double
            var autoCreate: Bool
            var updateOnShapeChange: Bool
            var annotationCount: Int64
            var originCount: Int64?
            var whereClauseProblem: String?
        }

        var path: String
        var tables: [Table]
        var annotationClasses: [AnnotationClass]
    }

    struct CheckReport: Decodable {
        struct Problem: Decodable {
            var code: String
            var annotationTable: String?
            var annotationFid: Int64?
            var classID: Int64?
            var originTable: String?
            var originFid: Int64?
            var message: String
        }

        var problems: [Problem]
        var counts: [String: Int]
        var repaired: [String: Int]?
        var left: [String: Int]?
        var journalEntry: Int64?
    }

    struct SampleSummary: Decodable {
        var addressPoints: Int
        var parcelLines: Int
        var annotationRows: Int
        var warnings: [String]
    }

    struct ImportReport: Decodable {
        struct Table: Decodable {
            var name: String
            var geometryTypeName: String
            var srsID: Int64
            var rows: Int
            var isAnnotation: Bool
        }

        var tables: [Table]
        var annotationClasses: Int
        var notConverted: [String]
    }

    struct RegenerationSummary: Decodable {
        var features: Int
        var created: Int
        var updated: Int
        var deleted: Int
        var reclassified: Int
        var unplaceable: Int
    }

    // MARK: Keys as documented

    static let editKeys: Set<String> = ["edit", "table", "fid", "fields", "annotation", "journalEntry", "dryRun"]
    static let bulkEditKeys: Set<String> = ["edit", "table", "features", "fields", "annotation", "changes", "dryRun", "journalEntry"]
    static let geometryEditKeys = editKeys.union(["oldGeometry", "newGeometry"])
    static let changeKeys: Set<String> = [
        "change", "annotationTable", "annotationFid", "classID", "oldText", "newText", "oldAnchor", "newAnchor", "oldAngle", "newAngle",
    ]
    static let entryKeys: Set<String> = ["id", "time", "state", "kind", "summary", "command", "rows", "tables"]
    static let problemKeys: Set<String> = ["code", "annotationTable", "annotationFid", "classID", "originTable", "originFid", "message"]

    // MARK: Helpers

    /// Runs `annolink` with `arguments`, expects exit status `status`, and decodes standard
    /// output as `T`.
    func run<T: Decodable>(_ type: T.Type, _ arguments: [String], status: Int32 = 0, sourceLocation: SourceLocation = #_sourceLocation) throws -> (T, Any) {
        let result = try Harness.annolink(arguments)
        #expect(result.status == status, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        let data = Data(result.stdout.utf8)
        let value = try JSONDecoder().decode(T.self, from: data)
        return (value, try JSONSerialization.jsonObject(with: data))
    }

    func keys(_ object: Any?) -> Set<String> {
        Set((object as? [String: Any])?.keys.map { $0 } ?? [])
    }

    func sample(parcels: Int = 6) throws -> String {
        let path = try Harness.temporaryDirectory().appendingPathComponent("s.gpkg").path
        let result = try Harness.annolink("sample", path, "--parcels", String(parcels))
        #expect(result.status == 0, "\(result.stderr)")
        return path
    }

    // MARK: Tests

    @Test("set, move, move-vertex, add and delete --json: the edit result")
    func edits() throws {
        let path = try sample()
        let (set, setObject) = try run(EditResult.self, ["set", path, "address_points", "1", "ST_STR_NAM=ELM", "--json"])
        #expect(keys(setObject) == Self.editKeys)
        #expect(set.edit == "set" && set.table == "address_points" && set.fid == 1)
        #expect(set.fields.map(\.name) == ["ST_STR_NAM"])
        #expect(set.fields.first?.new == .text("ELM"))
        #expect(set.journalEntry == 1)
        let change = try #require(set.annotation.first)
        #expect(keys(((setObject as? [String: Any])?["annotation"] as? [Any])?.first) == Self.changeKeys)
        #expect(change.change == "updated" && change.newText?.hasSuffix(" ELM") == true)
        #expect(change.oldAngle == 0 && change.newAngle == 0)
        #expect(change.oldAnchor?.count == 2 && change.newAnchor?.count == 2)

        let (move, moveObject) = try run(EditResult.self, ["move", path, "address_points", "2", "--to", "11880000,7020000", "--json"])
        #expect(keys(moveObject) == Self.geometryEditKeys)
        #expect(move.edit == "move" && move.oldGeometry?.type == "Point" && move.newGeometry?.type == "Point")
        guard case .array(let xy)? = move.newGeometry?.coordinates, case .number(let x) = xy.first else {
            Issue.record("newGeometry has no position")
            return
        }
        #expect(x == 11_880_000)
        // Carried with the point, or placed around it where the carried place is taken.
        #expect(move.annotation.first?.newAnchor?.first.map { abs($0 - 11_880_000) < 60 } == true)

        let (vertex, _) = try run(EditResult.self, ["move-vertex", path, "parcel_lines", "1", "--to", "11880080,7020010", "--json"])
        #expect(vertex.edit == "move-vertex" && vertex.newGeometry?.type == "LineString")
        #expect(vertex.annotation.first.map { $0.oldAngle != nil && $0.newAngle != nil && $0.oldAngle != $0.newAngle } == true)

        let (add, addObject) = try run(EditResult.self,
            ["add", path, "parcel_lines", "--geometry", "LINESTRING (11880000 7020000, 11880050 7020020)", "--json"])
        #expect(keys(addObject) == Self.geometryEditKeys)
        #expect(add.edit == "add" && add.oldGeometry == nil && add.newGeometry?.type == "LineString")
        #expect(add.annotation.first?.change == "created" && add.annotation.first?.oldText == nil && add.annotation.first?.oldAngle == nil)
        #expect(((addObject as? [String: Any])?["oldGeometry"]) is NSNull)

        let (delete, _) = try run(EditResult.self, ["delete", path, "parcel_lines", String(add.fid), "--json"])
        #expect(delete.edit == "delete" && delete.newGeometry == nil && delete.oldGeometry?.type == "LineString")
        #expect(delete.annotation.first?.change == "deleted" && delete.annotation.first?.newText == nil)
        #expect(delete.journalEntry == 5)
    }

    @Test("bulk set and delete --json, and --dry-run --json: the bulk result, each feature's change as set and delete give it")
    func bulkEdits() throws {
        let path = try sample()
        let (preview, previewObject) = try run(BulkEditResult.self,
            ["set", path, "address_points", "--fids", "1,2", "ST_STR_NAM=ELM", "--dry-run", "--json"])
        #expect(keys(previewObject) == Self.bulkEditKeys)
        #expect(preview.edit == "set" && preview.features == 2 && preview.dryRun && preview.journalEntry == nil)
        #expect(preview.fields.map(\.name) == ["ST_STR_NAM"] && preview.fields.first?.new == .text("ELM"))
        #expect(preview.annotation == BulkEditResult.Counts(created: 0, updated: 2, deleted: 0, reclassified: 0))
        let changes = (previewObject as? [String: Any])?["changes"] as? [Any]
        #expect(changes?.count == 2 && keys(changes?.first) == Self.editKeys)
        #expect(preview.changes.map(\.fid) == [1, 2] && preview.changes.allSatisfy { $0.dryRun && $0.annotation.first?.newText?.hasSuffix(" ELM") == true })

        let (set, _) = try run(BulkEditResult.self, ["set", path, "address_points", "--fids", "1,2", "ST_STR_NAM=ELM", "--json"])
        #expect(!set.dryRun && set.journalEntry == 1 && set.features == 2 && set.annotation == preview.annotation)

        let (delete, deleteObject) = try run(BulkEditResult.self, ["delete", path, "address_points", "--where", "fid <= 2", "--json"])
        #expect(keys(deleteObject) == Self.bulkEditKeys)
        #expect(delete.edit == "delete" && delete.features == 2 && delete.fields.isEmpty && delete.journalEntry == 2)
        #expect(delete.annotation == BulkEditResult.Counts(created: 0, updated: 0, deleted: 2, reclassified: 0))
        #expect(delete.changes.allSatisfy { $0.edit == "delete" && $0.oldGeometry?.type == "Point" })

        let (one, oneObject) = try run(EditResult.self, ["move", path, "address_points", "3", "--to", "11880000,7020000", "--dry-run", "--json"])
        #expect(keys(oneObject) == Self.geometryEditKeys)
        #expect(one.dryRun && one.journalEntry == nil && one.edit == "move")
    }

    @Test("translate --json, with and without --dry-run")
    func translate() throws {
        let path = try sample()
        let (preview, previewObject) = try run(TranslateResult.self,
            ["translate", path, "parcel_lines", "--fids", "1,2", "--by", "1,-1", "--dry-run", "--json"])
        #expect(keys(previewObject) == ["table", "dx", "dy", "features", "annotationRows", "dryRun", "journalEntry"])
        #expect(preview.dryRun && preview.features == 2 && preview.annotationRows == 2 && preview.journalEntry == nil)
        let (moved, _) = try run(TranslateResult.self, ["translate", path, "parcel_lines", "--fids", "1,2", "--by", "1,-1", "--json"])
        #expect(!moved.dryRun && moved.features == 2 && moved.annotationRows == 2 && moved.dx == 1 && moved.dy == -1)
        #expect(moved.journalEntry == 1)
    }

    @Test("undo, redo and log --json: journal entries")
    func journal() throws {
        let path = try sample()
        _ = try run(EditResult.self, ["set", path, "address_points", "1", "ST_STR_NAM=ELM", "--json"])
        let (undone, undoObject) = try run(JournalEntry.self, ["undo", path, "--json"])
        #expect(keys(undoObject) == Self.entryKeys)
        #expect(undone.id == 1 && undone.state == "undone" && undone.kind == "ordinary" && undone.rows == 2)
        #expect(undone.tables == ["address_points", "address_points_anno"])
        let (redone, _) = try run(JournalEntry.self, ["redo", path, "--json"])
        #expect(redone.id == 1 && redone.state == "done")
        let (log, logObject) = try run([JournalEntry].self, ["log", path, "--json"])
        #expect(log.map(\.id) == [1])
        #expect(keys((logObject as? [Any])?.first) == Self.entryKeys)
    }

    @Test("show --json: fields, GeoJSON geometry and the linked annotation")
    func show() throws {
        let path = try sample()
        let (shown, object) = try run(FeatureReport.self, ["show", path, "parcel_lines", "1", "--json"])
        #expect(keys(object) == ["table", "fid", "fields", "geometry", "annotation"])
        #expect(shown.geometry?.type == "LineString")
        #expect(Set(shown.fields.keys) == ["LEFT_FID", "RIGHT_FID", "Length"])
        #expect(shown.fields["RIGHT_FID"] == .null || shown.fields["RIGHT_FID"].map { if case .number = $0 { true } else { false } } == true)
        let annotation = try #require(shown.annotation.first)
        #expect(annotation.annotationTable == "parcel_lines_anno" && annotation.anchor?.count == 2 && annotation.override == 0)
        #expect(keys(((object as? [String: Any])?["annotation"] as? [Any])?.first)
            == ["annotationTable", "fid", "classID", "text", "anchor", "angle", "override", "status"])
    }

    @Test("identify --json: the tables searched, the features with their annotation, the annotation rows")
    func identify() throws {
        let path = try sample()
        let (shown, _) = try run(FeatureReport.self, ["show", path, "address_points", "1", "--json"])
        guard case .array(let xy)? = shown.geometry?.coordinates, case .number(let x) = xy.first, case .number(let y) = xy.last else {
            Issue.record("address point 1 has no position")
            return
        }
        let (found, object) = try run(IdentifyResult.self, ["identify", path, "\(x),\(y)", "--json"])
        #expect(keys(object) == ["location", "crs", "searched", "features", "annotation"])
        #expect(found.location == [x, y] && found.crs == nil)
        #expect(found.searched.map(\.table) == ["address_points", "parcel_lines", "address_points_anno", "parcel_lines_anno"])
        #expect(found.searched.map(\.kind) == ["features", "features", "annotation", "annotation"])
        #expect(keys(((object as? [String: Any])?["searched"] as? [Any])?.first) == ["table", "kind", "location", "tolerance"])
        let first = try #require(found.features.first)
        #expect(first.table == "address_points" && first.fid == 1 && first.geometryType == "POINT" && first.distance == 0)
        #expect(keys(((object as? [String: Any])?["features"] as? [Any])?.first) == ["table", "fid", "geometryType", "distance", "annotation"])
        #expect(first.annotation.first?.annotationTable == "address_points_anno")
        let label = try #require(found.annotation.first { $0.featureID == 1 && $0.annotationTable == "address_points_anno" })
        #expect(label.originTable == "address_points" && label.text == first.annotation.first?.text)
        #expect(keys(((object as? [String: Any])?["annotation"] as? [Any])?.first) == [
            "annotationTable", "fid", "classID", "text", "anchor", "angle", "distance", "originTable", "featureID",
        ])
    }

    @Test("info --json, with and without --table")
    func info() throws {
        let path = try sample()
        let (info, object) = try run(PackageInfo.self, ["info", path, "--json"])
        #expect(keys(object) == ["path", "tables", "annotationClasses"])
        #expect(info.path == path && info.tables.count == 4 && info.annotationClasses.count == 2)
        #expect(info.tables.allSatisfy { $0.columns == nil && $0.extent?.count == 4 })
        let tableKeys: Set<String> = ["name", "kind", "geometryType", "srsID", "crs", "count", "extent"]
        #expect(keys(((object as? [String: Any])?["tables"] as? [Any])?.first) == tableKeys)
        #expect(keys(((object as? [String: Any])?["annotationClasses"] as? [Any])?.first) == [
            "annotationTable", "classID", "name", "originTable", "whereClause", "expression", "fontName", "fontSize", "referenceScale",
            "placement", "placementOffset", "autoCreate", "updateOnShapeChange", "annotationCount", "originCount", "whereClauseProblem",
        ])
        let (one, oneObject) = try run(PackageInfo.self, ["info", path, "--table", "parcel_lines", "--json"])
        #expect(one.tables.map(\.name) == ["parcel_lines"])
        #expect(one.tables.first?.columns?.map(\.name) == ["fid", "geom", "LEFT_FID", "RIGHT_FID", "Length"])
        #expect(keys(((oneObject as? [String: Any])?["tables"] as? [Any])?.first) == tableKeys.union(["columns"]))
    }

    @Test("check --json and check --fix --json: problems, counts and the repair")
    func check() throws {
        let path = try sample()
        let (clean, cleanObject) = try run(CheckReport.self, ["check", path, "--json", "--only", CheckReviewTests.consistency])
        #expect(keys(cleanObject) == ["problems", "counts"])
        #expect(clean.problems.isEmpty && clean.counts.isEmpty)

        // Text changed behind annolink's back: stale text the fix regenerates.
        _ = try Harness.sqlite(path, "DROP TRIGGER IF EXISTS rtree_address_points_anno_geom_update1; " +
            "DROP TRIGGER IF EXISTS rtree_address_points_anno_geom_update2; DROP TRIGGER IF EXISTS rtree_address_points_anno_geom_update3; " +
            "DROP TRIGGER IF EXISTS rtree_address_points_anno_geom_update4; DROP TRIGGER IF EXISTS rtree_address_points_anno_geom_update5; " +
            "DROP TRIGGER IF EXISTS rtree_address_points_anno_geom_update6; DROP TRIGGER IF EXISTS rtree_address_points_anno_geom_update7")
        // Damage past the change capture (which sqlite3's writes fire too), for check to find.
        _ = try Harness.sqlite(path, "UPDATE address_points_anno SET TextString = 'X' WHERE fid IN (1, 2); DELETE FROM annolink_changes")
        let (found, foundObject) = try run(CheckReport.self, ["check", path, "--json", "--only", CheckReviewTests.consistency], status: 1)
        #expect(found.counts == ["stale-text": 2])
        #expect(found.problems.map(\.code) == ["stale-text", "stale-text"])
        #expect(found.problems.first.map { $0.annotationTable == "address_points_anno" && $0.annotationFid == 1 && $0.originTable == "address_points" } == true)
        #expect(keys(((foundObject as? [String: Any])?["problems"] as? [Any])?.first) == Self.problemKeys)

        let (fixed, fixedObject) = try run(CheckReport.self, ["check", path, "--fix", "--json", "--only", CheckReviewTests.consistency], status: 0)
        #expect(keys(fixedObject) == ["problems", "counts", "repaired", "left", "journalEntry", "dryRun"])
        #expect(fixed.repaired == ["stale-text": 2] && fixed.left == [:] && fixed.journalEntry == 1)
    }

    @Test("sample, annotate and import --json: what was written")
    func writers() throws {
        let folder = try Harness.temporaryDirectory()
        let path = folder.appendingPathComponent("s.gpkg").path
        let (sample, sampleObject) = try run(SampleSummary.self, ["sample", path, "--parcels", "6", "--json"])
        #expect(keys(sampleObject) == ["addressPoints", "parcelLines", "annotationRows", "warnings"])
        #expect(sample.addressPoints == 6 && sample.annotationRows == sample.addressPoints + sample.parcelLines)

        let regenerateKeys: Set<String> = ["features", "created", "updated", "deleted", "reclassified", "unplaceable", "unplaced", "dryRun"]
        let (regenerated, regeneratedObject) = try run(RegenerationSummary.self, ["annotate", path, "--regenerate", "--json"])
        #expect(keys(regeneratedObject) == regenerateKeys)
        #expect(regenerated.features == sample.addressPoints + sample.parcelLines && regenerated.created == 0 && regenerated.deleted == 0)
        let (annotated, _) = try run(RegenerationSummary.self, [
            "annotate", path, "--origin", "address_points", "--into", "streets_anno", "--expression", "$feature.ST_STR_NAM",
            "--placement", "point", "--json",
        ])
        #expect(annotated.features == 6 && annotated.created == 6)

        let copy = folder.appendingPathComponent("copy.gpkg").path
        let (copied, copiedObject) = try run(ImportReport.self, ["import", path, copy, "--json"])
        #expect(keys(copiedObject) == ["tables", "annotationClasses", "notConverted"])
        #expect(copied.tables.isEmpty && copied.annotationClasses == 0)

        let loudoun = Harness.loudoun
        let (imported, importedObject) = try run(ImportReport.self, ["import", loudoun, folder.appendingPathComponent("loudoun.gpkg").path, "--json"])
        #expect(imported.tables.contains { $0.name == "ParcelLinesAnno_1" && $0.isAnnotation && $0.srsID == 2924 })
        #expect(imported.annotationClasses >= 2)
        #expect(keys(((importedObject as? [String: Any])?["tables"] as? [Any])?.first) == ["name", "geometryTypeName", "srsID", "rows", "isAnnotation"])
    }
}
