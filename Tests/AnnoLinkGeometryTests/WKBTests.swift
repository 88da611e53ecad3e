import AnnoLinkTestSupport
import Testing
@testable import AnnoLinkGeometry

@Suite("WKB")
struct WKBTests {
    // POINT(1 2): byte order, type 1, then the IEEE 754 doubles 1.0 = 3FF0… and 2.0 = 4000….
    static let point12LittleEndian = hex("01 01000000 000000000000F03F 0000000000000040")
    static let point12BigEndian = hex("00 00000001 3FF0000000000000 4000000000000000")

    @Test func pointVectorsDecode() throws {
        #expect(try Geometry(wkb: Self.point12LittleEndian) == .point(Point(x: 1, y: 2)))
        #expect(try Geometry(wkb: Self.point12BigEndian) == .point(Point(x: 1, y: 2)))
    }

    @Test func pointVectorsEncode() {
        #expect(Geometry.point(Point(x: 1, y: 2)).wkb() == Self.point12LittleEndian)
        #expect(Geometry.point(Point(x: 1, y: 2)).wkb(byteOrder: .bigEndian) == Self.point12BigEndian)
    }

    @Test func emptyPointIsNaNNaN() throws {
        // The quiet NaN 0x7FF8000000000000, little-endian.
        let bytes = hex("01 01000000 000000000000F87F 000000000000F87F")
        #expect(Geometry.emptyPoint.wkb() == bytes)
        let decoded = try Geometry(wkb: bytes)
        #expect(decoded.isEmpty)
        #expect(decoded.kind == .point)
    }

    @Test func lineStringBigEndianVector() throws {
        // LINESTRING(1 2, -3 0.5): count 2, then x y pairs. -3.0 = C008…, 0.5 = 3FE0….
        let bytes = hex("00 00000002 00000002 3FF0000000000000 4000000000000000 C008000000000000 3FE0000000000000")
        let line = Geometry.lineString(LineString([Point(x: 1, y: 2), Point(x: -3, y: 0.5)]))
        #expect(try Geometry(wkb: bytes) == line)
        #expect(line.wkb(byteOrder: .bigEndian) == bytes)
    }

    @Test func partsMayHaveTheirOwnByteOrder() throws {
        // A little-endian MULTIPOINT holding one big-endian and one little-endian point.
        let bytes = hex("01 04000000 02000000") + Self.point12BigEndian + Self.point12LittleEndian
        #expect(try Geometry(wkb: bytes) == .multiPoint(MultiPoint([Point(x: 1, y: 2), Point(x: 1, y: 2)])))
    }

    @Test(arguments: Samples.all, WKBByteOrder.allCases)
    func roundTrip(geometry: Geometry, byteOrder: WKBByteOrder) throws {
        let bytes = geometry.wkb(byteOrder: byteOrder)
        #expect(bytes.count == geometry.wkbSize)
        #expect(bytes[0] == byteOrder.rawValue)
        let decoded = try Geometry(wkb: bytes)
        #expect(decoded.kind == geometry.kind)
        #expect(same(decoded, geometry))
    }

    @Test func readsSlicesAndNonContiguousCollections() throws {
        let padded = [0xAA] + Self.point12BigEndian + [0xBB]
        #expect(try Geometry(wkb: padded[1..<padded.count - 1]) == .point(Point(x: 1, y: 2)))
        #expect(try Geometry(wkb: Self.point12LittleEndian.lazy.map { $0 }) == .point(Point(x: 1, y: 2)))
    }

    @Test(arguments: [
        (UInt32(1001), "WKB type 1001"), (1002, "WKB type 1002"), (2003, "WKB type 2003"), (3006, "WKB type 3006"),
        (0x8000_0001, "EWKB type 0x80000001"), (0x4000_0002, "EWKB type 0x40000002"), (0xC000_0003, "EWKB type 0xC0000003"),
    ])
    func zAndMAreRefused(code: UInt32, detail: String) throws {
        var bytes: [UInt8] = [1]
        withUnsafeBytes(of: code.littleEndian) { bytes += $0 }
        bytes += [UInt8](repeating: 0, count: 32)
        let error = codecError { _ = try Geometry(wkb: bytes) }
        #expect(error?.message == "Z and M coordinates are not supported (\(detail))")
        #expect(error?.offset == 1)
        #expect(error?.format == .wkb)
    }

