import AnnoLinkGeometry

/// A geometry blob of an ArcGIS mobile geodatabase (the `ST_Geometry` columns, magic
/// `64 6C 0B 00`), decoded to integer grid coordinates.
///
/// The layout, reverse-engineered from the Loudoun sample (see docs/mobile-geodatabase.md):
///
/// - bytes 0–3: magic `64 6C 0B 00`; bytes 4–7: little-endian UInt32, the vertex count N
///   (part separators included);
/// - then numbers in Esri's signed varint (first byte: bit 7 = more bytes follow, bit 6 = sign,
///   6 data bits; following bytes: 7 data bits each, low group first):
///   a shape kind (4 point, 20 polyline, 24 polygon), the type flags (1 point, 4 polyline,
///   8 polygon; the sign bit set = the blob has several parts), for N > 10 the envelope
///   (xmin, ymin, xmax, ymax in grid units), for several parts their count less one and the
///   vertex count of every part but the last (each counting its separator), a 4-byte slot that
///   starts with the byte length of the coordinates, and 4 flag bytes;
/// - then the coordinates: 2N signed varints, the first vertex absolute, every later one a delta
///   from the previous. A part ends with a separator vertex at grid (−1, 0).
///
/// Within a polygon part the rings follow one another, each ending where it started; the first
/// is the outer ring, the others are holes (of the opposite orientation).
///
/// Decoding never traps: every malformed input throws `GeometryCodecError` with format
/// `.esriShapeBuffer` and the byte offset where reading failed. Z and M values are not
/// supported. Decoding is O(blob size).
public struct EsriShapeBlob: Hashable, Sendable {
    /// The four bytes every blob starts with.
    public static let magic: [UInt8] = [0x64, 0x6C, 0x0B, 0x00]

    /// The geometry type of a blob, as its type flags give it.
    public enum ShapeType: UInt64, Hashable, Sendable {
        case point = 1
        case polyline = 4
        case polygon = 8
    }

    /// A vertex on the integer grid; `CoordinateGrid.point(gridX:gridY:)` maps it to CRS units.
    public struct GridPoint: Hashable, Sendable {
        public var x: Int64
        public var y: Int64

        /// Creates a grid vertex.
        public init(x: Int64, y: Int64) {
            self.x = x
            self.y = y
        }
    }

    /// The bounding box the header stores, in grid units (only blobs of more than 10 vertices
    /// carry one).
    public struct GridEnvelope: Hashable, Sendable {
        public var minX: Int64
        public var minY: Int64
        public var maxX: Int64
        public var maxY: Int64
    }

    /// Point, polyline or polygon.
    public let shapeType: ShapeType
    /// The vertex count of the header (bytes 4–7), part separators included.
    public let vertexCount: Int
    /// The envelope stored in the header, if any.
    public let gridEnvelope: GridEnvelope?
    /// The vertices of every part, separators removed. A polyline part is one line; a polygon
    /// part is one polygon (outer ring, then holes).
    public let parts: [[GridPoint]]
    /// For polygons: the rings of every part (each ring closed, the first one outer). Empty
    /// for points and polylines.
    public let polygonRings: [[[GridPoint]]]

    /// Decodes a blob.
    ///
    /// - Throws: `GeometryCodecError` (format `.esriShapeBuffer`) for a wrong magic number, a
    ///   truncated blob, a varint that overflows 63 bits, a vertex count larger than the blob
    ///   could hold, a header that does not match the blob's length, unknown type flags, a part
    ///   structure that is not as described above, and for multi-part points.
    public init(_ bytes: some Collection<UInt8>) throws(GeometryCodecError) {
        var reader = Reader(Array(bytes))
        try self.init(reading: &reader)
    }

    /// Decodes a blob straight to a `Geometry` in CRS units.
    ///
    /// One part gives a `.point`, `.lineString` or `.polygon`; several parts a
    /// `.multiLineString` or `.multiPolygon`. Throws as `init(_:)` does, and for an invalid grid.
    public static func decode(_ bytes: some Collection<UInt8>, grid: CoordinateGrid) throws(GeometryCodecError) -> Geometry {
        try EsriShapeBlob(bytes).geometry(in: grid)
    }

