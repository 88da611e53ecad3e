/// A geometry as a GeoPackage stores it: StandardGeoPackageBinary (GeoPackage 1.3 §2.1.3),
/// a header with the SRS id and an optional envelope, followed by ISO WKB.
///
/// Only XY geometries are read and written; a header may carry a Z or M envelope range
/// (contents indicator 2–4), which is skipped, but Z or M in the WKB is refused. The extended
/// (non-standard) geometry types of flag bit 5 are refused.
public struct GeoPackageGeometry: Hashable, Sendable {
    /// Which envelope the encoder puts in the header.
    public enum EnvelopePolicy: Sendable, CaseIterable {
        /// An XY envelope (contents indicator 1) for every non-empty geometry, so that the
        /// spatial-index functions never need to decode WKB. The default.
        case xy
        /// An XY envelope except for points, whose envelope is the point itself: what GDAL
        /// writes, 32 bytes shorter per point.
        case xyExceptPoints
        /// No envelope (contents indicator 0); readers compute it from the WKB.
        case none
    }

    /// The `srs_id` of the geometry (a key of `gpkg_spatial_ref_sys`).
    public var srsID: Int32
    /// The XY envelope from the header; nil when the header had none or the geometry is empty.
    ///
    /// On encoding only its presence matters: the values written are always recomputed from
    /// `geometry`, so an envelope can never be stale.
    public var envelope: Envelope?
    /// Whether the geometry has no vertex; the header's empty flag is written from it.
    public var isEmpty: Bool
    /// The geometry, in the coordinates of `srsID`.
    public var geometry: Geometry

    /// Wraps `geometry` for storage, with the envelope `policy` chooses.
    public init(geometry: Geometry, srsID: Int32, envelope policy: EnvelopePolicy = .xy) {
        self.srsID = srsID
        self.geometry = geometry
        self.isEmpty = geometry.isEmpty
        self.envelope = Self.includesEnvelope(geometry, policy) ? geometry.envelope : nil
    }

    /// Decodes a GeoPackage geometry blob from borrowed memory, without copying it.
    ///
    /// Accepts every envelope contents indicator (0–4) and either byte order, and an empty
    /// geometry whether or not its writer set the empty flag; a NaN envelope reads as none.
    /// Throws `GeometryCodecError` (format `.geoPackageBinary`, offset in bytes from the start
    /// of the blob) for a bad header (see `GeoPackageBinaryHeader.read(from:)`), for
    /// anything `Geometry(wkb:)` refuses (truncation, Z or M, trailing bytes…), and for an
    /// empty flag on a geometry that has vertices.
    public init(blob: UnsafeRawBufferPointer) throws {
        let header = try GeoPackageBinaryHeader.read(from: blob)
        var reader = ByteReader(blob, position: header.wkbOffset, format: .geoPackageBinary)
        let geometry = try WKB.readGeometry(&reader)
        try WKB.requireEnd(of: reader)
        let isEmpty = geometry.isEmpty
        if header.isEmpty && !isEmpty {
            throw GeometryCodecError(.geoPackageBinary, offset: 3, "the empty flag is set but the geometry has vertices")
        }
        self.srsID = header.srsID
        self.envelope = isEmpty ? nil : header.envelope
        self.isEmpty = isEmpty
        self.geometry = geometry
    }

    /// Decodes a GeoPackage geometry blob from any byte collection; see `init(blob:)`.
    public init(blob: some Collection<UInt8>) throws {
        self = try blob.withContiguousBytes { try GeoPackageGeometry(blob: $0) }
    }

    /// Decodes a GeoPackage geometry blob; the same as `init(blob:)`.
    public static func decode(_ blob: some Collection<UInt8>) throws -> GeoPackageGeometry {
        try GeoPackageGeometry(blob: blob)
    }

    /// Encodes `geometry` as a GeoPackage geometry blob in one allocation.
    ///
    /// The header and the WKB use `byteOrder`. An empty geometry gets the empty flag and no
    /// envelope (an empty point's WKB is `POINT(NaN NaN)`, as the spec asks); any other gets
    /// an XY envelope unless `envelope` says otherwise.
    public static func encode(
        _ geometry: Geometry, srsID: Int32, envelope policy: EnvelopePolicy = .xy, byteOrder: WKBByteOrder = .littleEndian
    ) -> [UInt8] {
        let envelope = includesEnvelope(geometry, policy) ? geometry.envelope : nil
        return encode(geometry, srsID: srsID, envelope: envelope, byteOrder: byteOrder)
    }

    /// Encodes this value; see `encode(_:srsID:envelope:byteOrder:)`. An envelope is written
    /// when `envelope` is not nil, with values computed from `geometry`.
    public func encoded(byteOrder: WKBByteOrder = .littleEndian) -> [UInt8] {
        Self.encode(geometry, srsID: srsID, envelope: envelope == nil ? nil : geometry.envelope, byteOrder: byteOrder)
    }

    private static func includesEnvelope(_ geometry: Geometry, _ policy: EnvelopePolicy) -> Bool {
        switch policy {
        case .xy: true
        case .xyExceptPoints: geometry.kind != .point
        case .none: false
        }
    }

    private static func encode(_ geometry: Geometry, srsID: Int32, envelope: Envelope?, byteOrder: WKBByteOrder) -> [UInt8] {
        let isEmpty = geometry.isEmpty
        let envelope = isEmpty ? nil : envelope
        let size = 8 + (envelope == nil ? 0 : 32) + geometry.wkbSize
        return [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            var writer = ByteWriter(bytes: UnsafeMutableRawBufferPointer(buffer), bigEndian: byteOrder == .bigEndian)
            writer.write(UInt8(ascii: "G"))
            writer.write(UInt8(ascii: "P"))
            writer.write(UInt8(0))
            let contents: GeoPackageBinaryHeader.EnvelopeContents = envelope == nil ? .none : .xy
            writer.write(byteOrder.rawValue | contents.rawValue << 1 | (isEmpty ? 0x10 : 0))
            writer.write(srsID)
            if let envelope {
                writer.write(envelope.minX)
                writer.write(envelope.maxX)
                writer.write(envelope.minY)
                writer.write(envelope.maxY)
            }
            geometry.writeWKB(into: &writer)
            precondition(writer.position == size, "GeoPackage blob size miscomputed")
            initialized = size
        }
    }
}
