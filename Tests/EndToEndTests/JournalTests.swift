import Foundation
import Testing

/// Undo, redo and the bulk move, end to end: a file compared as a dump of every table.
@Suite("undo, redo and translate, end to end")
struct JournalEndToEndTests {
    func loudoun() throws -> String? {
        guard let path = try Harness.importLoudoun() else { return nil }
        #expect(try Harness.annolink("annotate", path, "--regenerate").status == 0)
        return path
    }

    /// Runs `edit`, then checks that undo gives back the dump from before and redo the dump
    /// from after.
    func expectUndoable(_ path: String, _ edit: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = try Harness.dump(path)
        let result = try Harness.annolink(edit)
        #expect(result.status == 0, "\(edit): \(result.stderr)", sourceLocation: sourceLocation)
        let after = try Harness.dump(path)
        #expect(after != before, "\(edit) changed nothing", sourceLocation: sourceLocation)
        let undo = try Harness.annolink("undo", path)
        #expect(undo.status == 0, "\(undo.stderr)", sourceLocation: sourceLocation)
        #expect(try Harness.dump(path) == before, "undo of \(edit)", sourceLocation: sourceLocation)
        let redo = try Harness.annolink("redo", path)
        #expect(redo.status == 0, "\(redo.stderr)", sourceLocation: sourceLocation)
        #expect(try Harness.dump(path) == after, "redo of \(edit)", sourceLocation: sourceLocation)
    }