    /// The geometry in CRS units.
    ///
    /// - Throws: `GeometryCodecError` when `grid` is not valid (non-finite values or a scale
    ///   that is not positive).
    public func geometry(in grid: CoordinateGrid) throws(GeometryCodecError) -> Geometry {
        guard grid.isValid else {
            throw GeometryCodecError(.esriShapeBuffer, offset: 0, "invalid coordinate grid (origin \(grid.xOrigin), \(grid.yOrigin), scale \(grid.xyScale))")
        }
        func line(_ vertices: [GridPoint]) -> LineString {
            LineString(vertices.map { grid.point(gridX: $0.x, gridY: $0.y) })
        }
        switch shapeType {
        case .point:
            let p = parts[0][0]
            return .point(grid.point(gridX: p.x, gridY: p.y))
        case .polyline:
            let lines = parts.map(line)
            return lines.count == 1 ? .lineString(lines[0]) : .multiLineString(MultiLineString(lines))
        case .polygon:
            let polygons = polygonRings.map { Polygon(rings: $0.map(line)) }
            return polygons.count == 1 ? .polygon(polygons[0]) : .multiPolygon(MultiPolygon(polygons))
        }
    }

    /// The header's envelope in CRS units, or nil when the blob carries none.
    public func envelope(in grid: CoordinateGrid) -> Envelope? {
        guard let e = gridEnvelope else { return nil }
        let low = grid.point(gridX: e.minX, gridY: e.minY)
        let high = grid.point(gridX: e.maxX, gridY: e.maxY)
        return Envelope(minX: low.x, minY: low.y, maxX: high.x, maxY: high.y)
    }

    // MARK: - Decoding

    /// What the header says, once its layout has been checked against the blob's length.
    private struct Header {
        var envelope: GridEnvelope?
        /// Vertex counts of all parts but the last, each with its separator.
        var leadingPartCounts: [Int]
        /// Offset of the first coordinate byte.
        var coordinateStart: Int
    }

    /// The separator vertex that ends every part but the last.
    private static let separator = GridPoint(x: -1, y: 0)

    /// Above this many vertices the header carries an envelope (seen on every blob of the
    /// Loudoun file); the other layout is tried too, and the one whose coordinate byte count
    /// matches the blob wins.
    private static let largestVertexCountWithoutEnvelope = 10

    private init(reading reader: inout Reader) throws(GeometryCodecError) {
        let bytes = reader.bytes
        guard bytes.count >= 8 else {
            throw GeometryCodecError(.esriShapeBuffer, offset: bytes.count, "blob of \(bytes.count) bytes is shorter than its 8-byte preamble")
        }
        guard Array(bytes[0..<4]) == Self.magic else {
            let found = bytes[0..<4].map { String($0, radix: 16, uppercase: true) }.joined(separator: " ")
            throw GeometryCodecError(.esriShapeBuffer, offset: 0, "bad magic number \(found), expected 64 6C B 0")
        }
        let n = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
        // Each coordinate takes at least one byte, the header at least ten.
        guard n >= 1 else {
            throw GeometryCodecError(.esriShapeBuffer, offset: 4, "blob holds no vertices")
        }
        guard 2 * n <= bytes.count - 18 else {
            throw GeometryCodecError(.esriShapeBuffer, offset: 4, "vertex count \(n) is larger than a blob of \(bytes.count) bytes could hold")
        }
        reader.offset = 8
        _ = try reader.readUnsigned("shape kind")
        let typeOffset = reader.offset
        let (isMultipart, typeFlags) = try reader.readSignAndMagnitude("type flags")
        guard let shapeType = ShapeType(rawValue: typeFlags) else {
            throw GeometryCodecError(.esriShapeBuffer, offset: typeOffset, "unknown geometry type flags \(typeFlags)")
        }
        let headerStart = reader.offset

        let preferEnvelope = n > Self.largestVertexCountWithoutEnvelope
        var header: Header
        do throws(GeometryCodecError) {
            reader.offset = headerStart
            header = try Self.readHeader(&reader, hasEnvelope: preferEnvelope, isMultipart: isMultipart)
        } catch {
            reader.offset = headerStart
            guard let other = try? Self.readHeader(&reader, hasEnvelope: !preferEnvelope, isMultipart: isMultipart) else {
                throw error
            }
            header = other
        }

        if shapeType == .point && (isMultipart || n != 1) {
            if isMultipart {
                throw GeometryCodecError(
                    .esriShapeBuffer, offset: typeOffset,
                    "multi-part ST_Geometry blobs are not supported: \(header.leadingPartCounts.count + 1) parts")
            }
            throw GeometryCodecError(.esriShapeBuffer, offset: 4, "a point blob must hold 1 vertex, this one holds \(n)")
        }

        // Coordinates: exactly 2N numbers up to the end of the blob.
        reader.offset = header.coordinateStart
        var vertices: [GridPoint] = []
        vertices.reserveCapacity(n)
        var vertexOffsets: [Int] = []
        vertexOffsets.reserveCapacity(n)
        var x: Int64 = 0
        var y: Int64 = 0
        for index in 0..<n {
            let offset = reader.offset
            let dx = try reader.readSigned("x of vertex \(index)")
            let dy = try reader.readSigned("y of vertex \(index)")
            let (nx, xOverflow) = x.addingReportingOverflow(dx)
            let (ny, yOverflow) = y.addingReportingOverflow(dy)
            guard !xOverflow, !yOverflow else {
                throw GeometryCodecError(.esriShapeBuffer, offset: offset, "coordinate of vertex \(index) overflows 64 bits")
            }
            x = nx
            y = ny
            vertices.append(GridPoint(x: x, y: y))
            vertexOffsets.append(offset)
        }
        guard reader.offset == bytes.count else {
            throw GeometryCodecError(
                .esriShapeBuffer, offset: reader.offset,
                "\(bytes.count - reader.offset) bytes follow the \(n) vertices (Z or M values are not supported)")
        }

        // Parts: every part but the last ends with the separator vertex.
        var parts: [[GridPoint]] = []
        var partOffsets: [Int] = []
        var start = 0
        for (partIndex, count) in header.leadingPartCounts.enumerated() {
            let end = start + count
            guard end < n else {
                throw GeometryCodecError(.esriShapeBuffer, offset: typeOffset, "part sizes add up to more than the \(n) vertices")
            }
            guard vertices[end - 1] == Self.separator else {
                throw GeometryCodecError(.esriShapeBuffer, offset: vertexOffsets[end - 1], "part \(partIndex + 1) does not end with a separator vertex")
            }
            parts.append(Array(vertices[start..<(end - 1)]))
            partOffsets.append(vertexOffsets[start])
            start = end
        }
        parts.append(Array(vertices[start...]))
        partOffsets.append(vertexOffsets[start])

        if let e = header.envelope {
            for part in parts {
                for v in part where v.x < e.minX || v.x > e.maxX || v.y < e.minY || v.y > e.maxY {
                    throw GeometryCodecError(.esriShapeBuffer, offset: headerStart, "a vertex lies outside the envelope the header states")
                }
            }
        }

        var polygonRings: [[[GridPoint]]] = []
        switch shapeType {
        case .point:
            break
        case .polyline:
            for (index, part) in parts.enumerated() where part.count < 2 {
                throw GeometryCodecError(.esriShapeBuffer, offset: partOffsets[index], "part \(index + 1) of the line has \(part.count) vertex")
            }
        case .polygon:
            for (index, part) in parts.enumerated() {
                polygonRings.append(try Self.rings(of: part, partNumber: index + 1, offset: partOffsets[index]))
            }
        }

        self.shapeType = shapeType
        self.vertexCount = n
        self.gridEnvelope = header.envelope
        self.parts = parts
        self.polygonRings = polygonRings
    }

