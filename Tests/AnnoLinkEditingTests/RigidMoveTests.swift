import AnnoLinkEditing
import AnnoLinkGeometry
import AnnoLinkStore
import Testing

/// Rigid moves (docs/placement.md, "Rigid moves"): `translate` and `move` carry the linked
/// annotation by exactly the feature's vector; `move-vertex` and `replaceGeometry` place it by
/// the rules.
@Suite("rigid moves of annotation with its feature")
struct RigidMoveTests {
    /// Moves the label of address point `fid` off its rule position by (`dx`, `dy`), anchor and
    /// footprint together, as ArcGIS's own placement or a hand's drag leaves labels; `override`
    /// and `status` are written too.
    func displace(_ s: EditScratch, feature fid: Int64, dx: Double, dy: Double, override: Int64 = 0, status: Int64 = 0) throws {
        try s.package.connection.run("""
            UPDATE address_points_anno SET AnchorX = AnchorX + ?1, AnchorY = AnchorY + ?2, geom = annolink_translate(geom, ?1, ?2),
              Override = ?3, Status = ?4 WHERE FeatureID = ?5
            """, [.real(dx), .real(dy), .integer(override), .integer(status), .integer(fid)])
    }

    /// Every annotation row of `table`, by fid.
    func rows(_ s: EditScratch, _ table: String) throws -> [Int64: AnnotationRow] {
        var result: [Int64: AnnotationRow] = [:]
        let t = try s.table(table)
        let statement = try s.package.connection.prepareUncached("SELECT \(GeoPackage.annotationSelectList(t)) FROM \(quoteIdentifier(table))")
        while try statement.step() {
            let row = try s.package.annotationRow(from: statement, table: t)
            result[row.fid!] = row
        }
        return result
    }

