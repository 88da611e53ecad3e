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

extension GeoPackageGeometry {
    /// Whether `after` is exactly what `translate(blob:dx:dy:)` makes of `before`, and moving
    /// `after` back by (−dx, −dy) gives `before` bit for bit: the same bytes but for the
    /// vertices and the envelope, every vertex moved both ways exactly in floating point, and
    /// both envelopes those of their vertices. False for anything else, a corrupt blob included.
    /// Reads both blobs once, copying nothing.
    ///
    /// The bulk move's journal asks this for every row it moves: a row for which it is false is
    /// copied into the journal, the others are moved back on undo.
    public static func isExactTranslation(from before: UnsafeRawBufferPointer, to after: UnsafeRawBufferPointer, dx: Double, dy: Double) -> Bool {
        guard before.count == after.count else { return false }
        return movesExactly(before, to: after, dx: dx, dy: dy)
    }

    /// Whether moving `blob` by (dx, dy) and back gives it bit for bit: every vertex comes back
    /// exactly in floating point and the stored envelope is that of the vertices. False for a
    /// corrupt blob.
    public static func movesBackExactly(_ blob: UnsafeRawBufferPointer, dx: Double, dy: Double) -> Bool {
        movesExactly(blob, to: nil, dx: dx, dy: dy)
    }

    /// Equal bit for bit (−0 is not 0; a NaN is itself).
    static func identical(_ a: Double, _ b: Double) -> Bool { a.bitPattern == b.bitPattern }

    /// `after` nil: the blob `translate` would make of `before`.
    private static func movesExactly(_ before: UnsafeRawBufferPointer, to after: UnsafeRawBufferPointer?, dx: Double, dy: Double) -> Bool {
        guard dx.isFinite, dy.isFinite, let header = try? GeoPackageBinaryHeader.read(from: before) else { return false }
        func same(_ range: Range<Int>) -> Bool {
            guard let after else { return true }
            return before[range].elementsEqual(after[range])
        }
        guard same(0..<8) else { return false }
        var reader = ByteReader(before, position: header.wkbOffset, format: .geoPackageBinary)
        var cursor = header.wkbOffset
        var original: Envelope?, moved: Envelope?
        var exact = true
        do {
            try WKB.walk(&reader) { offset, bigEndian in
                guard exact else { return }
                let b = Point(x: ByteReader.double(in: before, at: offset, bigEndian: bigEndian),
                              y: ByteReader.double(in: before, at: offset + 8, bigEndian: bigEndian))
                let a = after.map { Point(x: ByteReader.double(in: $0, at: offset, bigEndian: bigEndian),
                                          y: ByteReader.double(in: $0, at: offset + 8, bigEndian: bigEndian)) }
                    ?? Point(x: b.x + dx, y: b.y + dy)
                guard same(cursor..<offset), identical(b.x + dx, a.x), identical(b.y + dy, a.y), identical(a.x - dx, b.x), identical(a.y - dy, b.y) else {
                    exact = false
                    return
                }
                if original == nil { original = Envelope(b) } else { original!.expand(toInclude: b) }
                if moved == nil { moved = Envelope(a) } else { moved!.expand(toInclude: a) }
                cursor = offset + 16
            }
            try WKB.requireEnd(of: reader)
        } catch {
            return false
        }
        guard exact, same(cursor..<before.count) else { return false }
        guard let original, let moved else {
            // No vertex: translate leaves the blob as it is.
            return same(8..<header.wkbOffset)
        }
        guard !header.isEmpty else { return false }
        guard header.envelopeContents != .none else { return true }
        let bigEndian = header.byteOrder == .bigEndian
        func holds(_ envelope: Envelope, in blob: UnsafeRawBufferPointer) -> Bool {
            identical(ByteReader.double(in: blob, at: 8, bigEndian: bigEndian), envelope.minX)
                && identical(ByteReader.double(in: blob, at: 16, bigEndian: bigEndian), envelope.maxX)
                && identical(ByteReader.double(in: blob, at: 24, bigEndian: bigEndian), envelope.minY)
                && identical(ByteReader.double(in: blob, at: 32, bigEndian: bigEndian), envelope.maxY)
        }
        // The XY range is rewritten from the vertices; a Z or M range after it is left alone.
        return holds(original, in: before) && (after.map { holds(moved, in: $0) } ?? true) && same(40..<header.wkbOffset)
    }
}