    /// Reads the header after the type flags in one of its two layouts, checking that the
    /// coordinate byte count it states matches the blob.
    private static func readHeader(_ reader: inout Reader, hasEnvelope: Bool, isMultipart: Bool) throws(GeometryCodecError) -> Header {
        var envelope: GridEnvelope?
        if hasEnvelope {
            let minX = try reader.readSigned("envelope xmin")
            let minY = try reader.readSigned("envelope ymin")
            let maxX = try reader.readSigned("envelope xmax")
            let maxY = try reader.readSigned("envelope ymax")
            guard minX <= maxX, minY <= maxY else {
                throw GeometryCodecError(.esriShapeBuffer, offset: reader.offset, "envelope minimum exceeds its maximum")
            }
            envelope = GridEnvelope(minX: minX, minY: minY, maxX: maxX, maxY: maxY)
        }
        var counts: [Int] = []
        if isMultipart {
            let countOffset = reader.offset
            let extraParts = try reader.readUnsigned("part count")
            // Every listed part holds at least one vertex and its separator.
            guard extraParts <= UInt64(reader.bytes.count / 2) else {
                throw GeometryCodecError(.esriShapeBuffer, offset: countOffset, "part count \(extraParts + 1) is larger than the blob could hold")
            }
            for index in 0..<Int(extraParts) {
                let sizeOffset = reader.offset
                let count = try reader.readUnsigned("vertex count of part \(index + 1)")
                guard count >= 2, count <= UInt64(reader.bytes.count) else {
                    throw GeometryCodecError(.esriShapeBuffer, offset: sizeOffset, "part \(index + 1) cannot hold \(count) vertices")
                }
                counts.append(Int(count))
            }
        }
        let slotOffset = reader.offset
        let coordinateBytes = try reader.readUnsigned("coordinate byte count")
        guard reader.offset - slotOffset <= 4 else {
            throw GeometryCodecError(.esriShapeBuffer, offset: slotOffset, "coordinate byte count overflows its 4-byte slot")
        }
        let coordinateStart = slotOffset + 8
        guard coordinateStart <= reader.bytes.count,
              coordinateBytes == UInt64(reader.bytes.count - coordinateStart)
        else {
            throw GeometryCodecError(
                .esriShapeBuffer, offset: slotOffset,
                "header states \(coordinateBytes) coordinate bytes, the blob has \(max(0, reader.bytes.count - coordinateStart))")
        }
        return Header(envelope: envelope, leadingPartCounts: counts, coordinateStart: coordinateStart)
    }

