import AnnoLinkTestSupport
import Testing
@testable import AnnoLinkGeometry

@Suite("GeoPackage binary")
struct GeoPackageBinaryTests {
    /// LINESTRING(1 2, 3 4) in SRS 4326 (0x10E6), written by hand from GeoPackage 1.3 §2.1.3:
    /// magic "GP", version 0, flags 0x03 (little-endian, envelope contents 1), srs_id, the
    /// envelope in the order minx maxx miny maxy, then the ISO WKB.
    static let lineLittleEndian = hex("""
        47 50 00 03 E6 10 00 00
        000000000000F03F 0000000000000840 0000000000000040 0000000000001040
        01 02000000 02000000
        000000000000F03F 0000000000000040 0000000000000840 0000000000001040
        """)
    /// The same in big-endian: flags 0x02.
    static let lineBigEndian = hex("""
        47 50 00 02 00 00 10 E6
        3FF0000000000000 4008000000000000 4000000000000000 4010000000000000
        00 00000002 00000002
        3FF0000000000000 4000000000000000 4008000000000000 4010000000000000
        """)
    static let line = Geometry.lineString(LineString([Point(x: 1, y: 2), Point(x: 3, y: 4)]))

    static func littleEndian(_ values: [Double]) -> [UInt8] {
        var bytes: [UInt8] = []
        for value in values { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 } }
        return bytes
    }

    @Test func encodesTheHandWrittenVectors() {
        #expect(GeoPackageGeometry.encode(Self.line, srsID: 4326) == Self.lineLittleEndian)
        #expect(GeoPackageGeometry.encode(Self.line, srsID: 4326, byteOrder: .bigEndian) == Self.lineBigEndian)
    }

    @Test(arguments: [lineLittleEndian, lineBigEndian])
    func decodesTheHandWrittenVectors(blob: [UInt8]) throws {
        let decoded = try GeoPackageGeometry(blob: blob)
        #expect(decoded.srsID == 4326)
        #expect(decoded.envelope == Envelope(minX: 1, minY: 2, maxX: 3, maxY: 4))
        #expect(!decoded.isEmpty)
        #expect(decoded.geometry == Self.line)

        let header = try GeoPackageBinaryHeader.read(from: blob)
        #expect(header.srsID == 4326)
        #expect(header.envelopeContents == .xy)
        #expect(header.envelope == Envelope(minX: 1, minY: 2, maxX: 3, maxY: 4))
        #expect(header.wkbOffset == 40)
        #expect(header.byteOrder == (blob[3] & 1 == 1 ? .littleEndian : .bigEndian))
    }

    @Test(arguments: GeoPackageBinaryHeader.EnvelopeContents.allCases)
    func readsEveryEnvelopeContentsIndicator(contents: GeoPackageBinaryHeader.EnvelopeContents) throws {
        // POINT(5 6) with x range 5…5, y 6…6 and, where present, z 7…8 and m 9…10.
        let envelopeValues: [Double] = switch contents {
        case .none: []
        case .xy: [5, 5, 6, 6]
        case .xyz, .xym: [5, 5, 6, 6, 7, 8]
        case .xyzm: [5, 5, 6, 6, 7, 8, 9, 10]
        }
        let blob = [0x47, 0x50, 0x00, 0x01 | contents.rawValue << 1] + [0x2C, 0x0B, 0, 0]
            + Self.littleEndian(envelopeValues) + Geometry.point(Point(x: 5, y: 6)).wkb()
        let header = try GeoPackageBinaryHeader.read(from: blob)
        #expect(header.envelopeContents == contents)
        #expect(header.srsID == 2860)
        #expect(header.wkbOffset == 8 + envelopeValues.count * 8)
        #expect(header.envelope == (contents == .none ? nil : Envelope(minX: 5, minY: 6, maxX: 5, maxY: 6)))
        let decoded = try GeoPackageGeometry(blob: blob)
        #expect(decoded.geometry == .point(Point(x: 5, y: 6)))
        #expect(decoded.srsID == 2860)
        #expect(try blob.withUnsafeBytes { try GeoPackageBinaryHeader.envelopeOrComputed(from: $0) }
            == Envelope(minX: 5, minY: 6, maxX: 5, maxY: 6))
    }

    @Test func emptyPointHasTheEmptyFlagAndNoEnvelope() throws {
        let blob = GeoPackageGeometry.encode(.emptyPoint, srsID: 4326)
        #expect(blob == hex("47 50 00 11 E6 10 00 00 01 01000000 000000000000F87F 000000000000F87F"))
        let decoded = try GeoPackageGeometry(blob: blob)
        #expect(decoded.isEmpty)
        #expect(decoded.envelope == nil)
        #expect(decoded.geometry.isEmpty)
        let header = try GeoPackageBinaryHeader.read(from: blob)
        #expect(header.isEmpty)
        #expect(header.envelopeContents == .none)
    }

    @Test func nanEnvelopeOfAnEmptyGeometryReadsAsNone() throws {
        // Flags 0x13: little-endian, envelope contents 1, empty; the envelope is all NaN.
        let blob = hex("47 50 00 13 00 00 00 00") + Self.littleEndian([.nan, .nan, .nan, .nan])
            + Geometry.lineString(LineString([])).wkb()
        let decoded = try GeoPackageGeometry(blob: blob)
        #expect(decoded.isEmpty && decoded.envelope == nil)
        #expect(try GeoPackageBinaryHeader.read(from: blob).envelope == nil)
    }

    @Test func emptyGeometryWithoutTheFlagIsAccepted() throws {
        // Some older writers leave the flag clear; the geometry still says it is empty.
        let blob = hex("47 50 00 01 00 00 00 00") + Geometry.emptyPoint.wkb()
        let header = try GeoPackageBinaryHeader.read(from: blob)
        #expect(!header.isEmpty)
        #expect(try GeoPackageGeometry(blob: blob).isEmpty)
        #expect(try blob.withUnsafeBytes { try header.envelopeOrComputed(in: $0) } == nil)
    }

    @Test func emptyFlagOnAGeometryWithVerticesIsRefused() {
        var blob = GeoPackageGeometry.encode(Self.line, srsID: 1, envelope: .none)
        blob[3] |= 0x10
        let error = codecError { _ = try GeoPackageGeometry(blob: blob) }
        #expect(error?.offset == 3)
        #expect(error?.message == "the empty flag is set but the geometry has vertices")
        let before = blob
        codecError { try GeoPackageGeometry.translate(blob: &blob, dx: 1, dy: 1) }
        #expect(blob == before)
    }

    @Test(arguments: [
        (hex("47 50 00 01 00"), 5, "a GeoPackage geometry header needs 8 bytes, the blob has 5"),
        (hex("47 51 00 01 00 00 00 00 00"), 0, "the blob does not start with the GeoPackage magic \"GP\""),
        (hex("47 50 01 01 00 00 00 00 00"), 2, "unsupported GeoPackage binary version 1 (expected 0)"),
        (hex("47 50 00 21 00 00 00 00 00"), 3, "extended GeoPackage geometry types (flags bit 5) are not supported"),
        (hex("47 50 00 0B 00 00 00 00 00"), 3, "invalid envelope contents indicator 5 (expected 0 to 4)"),
        (hex("47 50 00 03 00 00 00 00 00 00 00 00"), 8, "unexpected end of data reading the envelope: need 32 bytes, 4 left"),
    ])
    func headerErrors(blob: [UInt8], offset: Int, message: String) {
        let error = codecError { _ = try GeoPackageBinaryHeader.read(from: blob) }
        #expect(error?.format == .geoPackageBinary)
        #expect(error?.offset == offset)
        #expect(error?.message == message)
        #expect(codecError { _ = try GeoPackageGeometry(blob: blob) } == error)
    }

    @Test func wkbErrorsUseOffsetsIntoTheBlob() {
        // Type 1002 (LINESTRING Z) after a 40-byte header: the type code is at byte 41.
        var blob = Self.lineLittleEndian
        blob[41] = 0xEA
        blob[42] = 0x03
        let error = codecError { _ = try GeoPackageGeometry(blob: blob) }
        #expect(error?.format == .geoPackageBinary)
        #expect(error?.offset == 41)
        #expect(error?.message == "Z and M coordinates are not supported (WKB type 1002)")

        let trailing = codecError { _ = try GeoPackageGeometry(blob: Self.lineLittleEndian + [9, 9]) }
        #expect(trailing?.offset == Self.lineLittleEndian.count)
        #expect(trailing?.message == "2 trailing bytes after the geometry")
    }

    @Test func envelopePolicies() throws {
        let point = Geometry.point(Point(x: 7, y: 8))
        #expect(GeoPackageGeometry.encode(point, srsID: 0, envelope: .xyExceptPoints)[3] == 0x01)
        #expect(GeoPackageGeometry.encode(Self.line, srsID: 0, envelope: .xyExceptPoints)[3] == 0x03)
        #expect(GeoPackageGeometry.encode(point, srsID: 0, envelope: .xy)[3] == 0x03)
        #expect(GeoPackageGeometry.encode(Self.line, srsID: 0, envelope: .none)[3] == 0x01)
        #expect(GeoPackageGeometry.encode(point, srsID: 0, envelope: .xy).count == 8 + 32 + 21)
        #expect(GeoPackageGeometry(geometry: point, srsID: 0, envelope: .xyExceptPoints).envelope == nil)
    }

    @Test func encodedRecomputesTheEnvelope() throws {
        var value = try GeoPackageGeometry(blob: Self.lineLittleEndian)
        value.geometry = value.geometry.translated(dx: 10, dy: 0)
        let reread = try GeoPackageGeometry(blob: value.encoded())
        #expect(reread.envelope == Envelope(minX: 11, minY: 2, maxX: 13, maxY: 4))
        value.envelope = nil
        #expect(try GeoPackageBinaryHeader.read(from: value.encoded()).envelopeContents == .none)
    }

    @Test func negativeSRSIDRoundTrips() throws {
        // -1 is GeoPackage's "undefined Cartesian" SRS.
        let blob = GeoPackageGeometry.encode(Self.line, srsID: -1, byteOrder: .bigEndian)
        #expect(Array(blob[4..<8]) == [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(try GeoPackageGeometry(blob: blob).srsID == -1)
    }

    @Test func envelopeOrComputed() throws {
        let withoutEnvelope = GeoPackageGeometry.encode(Samples.multiPolygon, srsID: 0, envelope: .none)
        #expect(try withoutEnvelope.withUnsafeBytes { try GeoPackageBinaryHeader.envelopeOrComputed(from: $0) }
            == Envelope(minX: 0, minY: 0, maxX: 9, maxY: 9))
        // A stored envelope is trusted, not checked: that is what keeps the lookup cheap.
        var stale = Self.lineLittleEndian
        stale.replaceSubrange(8..<16, with: Self.littleEndian([-100]))
        #expect(try stale.withUnsafeBytes { try GeoPackageBinaryHeader.envelopeOrComputed(from: $0) }?.minX == -100)
        // Without one, corrupt WKB is noticed.
        let corrupt = withoutEnvelope + [0]
        #expect(codecError { _ = try corrupt.withUnsafeBytes { try GeoPackageBinaryHeader.envelopeOrComputed(from: $0) } }?
            .message == "1 trailing bytes after the geometry")
    }

    @Test(arguments: Samples.all, WKBByteOrder.allCases)
    func roundTrip(geometry: Geometry, byteOrder: WKBByteOrder) throws {
        for policy in GeoPackageGeometry.EnvelopePolicy.allCases {
            let blob = GeoPackageGeometry.encode(geometry, srsID: 2924, envelope: policy, byteOrder: byteOrder)
            let decoded = try GeoPackageGeometry(blob: blob)
            #expect(same(decoded.geometry, geometry))
            #expect(decoded.srsID == 2924)
            #expect(decoded.isEmpty == geometry.isEmpty)
            let expectEnvelope = !geometry.isEmpty && (policy == .xy || (policy == .xyExceptPoints && geometry.kind != .point))
            #expect(decoded.envelope == (expectEnvelope ? geometry.envelope : nil))
            #expect(decoded.encoded(byteOrder: byteOrder) == blob)
        }
    }

    @Test(arguments: Samples.all, WKBByteOrder.allCases)
    func translateInPlaceEqualsDecodeTranslateEncode(geometry: Geometry, byteOrder: WKBByteOrder) throws {
        for policy in GeoPackageGeometry.EnvelopePolicy.allCases {
            var blob = GeoPackageGeometry.encode(geometry, srsID: 2924, envelope: policy, byteOrder: byteOrder)
            try GeoPackageGeometry.translate(blob: &blob, dx: 1234.5, dy: -0.1)
            let expected = GeoPackageGeometry.encode(
                geometry.translated(dx: 1234.5, dy: -0.1), srsID: 2924, envelope: policy, byteOrder: byteOrder)
            #expect(blob == expected)
        }
    }

    @Test func translateRepairsAStaleEnvelopeAndKeepsZRanges() throws {
        // Envelope contents 2 (xyz) holding a wrong XY range and a Z range of 7…8.
        var blob = hex("47 50 00 05 00 00 00 00") + Self.littleEndian([0, 0, 0, 0, 7, 8]) + Self.line.wkb()
        try GeoPackageGeometry.translate(blob: &blob, dx: 10, dy: 20)
        #expect(Array(blob[8..<56]) == Self.littleEndian([11, 13, 22, 24, 7, 8]))
        #expect(try GeoPackageGeometry(blob: blob).geometry == Self.line.translated(dx: 10, dy: 20))
    }

    @Test(arguments: Samples.all, WKBByteOrder.allCases)
    func exactTranslationIsRecognised(geometry: Geometry, byteOrder: WKBByteOrder) throws {
        for policy in GeoPackageGeometry.EnvelopePolicy.allCases {
            let before = GeoPackageGeometry.encode(geometry, srsID: 2924, envelope: policy, byteOrder: byteOrder)
            var after = before
            try GeoPackageGeometry.translate(blob: &after, dx: 1024, dy: -512)
            // The truth: moving back by translate itself.
            var back = after
            try GeoPackageGeometry.translate(blob: &back, dx: -1024, dy: 512)
            #expect(Self.exact(before, after, dx: 1024, dy: -512) == (back == before))
            #expect(before.withUnsafeBytes { GeoPackageGeometry.movesBackExactly($0, dx: 1024, dy: -512) } == (back == before))
            guard back == before else { continue }
            #expect(!Self.exact(before, after, dx: 1024, dy: -511) || geometry.isEmpty, "another vector")
            for index in after.indices where index != 3 {
                var changed = after
                changed[index] ^= 0x10
                #expect(!Self.exact(before, changed, dx: 1024, dy: -512), "byte \(index) changed")
            }
        }
    }

    @Test func mostSamplesMoveBackExactly() throws {
        let exact = try Samples.all.filter { geometry in
            let before = GeoPackageGeometry.encode(geometry, srsID: 0, envelope: .xy)
            var after = before
            try GeoPackageGeometry.translate(blob: &after, dx: 1024, dy: -512)
            return Self.exact(before, after, dx: 1024, dy: -512)
        }
        #expect(exact.count >= Samples.all.count / 2, "the check is not trivially false")
    }

    @Test func exactTranslationWantsEveryBitBack() throws {
        // Near a power of two the way up rounds to a coarser step than the way back.
        let line = Geometry.lineString(LineString([Point(x: 8_388_607.9999999991, y: 1), Point(x: 3, y: 4)]))
        let before = GeoPackageGeometry.encode(line, srsID: 0, envelope: .xy)
        var after = before
        try GeoPackageGeometry.translate(blob: &after, dx: 0.1, dy: 0)
        #expect(!Self.exact(before, after, dx: 0.1, dy: 0))
        #expect(!before.withUnsafeBytes { GeoPackageGeometry.movesBackExactly($0, dx: 0.1, dy: 0) })
        // −0 moved by 0 becomes +0: equal as numbers, not as bits.
        let zero = GeoPackageGeometry.encode(.point(Point(x: -0.0, y: 5)), srsID: 0, envelope: .none)
        var moved = zero
        try GeoPackageGeometry.translate(blob: &moved, dx: 0, dy: 0)
        #expect(!Self.exact(zero, moved, dx: 0, dy: 0))
        // A stale envelope does not come back; a corrupt blob is never exact.
        var stale = Self.lineLittleEndian
        stale.replaceSubrange(8..<16, with: Self.littleEndian([-100]))
        #expect(!stale.withUnsafeBytes { GeoPackageGeometry.movesBackExactly($0, dx: 10, dy: 10) })
        #expect(!Array(Self.lineLittleEndian.dropLast()).withUnsafeBytes { GeoPackageGeometry.movesBackExactly($0, dx: 10, dy: 10) })
    }

    static func exact(_ before: [UInt8], _ after: [UInt8], dx: Double, dy: Double) -> Bool {
        before.withUnsafeBytes { b in after.withUnsafeBytes { GeoPackageGeometry.isExactTranslation(from: b, to: $0, dx: dx, dy: dy) } }
    }

    @Test func translateRefusesNonFiniteOffsets() {
        var blob = Self.lineLittleEndian
        codecError { try GeoPackageGeometry.translate(blob: &blob, dx: .nan, dy: 0) }
        codecError { try GeoPackageGeometry.translate(blob: &blob, dx: 0, dy: .infinity) }
        #expect(blob == Self.lineLittleEndian)
    }

    static let fuzzBlobs: [[UInt8]] = Samples.all.flatMap { geometry in
        [GeoPackageGeometry.encode(geometry, srsID: 4326, envelope: .xy, byteOrder: .littleEndian),
         GeoPackageGeometry.encode(geometry, srsID: 4326, envelope: .none, byteOrder: .bigEndian)]
    } + [lineLittleEndian, lineBigEndian]

    @Test(arguments: fuzzBlobs)
    func everyTruncationThrows(blob: [UInt8]) {
        for length in 0..<blob.count {
            var prefix = Array(blob.prefix(length))
            let error = codecError { _ = try GeoPackageGeometry(blob: prefix) }
            #expect(error.map { $0.offset <= length } == true, "offset past the end for length \(length)")
            codecError { try GeoPackageGeometry.translate(blob: &prefix, dx: 1, dy: 1) }
        }
    }

    @Test(arguments: fuzzBlobs)
    func flippedBytesNeverTrap(blob: [UInt8]) throws {
        for index in blob.indices {
            var corrupt = blob
            corrupt[index] ^= 0xFF
            let decoded = try? GeoPackageGeometry(blob: corrupt)
            let header = try? GeoPackageBinaryHeader.read(from: corrupt)
            var computed = true
            do {
                _ = try corrupt.withUnsafeBytes { try GeoPackageBinaryHeader.envelopeOrComputed(from: $0) }
            } catch {
                computed = false
            }
            if decoded != nil {
                #expect(header != nil && computed, "decoded but the fast paths refused, byte \(index)")
            }
            var moved = corrupt
            let didMove = (try? GeoPackageGeometry.translate(blob: &moved, dx: 3, dy: -2)) != nil
            #expect(didMove == (decoded != nil), "translate and decode disagree at byte \(index)")
            if let decoded, didMove {
                let after = try GeoPackageGeometry(blob: moved)
                #expect(same(after.geometry, decoded.geometry.translated(dx: 3, dy: -2)), "byte \(index)")
            } else {
                #expect(moved == corrupt, "a refused blob was modified, byte \(index)")
            }
        }
    }
}
