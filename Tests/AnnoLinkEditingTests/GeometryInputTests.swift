import AnnoLinkEditing
import AnnoLinkEngine
import AnnoLinkGeometry
import AnnoLinkStore
import AnnoLinkTestSupport
import Foundation
import Testing

/// Geometry text as `add --geometry` reads it (WKT, GeoJSON, Esri JSON) and the CRS an Esri
/// JSON spatial reference names.
@Suite("GeometryInput")
struct GeometryInputTests {
    @Test("the format follows the text: WKT, a GeoJSON object (type), an Esri JSON object (x, points, paths, rings)")
    func formats() throws {
        let wkt = try GeometryInput(text: "POINT (1 2)")
        #expect(wkt.format == .wkt && wkt.geometry == .point(Point(x: 1, y: 2)) && wkt.wkid == nil)
        let geoJSON = try GeometryInput(text: #" {"type":"LineString","coordinates":[[1,2],[3,4]]}"#)
        #expect(geoJSON.format == .geoJSON && geoJSON.geometry == .lineString(LineString([Point(x: 1, y: 2), Point(x: 3, y: 4)])))
        let point = try GeometryInput(text: #"{"x":-77.4,"y":39.0,"spatialReference":{"wkid":4326}}"#)
        #expect(point.format == .esriJSON && point.geometry == .point(Point(x: -77.4, y: 39.0)) && point.wkid == 4326 && point.latestWkid == nil)
        let path = try GeometryInput(text: #"{"paths":[[[1,2],[3,4]]],"spatialReference":{"wkid":102100,"latestWkid":3857}}"#)
        #expect(path.format == .esriJSON && path.geometry.kind == .lineString && path.wkid == 102_100 && path.latestWkid == 3857)
        let ring = try GeometryInput(text: #"{"rings":[[[0,0],[0,1],[1,1],[0,0]]]}"#)
        #expect(ring.format == .esriJSON && ring.geometry.kind == .polygon && ring.wkid == nil)
        #expect(try GeometryInput(text: #"{"points":[[1,2]]}"#).geometry.kind == .multiPoint)
        // Errors come from the format's own reader.
        #expect(throws: GeometryCodecError.self) { try GeometryInput(text: #"{"x":1}"#) }
        #expect((try? GeometryInput(text: #"{"x":1,"y":2,"z":3}"#)) == nil)
        #expect(throws: GeometryCodecError.self) { try GeometryInput(text: #"{"type":"Point"}"#) }
        #expect(throws: GeometryCodecError.self) { try GeometryInput(text: "{") }
        #expect(throws: GeometryCodecError.self) { try GeometryInput(text: "POINT (1") }
    }

    @Test("the spatial reference names the CRS: latestWkid first, EPSG then ESRI codes, the old Web Mercator ids; a conflicting --crs is refused")
    func referenceSystems() throws {
        func input(_ wkid: Int32?, _ latest: Int32? = nil) -> GeometryInput {
            GeometryInput(geometry: .point(Point(x: 0, y: 0)), format: .esriJSON, wkid: wkid, latestWkid: latest)
        }
        #expect(try input(nil).referenceSystem(given: nil) == nil)
        #expect(try input(nil).referenceSystem(given: "EPSG:2924") == "EPSG:2924")
        #expect(try input(4326).referenceSystem(given: nil) == "EPSG:4326")
        #expect(try input(102_100, 3857).referenceSystem(given: nil) == "EPSG:3857")
        #expect(try input(102_100).referenceSystem(given: nil) == "EPSG:3857")
        #expect(try input(2924).referenceSystem(given: nil) == "EPSG:2924")
        // Esri's own codes are PROJ's ESRI authority (World Robinson).
        #expect(try input(54030).referenceSystem(given: nil) == "ESRI:54030")
        // The same CRS named twice is no conflict, however spelt.
        #expect(try input(4326).referenceSystem(given: "EPSG:4326") == "EPSG:4326")
        #expect(try input(4326).referenceSystem(given: "epsg:4326") == "epsg:4326")
        #expect(try input(102_100, 3857).referenceSystem(given: "EPSG:3857") == "EPSG:3857")
        #expect(throws: EditError.conflictingCRS(given: "EPSG:2924", spatialReference: "wkid 4326 = EPSG:4326")) {
            try input(4326).referenceSystem(given: "EPSG:2924")
        }
        #expect(throws: EngineError.self) { try input(999_999).referenceSystem(given: nil) }
    }

    @Test("geometry(in:given:): as given without a spatial reference, transformed from it with one")
    func transformed() throws {
        let wkt = try GeometryInput(text: "POINT (11790000 7056000)")
        #expect(try wkt.geometry(in: "EPSG:2924", given: nil) == .point(Point(x: 11_790_000, y: 7_056_000)))
        let esri = try GeometryInput(text: #"{"x":-77.4,"y":39.0,"spatialReference":{"wkid":4326}}"#)
        guard case .point(let p) = try esri.geometry(in: "EPSG:2924", given: nil) else {
            Issue.record("not a point")
            return
        }
        // cs2cs EPSG:4326 EPSG:2924 of latitude 39.0, longitude -77.4 (as in the move test).
        #expect(close(p, Point(x: 11_795_528.155108, y: 7_049_104.096804), within: 0.001), "\(p)")
        #expect(throws: EditError.self) { try esri.geometry(in: "EPSG:2924", given: "EPSG:3857") }
    }

    @Test("add with an Esri JSON point in EPSG:4326 (wkid) stores it where cs2cs puts it in EPSG:2924, with its label")
    func addEsriJSON() throws {
        let s = try EditScratch()
        let input = try GeometryInput(text: #"{"x":-77.4,"y":39.0,"spatialReference":{"wkid":4326}}"#)
        let result = try s.service.run(AddFeature(table: "address_points", geometry: input.geometry, crs: try input.referenceSystem(given: nil),
                                                  values: [FieldAssignment(field: "AD_ADDRESS", text: "45770"), FieldAssignment(field: "ST_STR_NAM", text: "ESRI")],
                                                  command: "test add"))
        // cs2cs EPSG:4326 EPSG:2924 of latitude 39.0, longitude -77.4 (the oracle of the move test).
        let oracle = try ExternalTool.cs2cs.output(["-f", "%.6f", "EPSG:4326", "EPSG:2924"], input: "39.0 -77.4\n")
            .split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Double($0) }
        let stored = try s.point(result.fid)
        #expect(oracle.count >= 2 && close(stored, Point(x: oracle[0], y: oracle[1]), within: 0.001), "\(stored) vs \(oracle)")
        #expect(try s.annotation("address_points_anno", feature: result.fid).text == "45770 ESRI")
    }
}
