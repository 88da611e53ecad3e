import AnnoLinkGeometry
import CGEOS

// Conversion between geometry values and GEOS geometries goes through coordinate sequences
// copied in one block (`GEOSCoordSeq_copyFromBuffer_r` / `GEOSCoordSeq_copyToBuffer_r`, the
// `[Point]` storage read as interleaved x, y doubles), because it measured faster than ISO WKB
// through `GEOSWKBReader_read_r` / `GEOSWKBWriter_write_r` for every shape tried
// (Benchmarks/EngineBenchmarks, release build, GEOS 3.11.1; see docs/engine.md): a 2-point
// parcel line 0.33 µs vs 0.40 µs into GEOS and 0.29 µs vs 0.74 µs back; a 10 000-vertex line
// 11.5 µs vs 320 µs into GEOS (GEOS's WKB parsing alone took 184 µs) and 8.5 µs vs 535 µs back.

extension GEOSContext {
    /// `[Point]` is read and written by GEOS as x, y pairs of doubles; `Point` must stay two
    /// stored doubles, x first, for that (a program invariant, not an input error).
    private static let pointIsTwoDoubles: Bool =
        MemoryLayout<Point>.stride == 2 * MemoryLayout<Double>.stride
            && MemoryLayout<Point>.offset(of: \Point.x) == 0
            && MemoryLayout<Point>.offset(of: \Point.y) == MemoryLayout<Double>.stride

    /// A new GEOS geometry equal to `value`, owned by the caller.
    ///
    /// - Throws: `GEOSError` when GEOS refuses the structure: a line of one point, a ring that
    ///   is not closed or has fewer than 4 points.
    func makeRaw(_ value: Geometry) throws -> OpaquePointer {
        switch value {
        case .point(let point):
            return try makePoint(point)
        case .lineString(let line):
            return try makeLineString(line)
        case .polygon(let polygon):
            return try makePolygon(polygon)
        case .multiPoint(let multi):
            return try makeCollection(GEOS_MULTIPOINT, multi.points, makePoint)
        case .multiLineString(let multi):
            return try makeCollection(GEOS_MULTILINESTRING, multi.lines, makeLineString)
        case .multiPolygon(let multi):
            return try makeCollection(GEOS_MULTIPOLYGON, multi.polygons, makePolygon)
        }
    }

    private func makePoint(_ point: Point) throws -> OpaquePointer {
        // GeoPackage stores an empty point as (NaN, NaN).
        if point.x.isNaN && point.y.isNaN {
            return try pointer("GEOSGeom_createEmptyPoint_r") { GEOSGeom_createEmptyPoint_r($0) }
        }
        return try pointer("GEOSGeom_createPointFromXY_r") { GEOSGeom_createPointFromXY_r($0, point.x, point.y) }
    }

    private func makeLineString(_ line: LineString) throws -> OpaquePointer {
        let sequence = try makeSequence(line.points)
        // GEOS owns the sequence from here on, also when it refuses it.
        return try pointer("GEOSGeom_createLineString_r") { GEOSGeom_createLineString_r($0, sequence) }
    }

    private func makeRing(_ ring: LineString) throws -> OpaquePointer {
        let sequence = try makeSequence(ring.points)
        return try pointer("GEOSGeom_createLinearRing_r") { GEOSGeom_createLinearRing_r($0, sequence) }
    }

    private func makePolygon(_ polygon: Polygon) throws -> OpaquePointer {
        guard let exterior = polygon.exterior else {
            return try pointer("GEOSGeom_createEmptyPolygon_r") { GEOSGeom_createEmptyPolygon_r($0) }
        }
        let shell = try makeRing(exterior)
        var holes: [OpaquePointer?] = []
        holes.reserveCapacity(polygon.rings.count - 1)
        do {
            for ring in polygon.holes { holes.append(try makeRing(ring)) }
        } catch {
            GEOSGeom_destroy_r(handle, shell)
            for hole in holes { GEOSGeom_destroy_r(handle, hole) }
            throw error
        }
        // GEOS takes the shell and holes (but not the array), also when it fails.
        return try holes.withUnsafeMutableBufferPointer { buffer in
            try pointer("GEOSGeom_createPolygon_r") {
                GEOSGeom_createPolygon_r($0, shell, buffer.baseAddress, UInt32(buffer.count))
            }
        }
    }

    private func makeCollection<Part>(
        _ type: GEOSGeomTypes, _ parts: [Part], _ make: (Part) throws -> OpaquePointer
    ) throws -> OpaquePointer {
        let typeID = Int32(type.rawValue)
        if parts.isEmpty {
            return try pointer("GEOSGeom_createEmptyCollection_r") { GEOSGeom_createEmptyCollection_r($0, typeID) }
        }
        var members: [OpaquePointer?] = []
        members.reserveCapacity(parts.count)
        do {
            for part in parts { members.append(try make(part)) }
        } catch {
            for member in members { GEOSGeom_destroy_r(handle, member) }
            throw error
        }
        // GEOS takes the members (but not the array), also when it fails.
        return try members.withUnsafeMutableBufferPointer { buffer in
            try pointer("GEOSGeom_createCollection_r") {
                GEOSGeom_createCollection_r($0, typeID, buffer.baseAddress, UInt32(buffer.count))
            }
        }
    }

