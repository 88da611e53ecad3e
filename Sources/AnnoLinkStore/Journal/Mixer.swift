/// Mixes 64-bit words into one digest (`BlockDigests`): a multiply-xorshift step per word.
struct Mixer {
    private(set) var value: UInt64 = 0

    mutating func mix(_ tag: UInt64, bytes: UnsafeRawBufferPointer) {
        mix(tag)
        mix(UInt64(bytes.count))
        var offset = 0
        while offset + 8 <= bytes.count {
            mix(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
            offset += 8
        }
        if offset < bytes.count {
            var tail: UInt64 = 0
            for i in offset..<bytes.count { tail = tail << 8 | UInt64(bytes[i]) }
            mix(tail)
        }
    }

    mutating func mix(_ word: UInt64) {
        value = (value ^ word) &* 0x9E37_79B9_7F4A_7C15
        value ^= value >> 31
    }
}
