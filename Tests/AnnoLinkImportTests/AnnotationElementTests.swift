import AnnoLinkGeometry
import AnnoLinkImport
import Foundation
import AnnoLinkTestSupport
import Testing

/// Encodes a protobuf varint.
func protobufVarint(_ value: UInt64) -> [UInt8] {
    var value = value
    var bytes: [UInt8] = []
    repeat {
        var byte = UInt8(value & 0x7F)
        value >>= 7
        if value != 0 { byte |= 0x80 }
        bytes.append(byte)
    } while value != 0
    return bytes
}

/// A length-delimited protobuf field.
func protobufBytes(_ number: UInt64, _ payload: [UInt8]) -> [UInt8] {
    protobufVarint(number << 3 | 2) + protobufVarint(UInt64(payload.count)) + payload
}

/// A 64-bit protobuf field holding a double.
func protobufDouble(_ number: UInt64, _ value: Double) -> [UInt8] {
    let bits = value.bitPattern
    return protobufVarint(number << 3 | 1) + (0..<8).map { UInt8(truncatingIfNeeded: bits >> (8 * $0)) }
}

@Suite("Annotation Element blobs")
struct AnnotationElementTests {
    @Test("text and angle equal the row's TextString and Angle; the baseline lies in the footprint", arguments: try Fixtures.annotationRows())
    func decodesRealRows(_ row: Fixtures.AnnotationRow) throws {
        let element = try AnnotationElement(row.element)
        #expect(element.text == row.textString)
        #expect(abs(element.angle - row.angle) < 1e-9)
        #expect(element.baseline.points.count == 2)
        let footprint = try #require(try EsriShapeBlob.decode(row.shape, grid: Fixtures.loudounGrid).envelope)
        #expect(footprint.contains(element.baselineMidpoint))
        // The baseline runs in the text's direction.
        let start = element.baseline.points[0], end = element.baseline.points[1]
        var direction = atan2(end.y - start.y, end.x - start.x) * 180 / .pi
        if direction < 0 { direction += 360 }
        #expect(abs(direction - row.angle) < 0.01 || abs(abs(direction - row.angle) - 360) < 0.01)
    }

    @Test("word spacing is read when it was set by hand")
    func wordSpacing() throws {
        let rows = try Fixtures.annotationRows().filter { $0.table == "Loudoun_Address_PointsAnno_1" }
        for row in rows {
            let element = try AnnotationElement(row.element)
            #expect((element.wordSpacing ?? 100) == row.wordSpacing)
        }
        #expect(rows.contains { $0.wordSpacing != 100 })
    }

