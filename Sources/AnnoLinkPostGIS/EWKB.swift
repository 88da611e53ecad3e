import AnnoLinkGeometry

/// PostGIS's extended WKB: ISO WKB whose outermost type word carries the SRID flag
/// (0x20000000) followed by the 32-bit SRID. It is the binary form of the `geometry` type
/// (`geometry_send` / `geometry_recv`), so geometries cross the wire as EWKB in binary
/// parameters, results and COPY — never as text.
///
/// annolink stores XY geometries only; the Z and M flags (0x80000000, 0x40000000) are refused
/// as `Geometry(wkb:)` refuses them.
public enum EWKB {
    static let sridFlag: UInt32 = 0x2000_0000

    /// `geometry` as EWKB with `srid` (little-endian; no SRID word when `srid` is 0, as PostGIS
    /// writes a geometry without a CRS).
    public static func encode(_ geometry: Geometry, srid: Int32) -> [UInt8] {
        var wkb = geometry.wkb(byteOrder: .littleEndian)
        guard srid != 0 else { return wkb }
        let type = UInt32(wkb[1]) | UInt32(wkb[2]) << 8 | UInt32(wkb[3]) << 16 | UInt32(wkb[4]) << 24
        let flagged = type | sridFlag
        wkb.replaceSubrange(1..<5, with: withUnsafeBytes(of: flagged.littleEndian) { Array($0) })
        wkb.insert(contentsOf: withUnsafeBytes(of: UInt32(bitPattern: srid).littleEndian) { Array($0) }, at: 5)
        return wkb
    }

    /// The geometry and SRID (0 when the EWKB has none) of `bytes`.
    ///
    /// - Throws: `GeometryCodecError` (format `.wkb`) for bytes that are not XY WKB once the SRID
    ///   is taken out, or too short to hold the SRID word.
    public static func decode(_ bytes: [UInt8]) throws -> (geometry: Geometry, srid: Int32) {
        guard bytes.count >= 5, bytes[0] <= 1 else { return (try Geometry(wkb: bytes), 0) }
        let little = bytes[0] == 1
        func word(at offset: Int) -> UInt32 {
            let b = bytes[offset..<offset + 4].map(UInt32.init)
            return little ? b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24 : b[3] | b[2] << 8 | b[1] << 16 | b[0] << 24
        }
        let type = word(at: 1)
        guard type & sridFlag != 0 else { return (try Geometry(wkb: bytes), 0) }
        guard bytes.count >= 9 else { return (try Geometry(wkb: bytes), 0) }
        let srid = Int32(bitPattern: word(at: 5))
        let plain = type & ~sridFlag
        var wkb = [UInt8]()
        wkb.reserveCapacity(bytes.count - 4)
        wkb.append(bytes[0])
        wkb.append(contentsOf: withUnsafeBytes(of: little ? plain.littleEndian : plain.bigEndian) { Array($0) })
        wkb.append(contentsOf: bytes[9...])
        return (try Geometry(wkb: wkb), srid)
    }
}
