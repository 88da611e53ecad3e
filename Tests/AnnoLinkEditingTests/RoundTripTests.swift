import AnnoLinkEditing
import AnnoLinkEngine
import AnnoLinkGeometry
import AnnoLinkStore
import Foundation
import Testing

/// The edit service's test of a geometry given back (`GeometryMatch`, docs/serve.md "Round
/// trips that change nothing"), below every front end: the stored geometry given in another
/// CRS, or with its rings the other way, changes nothing; 0.01 ft is still a move.
@Suite("EditService: round trips that change nothing")
struct EditRoundTripTests {
    /// `geometry` (EPSG:2924) as a client reading it in `crs` gets it.
    func read(_ geometry: Geometry, in crs: String) throws -> Geometry {
        try CoordinateTransformer().transform(geometry, from: "EPSG:2924", to: crs)
    }

    @Test("a point moved to where it is, given in EPSG:4326, 3857 or its own CRS, writes nothing and makes no journal entry", arguments: ["EPSG:4326", "EPSG:3857", "OGC:CRS84"])
    func pointGivenBack(crs: String) throws {
        let s = try EditScratch()
        let before = try s.dump()
        let p = try s.point(1)
        guard case .point(let there) = try read(.point(p), in: crs) else { Issue.record("not a point"); return }
        let result = try s.service.run(MovePoint(table: "address_points", fid: 1, to: there, crs: crs, command: "test"))
        #expect(result.unchanged && result.journalEntry == nil && result.annotation.isEmpty)
        let own = try s.service.run(MovePoint(table: "address_points", fid: 1, to: p, command: "test"))
        #expect(own.unchanged)
        #expect(try s.dump() == before)
    }

    @Test("0.01 ft is a move: in its own CRS and given in EPSG:4326, with a journal entry and the label following")
    func aHundredthOfAFoot() throws {
        let s = try EditScratch()
        let p = try s.point(1)
        let anchor = try s.annotation("address_points_anno", feature: 1).anchor
        let own = try s.service.run(MovePoint(table: "address_points", fid: 1, to: Point(x: p.x + 0.01, y: p.y), command: "test"))
        #expect(!own.unchanged && own.journalEntry != nil)
        #expect(try s.point(1) == Point(x: p.x + 0.01, y: p.y))
        let moved = try s.annotation("address_points_anno", feature: 1).anchor
        #expect(close(moved, anchor.map { Point(x: $0.x + 0.01, y: $0.y) }, within: 1e-6))
        guard case .point(let there) = try read(.point(Point(x: p.x + 0.02, y: p.y)), in: "EPSG:4326") else { return }
        let given = try s.service.run(MovePoint(table: "address_points", fid: 1, to: there, crs: "EPSG:4326", command: "test"))
        #expect(!given.unchanged && given.journalEntry != nil)
        #expect(close(try s.point(1), Point(x: p.x + 0.02, y: p.y), within: 1e-5))
    }

    @Test("a two-point line given back through EPSG:4326 is no change; its last vertex moved 0.01 ft is a move-vertex that keeps the first bit for bit")
    func lineGivenBack() throws {
        let s = try EditScratch()
        let fid = try #require(try s.package.connection.scalarInt("SELECT min(fid) FROM parcel_lines"))
        let line = try s.line(fid)
        try #require(line.points.count == 2)
        let before = try s.dump()
        let echo = try s.service.run(UpdateGeometry(table: "parcel_lines", fid: fid, geometry: read(.lineString(line), in: "EPSG:4326"),
                                                    crs: "EPSG:4326", lineChange: .refuse, command: "test"))
        #expect(echo.unchanged && echo.journalEntry == nil)
        #expect(try s.dump() == before)
        var longer = line
        longer.points[1].x += 0.01
        let move = try s.service.run(UpdateGeometry(table: "parcel_lines", fid: fid, geometry: read(.lineString(longer), in: "EPSG:4326"),
                                                    crs: "EPSG:4326", lineChange: .refuse, command: "test"))
        #expect(move.kind == .moveVertex && move.journalEntry != nil)
        let after = try s.line(fid)
        #expect(after.points[0] == line.points[0])
        #expect(close(after.points[1], longer.points[1], within: 1e-5))
        // The first vertex 0.01 ft off is refused.
        var shifted = longer
        shifted.points[0].x += 0.01
        try s.expectUnchanged(by: {
            _ = try s.service.run(UpdateGeometry(table: "parcel_lines", fid: fid, geometry: read(.lineString(shifted), in: "EPSG:4326"),
                                                 crs: "EPSG:4326", lineChange: .refuse, command: "test"))
        }, throws: EditError.self)
    }

    @Test("a polygon given back with its rings the other way (Esri's winding) is no change; reshaped, it keeps the stored winding")
    func ringsKeepTheStoredWinding() throws {
        let s = try EditScratch()
        let table = try s.table("address_points_anno")
        let fid = try #require(try s.package.connection.scalarInt("SELECT min(fid) FROM address_points_anno"))
        guard case .polygon(let stored)? = try s.package.feature(table, fid: fid).geometry else { Issue.record("no polygon"); return }
        let reversed = Polygon(rings: stored.rings.map { LineString($0.points.reversed()) })
        let before = try s.dump()
        let result = try s.service.run(ReplaceGeometry(table: "address_points_anno", fid: fid, geometry: .polygon(reversed), command: "test"))
        #expect(result.unchanged && result.journalEntry == nil)
        #expect(try s.dump() == before)
        // One vertex 0.01 ft off, in the other winding: stored in the stored one.
        var changed = reversed
        changed.rings[0].points[1].x += 0.01
        _ = try s.service.run(ReplaceGeometry(table: "address_points_anno", fid: fid, geometry: .polygon(changed), command: "test"))
        guard case .polygon(let after)? = try s.package.feature(table, fid: fid).geometry else { Issue.record("no polygon"); return }
        #expect((after.rings[0].signedArea > 0) == (stored.rings[0].signedArea > 0))
        #expect(after.rings[0].points == Array(changed.rings[0].points.reversed()))
    }
}