    @Test("the baseline of parcel annotation #1 is the text Esri stored")
    func baselineValues() throws {
        let row = try #require(try Fixtures.annotationRows().first { $0.table == "ParcelLinesAnno_1" && $0.objectID == 1 })
        let element = try AnnotationElement(row.element)
        #expect(element.baseline == LineString([
            Point(x: 11791296.371508528, y: 7056497.2897075964),
            Point(x: 11791318.87719097, y: 7056482.7114041438),
        ]))
        #expect(element.fields.map(\.number) == [1, 4, 5, 6, 7, 8])
    }

    @Test("every truncation of an element throws", arguments: try Fixtures.annotationRows())
    func everyTruncationThrows(_ row: Fixtures.AnnotationRow) throws {
        for length in 0..<row.element.count {
            // Cutting after the last field (the angle or word spacing) leaves a valid message
            // only at the end of a field; every cut inside a field must throw.
            let prefix = row.element[0..<length]
            let fieldEnds = Set(try ProtobufField.parseMessage(row.element).map(\.offset) + [row.element.count])
            if fieldEnds.contains(length), let element = try? AnnotationElement(prefix) {
                #expect(element.text == row.textString)
            } else {
                #expect(throws: AnnotationElementError.self, "cut at \(length)") { try AnnotationElement(prefix) }
            }
        }
    }

    @Test("garbage is refused with an error, never a trap")
    func garbage() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let bytes = (0..<Int.random(in: 0..<64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = try? AnnotationElement(bytes)
        }
        #expect(throws: AnnotationElementError.self) { try AnnotationElement([]) }
        #expect(throws: AnnotationElementError.self) { try AnnotationElement([0xFF, 0xFF, 0xFF]) }
    }

    /// Elements with one thing wrong, by name.
    static let malformedCases: [(String, [UInt8])] = {
        let baseline = protobufBytes(5, Array("1,2;3,4".utf8))
        let text = protobufBytes(6, Array("x".utf8))
        var cases: [(String, [UInt8])] = []
        cases.append(("no text", baseline))
        cases.append(("no baseline", text))
        cases.append(("text is not UTF-8", baseline + protobufBytes(6, [0xC3, 0x28])))
        cases.append(("text as a varint", baseline + protobufVarint(6 << 3) + [1]))
        cases.append(("baseline of one point", protobufBytes(5, Array("1,2".utf8)) + text))
        cases.append(("baseline not numbers", protobufBytes(5, Array("a,b;c,d".utf8)) + text))
        cases.append(("baseline infinite", protobufBytes(5, Array("inf,2;3,4".utf8)) + text))
        cases.append(("angle NaN", baseline + text + protobufDouble(8, .nan)))
        cases.append(("angle as bytes", baseline + text + protobufBytes(8, [1])))
        return cases
    }()

    @Test("missing or malformed fields are refused", arguments: malformedCases)
    func malformedFields(_ name: String, _ bytes: [UInt8]) {
        #expect(throws: AnnotationElementError.self, "\(name)") { try AnnotationElement(bytes) }
    }

    @Test("a minimal element decodes, with the angle defaulting to 0")
    func minimal() throws {
        let element = try AnnotationElement(protobufBytes(5, Array("1,2;3,4".utf8)) + protobufBytes(6, Array("Main St".utf8)))
        #expect(element.text == "Main St")
        #expect(element.angle == 0)
        #expect(element.wordSpacing == nil)
        #expect(element.baselineMidpoint == Point(x: 2, y: 3))
    }
}

@Suite("Protobuf wire format")
struct ProtobufFieldTests {
    @Test("reads every wire type and nested messages")
    func wireTypes() throws {
        let nested = protobufVarint(1 << 3 | 0) + protobufVarint(300)
        let bytes = protobufVarint(1 << 3 | 0) + protobufVarint(150)
            + protobufDouble(2, 1.5)
            + protobufBytes(3, nested)
            + protobufVarint(4 << 3 | 5) + [0x00, 0x00, 0xC0, 0x3F]
            + protobufVarint(1000 << 3 | 0) + protobufVarint(UInt64.max)
        let fields = try ProtobufField.parseMessage(bytes)
        #expect(fields.map(\.number) == [1, 2, 3, 4, 1000])
        #expect(fields[0].integerValue == 150)
        #expect(fields[1].doubleValue == 1.5)
        #expect(try fields[2].nestedMessage() == [ProtobufField(number: 1, value: .varint(300), offset: 0)])
        #expect(fields[3].value == .fixed32(Float(1.5).bitPattern))
        #expect(fields[4].integerValue == UInt64.max)
        #expect(fields[2].offset == 12)
    }

    @Test("malformed messages are refused", arguments: [
        ("field number 0", [0x00, 0x01]),
        ("group", [0x0B]),
        ("wire type 7", [0x0F]),
        ("truncated varint", [0x08, 0x80]),
        ("varint of 11 bytes", [0x08] + [UInt8](repeating: 0xFF, count: 10) + [0x01]),
        ("length beyond the end", [0x0A, 0x05, 0x01]),
        ("truncated double", [0x09, 0x01, 0x02]),
        ("truncated fixed32", [0x0D, 0x01]),
    ] as [(String, [UInt8])])
    func malformed(_ name: String, _ bytes: [UInt8]) {
        #expect(throws: ProtobufError.self, "\(name)") { try ProtobufField.parseMessage(bytes) }
    }

    @Test("a field that is not length-delimited is not a nested message")
    func notNested() throws {
        let field = try #require(try ProtobufField.parseMessage([0x08, 0x01]).first)
        #expect(throws: ProtobufError.self) { try field.nestedMessage() }
    }
}
