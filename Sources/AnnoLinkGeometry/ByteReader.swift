/// Bounds-checked reads of fixed-size values from a borrowed byte buffer.
///
/// The binary codecs read straight from the caller's memory (a SQLite blob, an `Array`'s
/// storage) instead of copying it: every read checks the bounds once and loads unaligned, so a
/// corrupt or truncated input throws a `GeometryCodecError` with the offset where it ran out.
struct ByteReader {
    let bytes: UnsafeRawBufferPointer
    /// Offset of the next byte to read, from the start of `bytes`.
    var position: Int
    /// The format named in errors (a WKB inside a GeoPackage blob reports the blob's format so
    /// that offsets are understood as offsets into the blob).
    let format: GeometryCodecError.Format

    init(_ bytes: UnsafeRawBufferPointer, position: Int = 0, format: GeometryCodecError.Format) {
        self.bytes = bytes
        self.position = position
        self.format = format
    }

    var remaining: Int { bytes.count - position }

    func error(_ message: String, at offset: Int) -> GeometryCodecError {
        GeometryCodecError(format, offset: offset, message)
    }

    /// Throws unless `count` more bytes are available. `what` is only built on failure.
    @inline(__always)
    func require(_ count: Int, for what: @autoclosure () -> String) throws {
        if count > remaining {
            throw error("unexpected end of data reading \(what()): need \(count) bytes, \(remaining) left", at: position)
        }
    }

    @inline(__always)
    mutating func readUInt8(for what: @autoclosure () -> String) throws -> UInt8 {
        try require(1, for: what())
        defer { position += 1 }
        return bytes[position]
    }

    @inline(__always)
    mutating func readUInt32(bigEndian: Bool, for what: @autoclosure () -> String) throws -> UInt32 {
        try require(4, for: what())
        defer { position += 4 }
        let raw = bytes.loadUnaligned(fromByteOffset: position, as: UInt32.self)
        return bigEndian ? UInt32(bigEndian: raw) : UInt32(littleEndian: raw)
    }

    /// Reads two doubles as a point. Callers check the bounds for a whole run of points first.
    @inline(__always)
    mutating func readPointUnchecked(bigEndian: Bool) -> Point {
        let x = ByteReader.double(in: bytes, at: position, bigEndian: bigEndian)
        let y = ByteReader.double(in: bytes, at: position + 8, bigEndian: bigEndian)
        position += 16
        return Point(x: x, y: y)
    }

    @inline(__always)
    static func double(in bytes: UnsafeRawBufferPointer, at offset: Int, bigEndian: Bool) -> Double {
        let raw = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        return Double(bitPattern: bigEndian ? UInt64(bigEndian: raw) : UInt64(littleEndian: raw))
    }

    @inline(__always)
    static func storeDouble(_ value: Double, in bytes: UnsafeMutableRawBufferPointer, at offset: Int, bigEndian: Bool) {
        let bits = value.bitPattern
        bytes.storeBytes(of: bigEndian ? bits.bigEndian : bits.littleEndian, toByteOffset: offset, as: UInt64.self)
    }
}

extension Collection<UInt8> {
    /// Calls `body` with the bytes in contiguous memory, copying only when the collection
    /// does not already store them contiguously.
    func withContiguousBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        if let result = try withContiguousStorageIfAvailable({ try body(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return try Array(self).withUnsafeBytes(body)
    }
}

/// Formats `value` as `0x` and eight upper-case hex digits, for type codes in messages.
func hex32(_ value: UInt32) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
}
