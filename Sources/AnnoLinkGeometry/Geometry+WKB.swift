/// The byte order of a WKB or GeoPackage binary value; the raw value is WKB's byte-order byte.
public enum WKBByteOrder: UInt8, Sendable, CaseIterable {
    /// XDR, most significant byte first.
    case bigEndian = 0
    /// NDR, least significant byte first: what x86 and ARM use, and what GDAL writes.
    case littleEndian = 1
}

extension Geometry {
    /// Decodes ISO WKB (well-known binary) from borrowed memory, without copying it.
    ///
    /// Reads both byte orders (each part of a multi-geometry may have its own) and all six XY
    /// kinds, including empty ones; an empty point is `POINT(NaN NaN)`. Counts are checked
    /// against the bytes left before anything is allocated, so a corrupt count cannot make the
    /// decoder allocate gigabytes.
    ///
    /// Throws `GeometryCodecError` (format `.wkb`, offset in bytes) for truncated input, an
    /// invalid byte-order byte, an unknown type, a multi-geometry part of the wrong kind, bytes
    /// left over after the geometry, and for Z, M and ZM input (ISO types 1001–3007 or EWKB's
    /// high flag bits) and GeometryCollection, which annolink does not store.
    public init(wkb: UnsafeRawBufferPointer) throws {
        var reader = ByteReader(wkb, format: .wkb)
        self = try WKB.readGeometry(&reader)
        try WKB.requireEnd(of: reader)
    }

    /// Decodes ISO WKB from any byte collection; see `init(wkb: UnsafeRawBufferPointer)`.
    ///
    /// Contiguous collections (`[UInt8]`, `ArraySlice`, `Data`) are read in place; others are
    /// copied once.
    public init(wkb: some Collection<UInt8>) throws {
        self = try wkb.withContiguousBytes { try Geometry(wkb: $0) }
    }

    /// The number of bytes `wkb(byteOrder:)` produces.
    public var wkbSize: Int {
        func line(_ l: LineString) -> Int { 4 + 16 * l.points.count }
        func poly(_ p: Polygon) -> Int { 4 + p.rings.reduce(0) { $0 + line($1) } }
        switch self {
        case .point: return 21
        case .lineString(let l): return 5 + line(l)
        case .polygon(let p): return 5 + poly(p)
        case .multiPoint(let m): return 9 + 21 * m.points.count
        case .multiLineString(let m): return 9 + m.lines.reduce(0) { $0 + 5 + line($1) }
        case .multiPolygon(let m): return 9 + m.polygons.reduce(0) { $0 + 5 + poly($1) }
        }
    }

    /// Encodes the geometry as ISO WKB in one allocation of exactly `wkbSize` bytes.
    ///
    /// Coordinates are written bit for bit, so an empty point comes out as `POINT(NaN NaN)` and
    /// non-finite values survive; callers that must not store them validate first.
    public func wkb(byteOrder: WKBByteOrder = .littleEndian) -> [UInt8] {
        let size = wkbSize
        return [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            var writer = ByteWriter(bytes: UnsafeMutableRawBufferPointer(buffer), bigEndian: byteOrder == .bigEndian)
            writeWKB(into: &writer)
            precondition(writer.position == size, "wkbSize disagrees with writeWKB")
            initialized = size
        }
    }

    /// Writes the WKB at the writer's position; the writer's buffer must have `wkbSize` bytes left.
    func writeWKB(into w: inout ByteWriter) {
        func header(_ kind: Kind) {
            w.write(w.bigEndian ? WKBByteOrder.bigEndian.rawValue : WKBByteOrder.littleEndian.rawValue)
            w.write(kind.wkbCode)
        }
        func points(_ l: LineString) {
            w.write(UInt32(l.points.count))
            for p in l.points { w.write(p) }
        }
        func rings(_ p: Polygon) {
            w.write(UInt32(p.rings.count))
            for ring in p.rings { points(ring) }
        }
        header(kind)
        switch self {
        case .point(let p):
            w.write(p)
        case .lineString(let l):
            points(l)
        case .polygon(let p):
            rings(p)
        case .multiPoint(let m):
            w.write(UInt32(m.points.count))
            for p in m.points {
                header(.point)
                w.write(p)
            }
        case .multiLineString(let m):
            w.write(UInt32(m.lines.count))
            for l in m.lines {
                header(.lineString)
                points(l)
            }
        case .multiPolygon(let m):
            w.write(UInt32(m.polygons.count))
            for p in m.polygons {
                header(.polygon)
                rings(p)
            }
        }
    }
}

