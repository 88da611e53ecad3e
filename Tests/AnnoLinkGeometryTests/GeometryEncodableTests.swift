import AnnoLinkGeometry
import Foundation
import Testing

/// `Geometry`'s `Encodable` form is the GeoJSON geometry object `geoJSON()` writes: the same
/// members and the same numbers, whatever the encoder.
@Suite("Geometry as Encodable")
struct GeometryEncodableTests {
    static let geometries: [String] = [
        "POINT (10 20.5)",
        "POINT EMPTY",
        "LINESTRING (11880000 7020000.180473985, 11880078.39183063 7020000.872007841)",
        "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 3 2, 3 3, 2 2))",
        "MULTIPOINT ((1 2), (3 4))",
        "MULTILINESTRING ((0 0, 1 1), (2 2, 3 3, 4 5))",
        "MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), ((5 5, 6 5, 6 6, 5 5)))",
    ]

    @Test("encodes as the object geoJSON() writes", arguments: geometries)
    func sameAsGeoJSON(wkt: String) throws {
        let geometry = try Geometry(wkt: wkt)
        let encoded = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(geometry)) as? NSDictionary
        let written = try JSONSerialization.jsonObject(with: Data(try geometry.geoJSON().utf8)) as? NSDictionary
        #expect(encoded != nil && encoded == written, "\(wkt)")
        // Read back, it is the same geometry (the empty point's NaNs never compare equal).
        let back = try Geometry(geoJSON: String(decoding: try JSONEncoder().encode(geometry), as: UTF8.self))
        #expect(back == geometry || (back.isEmpty && geometry.isEmpty))
    }

    @Test func pointIsAPosition() throws {
        #expect(String(decoding: try JSONEncoder().encode(Point(x: 1.5, y: -2)), as: UTF8.self) == "[1.5,-2]")
    }

    @Test("coordinates JSON cannot hold are an encoding error, not a crash")
    func nonFinite() {
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(Geometry.point(Point(x: .infinity, y: 1))) }
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(Point(x: .nan, y: 1)) }
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(Geometry.multiPoint(MultiPoint([Point(x: 1, y: 1), Point(x: .nan, y: .nan)]))) }
    }
}
