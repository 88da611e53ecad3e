import Testing

@testable import AnnoLinkPostGIS

/// The binary COPY stream without a server: what the writer makes, the reader reads back in
/// chunks of any size (libpq hands rows over as the server's messages come).
@Suite struct BinaryCopyTests {
    static let types: [UInt32] = [
        PostgreSQLValue.TypeOID.int8, PostgreSQLValue.TypeOID.float8, PostgreSQLValue.TypeOID.text, PostgreSQLValue.TypeOID.bytea,
        PostgreSQLValue.TypeOID.bool,
    ]

    static func rows(_ count: Int) -> [[PostgreSQLValue]] {
        (0..<count).map { i in
            [.int8(Int64(i) - 3), i % 3 == 0 ? .null : .float8(Double(i) * 0.1), .text(String(repeating: "é", count: i % 5)),
             .bytea([UInt8](repeating: UInt8(i & 0xFF), count: i % 4)), .bool(i % 2 == 1)]
        }
    }

    @Test(arguments: [1, 2, 7, 64, 100_000])
    func chunksOfAnySizeGiveTheSameRows(chunkSize: Int) throws {
        let rows = Self.rows(50)
        var stream = BinaryCopy.header
        for row in rows { BinaryCopy.appendTuple(row, to: &stream) }
        stream += BinaryCopy.trailer
        let reader = BinaryCopy.Reader(columnTypes: Self.types)
        var read: [[PostgreSQLValue]] = []
        var offset = 0
        while offset < stream.count {
            let end = min(offset + chunkSize, stream.count)
            try stream[offset..<end].withUnsafeBytes { try reader.consume($0) { read.append($0) } }
            offset = end
        }
        #expect(read == rows)
        #expect(reader.finished)
    }

    @Test func malformedStreamsAreRefused() throws {
        let reader = BinaryCopy.Reader(columnTypes: Self.types)
        let text = Array("id\tname\n1\tx\n1234567890".utf8)
        #expect(throws: PostgreSQLError.self) { try text.withUnsafeBytes { try reader.consume($0) { _ in } } }
        // A row with another field count than the query's columns.
        var stream = BinaryCopy.header
        BinaryCopy.appendTuple([.int8(1)], to: &stream)
        let short = BinaryCopy.Reader(columnTypes: Self.types)
        #expect(throws: PostgreSQLError.self) { try stream.withUnsafeBytes { try short.consume($0) { _ in } } }
        // An int8 field of four bytes.
        var wrong = BinaryCopy.header + [0, 1, 0, 0, 0, 4, 0, 0, 0, 1]
        wrong += BinaryCopy.trailer
        let one = BinaryCopy.Reader(columnTypes: [PostgreSQLValue.TypeOID.int8])
        #expect(throws: PostgreSQLError.self) { try wrong.withUnsafeBytes { try one.consume($0) { _ in } } }
    }
}