    @Test("undo after each kind of edit gives back the file; redo reapplies it")
    func undoRedo() throws {
        guard let path = try loudoun() else { return }
        let point = try Harness.sqlite(path, "SELECT min(fid) FROM Loudoun_Address_Points_1")
        let line = try Harness.sqlite(path, "SELECT max(fid) FROM ParcelLines_1")
        try expectUndoable(path, ["set", path, "Loudoun_Address_Points_1", point, "AD_ADDRESS=12345", "ST_STR_NAM=OAK"])
        try expectUndoable(path, ["move", path, "Loudoun_Address_Points_1", point, "--to", "11790000,7056000"])
        try expectUndoable(path, [
            "add", path, "ParcelLines_1", "--geometry", "LINESTRING (11790000 7056000, 11790030 7056040)",
            "GlobalID={00000000-0000-0000-0000-000000000002}",
        ])
        try expectUndoable(path, ["delete", path, "Loudoun_Address_Points_1", point])
        try expectUndoable(path, ["translate", path, "ParcelLines_1", "--bbox", "11789000,7055000,11790500,7057000", "--by", "10,20"])
        if Harness.hasGDAL {
            let twoPoint = try Harness.ogrSQL(path, "SELECT min(fid) * 1 AS f FROM ParcelLines_1 WHERE ST_NPoints(geom) = 2")["f"]!
            try expectUndoable(path, ["move-vertex", path, "ParcelLines_1", twoPoint, "--to", "11790100,7056100"])
            #expect(try Harness.validate(path) == "")
        }
        _ = line
        let log = try Harness.annolink("log", path, "--json")
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]])
        #expect(entries.count >= 5)
        #expect(entries.allSatisfy { $0["state"] as? String == "done" })
    }

    @Test("an undo that would overwrite a later change refuses and says why")
    func undoConflict() throws {
        guard let path = try loudoun() else { return }
        let point = try Harness.sqlite(path, "SELECT min(fid) FROM Loudoun_Address_PointsAnno_1")
        let fid = try Harness.sqlite(path, "SELECT FeatureID FROM Loudoun_Address_PointsAnno_1 WHERE fid = \(point)")
        #expect(try Harness.annolink("set", path, "Loudoun_Address_Points_1", fid, "ST_STR_NAM=PINE").status == 0)
        // Another tool (GDAL) changes the same annotation row behind annolink's back: past the
        // change capture, which would have journaled it (docs/follow.md; FollowTests).
        guard Harness.hasGDAL else { return }
        try Harness.gdalSQL(path, "UPDATE Loudoun_Address_PointsAnno_1 SET TextString = 'hand-edited' WHERE fid = \(point)")
        #expect(try Harness.sqlite(path, "SELECT TextString FROM Loudoun_Address_PointsAnno_1 WHERE fid = \(point)") == "hand-edited")
        let before = try Harness.dump(path)
        let undo = try Harness.annolink("undo", path)
        #expect(undo.status == 65)
        #expect(undo.stderrLines.count == 1)
        #expect(undo.stderr.hasPrefix("error: undo"), "\(undo.stderr)")
        #expect(undo.stderr.contains("Loudoun_Address_PointsAnno_1"), "\(undo.stderr)")
        #expect(try Harness.dump(path) == before)
        let nothing = try Harness.annolink("redo", path)
        #expect(nothing.status == 65)
    }

    @Test("translate of a bounding box moves exactly the features inside, and the R-tree finds them there")
    func translateBoundingBox() throws {
        guard let path = try loudoun(), Harness.hasGDAL else { return }
        let box = (minX: 11789000.0, minY: 7055000.0, maxX: 11790500.0, maxY: 7057000.0)
        // GDAL decides which lines lie inside the box.
        let inside = try Harness.ogrSQL(path, """
            SELECT group_concat(fid, ',') AS ids, count(*) AS n FROM ParcelLines_1
            WHERE MbrMinX(geom) >= \(box.minX) AND MbrMinY(geom) >= \(box.minY) AND MbrMaxX(geom) <= \(box.maxX) AND MbrMaxY(geom) <= \(box.maxY)
            """)
        let before = try Harness.sqlite(path, "SELECT group_concat(fid || ':' || hex(geom), ',') FROM ParcelLines_1")
        let anchorsBefore = try Harness.sqlite(path, "SELECT group_concat(FeatureID || ':' || AnchorX || ':' || AnchorY, ',') " +
            "FROM ParcelLinesAnno_1 ORDER BY FeatureID")
        let result = try Harness.annolink("translate", path, "ParcelLines_1", "--bbox", "\(box.minX),\(box.minY),\(box.maxX),\(box.maxY)",
            "--by", "10,20", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(String(object["features"] as? Int ?? -1) == inside["n"])
        let moved = Set((inside["ids"] ?? "").split(separator: ",").map(String.init))
        let after = try Harness.sqlite(path, "SELECT group_concat(fid || ':' || hex(geom), ',') FROM ParcelLines_1")
        let beforeRows = Dictionary(uniqueKeysWithValues: before.split(separator: ",").map { $0.split(separator: ":").map(String.init) }.map { ($0[0], $0[1]) })
        for row in after.split(separator: ",") {
            let parts = row.split(separator: ":").map(String.init)
            #expect((beforeRows[parts[0]] != parts[1]) == moved.contains(parts[0]), "fid \(parts[0])")
        }
        // Annotation anchors moved by the same vector; others stayed.
        let anchorsAfter = try Harness.sqlite(path, "SELECT group_concat(FeatureID || ':' || AnchorX || ':' || AnchorY, ',') " +
            "FROM ParcelLinesAnno_1 ORDER BY FeatureID")
        let old = Dictionary(uniqueKeysWithValues: anchorsBefore.split(separator: ",").map { $0.split(separator: ":").map(String.init) }
            .map { ($0[0], ($0[1], $0[2])) })
        for row in anchorsAfter.split(separator: ",") {
            let p = row.split(separator: ":").map(String.init)
            let (x0, y0) = (Double(old[p[0]]!.0)!, Double(old[p[0]]!.1)!)
            let (dx, dy) = (Double(p[1])! - x0, Double(p[2])! - y0)
            if moved.contains(p[0]) {
                #expect(abs(dx - 10) < 1e-6 && abs(dy - 20) < 1e-6, "anchor of \(p[0])")
            } else {
                #expect(dx == 0 && dy == 0, "anchor of \(p[0])")
            }
        }
        // The R-tree finds every line at its place (GDAL's MBR of the geometry); its 32-bit
        // floats are 1 ft apart at these coordinates, so the boxes are within 2 ft outside.
        let index = try Harness.ogrSQL(path, """
            SELECT count(*) AS n FROM ParcelLines_1 f JOIN rtree_ParcelLines_1_geom r ON r.id = f.fid
            WHERE r.minx <= MbrMinX(f.geom) AND r.maxx >= MbrMaxX(f.geom) AND r.miny <= MbrMinY(f.geom) AND r.maxy >= MbrMaxY(f.geom)
              AND r.minx > MbrMinX(f.geom) - 2 AND r.maxx < MbrMaxX(f.geom) + 2 AND r.miny > MbrMinY(f.geom) - 2 AND r.maxy < MbrMaxY(f.geom) + 2
            """)
        #expect(index["n"] == "115")
        #expect(try Harness.validate(path) == "")
    }

    @Test("translate selections: fids, a where clause, a dry run; bad selections change nothing")
    func translateSelections() throws {
        guard let path = try loudoun() else { return }
        let fids = try Harness.sqlite(path, "SELECT group_concat(fid, ',') FROM (SELECT fid FROM ParcelLines_1 ORDER BY fid LIMIT 3)")
        let before = try Harness.dump(path)
        let dry = try Harness.annolink("translate", path, "ParcelLines_1", "--fids", fids, "--by", "1,1", "--dry-run")
        #expect(dry.stdout.hasPrefix("would move 3 features of ParcelLines_1 and 3 annotation rows"))
        #expect(try Harness.dump(path) == before)
        let cases: [([String], Int32, String)] = [
            (["--where", "1; DROP TABLE ParcelLines_1"], 65, "invalid selection"),
            (["--where", "no_such_column = 1"], 65, "does not compile"),
            (["--fids", "\(fids),999999"], 65, "no feature with fid 999999"),
            (["--fids", "a,b"], 64, "--fids expects whole numbers"),
            (["--bbox", "1,2,3"], 64, "--bbox expects"),
            (["--bbox", "1,2,3,nan"], 65, "finite"),
            (["--fids", fids, "--where", "1"], 64, "exactly one of"),
        ]
        for (selection, status, message) in cases {
            let result = try Harness.annolink(["translate", path, "ParcelLines_1"] + selection + ["--by", "1,1"])
            #expect(result.status == status, "\(selection): \(result.stderr)")
            #expect(result.stderrLines.first?.contains(message) == true, "\(selection): \(result.stderr)")
        }
        #expect(try Harness.dump(path) == before)
        let byWhere = try Harness.annolink("translate", path, "ParcelLines_1", "--where", "Length > 100", "--by", "1,1")
        #expect(byWhere.status == 0)
        let count = try Harness.sqlite(path, "SELECT count(*) FROM ParcelLines_1 WHERE Length > 100")
        #expect(byWhere.stdout.hasPrefix("moved \(count) features"), "\(byWhere.stdout)")
    }

    @Test("a bulk translate killed with SIGKILL part-way leaves the file exactly as before")
    func killedTranslate() throws {
        let path = try Harness.temporaryDirectory().appendingPathComponent("big.gpkg").path
        #expect(try Harness.annolink("sample", path, "--parcels", "20000").status == 0)
        let before = try Harness.dump(path)
        var killedPartWay = false
        for delay in [0.3, 0.6, 1.0] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Harness.binary)
            process.arguments = ["translate", path, "parcel_lines", "--where", "1", "--by", "5,5"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            Thread.sleep(forTimeInterval: delay)
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                killedPartWay = true
            }
            process.waitUntilExit()
            if killedPartWay { break }
        }
        #expect(killedPartWay, "translate finished before it could be killed")
        #expect(try Harness.dump(path) == before)
        #expect(try Harness.sqlite(path, "PRAGMA integrity_check") == "ok")
    }
}
