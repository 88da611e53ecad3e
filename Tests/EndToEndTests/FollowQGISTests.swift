import AnnoLinkTestSupport
import Foundation
import Testing

/// Real QGIS (Debian's python3-qgis, headless) edits a GeoPackage with its own editing API while
/// `annolink serve` runs: the server follows each commit, and the annotation ends up as
/// annolink's own edits leave it on a copy (docs/follow.md).
@Suite("Following QGIS's edits")
struct FollowQGISTests {
    /// Opens a Loudoun layer of the GeoPackage (or the PostGIS database, by its
    /// `postgresql://` connection string) given first in QGIS and makes one edit (the second
    /// argument) in an edit session committed as QGIS's Save Edits does.
    static let script = #"""
        import os, sys, urllib.parse
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        from qgis.core import QgsApplication, QgsDataSourceUri, QgsFeature, QgsFeatureRequest, QgsGeometry, QgsPointXY, QgsVectorLayer
        app = QgsApplication([], False)
        app.initQgis()
        path, step = sys.argv[1], sys.argv[2]
        table = "ParcelLines_1" if step == "end" else "Loudoun_Address_PointsAnno_1" if step == "label" else "Loudoun_Address_Points_1"
        if path.startswith("postgresql://"):
            url = urllib.parse.urlparse(path)
            uri = QgsDataSourceUri()
            uri.setConnection(url.hostname, str(url.port), url.path.lstrip("/"), url.username or "", url.password or "")
            uri.setDataSource("public", table, "geom", "", "fid")
            layer = QgsVectorLayer(uri.uri(False), table, "postgres")
        else:
            layer = QgsVectorLayer(path + "|layername=" + table, table, "ogr")
        assert layer.isValid(), table
        assert layer.startEditing(), "startEditing"
        fields = layer.fields()
        def fid(key):
            # QGIS's id of the row whose key is `key`: the key itself for a GeoPackage; on
            # PostgreSQL (a bigint key) an id QGIS hands out as it reads the row.
            return next(layer.getFeatures(QgsFeatureRequest().setFilterExpression('"fid" = %d' % key))).id()
        if step == "set":
            assert layer.changeAttributeValue(fid(831), fields.indexOf("AD_ADDRESS"), 45765)
        elif step == "move":
            point = layer.getFeature(fid(834)).geometry().asPoint()
            assert layer.changeGeometry(fid(834), QgsGeometry.fromPointXY(QgsPointXY(point.x() + 30, point.y() - 12)))
            print("%.17g,%.17g" % (point.x() + 30, point.y() - 12))
        elif step == "end":
            line = layer.getFeature(fid(131583)).geometry().asPolyline()
            line[-1] = QgsPointXY(11790500, 7056400)
            assert layer.changeGeometry(fid(131583), QgsGeometry.fromPolylineXY(line))
        elif step == "add":
            feature = QgsFeature(fields)
            feature.setAttribute("AD_ADDRESS", 45999)
            feature.setAttribute("ST_STR_NAM", "TESTING")
            feature.setGeometry(layer.getFeature(fid(831)).geometry())
            assert layer.addFeature(feature)
        elif step == "delete":
            assert layer.deleteFeature(fid(16310))
        elif step == "label":
            geometry = layer.getFeature(fid(5)).geometry()
            geometry.translate(20, 0)
            assert layer.changeGeometry(fid(5), geometry)
        assert layer.commitChanges(), layer.commitErrors()
        sys.stdout.flush()
        # QGIS 3.22 may crash tearing itself down (exitQgis): the commit is done, leave now.
        os._exit(0)
        """#

    static func edit(_ path: String, _ step: String) throws -> String {
        let result = try ExternalTool.run("/usr/bin/python3", ["-c", script, path, step])
        #expect(result.status == 0, "QGIS \(step): status \(result.status), \(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\n").last.map(String.init) ?? ""
    }

    @Test("QGIS edits a field, a point, a line's end, adds, deletes and moves a label; the server follows each; undo reverts")
    func serverFollowsQGIS() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let mine = path.replacingOccurrences(of: "loudoun.gpkg", with: "mine.gpkg")
        try Harness.copyDatabase(path, to: mine)
        let original = try FollowTests.userTables(path)
        let server = try ServeProcess(file: path)
        defer { _ = server.stop() }
        func followed() throws -> Bool { try Harness.sqlite(path, "SELECT count(*) FROM annolink_changes") == "0" }

        _ = try Self.edit(path, "set")
        #expect(try Harness.annolink("set", mine, "Loudoun_Address_Points_1", "831", "AD_ADDRESS=45765").status == 0)
        #expect(try FollowTests.eventually(followed))
        let moved = try Self.edit(path, "move")
        #expect(try Harness.annolink("move", mine, "Loudoun_Address_Points_1", "834", "--to", moved).status == 0)
        #expect(try FollowTests.eventually(followed))
        _ = try Self.edit(path, "end")
        #expect(try Harness.annolink("move-vertex", mine, "ParcelLines_1", "131583", "--to", "11790500,7056400").status == 0)
        #expect(try FollowTests.eventually(followed))
        _ = try Self.edit(path, "delete")
        #expect(try Harness.annolink("delete", mine, "Loudoun_Address_Points_1", "16310").status == 0)
        #expect(try FollowTests.eventually(followed))
        #expect(try FollowTests.eventually { try FollowTests.annotation(path) == FollowTests.annotation(mine) })

        // A feature QGIS adds gets a GlobalID and its label.
        _ = try Self.edit(path, "add")
        #expect(try FollowTests.eventually(followed))
        let added = try Harness.sqlite(path, "SELECT fid, GlobalID FROM Loudoun_Address_Points_1 WHERE ST_STR_NAM = 'TESTING'")
        #expect(added.contains("|{"), "\(added)")
        let fid = added.split(separator: "|").first.map(String.init) ?? "0"
        #expect(try Harness.sqlite(path, "SELECT TextString FROM Loudoun_Address_PointsAnno_1 WHERE FeatureID = \(fid)") == "45999 TESTING")

        // A label QGIS moves is placed by hand, and check --fix keeps it.
        let anchor = try Harness.sqlite(path, "SELECT AnchorX FROM Loudoun_Address_PointsAnno_1 WHERE fid = 5")
        _ = try Self.edit(path, "label")
        #expect(try FollowTests.eventually(followed))
        let hand = try Harness.sqlite(path, "SELECT AnchorX, Override & 1 FROM Loudoun_Address_PointsAnno_1 WHERE fid = 5")
        #expect(hand.hasSuffix("|1") && abs((Double(hand.split(separator: "|")[0]) ?? 0) - (Double(anchor) ?? 0) - 20) < 1e-6, "\(anchor) → \(hand)")
        _ = server.stop()
        #expect(try Harness.annolink("check", path).status == 0)
        #expect(try Harness.annolink("check", path, "--fix").status == 0)
        #expect(try Harness.sqlite(path, "SELECT AnchorX, Override & 1 FROM Loudoun_Address_PointsAnno_1 WHERE fid = 5") == hand)

        // Each follow-up is an entry that holds QGIS's edit: undoing them all gives the file back.
        let log = try Harness.annolink("log", path, "--limit", "6")
        #expect(log.stdout.components(separatedBy: "outside edit:").count - 1 == 6, "\(log.stdout)")
        for _ in 0..<6 { #expect(try Harness.annolink("undo", path).status == 0) }
        #expect(try FollowTests.userTables(path) == original)
        #expect(try Harness.validate(path) == "")
    }
}