    @Test("translate moves anchor and footprint by exactly the vector and keeps everything else, off-rule and hand-placed labels included")
    func translateIsRigid() throws {
        let s = try EditScratch()
        try displace(s, feature: 2, dx: 7.25, dy: -3.5)                      // off the rules, as ArcGIS leaves some
        try displace(s, feature: 3, dx: -20, dy: 11, override: 1)            // dragged by hand
        try displace(s, feature: 4, dx: 0, dy: 0, override: 1024 | 2, status: 1)
        let before = try rows(s, "address_points_anno")
        let lines = try rows(s, "parcel_lines_anno")
        // Neither vector is exact in binary fractions of these coordinates: the labels must
        // still move by x + dx as the points do.
        let (dx, dy) = (100.1, -49.7)
        let moving: Set<Int64> = [2, 3, 4, 5, 9]
        let result = try s.service.translate(table: "address_points", selection: .fids(moving.sorted()), dx: dx, dy: dy, dryRun: false,
                                             command: "test")
        #expect(result.features == 5 && result.annotationRows == 5)

        let after = try rows(s, "address_points_anno")
        #expect(after.count == before.count)
        for (fid, old) in before {
            let new = try #require(after[fid])
            if moving.contains(old.featureID!) {
                #expect(new == old.translated(dx: dx, dy: dy), "label \(fid)")
                #expect(new.anchor?.x.bitPattern == (old.anchor!.x + dx).bitPattern && new.anchor?.y.bitPattern == (old.anchor!.y + dy).bitPattern)
                #expect(new.text == old.text && new.angle == old.angle && new.override == old.override && new.status == old.status)
            } else {
                #expect(new == old, "label \(fid) of an unmoved feature")
            }
        }
        // The offset from the rule position that label 2 had, it keeps.
        let point2 = try s.point(2)
        let label2 = try s.annotation("address_points_anno", feature: 2)
        #expect(abs(label2.anchor!.x - point2.x - 7.25) < 1e-6)
        #expect(abs(label2.anchor!.y - point2.y - EditScratch.addressOffset + 3.5) < 1e-6)
        // Other annotation tables are not touched.
        #expect(try rows(s, "parcel_lines_anno") == lines)
        // The footprint's box is in the R-tree.
        let footprint = try #require(label2.footprint?.exterior?.points)
        let xs = footprint.map(\.x), ys = footprint.map(\.y)
        let box = try s.package.connection.rows("SELECT minx, maxx, miny, maxy FROM rtree_address_points_anno_geom WHERE id = \(label2.fid!)")
        #expect(box == [[.real(Double(RTreeRounding.down(xs.min()!))), .real(Double(RTreeRounding.up(xs.max()!))),
                         .real(Double(RTreeRounding.down(ys.min()!))), .real(Double(RTreeRounding.up(ys.max()!))),
        ]])
    }

    @Test("translate of lines keeps a label slid along its line where it was on the line")
    func translateLinesIsRigid() throws {
        let s = try EditScratch()
        let line = try s.line(3)
        let old = try s.annotation("parcel_lines_anno", feature: 3)
        // Slid 5 ft along the line, as ArcGIS's label engine slides some.
        let (ux, uy) = (line.points[1].x - line.points[0].x, line.points[1].y - line.points[0].y)
        let length = (ux * ux + uy * uy).squareRoot()
        try s.package.connection.run("""
            UPDATE parcel_lines_anno SET AnchorX = AnchorX + ?1, AnchorY = AnchorY + ?2, geom = annolink_translate(geom, ?1, ?2) WHERE FeatureID = 3
            """, [.real(5 * ux / length), .real(5 * uy / length)])
        let slid = try s.annotation("parcel_lines_anno", feature: 3)
        _ = try s.service.translate(table: "parcel_lines", selection: .fids([3]), dx: -12.5, dy: 30, dryRun: false, command: "test")
        let moved = try s.annotation("parcel_lines_anno", feature: 3)
        #expect(moved == slid.translated(dx: -12.5, dy: 30))
        #expect(moved.text == old.text && moved.angle == old.angle)
    }

    @Test("move carries the label by the point's vector: an off-rule label stays as far off")
    func moveIsRigid() throws {
        let s = try EditScratch()
        try displace(s, feature: 6, dx: -21, dy: 4.5, status: 1)
        let point = try s.point(6)
        let old = try s.annotation("address_points_anno", feature: 6)
        let target = Point(x: point.x + 333.3, y: point.y - 0.1)
        let result = try s.service.movePoint(table: "address_points", fid: 6, to: target, crs: nil, command: "test")
        let new = try s.annotation("address_points_anno", feature: 6)
        #expect(new == old.translated(dx: target.x - point.x, dy: target.y - point.y))
        #expect(abs(new.anchor!.x - target.x + 21) < 1e-6 && abs(new.anchor!.y - target.y - EditScratch.addressOffset - 4.5) < 1e-6)
        #expect(new.status == 1)
        try #require(result.annotation.count == 1)
        #expect(result.annotation[0].kind == .updated && result.annotation[0].newAnchor == new.anchor)
    }

    @Test("replaceGeometry places the label by the rules even when the new shape is a moved copy of the old")
    func replaceIsNotRigid() throws {
        let s = try EditScratch()
        try displace(s, feature: 7, dx: 15, dy: 15)
        let point = try s.point(7)
        _ = try s.service.replaceGeometry(table: "address_points", fid: 7, geometry: .point(point.translated(dx: 10, dy: 10)), command: "test")
        let new = try s.annotation("address_points_anno", feature: 7)
        #expect(close(new.anchor, Point(x: point.x + 10, y: point.y + 10 + EditScratch.addressOffset)))
    }

    @Test("move-vertex places the label by the rules: a slid label goes back to the middle")
    func moveVertexIsNotRigid() throws {
        let s = try EditScratch()
        try s.package.connection.run("""
            UPDATE parcel_lines_anno SET AnchorX = AnchorX + 9, AnchorY = AnchorY - 4, geom = annolink_translate(geom, 9, -4) WHERE FeatureID = 2
            """)
        let line = try s.line(2)
        let end = line.points[1].translated(dx: 3, dy: 4)
        _ = try s.service.moveVertex(table: "parcel_lines", fid: 2, to: end, crs: nil, vertex: .last, command: "test")
        let new = try s.annotation("parcel_lines_anno", feature: 2)
        let middle = Point(x: (line.points[0].x + end.x) / 2, y: (line.points[0].y + end.y) / 2)
        #expect(abs(new.anchor!.distance(to: middle) - EditScratch.lineOffset) < 1e-6)
    }

    @Test("a footprint that is not a GeoPackage geometry stops translate with an error naming the row; nothing changes")
    func corruptFootprint() throws {
        let s = try EditScratch()
        let fid = try #require(try s.annotation("address_points_anno", feature: 3).fid)
        // Written as a tool without the GeoPackage triggers would: their ST_ functions refuse the blob.
        for trigger in try s.package.connection.rows("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'address_points_anno'") {
            try s.package.connection.execute("DROP TRIGGER \(quoteIdentifier(trigger[0].textValue!))")
        }
        try s.package.connection.run("UPDATE address_points_anno SET geom = x'4750000300' WHERE fid = ?", [.integer(fid)])
        let error = try s.expectUnchanged(by: {
            _ = try s.service.translate(table: "address_points", selection: .fids([2, 3]), dx: 1, dy: 1, dryRun: false, command: "test")
        }, throws: StoreError.self)
        guard case .corruptGeometry(let table, let row, _)? = error else {
            Issue.record("expected corruptGeometry, got \(String(describing: error))")
            return
        }
        #expect(table == "address_points_anno" && row == fid)
    }

    @Test("undo of a rigid translate gives back every table exactly; redo the moved state")
    func undoIsExact() throws {
        let s = try EditScratch()
        try displace(s, feature: 2, dx: 7.25, dy: -3.5)
        // Every row of every table but the journal's own (whose tables and registrations the first edit creates).
        func rows() throws -> [String] { try s.dump().filter { !$0.hasPrefix("'") && !$0.contains("annolink_journal") } }
        let before = try rows()
        _ = try s.service.translate(table: "address_points", selection: .condition("fid % 3 = 0 OR fid = 2"), dx: 0.1, dy: 1e-3, dryRun: false,
                                   command: "test")
        let moved = try rows()
        #expect(moved != before)
        _ = try s.service.run(Undo())
        let undone = try rows()
        #expect(undone == before, "\(Set(undone).symmetricDifference(before).sorted())")
        _ = try s.service.run(Redo())
        #expect(try rows() == moved)
    }
}
