import AnnoLinkGeometry
import AnnoLinkImport
import AnnoLinkTestSupport
import Testing

/// Encodes a number as Esri's signed varint: first byte sign in bit 6 and 6 data bits, then 7
/// bits a byte, low group first.
func esriVarint(_ value: Int64) -> [UInt8] {
    var magnitude = value.magnitude
    var first = UInt8(magnitude & 0x3F) | (value < 0 ? 0x40 : 0)
    magnitude >>= 6
    if magnitude > 0 { first |= 0x80 }
    var bytes = [first]
    while magnitude > 0 {
        var byte = UInt8(magnitude & 0x7F)
        magnitude >>= 7
        if magnitude > 0 { byte |= 0x80 }
        bytes.append(byte)
    }
    return bytes
}

/// Builds a blob in the documented layout from absolute grid vertices (separators included).
func esriBlob(kind: Int64, typeFlags: Int64, multipart: Bool = false, envelope: [Int64]? = nil, partCounts: [Int64] = [], vertices: [(Int64, Int64)],
              flags: [UInt8] = [1, 0, 0, 0]) -> [UInt8] {
    var coordinates: [UInt8] = []
    var previous: (Int64, Int64) = (0, 0)
    for v in vertices {
        coordinates += esriVarint(v.0 - previous.0) + esriVarint(v.1 - previous.1)
        previous = v
    }
    let n = UInt32(vertices.count)
    var blob: [UInt8] = [0x64, 0x6C, 0x0B, 0x00, UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 24)]
    blob += esriVarint(kind)
    blob += multipart ? esriVarint(-typeFlags) : esriVarint(typeFlags)
    for value in envelope ?? [] { blob += esriVarint(value) }
    if multipart {
        blob += esriVarint(Int64(partCounts.count))
        for count in partCounts { blob += esriVarint(count) }
    }
    var slot = esriVarint(Int64(coordinates.count))
    slot += [UInt8](repeating: 0, count: 4 - slot.count)
    return blob + slot + flags + coordinates
}

@Suite("Esri ST_Geometry blobs")
struct EsriShapeBlobTests {
    let grid = Fixtures.loudounGrid

    @Test("parcel lines decode to lines as long as their Length attribute", arguments: try Fixtures.parcelLines())
    func parcelLineLength(_ line: Fixtures.ParcelLine) throws {
        let geometry = try EsriShapeBlob.decode(line.shape, grid: grid)
        guard case .lineString(let decoded) = geometry else {
            Issue.record("expected a line, got \(geometry.kind)")
            return
        }
        #expect(abs(decoded.length - line.length) < 0.01)
    }

    @Test("the envelope is stored for more than 10 vertices and equals the vertices' bounds")
    func envelopeLayout() throws {
        for line in try Fixtures.parcelLines() {
            let blob = try EsriShapeBlob(line.shape)
            #expect((blob.gridEnvelope != nil) == (blob.vertexCount > 10), "\(line.objectID)")
            if let stored = blob.envelope(in: grid) {
                #expect(stored == (try blob.geometry(in: grid)).envelope)
            }
        }
    }

    @Test("address points decode to the coordinates the feature class extent records")
    func addressPointAgainstExtent() throws {
        for row in try Fixtures.rows("address_points.tsv") {
            let geometry = try EsriShapeBlob.decode(hex(row[3]), grid: grid)
            guard case .point(let point) = geometry else {
                Issue.record("expected a point, got \(geometry.kind)")
                continue
            }
            let recorded = Double(row[2])!
            // The extent is written as decimal text by ArcGIS; 1e-6 ft covers its rounding.
            switch row[1] {
            case "XMin": #expect(abs(point.x - recorded) < 1e-6)
            case "YMax": #expect(abs(point.y - recorded) < 1e-6)
            default: Issue.record("unknown extent side \(row[1])")
            }
        }
        let first = try #require(try Fixtures.rows("address_points.tsv").first)
        let point = try EsriShapeBlob(hex(first[3]))
        #expect(point.shapeType == .point)
        #expect(point.vertexCount == 1)
        #expect(point.gridEnvelope == nil)
    }