/// The WKB reading shared by the WKB decoder, the GeoPackage decoder and the in-place walkers.
enum WKB {
    /// The fewest bytes a multi-geometry part of each kind can take (byte order, type, and
    /// a point's coordinates or a zero count), used to reject absurd part counts early.
    static func minimumPartSize(_ kind: Geometry.Kind) -> Int {
        kind == .point ? 21 : 9
    }

    /// Maps a WKB type code to a kind, refusing everything annolink does not store.
    static func kind(typeCode code: UInt32, at offset: Int, format: GeometryCodecError.Format) throws -> Geometry.Kind {
        switch code {
        case 1: return .point
        case 2: return .lineString
        case 3: return .polygon
        case 4: return .multiPoint
        case 5: return .multiLineString
        case 6: return .multiPolygon
        default: break
        }
        if code & 0x2000_0000 != 0 {
            throw GeometryCodecError(format, offset: offset, "EWKB with an embedded SRID is not supported (WKB type \(hex32(code)))")
        }
        if code & 0xC000_0000 != 0 {
            throw GeometryCodecError.unsupportedDimension(format, offset: offset, "EWKB type \(hex32(code))")
        }
        if (1001...3017).contains(code) && (1...17).contains(code % 1000) {
            throw GeometryCodecError.unsupportedDimension(format, offset: offset, "WKB type \(code)")
        }
        if code == 7 {
            throw GeometryCodecError(format, offset: offset, "GeometryCollection (WKB type 7) is not supported")
        }
        throw GeometryCodecError(format, offset: offset, "unsupported WKB geometry type \(code)")
    }

    /// Reads a byte-order byte and a type code. With `container`, the kind must be the part kind
    /// that multi-geometry holds.
    @inline(__always)
    static func readHeader(_ r: inout ByteReader, partOf container: Geometry.Kind? = nil) throws -> (bigEndian: Bool, kind: Geometry.Kind) {
        let orderOffset = r.position
        let order = try r.readUInt8(for: "the byte order")
        guard order <= 1 else {
            throw r.error("invalid byte order \(order) (expected 0 or 1)", at: orderOffset)
        }
        let bigEndian = order == 0
        let typeOffset = r.position
        let code = try r.readUInt32(bigEndian: bigEndian, for: "the geometry type")
        let kind = try kind(typeCode: code, at: typeOffset, format: r.format)
        if let container {
            let allowed = partKind(of: container)
            guard kind == allowed else {
                throw r.error("a \(container.rawValue) can only hold \(allowed.rawValue) parts, not \(kind.rawValue)", at: typeOffset)
            }
        }
        return (bigEndian, kind)
    }

    static func partKind(of container: Geometry.Kind) -> Geometry.Kind {
        switch container {
        case .multiPoint: .point
        case .multiLineString: .lineString
        case .multiPolygon: .polygon
        default: preconditionFailure("\(container) has no parts")
        }
    }

    /// Reads an element count and checks that `count × bytesEach` fits in what is left, so
    /// that no allocation is sized by a corrupt count.
    @inline(__always)
    static func readCount(_ r: inout ByteReader, bigEndian: Bool, bytesEach: Int, of what: @autoclosure () -> String) throws -> Int {
        let offset = r.position
        let count = Int(try r.readUInt32(bigEndian: bigEndian, for: "the number of \(what())"))
        if count > r.remaining / bytesEach {
            throw r.error("a count of \(count) \(what()) needs at least \(count * bytesEach) bytes, but only \(r.remaining) are left", at: offset)
        }
        return count
    }

    static func requireEnd(of r: ByteReader) throws {
        if r.remaining > 0 {
            throw r.error("\(r.remaining) trailing bytes after the geometry", at: r.position)
        }
    }

    static func readGeometry(_ r: inout ByteReader) throws -> Geometry {
        let (bigEndian, kind) = try readHeader(&r)
        return try readBody(&r, kind: kind, bigEndian: bigEndian)
    }

    static func readBody(_ r: inout ByteReader, kind: Geometry.Kind, bigEndian: Bool) throws -> Geometry {
        switch kind {
        case .point:
            return .point(try readPoint(&r, bigEndian: bigEndian))
        case .lineString:
            return .lineString(try readLine(&r, bigEndian: bigEndian))
        case .polygon:
            return .polygon(try readPolygon(&r, bigEndian: bigEndian))
        case .multiPoint:
            let count = try readCount(&r, bigEndian: bigEndian, bytesEach: minimumPartSize(.point), of: "points")
            var points: [Point] = []
            points.reserveCapacity(count)
            for _ in 0..<count {
                let part = try readHeader(&r, partOf: .multiPoint)
                points.append(try readPoint(&r, bigEndian: part.bigEndian))
            }
            return .multiPoint(MultiPoint(points))
        case .multiLineString:
            let count = try readCount(&r, bigEndian: bigEndian, bytesEach: minimumPartSize(.lineString), of: "lines")
            var lines: [LineString] = []
            lines.reserveCapacity(count)
            for _ in 0..<count {
                let part = try readHeader(&r, partOf: .multiLineString)
                lines.append(try readLine(&r, bigEndian: part.bigEndian))
            }
            return .multiLineString(MultiLineString(lines))
        case .multiPolygon:
            let count = try readCount(&r, bigEndian: bigEndian, bytesEach: minimumPartSize(.polygon), of: "polygons")
            var polygons: [Polygon] = []
            polygons.reserveCapacity(count)
            for _ in 0..<count {
                let part = try readHeader(&r, partOf: .multiPolygon)
                polygons.append(try readPolygon(&r, bigEndian: part.bigEndian))
            }
            return .multiPolygon(MultiPolygon(polygons))
        }
    }

