extension GeoPackageGeometry {
    /// Moves the geometry in a GeoPackage blob by `dx`, `dy` (CRS units), rewriting its
    /// coordinates and envelope in place without building `Geometry` values.
    ///
    /// This is the bulk move's inner loop: one pass validates the blob with the same checks as
    /// `init(blob:)` and nothing is written unless it passes, so a corrupt blob throws
    /// `GeometryCodecError` and is left untouched. A second pass adds `dx`, `dy` to every vertex
    /// (empty points stay NaN) and recomputes the header's XY envelope from the moved vertices,
    /// so the result equals decoding, `translated(dx:dy:)` and encoding with the blob's byte
    /// orders and envelope presence, even when the stored envelope was stale. A Z or M range
    /// in the envelope (indicators 2–4) is left as it is. Non-finite `dx` or `dy` throws.
    public static func translate(blob: UnsafeMutableRawBufferPointer, dx: Double, dy: Double) throws {
        guard dx.isFinite && dy.isFinite else {
            throw GeometryCodecError(.geoPackageBinary, offset: 0, "the translation (\(dx), \(dy)) is not finite")
        }
        let bytes = UnsafeRawBufferPointer(blob)
        let header = try GeoPackageBinaryHeader.read(from: bytes)

        var validator = ByteReader(bytes, position: header.wkbOffset, format: .geoPackageBinary)
        var vertexCount = 0
        try WKB.walk(&validator) { _, _ in vertexCount += 1 }
        try WKB.requireEnd(of: validator)
        if header.isEmpty && vertexCount > 0 {
            throw GeometryCodecError(.geoPackageBinary, offset: 3, "the empty flag is set but the geometry has vertices")
        }
        guard vertexCount > 0 else { return }

        // The walk only reads structure (counts, types, byte orders) and the coordinates of
        // points before handing them over, so rewriting each vertex as it is visited is safe.
        var mover = ByteReader(bytes, position: header.wkbOffset, format: .geoPackageBinary)
        var envelope: Envelope?
        try WKB.walk(&mover) { offset, bigEndian in
            let moved = Point(x: ByteReader.double(in: bytes, at: offset, bigEndian: bigEndian) + dx,
                              y: ByteReader.double(in: bytes, at: offset + 8, bigEndian: bigEndian) + dy)
            ByteReader.storeDouble(moved.x, in: blob, at: offset, bigEndian: bigEndian)
            ByteReader.storeDouble(moved.y, in: blob, at: offset + 8, bigEndian: bigEndian)
            if envelope == nil { envelope = Envelope(moved) } else { envelope!.expand(toInclude: moved) }
        }
        if header.envelopeContents != .none, let envelope {
            let bigEndian = header.byteOrder == .bigEndian
            ByteReader.storeDouble(envelope.minX, in: blob, at: 8, bigEndian: bigEndian)
            ByteReader.storeDouble(envelope.maxX, in: blob, at: 16, bigEndian: bigEndian)
            ByteReader.storeDouble(envelope.minY, in: blob, at: 24, bigEndian: bigEndian)
            ByteReader.storeDouble(envelope.maxY, in: blob, at: 32, bigEndian: bigEndian)
        }
    }

    /// Moves the geometry in a GeoPackage blob held in an array; see
    /// `translate(blob: UnsafeMutableRawBufferPointer, dx:dy:)`.
    public static func translate(blob: inout [UInt8], dx: Double, dy: Double) throws {
        try blob.withUnsafeMutableBytes { try translate(blob: $0, dx: dx, dy: dy) }
    }
}