    @Test(arguments: [
        (UInt32(7), "GeometryCollection (WKB type 7) is not supported"),
        (0, "unsupported WKB geometry type 0"),
        (8, "unsupported WKB geometry type 8"),
        (0x2000_0001, "EWKB with an embedded SRID is not supported (WKB type 0x20000001)"),
    ])
    func otherTypesAreRefused(code: UInt32, message: String) {
        var bytes: [UInt8] = [1]
        withUnsafeBytes(of: code.littleEndian) { bytes += $0 }
        bytes += [UInt8](repeating: 0, count: 16)
        #expect(codecError { _ = try Geometry(wkb: bytes) }?.message == message)
    }

    @Test func invalidByteOrder() {
        var bytes = Self.point12LittleEndian
        bytes[0] = 2
        let error = codecError { _ = try Geometry(wkb: bytes) }
        #expect(error?.offset == 0)
        #expect(error?.message == "invalid byte order 2 (expected 0 or 1)")
    }

    @Test func absurdCountThrowsBeforeAllocating() {
        // A linestring claiming 4 294 967 295 points followed by a single point's bytes.
        let bytes = hex("01 02000000 FFFFFFFF 000000000000F03F 0000000000000040")
        let error = codecError { _ = try Geometry(wkb: bytes) }
        #expect(error?.offset == 5)
        #expect(error?.message == "a count of 4294967295 points needs at least 68719476720 bytes, but only 16 are left")
    }

    @Test func absurdPartCountThrows() {
        let bytes = hex("00 00000006 7FFFFFFF")
        let error = codecError { _ = try Geometry(wkb: bytes) }
        #expect(error?.offset == 5)
        #expect(error?.message.hasPrefix("a count of 2147483647 polygons needs") == true)
    }

    @Test func trailingBytesAreCounted() {
        let error = codecError { _ = try Geometry(wkb: Self.point12LittleEndian + [0, 0, 0]) }
        #expect(error?.offset == 21)
        #expect(error?.message == "3 trailing bytes after the geometry")
    }

    @Test func truncatedPointSaysWhere() {
        let error = codecError { _ = try Geometry(wkb: Self.point12LittleEndian.prefix(12)) }
        #expect(error?.offset == 5)
        #expect(error?.message == "unexpected end of data reading a point: need 16 bytes, 7 left")
    }

    @Test func wrongPartKind() {
        // A MULTIPOINT whose first part says LINESTRING (padded to a point part's 21 bytes, so
        // that the part count passes its plausibility check).
        let bytes = hex("01 04000000 01000000 01 02000000 00000000") + [UInt8](repeating: 0, count: 12)
        let error = codecError { _ = try Geometry(wkb: bytes) }
        #expect(error?.offset == 10)
        #expect(error?.message == "a MULTIPOINT can only hold POINT parts, not LINESTRING")
    }

    /// Decodes like the walker the GeoPackage fast paths use; both must agree on every input.
    static func walks(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var reader = ByteReader(buffer, format: .wkb)
            do {
                try WKB.walk(&reader) { _, _ in }
                try WKB.requireEnd(of: reader)
                return true
            } catch {
                return false
            }
        }
    }

    @Test(arguments: Samples.all, WKBByteOrder.allCases)
    func everyTruncationThrows(geometry: Geometry, byteOrder: WKBByteOrder) {
        let bytes = geometry.wkb(byteOrder: byteOrder)
        for length in 0..<bytes.count {
            let prefix = Array(bytes.prefix(length))
            let error = codecError { _ = try Geometry(wkb: prefix) }
            #expect(error.map { $0.offset <= length } == true, "offset past the end for length \(length)")
            #expect(!Self.walks(prefix))
        }
    }

    @Test(arguments: Samples.all, WKBByteOrder.allCases)
    func flippedBytesNeverTrap(geometry: Geometry, byteOrder: WKBByteOrder) {
        let bytes = geometry.wkb(byteOrder: byteOrder)
        for index in bytes.indices {
            var corrupt = bytes
            corrupt[index] ^= 0xFF
            let decoded = try? Geometry(wkb: corrupt)
            #expect((decoded != nil) == Self.walks(corrupt), "decoder and walker disagree at byte \(index)")
            if let decoded {
                // A successful decode has consumed every byte, so its re-encoding is as long.
                #expect(decoded.wkbSize == corrupt.count)
            }
        }
    }
}