    @inline(__always)
    static func readPoint(_ r: inout ByteReader, bigEndian: Bool) throws -> Point {
        try r.require(16, for: "a point")
        return r.readPointUnchecked(bigEndian: bigEndian)
    }

    static func readLine(_ r: inout ByteReader, bigEndian: Bool) throws -> LineString {
        let count = try readCount(&r, bigEndian: bigEndian, bytesEach: 16, of: "points")
        // An array made with no capacity is the runtime's one shared empty array, whose count
        // the initializer below would write (a race between threads, if a harmless one).
        guard count > 0 else { return LineString([]) }
        // readCount proved the points fit, so one bounds check covers the whole run.
        let points = [Point](unsafeUninitializedCapacity: count) { buffer, initialized in
            for i in 0..<count {
                (buffer.baseAddress! + i).initialize(to: r.readPointUnchecked(bigEndian: bigEndian))
            }
            initialized = count
        }
        return LineString(points)
    }

    static func readPolygon(_ r: inout ByteReader, bigEndian: Bool) throws -> Polygon {
        let count = try readCount(&r, bigEndian: bigEndian, bytesEach: 4, of: "rings")
        var rings: [LineString] = []
        rings.reserveCapacity(count)
        for _ in 0..<count {
            rings.append(try readLine(&r, bigEndian: bigEndian))
        }
        return Polygon(rings: rings)
    }

    /// Walks one WKB geometry without building it, with exactly the checks `readGeometry`
    /// makes, calling `vertex` with the byte offset of each non-empty point's x and its byte
    /// order. Used where building `Geometry` values would cost too much per row.
    static func walk(_ r: inout ByteReader, vertex: (_ offset: Int, _ bigEndian: Bool) -> Void) throws {
        let (bigEndian, kind) = try readHeader(&r)
        try walkBody(&r, kind: kind, bigEndian: bigEndian, vertex: vertex)
    }

    private static func walkBody(_ r: inout ByteReader, kind: Geometry.Kind, bigEndian: Bool, vertex: (Int, Bool) -> Void) throws {
        func walkPoint(_ r: inout ByteReader, bigEndian: Bool) throws {
            try r.require(16, for: "a point")
            let offset = r.position
            if !r.readPointUnchecked(bigEndian: bigEndian).isEmpty { vertex(offset, bigEndian) }
        }
        func walkLine(_ r: inout ByteReader, bigEndian: Bool) throws {
            let count = try readCount(&r, bigEndian: bigEndian, bytesEach: 16, of: "points")
            for i in 0..<count { vertex(r.position + 16 * i, bigEndian) }
            r.position += 16 * count
        }
        func walkPolygon(_ r: inout ByteReader, bigEndian: Bool) throws {
            let count = try readCount(&r, bigEndian: bigEndian, bytesEach: 4, of: "rings")
            for _ in 0..<count { try walkLine(&r, bigEndian: bigEndian) }
        }
        switch kind {
        case .point: try walkPoint(&r, bigEndian: bigEndian)
        case .lineString: try walkLine(&r, bigEndian: bigEndian)
        case .polygon: try walkPolygon(&r, bigEndian: bigEndian)
        case .multiPoint, .multiLineString, .multiPolygon:
            let partKind = partKind(of: kind)
            let what = kind == .multiPoint ? "points" : kind == .multiLineString ? "lines" : "polygons"
            let count = try readCount(&r, bigEndian: bigEndian, bytesEach: minimumPartSize(partKind), of: what)
            for _ in 0..<count {
                let part = try readHeader(&r, partOf: kind)
                switch partKind {
                case .point: try walkPoint(&r, bigEndian: part.bigEndian)
                case .lineString: try walkLine(&r, bigEndian: part.bigEndian)
                default: try walkPolygon(&r, bigEndian: part.bigEndian)
                }
            }
        }
    }
}