    @Test("annotation footprints decode to closed 5-point rectangles", arguments: try Fixtures.annotationRows())
    func annotationFootprint(_ row: Fixtures.AnnotationRow) throws {
        let geometry = try EsriShapeBlob.decode(row.shape, grid: grid)
        guard case .polygon(let polygon) = geometry else {
            Issue.record("expected a polygon, got \(geometry.kind)")
            return
        }
        #expect(polygon.rings.count == 1)
        let ring = try #require(polygon.exterior)
        #expect(ring.points.count == 5)
        #expect(ring.isClosed)
        for i in 0..<4 {
            let a = ring.points[i], b = ring.points[i + 1], c = ring.points[(i + 2) % 4]
            let (ux, uy) = (b.x - a.x, b.y - a.y)
            let (vx, vy) = (c.x - b.x, c.y - b.y)
            let cosine = (ux * vx + uy * vy) / ((ux * ux + uy * uy).squareRoot() * (vx * vx + vy * vy).squareRoot())
            #expect(abs(cosine) < 1e-4, "corner \(i + 1) is not square")
        }
    }

    @Test("re-encoding the decoded vertices in the documented layout gives the blob back")
    func layoutRoundTrip() throws {
        let point = hex(try Fixtures.rows("address_points.tsv")[0][3])
        let decodedPoint = try EsriShapeBlob(point)
        #expect(esriBlob(kind: 4, typeFlags: 1, vertices: decodedPoint.parts[0].map { ($0.x, $0.y) }) == point)

        let footprint = try Fixtures.annotationRows()[0].shape
        let decodedFootprint = try EsriShapeBlob(footprint)
        #expect(esriBlob(kind: 24, typeFlags: 8, vertices: decodedFootprint.parts[0].map { ($0.x, $0.y) }, flags: [1, 0x10, 0, 4]) == footprint)

        let subdivision = try Fixtures.polygon("Loudoun_Subdivision_1", 513)
        let decoded = try EsriShapeBlob(subdivision)
        let e = try #require(decoded.gridEnvelope)
        let vertices = decoded.parts[0].map { ($0.x, $0.y) } + [(-1, 0)] + decoded.parts[1].map { ($0.x, $0.y) }
        let rebuilt = esriBlob(kind: 24, typeFlags: 8, multipart: true, envelope: [e.minX, e.minY, e.maxX, e.maxY],
            partCounts: [Int64(decoded.parts[0].count + 1)], vertices: vertices, flags: [1, 0x10, 0, 4])
        #expect(rebuilt == subdivision)
    }

    @Test("a polygon of several parts decodes to a multipolygon, separators dropped")
    func multipartPolygon() throws {
        let blob = try EsriShapeBlob(Fixtures.polygon("Loudoun_Subdivision_1", 513))
        #expect(blob.vertexCount == 73)
        #expect(blob.parts.map(\.count) == [30, 42])
        guard case .multiPolygon(let multi) = try blob.geometry(in: grid) else {
            Issue.record("expected a multipolygon")
            return
        }
        #expect(multi.polygons.map { $0.rings.map(\.points.count) } == [[30], [42]])
        #expect(multi.polygons.allSatisfy { $0.rings.allSatisfy { $0.isClosed } })
    }

    @Test("rings after the first in a polygon part are holes")
    func polygonWithHoles() throws {
        let blob = try EsriShapeBlob(Fixtures.polygon("Loudoun_Road_Casings_1", 38509))
        guard case .polygon(let polygon) = try blob.geometry(in: grid) else {
            Issue.record("expected a polygon")
            return
        }
        #expect(polygon.rings.map(\.points.count) == [52, 37, 9, 37, 9, 37])
        #expect(polygon.rings.allSatisfy { $0.isClosed })
        func signedArea(_ ring: LineString) -> Double {
            zip(ring.points, ring.points.dropFirst()).reduce(0) { $0 + ($1.0.x * $1.1.y - $1.1.x * $1.0.y) } / 2
        }
        #expect(signedArea(polygon.rings[0]) > 0)
        #expect(polygon.holes.allSatisfy { signedArea($0) < 0 })
    }

