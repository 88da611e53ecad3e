@testable import AnnoLinkAnnotation
import AnnoLinkGeometry
import AnnoLinkStore
import Foundation
import Testing

/// `AnnotationEngine.regenerate`: annotation rows brought in line with the classes after a
/// feature changed: updated, created, moved between classes, deleted; hand-set properties kept.
@Suite("AnnotationEngine.regenerate")
struct RegenerationTests {
    @Test("generation labels only the features a class's where clause selects, by that class's rules")
    func generation() throws {
        let s = try AnnotationScratch()
        #expect(try s.rowCount == 2)
        let alpha = try s.row(of: 1)
        #expect(alpha.classID == 0)
        #expect(alpha.text == "Alpha")
        #expect(close(alpha.anchor, AnnotationScratch.anchor(above: AnnotationScratch.features[0].2, offset: 2)))
        #expect(alpha.angle == 0)
        #expect(alpha.override == [])
        let beta = try s.row(of: 2)
        #expect(beta.classID == 1)
        #expect(beta.text == "S-Beta")
        #expect(close(beta.anchor, AnnotationScratch.anchor(above: AnnotationScratch.features[1].2, offset: 4)))
        #expect(try s.rows(of: 3).isEmpty, "Gamma's kind selects no class")
    }

    @Test("a text change updates the row in place: same fid, new text, anchor kept")
    func textChange() throws {
        let s = try AnnotationScratch()
        let before = try s.row(of: 1)
        let changes = try s.edit(1, attributes: ["Name": "Alpha Prime"])
        #expect(changes == [AnnotationChange(
            kind: .updated, annotationTable: "towers_anno", annotationFid: before.fid!, classID: 0,
            oldText: "Alpha", newText: "Alpha Prime", oldAnchor: before.anchor, newAnchor: before.anchor, oldAngle: 0, newAngle: 0)])
        let after = try s.row(of: 1)
        #expect(after.fid == before.fid)
        #expect(after.text == "Alpha Prime")
        #expect(after.footprint != before.footprint, "the footprint is measured again for the longer text")
    }

    @Test("nothing changed: no change reported and the row is untouched")
    func nothingChanged() throws {
        let s = try AnnotationScratch()
        let before = try s.row(of: 1)
        let engine = AnnotationEngine(package: s.package)
        let changes = try engine.regenerate(originTable: "towers", fid: 1, feature: s.feature(1), previousGeometry: nil, isNew: false)
        #expect(changes.isEmpty)
        #expect(try s.row(of: 1) == before)
    }

    @Test("a geometry change re-places the label by the rules")
    func geometryChange() throws {
        let s = try AnnotationScratch()
        let moved = Point(x: 500_010, y: 3_999_990)
        let changes = try s.edit(1, geometry: .point(moved))
        try #require(changes.count == 1)
        #expect(changes[0].kind == .updated)
        #expect(close(changes[0].newAnchor, AnnotationScratch.anchor(above: moved, offset: 2)))
        #expect(close(try s.row(of: 1).anchor, AnnotationScratch.anchor(above: moved, offset: 2)))
    }

    // MARK: Overrides

    @Test("a hand-placed label (Override position) moves with its feature by the same vector")
    func positionOverrideKept() throws {
        let s = try AnnotationScratch()
        var row = try s.row(of: 1)
        let handPlaced = Point(x: row.anchor!.x + 5, y: row.anchor!.y + 3)
        row.anchor = handPlaced
        row.override = [.position]
        try s.package.updateAnnotation(row, in: s.annotation)

        let start = AnnotationScratch.features[0].2
        let changes = try s.edit(1, geometry: .point(Point(x: start.x + 10, y: start.y - 4)))
        try #require(changes.count == 1)
        let after = try s.row(of: 1)
        #expect(close(after.anchor, Point(x: handPlaced.x + 10, y: handPlaced.y - 4)))
        #expect(after.override == [.position])
        #expect(close(changes[0].oldAnchor, handPlaced) && close(changes[0].newAnchor, after.anchor))

        // A text change alone leaves the hand-placed anchor where it is.
        try s.edit(1, attributes: ["Name": "Moved"])
        #expect(close(try s.row(of: 1).anchor, Point(x: handPlaced.x + 10, y: handPlaced.y - 4)))
        #expect(try s.row(of: 1).text == "Moved")
    }

    @Test("without an override the label goes back to the rules' anchor and angle")
    func noOverrideReplaced() throws {
        let s = try AnnotationScratch()
        var row = try s.row(of: 1)
        row.anchor = Point(x: row.anchor!.x + 5, y: row.anchor!.y + 3)
        row.angle = 30
        try s.package.updateAnnotation(row, in: s.annotation)
        let changes = try s.edit(1, attributes: ["Name": "Alpha"])
        try #require(changes.count == 1)
        let after = try s.row(of: 1)
        #expect(close(after.anchor, AnnotationScratch.anchor(above: AnnotationScratch.features[0].2, offset: 2)))
        #expect(after.angle == 0)
    }

    @Test("a hand-set angle (Override angle) stays; the anchor follows the rules")
    func angleOverrideKept() throws {
        let s = try AnnotationScratch()
        var row = try s.row(of: 2)
        row.angle = 15
        row.override = [.angle]
        try s.package.updateAnnotation(row, in: s.annotation)
        let moved = Point(x: 500_120, y: 4_000_060)
        try s.edit(2, geometry: .point(moved))
        let after = try s.row(of: 2)
        #expect(after.angle == 15)
        #expect(close(after.anchor, AnnotationScratch.anchor(above: moved, offset: 4)))
    }

    @Test("a hand-set text (Override text) stays when the label's fields change")
    func textOverrideKept() throws {
        let s = try AnnotationScratch()
        var row = try s.row(of: 1)
        row.text = "HAND WRITTEN"
        row.override = [.text]
        try s.package.updateAnnotation(row, in: s.annotation)
        try s.edit(1, attributes: ["Name": "Renamed"])
        #expect(try s.row(of: 1).text == "HAND WRITTEN")
        // ArcGIS's own bits are kept as they are.
        row = try s.row(of: 1)
        row.override = AnnotationOverride(rawValue: 1024)
        try s.package.updateAnnotation(row, in: s.annotation)
        try s.edit(1, attributes: ["Name": "Renamed Again"])
        #expect(try s.row(of: 1).text == "Renamed Again")
        #expect(try s.row(of: 1).override.rawValue == 1024)
    }

    @Test("a class that does not update on shape change moves its label with the feature and keeps the angle")
    func noUpdateOnShapeChange() throws {
        var tall = AnnotationScratch.tall
        tall.updateOnShapeChange = false
        let s = try AnnotationScratch(classes: [tall, AnnotationScratch.short])
        var row = try s.row(of: 1)
        row.angle = 20
        try s.package.updateAnnotation(row, in: s.annotation)
        let start = AnnotationScratch.features[0].2
        try s.edit(1, geometry: .point(Point(x: start.x - 7, y: start.y + 2)))
        let after = try s.row(of: 1)
        #expect(close(after.anchor, row.anchor.map { Point(x: $0.x - 7, y: $0.y + 2) }))
        #expect(after.angle == 20)
    }

    // MARK: Reclassification

    @Test("when another class's where clause selects the feature, its row moves to that class")
    func reclassified() throws {
        let s = try AnnotationScratch()
        let before = try s.row(of: 1)
        let changes = try s.edit(1, attributes: ["Kind": "short"])
        try #require(changes.count == 1)
        #expect(changes[0].kind == .reclassified)
        #expect(changes[0].classID == 1)
        #expect(changes[0].annotationFid == before.fid)
        #expect(changes[0].oldText == "Alpha" && changes[0].newText == "S-Alpha")
        let after = try s.row(of: 1)
        #expect(after.fid == before.fid, "the row is kept, not deleted and made again")
        #expect(after.classID == 1)
        #expect(after.text == "S-Alpha")
        #expect(close(after.anchor, AnnotationScratch.anchor(above: AnnotationScratch.features[0].2, offset: 4)))
        #expect(try s.rowCount == 2)
    }

    @Test("when no class's where clause selects the feature any more, its row is deleted")
    func stopsSelecting() throws {
        let s = try AnnotationScratch()
        let before = try s.row(of: 2)
        let changes = try s.edit(2, attributes: ["Kind": "none"])
        #expect(changes == [AnnotationChange(
            kind: .deleted, annotationTable: "towers_anno", annotationFid: before.fid!, classID: 1,
            oldText: "S-Beta", newText: nil, oldAnchor: before.anchor, newAnchor: nil, oldAngle: 0, newAngle: nil)])
        #expect(try s.rows(of: 2).isEmpty)
        #expect(try s.rowCount == 1)
    }

    @Test("when a where clause starts selecting an existing feature, its row is created")
    func startsSelecting() throws {
        let s = try AnnotationScratch()
        let changes = try s.edit(3, attributes: ["Kind": "tall"])
        try #require(changes.count == 1)
        #expect(changes[0].kind == .created)
        #expect(changes[0].classID == 0)
        #expect(changes[0].newText == "Gamma" && changes[0].oldText == nil)
        let row = try s.row(of: 3)
        #expect(row.fid == changes[0].annotationFid)
        #expect(close(row.anchor, AnnotationScratch.anchor(above: AnnotationScratch.features[2].2, offset: 2)))
        #expect(try s.rowCount == 3)
    }

    @Test("a class whose where clause does not compile is refused when saved, and reported when another program stored it")
    func badWhereClause() throws {
        var broken = AnnotationScratch.tall
        broken.whereClause = "NoSuchColumn = 1"
        let s = try AnnotationScratch(classes: [AnnotationScratch.short])
        let refused = #expect(throws: StoreError.self) { try s.package.saveAnnotationClass(broken) }
        #expect(refused == .invalidWhereClause("NoSuchColumn = 1", reason: "does not compile: no such column: NoSuchColumn"))
        // Written by some other program, it is checked when the class is compiled.
        try s.package.connection.run("""
            INSERT INTO annolink_annotation_classes SELECT annotation_table, 0, 'broken', origin_table, 'NoSuchColumn = 1',
              expression, font_name, font_size, horizontal_alignment, vertical_alignment, reference_scale, placement,
              placement_offset, placement_parameters, auto_create, update_on_shape_change
            FROM annolink_annotation_classes WHERE class_id = 1
            """)
        let error = #expect(throws: AnnotationError.self) {
            try s.edit(1, attributes: ["Name": "x"])
        }
        #expect(error == .whereClause(annotationTable: "towers_anno", classID: 0, message: "does not compile: no such column: NoSuchColumn"))
    }

    // MARK: Insert and delete

    @Test("a new feature gets its label when the class says AutoCreate")
    func createdOnInsert() throws {
        let s = try AnnotationScratch()
        let location = Point(x: 499_900.5, y: 4_000_200.25)
        let fid = try s.package.insertFeature(s.towers, geometry: .point(location), attributes: ["Name": "Delta", "Kind": "tall"])
        let engine = AnnotationEngine(package: s.package)
        let changes = try engine.regenerate(originTable: "towers", fid: fid, feature: s.feature(fid), previousGeometry: nil, isNew: true)
        try #require(changes.count == 1)
        #expect(changes[0].kind == .created)
        #expect(changes[0].newText == "Delta")
        #expect(close(changes[0].newAnchor, AnnotationScratch.anchor(above: location, offset: 2)))
        let row = try s.row(of: fid)
        #expect(row.classID == 0 && row.featureID == fid && row.text == "Delta")
        #expect(row.fontName == "Tahoma" && row.fontSize == 10)
        #expect(row.footprint.map { Geometry.polygon($0).envelope.map { $0.minX < location.x && $0.maxX > location.x } ?? false } ?? false,
                "the centred footprint spans the point")
    }

    @Test("a new feature gets no label when the class does not say AutoCreate; a later regeneration makes it")
    func notCreatedWithoutAutoCreate() throws {
        var tall = AnnotationScratch.tall
        tall.autoCreate = false
        let s = try AnnotationScratch(classes: [tall, AnnotationScratch.short])
        let fid = try s.package.insertFeature(s.towers, geometry: .point(Point(x: 500_300, y: 4_000_000)), attributes: ["Name": "Echo", "Kind": "tall"])
        let engine = AnnotationEngine(package: s.package)
        #expect(try engine.regenerate(originTable: "towers", fid: fid, feature: s.feature(fid), previousGeometry: nil, isNew: true).isEmpty)
        #expect(try s.rows(of: fid).isEmpty)
        let later = try engine.regenerate(originTable: "towers", fid: fid, feature: s.feature(fid), previousGeometry: nil, isNew: false)
        #expect(later.map(\.kind) == [.created])
        #expect(try s.row(of: fid).text == "Echo")
    }

    @Test("a deleted feature's label is deleted")
    func deletedOnDelete() throws {
        let s = try AnnotationScratch()
        let before = try s.row(of: 1)
        try s.package.deleteFeature(s.towers, fid: 1)
        let engine = AnnotationEngine(package: s.package)
        let changes = try engine.regenerate(originTable: "towers", fid: 1, feature: nil, previousGeometry: nil, isNew: false)
        #expect(changes.map(\.kind) == [.deleted])
        #expect(changes.first?.annotationFid == before.fid)
        #expect(changes.first?.oldText == "Alpha")
        #expect(try s.rows(of: 1).isEmpty)
        #expect(try s.rowCount == 1)
    }

    @Test("a feature whose geometry is removed loses its label, as a deleted one does")
    func geometryRemoved() throws {
        let s = try AnnotationScratch()
        try s.package.connection.run("UPDATE towers SET geom = NULL WHERE fid = 2")
        let engine = AnnotationEngine(package: s.package)
        let changes = try engine.regenerate(originTable: "towers", fid: 2, feature: s.feature(2), previousGeometry: nil, isNew: false)
        #expect(changes.map(\.kind) == [.deleted])
        #expect(try s.rows(of: 2).isEmpty)
    }

    @Test("a label whose text becomes empty is deleted")
    func emptyText() throws {
        let s = try AnnotationScratch()
        let changes = try s.edit(1, attributes: ["Name": ""])
        #expect(changes.map(\.kind) == [.deleted])
        #expect(try s.rows(of: 1).isEmpty)
    }

    @Test("a feature labelled in two annotation tables gets a change in each, tables in name order")
    func twoAnnotationTables() throws {
        let s = try AnnotationScratch()
        let second = try s.package.createAnnotationTable(name: "towers_anno_b", srsID: AnnotationScratch.srsID)
        try s.package.saveAnnotationClass(AnnotationClass(
            annotationTable: "towers_anno_b", classID: 0, name: "Every", originTable: "towers",
            expression: "$feature.Name + \" (\" + $feature.Kind + \")\"", referenceScale: 2400, placement: .point, placementOffset: 1))
        let changes = try s.edit(1, attributes: ["Name": "Alpha 2"])
        #expect(changes.map(\.annotationTable) == ["towers_anno", "towers_anno_b"])
        #expect(changes.map(\.kind) == [.updated, .created])
        #expect(changes.map(\.newText) == ["Alpha 2", "Alpha 2 (tall)"])
        let row = try #require(try s.package.annotationRows(second, featureID: 1).first)
        // Placed from the rule placement — 1 pt at 1:2400 is twice as far as at 1:1200 — and,
        // that place being the first table's label's, around the point, clear of it.
        let basis = try #require(row.placedFrom)
        #expect(close(basis.ruleAnchor(from: row.anchor!), AnnotationScratch.anchor(above: AnnotationScratch.features[0].2, offset: 2)))
        let first = try #require(try s.package.annotationRows(s.package.featureTable("towers_anno"), featureID: 1).first)
        #expect(!LabelOutline(row.footprint!).intersects(LabelOutline(first.footprint!), clearance: 0))
    }

    @Test("regenerateAll counts what it created, reclassified and deleted")
    func regenerateAll() throws {
        let s = try AnnotationScratch()
        // Behind the engine's back: Alpha becomes short, Beta unselected, Gamma tall.
        try s.package.connection.execute("""
            UPDATE towers SET Kind = 'short' WHERE fid = 1; UPDATE towers SET Kind = 'none' WHERE fid = 2;
            UPDATE towers SET Kind = 'tall' WHERE fid = 3
            """)
        let summary = try AnnotationEngine(package: s.package).regenerateAll()
        #expect(summary.features == 3)
        #expect(summary.reclassified == 1)
        #expect(summary.deleted == 1)
        #expect(summary.created == 1)
        #expect(summary.updated == 0)
        #expect(try s.package.connection.rows("SELECT FeatureID, AnnotationClassID, TextString FROM towers_anno ORDER BY FeatureID")
            == [[1, 1, "S-Alpha"], [3, 0, "Gamma"]])
    }
}
