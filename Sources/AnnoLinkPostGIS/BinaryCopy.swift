/// PostgreSQL's binary COPY format (the `COPY … (FORMAT binary)` stream): an 11-byte signature,
/// flags and header extension, then one tuple per row — a 16-bit field count and, per field, a
/// 32-bit length (-1 for NULL) and the value's binary form — and a trailer of -1.
enum BinaryCopy {
    /// `PGCOPY\n\377\r\n\0`.
    static let signature: [UInt8] = [0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00]

    /// The signature, zero flags and an empty header extension.
    static var header: [UInt8] { signature + [0, 0, 0, 0] + [0, 0, 0, 0] }

    /// The trailer: a field count of -1.
    static let trailer: [UInt8] = [0xFF, 0xFF]

    /// Appends one tuple of `values` to `buffer`.
    static func appendTuple(_ values: [PostgreSQLValue], to buffer: inout [UInt8]) {
        buffer.append(contentsOf: bigEndianBytes(UInt16(values.count)))
        for value in values {
            if let bytes = value.binaryBytes {
                buffer.append(contentsOf: bigEndianBytes(UInt32(bytes.count)))
                buffer.append(contentsOf: bytes)
            } else {
                buffer.append(contentsOf: [0xFF, 0xFF, 0xFF, 0xFF])
            }
        }
    }

    /// Reads a binary COPY stream that arrives in chunks of any size: the header once, then
    /// each complete tuple as it is there, decoded with the column types given.
    final class Reader {
        let columnTypes: [UInt32]
        private var pending: [UInt8] = []
        private var start = 0
        private var headerRead = false
        /// Whether the trailer was read.
        private(set) var finished = false

        init(columnTypes: [UInt32]) { self.columnTypes = columnTypes }

        /// Adds `chunk` and calls `row` with every tuple now complete.
        ///
        /// - Throws: `PostgreSQLError` for a stream that is not binary COPY or whose tuples do
        ///   not have the expected field count; whatever `row` throws.
        func consume(_ chunk: UnsafeRawBufferPointer, row: ([PostgreSQLValue]) throws -> Void) throws {
            pending.append(contentsOf: chunk)
            try pending.withUnsafeBytes { bytes in
                var offset = start
                if !headerRead {
                    guard bytes.count - offset >= 19 else { return }
                    guard Array(bytes[offset..<offset + 11]) == BinaryCopy.signature else { throw Self.malformed("no PGCOPY signature") }
                    let extensionLength = Int(readBigEndian(bytes, at: offset + 15, as: UInt32.self))
                    guard bytes.count - offset >= 19 + extensionLength else { return }
                    offset += 19 + extensionLength
                    headerRead = true
                    start = offset
                }
                while !finished, bytes.count - offset >= 2 {
                    let fieldCount = Int16(bitPattern: readBigEndian(bytes, at: offset, as: UInt16.self))
                    if fieldCount == -1 {
                        finished = true
                        offset += 2
                        start = offset
                        break
                    }
                    guard Int(fieldCount) == columnTypes.count else {
                        throw Self.malformed("a row has \(fieldCount) fields, not \(columnTypes.count)")
                    }
                    var cursor = offset + 2
                    var values: [PostgreSQLValue] = []
                    values.reserveCapacity(columnTypes.count)
                    var complete = true
                    for type in columnTypes {
                        guard bytes.count - cursor >= 4 else { complete = false; break }
                        let length = Int32(bitPattern: readBigEndian(bytes, at: cursor, as: UInt32.self))
                        cursor += 4
                        if length < 0 { values.append(.null); continue }
                        guard bytes.count - cursor >= Int(length) else { complete = false; break }
                        values.append(try PostgreSQLValue.decode(
                            oid: type, bytes: UnsafeRawBufferPointer(rebasing: bytes[cursor..<cursor + Int(length)])))
                        cursor += Int(length)
                    }
                    guard complete else { break }
                    try row(values)
                    offset = cursor
                    start = offset
                }
            }
            // Drop what has been read once it is a good part of the buffer.
            if start > 1 << 20 || start == pending.count {
                pending.removeFirst(start)
                start = 0
            }
        }

        static func malformed(_ reason: String) -> PostgreSQLError {
            PostgreSQLError(sqlState: nil, message: "the server's binary COPY data cannot be read: \(reason)")
        }
    }
}