    @Test("a multi-part line decodes to a multilinestring")
    func multipartLine() throws {
        let bytes = esriBlob(kind: 20, typeFlags: 4, multipart: true, partCounts: [3], vertices: [(5, 6), (9, 9), (-1, 0), (20, 20), (25, 25)])
        let geometry = try EsriShapeBlob.decode(bytes, grid: CoordinateGrid(xOrigin: 0, yOrigin: 0, xyScale: 1))
        #expect(geometry == .multiLineString(MultiLineString([
            LineString([Point(x: 5, y: 6), Point(x: 9, y: 9)]),
            LineString([Point(x: 20, y: 20), Point(x: 25, y: 25)]),
        ])))
    }

    @Test("a multi-part point is refused with the number of parts")
    func multipartPointRefused() {
        let bytes = esriBlob(kind: 4, typeFlags: 1, multipart: true, partCounts: [2], vertices: [(5, 6), (-1, 0), (8, 7)])
        let error = #expect(throws: GeometryCodecError.self) { try EsriShapeBlob(bytes) }
        #expect(error?.message == "multi-part ST_Geometry blobs are not supported: 2 parts")
        #expect(error?.format == .esriShapeBuffer)
    }

    @Test("a part without its separator vertex is refused")
    func missingSeparator() {
        let bytes = esriBlob(kind: 20, typeFlags: 4, multipart: true, partCounts: [3], vertices: [(5, 6), (9, 9), (10, 10), (20, 20), (25, 25)])
        #expect(throws: GeometryCodecError.self) { try EsriShapeBlob(bytes) }
    }

    @Test("a wrong magic number is refused at offset 0")
    func badMagic() throws {
        var bytes = try Fixtures.parcelLines()[0].shape
        bytes[1] = 0x11
        let error = #expect(throws: GeometryCodecError.self) { try EsriShapeBlob(bytes) }
        #expect(error?.offset == 0)
    }

    @Test("a vertex count the blob cannot hold is refused")
    func hugeVertexCount() throws {
        var bytes = try Fixtures.parcelLines()[0].shape
        bytes[4...7] = [0xFF, 0xFF, 0xFF, 0xFF]
        let error = #expect(throws: GeometryCodecError.self) { try EsriShapeBlob(bytes) }
        #expect(error?.offset == 4)
    }

    @Test("a varint longer than 63 bits is refused")
    func varintOverflow() {
        // A point whose x has ten continuation bytes.
        let x: [UInt8] = [0xBF] + [UInt8](repeating: 0xFF, count: 9) + [0x7F]
        let coordinates = x + [0x01]
        let bytes: [UInt8] = [0x64, 0x6C, 0x0B, 0x00, 1, 0, 0, 0, 0x04, 0x01, UInt8(coordinates.count), 0, 0, 0, 1, 0, 0, 0] + coordinates
        let error = #expect(throws: GeometryCodecError.self) { try EsriShapeBlob(bytes) }
        #expect(error?.message.contains("overflow") == true)
    }

    @Test("bytes after the last vertex are refused")
    func trailingBytes() throws {
        let bytes = try Fixtures.parcelLines()[0].shape + [0x00]
        #expect(throws: GeometryCodecError.self) { try EsriShapeBlob(bytes) }
    }

    @Test("an invalid grid is refused")
    func invalidGrid() throws {
        let blob = try EsriShapeBlob(try Fixtures.parcelLines()[0].shape)
        #expect(throws: GeometryCodecError.self) { try blob.geometry(in: CoordinateGrid(xOrigin: 0, yOrigin: 0, xyScale: 0)) }
        #expect(throws: GeometryCodecError.self) { try blob.geometry(in: CoordinateGrid(xOrigin: .nan, yOrigin: 0, xyScale: 1)) }
    }

    /// A blob of one layout, named for test output.
    struct Layout: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var testDescription: String { name }
    }

    /// Blobs of every layout: point, short line, line with envelope, footprint, several parts,
    /// holes.
    static func layouts() throws -> [Layout] {
        let lines = try Fixtures.parcelLines()
        return [
            Layout(name: "point", bytes: hex(try Fixtures.rows("address_points.tsv")[0][3])),
            Layout(name: "2-point line", bytes: lines[0].shape),
            Layout(name: "line with envelope", bytes: lines.first { $0.objectID == 131760 }!.shape),
            Layout(name: "annotation footprint", bytes: try Fixtures.annotationRows()[0].shape),
            Layout(name: "2-part polygon", bytes: try Fixtures.polygon("Loudoun_Subdivision_1", 513)),
            Layout(name: "polygon with holes", bytes: try Fixtures.polygon("Loudoun_Road_Casings_1", 38509)),
        ]
    }

    @Test("every truncation of a blob throws", arguments: try layouts())
    func everyTruncationThrows(_ layout: Layout) {
        let bytes = layout.bytes
        for length in 0..<bytes.count {
            #expect(throws: GeometryCodecError.self, "truncated to \(length) of \(bytes.count) bytes") {
                try EsriShapeBlob(bytes[0..<length])
            }
        }
    }

    @Test("changing any byte never traps", arguments: try layouts())
    func corruptBytesNeverTrap(_ layout: Layout) {
        let bytes = layout.bytes
        for index in bytes.indices {
            for value: UInt8 in [0x00, 0x7F, 0x80, 0xFF] where bytes[index] != value {
                var corrupt = bytes
                corrupt[index] = value
                _ = try? EsriShapeBlob(corrupt).geometry(in: grid)
            }
        }
    }
}
