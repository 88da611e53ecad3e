/// The header of a StandardGeoPackageBinary geometry blob (GeoPackage 1.3 §2.1.3), read
/// without decoding the WKB that follows it.
///
/// Layout: magic `GP`, version 0, a flags byte, the `int32` SRS id, an optional envelope of
/// 4, 6 or 8 doubles, then ISO WKB. The flags byte holds the header's byte order (bit 0, 1 =
/// little-endian), the envelope contents indicator (bits 1–3), the empty flag (bit 4) and the
/// extended-type flag (bit 5), which annolink refuses. The reserved bits 6–7 are ignored.
///
/// This is what the spatial-index SQL functions (`ST_MinX`, `ST_IsEmpty`…) call once per row,
/// so reading allocates nothing and looks at no more than the header's bytes.
public struct GeoPackageBinaryHeader: Hashable, Sendable {
    /// What the optional envelope holds (the envelope contents indicator, bits 1–3 of flags).
    public enum EnvelopeContents: UInt8, Sendable, CaseIterable {
        /// No envelope.
        case none = 0
        /// minx, maxx, miny, maxy.
        case xy = 1
        /// minx, maxx, miny, maxy, minz, maxz.
        case xyz = 2
        /// minx, maxx, miny, maxy, minm, maxm.
        case xym = 3
        /// minx, maxx, miny, maxy, minz, maxz, minm, maxm.
        case xyzm = 4

        /// How many bytes the envelope takes in the header.
        public var byteCount: Int {
            switch self {
            case .none: 0
            case .xy: 32
            case .xyz, .xym: 48
            case .xyzm: 64
            }
        }
    }

    /// The byte order of the header's SRS id and envelope (the WKB has its own).
    public var byteOrder: WKBByteOrder
    /// What the header's envelope holds; only its XY part is kept in `envelope`.
    public var envelopeContents: EnvelopeContents
    /// The header's empty flag, as written. Some older writers leave it clear for empty
    /// geometries; `envelopeOrComputed(in:)` copes with both.
    public var isEmpty: Bool
    /// The `srs_id` of the geometry (a key of `gpkg_spatial_ref_sys`).
    public var srsID: Int32
    /// The XY part of the header's envelope; nil when there is none, when the empty flag is
    /// set, or when it holds NaN (how the spec says an empty geometry's envelope is written).
    public var envelope: Envelope?
    /// Offset of the WKB geometry from the start of the blob: 8 plus the envelope's size.
    public var wkbOffset: Int

    /// Reads the header of a GeoPackage geometry blob.
    ///
    /// Checks the magic, the version, the flags and that the blob is long enough for the
    /// header and its envelope; it does not look at the WKB (decode with
    /// `GeoPackageGeometry(blob:)` for that). Throws `GeometryCodecError` (format
    /// `.geoPackageBinary`, offset in bytes) for a short blob, a wrong magic or version, an
    /// envelope contents indicator above 4, and the extended-type flag.
    public static func read(from blob: UnsafeRawBufferPointer) throws -> GeoPackageBinaryHeader {
        let count = blob.count
        guard count >= 8 else {
            throw GeometryCodecError(.geoPackageBinary, offset: count,
                                     "a GeoPackage geometry header needs 8 bytes, the blob has \(count)")
        }
        guard blob[0] == 0x47, blob[1] == 0x50 else {
            throw GeometryCodecError(.geoPackageBinary, offset: 0, "the blob does not start with the GeoPackage magic \"GP\"")
        }
        guard blob[2] == 0 else {
            throw GeometryCodecError(.geoPackageBinary, offset: 2, "unsupported GeoPackage binary version \(blob[2]) (expected 0)")
        }
        let flags = blob[3]
        if flags & 0x20 != 0 {
            throw GeometryCodecError(.geoPackageBinary, offset: 3,
                                     "extended GeoPackage geometry types (flags bit 5) are not supported")
        }
        guard let contents = EnvelopeContents(rawValue: (flags >> 1) & 0x07) else {
            throw GeometryCodecError(.geoPackageBinary, offset: 3,
                                     "invalid envelope contents indicator \((flags >> 1) & 0x07) (expected 0 to 4)")
        }
        let bigEndian = flags & 0x01 == 0
        let isEmpty = flags & 0x10 != 0
        let rawSRS = blob.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
        let srsID = Int32(bitPattern: bigEndian ? UInt32(bigEndian: rawSRS) : UInt32(littleEndian: rawSRS))
        let wkbOffset = 8 + contents.byteCount
        guard count >= wkbOffset else {
            throw GeometryCodecError(.geoPackageBinary, offset: 8,
                                     "unexpected end of data reading the envelope: need \(contents.byteCount) bytes, \(count - 8) left")
        }
        var envelope: Envelope?
        if contents != .none && !isEmpty {
            // The header stores minx, maxx, miny, maxy: not the order Envelope's init takes.
            let minX = ByteReader.double(in: blob, at: 8, bigEndian: bigEndian)
            let maxX = ByteReader.double(in: blob, at: 16, bigEndian: bigEndian)
            let minY = ByteReader.double(in: blob, at: 24, bigEndian: bigEndian)
            let maxY = ByteReader.double(in: blob, at: 32, bigEndian: bigEndian)
            if !(minX.isNaN || maxX.isNaN || minY.isNaN || maxY.isNaN) {
                envelope = Envelope(minX: minX, minY: minY, maxX: maxX, maxY: maxY)
            }
        }
        return GeoPackageBinaryHeader(
            byteOrder: bigEndian ? .bigEndian : .littleEndian, envelopeContents: contents, isEmpty: isEmpty,
            srsID: srsID, envelope: envelope, wkbOffset: wkbOffset)
    }

    /// Reads the header from any byte collection; see `read(from: UnsafeRawBufferPointer)`.
    public static func read(from blob: some Collection<UInt8>) throws -> GeoPackageBinaryHeader {
        try blob.withContiguousBytes { try read(from: $0) }
    }

    /// The header's envelope, or when the header has none, the envelope computed from the WKB
    /// in `blob` (the blob this header was read from); nil for an empty geometry.
    ///
    /// Computing walks the WKB in place without building a `Geometry`, validating it as
    /// `GeoPackageGeometry(blob:)` does, so it throws `GeometryCodecError` for corrupt WKB.
    /// When the header has an envelope, the WKB is not looked at.
    public func envelopeOrComputed(in blob: UnsafeRawBufferPointer) throws -> Envelope? {
        if let envelope { return envelope }
        if isEmpty { return nil }
        var reader = ByteReader(blob, position: wkbOffset, format: .geoPackageBinary)
        var computed: Envelope?
        try WKB.walk(&reader) { offset, bigEndian in
            let point = Point(x: ByteReader.double(in: blob, at: offset, bigEndian: bigEndian),
                              y: ByteReader.double(in: blob, at: offset + 8, bigEndian: bigEndian))
            if computed == nil { computed = Envelope(point) } else { computed!.expand(toInclude: point) }
        }
        try WKB.requireEnd(of: reader)
        return computed
    }

    /// Reads the header of `blob` and returns its envelope or the one computed from its WKB;
    /// see `envelopeOrComputed(in:)`.
    public static func envelopeOrComputed(from blob: UnsafeRawBufferPointer) throws -> Envelope? {
        try read(from: blob).envelopeOrComputed(in: blob)
    }
}