    /// Splits a polygon part into rings: each ring ends at the first later vertex equal to its
    /// start (at least four vertices). The first ring is outer; every other ring must turn the
    /// other way (a hole), since nothing in the blob says which outer ring a second one would
    /// belong to.
    private static func rings(of part: [GridPoint], partNumber: Int, offset: Int) throws(GeometryCodecError) -> [[GridPoint]] {
        var rings: [[GridPoint]] = []
        var start = 0
        var index = start + 3
        while index < part.count {
            if part[index] == part[start] {
                rings.append(Array(part[start...index]))
                start = index + 1
                index = start + 3
            } else {
                index += 1
            }
        }
        guard start == part.count, !rings.isEmpty else {
            throw GeometryCodecError(.esriShapeBuffer, offset: offset, "ring \(rings.count + 1) of polygon part \(partNumber) is not closed")
        }
        let outer = signedArea(rings[0])
        for (index, ring) in rings.enumerated().dropFirst() where signedArea(ring) * outer > 0 {
            throw GeometryCodecError(
                .esriShapeBuffer, offset: offset,
                "ring \(index + 1) of polygon part \(partNumber) turns the same way as the outer ring; cannot tell which polygon it belongs to")
        }
        return rings
    }

    /// Twice the signed area of a closed ring in grid units (positive counter-clockwise),
    /// computed relative to the first vertex to keep Double's precision.
    private static func signedArea(_ ring: [GridPoint]) -> Double {
        let origin = ring[0]
        var sum = 0.0
        for i in 1..<(ring.count - 1) {
            let ax = Double(ring[i].x &- origin.x), ay = Double(ring[i].y &- origin.y)
            let bx = Double(ring[i + 1].x &- origin.x), by = Double(ring[i + 1].y &- origin.y)
            sum += ax * by - bx * ay
        }
        return sum
    }

    /// A cursor over the blob that reads Esri's signed varints and never reads past the end.
    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
        }

        /// Reads one number as its sign bit and magnitude (up to 63 bits); `what` names it in
        /// error messages.
        mutating func readSignAndMagnitude(_ what: @autoclosure () -> String) throws(GeometryCodecError) -> (negative: Bool, magnitude: UInt64) {
            let start = offset
            guard offset < bytes.count else {
                throw GeometryCodecError(.esriShapeBuffer, offset: start, "blob ends where the \(what()) should start")
            }
            var byte = bytes[offset]
            offset += 1
            let negative = byte & 0x40 != 0
            var magnitude = UInt64(byte & 0x3F)
            var shift: UInt64 = 6
            while byte & 0x80 != 0 {
                guard offset < bytes.count else {
                    throw GeometryCodecError(.esriShapeBuffer, offset: start, "truncated varint (\(what()))")
                }
                byte = bytes[offset]
                offset += 1
                let group = UInt64(byte & 0x7F)
                guard shift < 63 else {
                    throw GeometryCodecError(.esriShapeBuffer, offset: start, "varint overflows 63 bits (\(what()))")
                }
                let shifted = group << shift
                guard shifted >> shift == group, magnitude | shifted <= UInt64(Int64.max) else {
                    throw GeometryCodecError(.esriShapeBuffer, offset: start, "varint overflows 63 bits (\(what()))")
                }
                magnitude |= shifted
                shift += 7
            }
            return (negative, magnitude)
        }

        /// Reads a signed number.
        mutating func readSigned(_ what: @autoclosure () -> String) throws(GeometryCodecError) -> Int64 {
            let (negative, magnitude) = try readSignAndMagnitude(what())
            // magnitude <= Int64.max, so the conversion and the negation are exact.
            return negative ? -Int64(magnitude) : Int64(magnitude)
        }

        /// Reads a number that must not be negative.
        mutating func readUnsigned(_ what: @autoclosure () -> String) throws(GeometryCodecError) -> UInt64 {
            let start = offset
            let (negative, magnitude) = try readSignAndMagnitude(what())
            guard !negative || magnitude == 0 else {
                throw GeometryCodecError(.esriShapeBuffer, offset: start, "\(what()) is negative")
            }
            return magnitude
        }
    }
}