    /// A new XY coordinate sequence holding `points`, copied in one block.
    private func makeSequence(_ points: [Point]) throws -> OpaquePointer {
        precondition(Self.pointIsTwoDoubles, "Point is no longer two stored doubles, x then y")
        guard !points.isEmpty else {
            return try pointer("GEOSCoordSeq_create_r") { GEOSCoordSeq_create_r($0, 0, 2) }
        }
        guard let count = UInt32(exactly: points.count) else {
            throw EngineError.invalidArgument("a line of \(points.count) points is too long for GEOS")
        }
        return try points.withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: Double.self) { doubles in
                try pointer("GEOSCoordSeq_copyFromBuffer_r") {
                    GEOSCoordSeq_copyFromBuffer_r($0, doubles.baseAddress, count, 0, 0)
                }
            }
        }
    }

    // MARK: GEOS to values

    /// The geometry value of a GEOS geometry (borrowed, not freed).
    ///
    /// A GEOMETRYCOLLECTION whose members are all points, all lines or all polygons becomes the
    /// matching multi-geometry; a LINEARRING becomes a LINESTRING.
    /// - Throws: `EngineError.unsupportedGeometry` for other collections, `GEOSError`.
    func value(of geometry: OpaquePointer) throws -> Geometry {
        let type = try count("GEOSGeomTypeId_r") { GEOSGeomTypeId_r($0, geometry) }
        switch UInt32(type) {
        case GEOS_POINT.rawValue:
            let points = try self.points(of: geometry)
            return points.first.map(Geometry.point) ?? .emptyPoint
        case GEOS_LINESTRING.rawValue, GEOS_LINEARRING.rawValue:
            return .lineString(LineString(try points(of: geometry)))
        case GEOS_POLYGON.rawValue:
            return .polygon(try polygon(of: geometry))
        case GEOS_MULTIPOINT.rawValue:
            return .multiPoint(MultiPoint(try members(of: geometry).compactMap {
                let points = try self.points(of: $0)
                // An empty member point has no place in a MultiPoint value; GeoPackage has none.
                return points.first
            }))
        case GEOS_MULTILINESTRING.rawValue:
            return .multiLineString(MultiLineString(try members(of: geometry).map { LineString(try points(of: $0)) }))
        case GEOS_MULTIPOLYGON.rawValue:
            return .multiPolygon(MultiPolygon(try members(of: geometry).map(polygon(of:))))
        case GEOS_GEOMETRYCOLLECTION.rawValue:
            return try homogeneousValue(of: try members(of: geometry).map(value(of:)))
        default:
            throw EngineError.unsupportedGeometry("a geometry of GEOS type \(type)")
        }
    }

    private func homogeneousValue(of members: [Geometry]) throws -> Geometry {
        var points: [Point] = []
        var lines: [LineString] = []
        var polygons: [Polygon] = []
        for member in members {
            switch member {
            case .point(let p): if !(p.x.isNaN && p.y.isNaN) { points.append(p) }
            case .multiPoint(let m): points += m.points
            case .lineString(let l): lines.append(l)
            case .multiLineString(let m): lines += m.lines
            case .polygon(let p): polygons.append(p)
            case .multiPolygon(let m): polygons += m.polygons
            }
        }
        switch (points.isEmpty, lines.isEmpty, polygons.isEmpty) {
        case (false, true, true): return .multiPoint(MultiPoint(points))
        case (true, false, true): return .multiLineString(MultiLineString(lines))
        case (true, true, false): return .multiPolygon(MultiPolygon(polygons))
        case (true, true, true): throw EngineError.unsupportedGeometry("an empty GEOMETRYCOLLECTION")
        default:
            let kinds = Set(members.map(\.kind.rawValue)).sorted().joined(separator: ", ")
            throw EngineError.unsupportedGeometry("a GEOMETRYCOLLECTION mixing \(kinds)")
        }
    }

    private func polygon(of geometry: OpaquePointer) throws -> Polygon {
        if try predicate("GEOSisEmpty_r", { GEOSisEmpty_r($0, geometry) }) { return Polygon(rings: []) }
        let exterior = try pointer("GEOSGetExteriorRing_r") { GEOSGetExteriorRing_r($0, geometry) }
        let holeCount = try count("GEOSGetNumInteriorRings_r") { GEOSGetNumInteriorRings_r($0, geometry) }
        var rings = [LineString(try points(of: exterior))]
        rings.reserveCapacity(holeCount + 1)
        for index in 0..<holeCount {
            let ring = try pointer("GEOSGetInteriorRingN_r") { GEOSGetInteriorRingN_r($0, geometry, Int32(index)) }
            rings.append(LineString(try points(of: ring)))
        }
        return Polygon(rings: rings)
    }

    /// The members of a collection, borrowed from it.
    private func members(of geometry: OpaquePointer) throws -> [OpaquePointer] {
        let memberCount = try count("GEOSGetNumGeometries_r") { GEOSGetNumGeometries_r($0, geometry) }
        return try (0..<memberCount).map { index in
            try pointer("GEOSGetGeometryN_r") { GEOSGetGeometryN_r($0, geometry, Int32(index)) }
        }
    }

    /// The vertices of a point, line or ring, copied out of its coordinate sequence in one block.
    private func points(of geometry: OpaquePointer) throws -> [Point] {
        precondition(Self.pointIsTwoDoubles, "Point is no longer two stored doubles, x then y")
        let sequence = try pointer("GEOSGeom_getCoordSeq_r") { GEOSGeom_getCoordSeq_r($0, geometry) }
        var size: UInt32 = 0
        guard call({ GEOSCoordSeq_getSize_r($0, sequence, &size) }) != 0 else {
            throw failure("GEOSCoordSeq_getSize_r")
        }
        let count = Int(size)
        guard count > 0 else { return [] }
        return try [Point](unsafeUninitializedCapacity: count) { buffer, initialized in
            try buffer.withMemoryRebound(to: Double.self) { doubles in
                guard call({ GEOSCoordSeq_copyToBuffer_r($0, sequence, doubles.baseAddress, 0, 0) }) != 0 else {
                    throw failure("GEOSCoordSeq_copyToBuffer_r")
                }
            }
            initialized = count
        }
    }
}
