/// Sequential writes into a buffer whose exact size the encoder computed beforehand.
struct ByteWriter {
    let bytes: UnsafeMutableRawBufferPointer
    var position: Int = 0
    let bigEndian: Bool

    @inline(__always)
    mutating func write(_ value: UInt8) {
        bytes[position] = value
        position += 1
    }

    @inline(__always)
    mutating func write(_ value: UInt32) {
        bytes.storeBytes(of: bigEndian ? value.bigEndian : value.littleEndian, toByteOffset: position, as: UInt32.self)
        position += 4
    }

    @inline(__always)
    mutating func write(_ value: Int32) {
        write(UInt32(bitPattern: value))
    }

    @inline(__always)
    mutating func write(_ value: Double) {
        ByteReader.storeDouble(value, in: bytes, at: position, bigEndian: bigEndian)
        position += 8
    }

    @inline(__always)
    mutating func write(_ point: Point) {
        write(point.x)
        write(point.y)
    }
}
