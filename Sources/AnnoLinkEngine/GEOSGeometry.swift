import AnnoLinkGeometry
import CGEOS

/// Owns one GEOS geometry (`GEOSGeom_destroy_r` in `deinit`) and keeps its `GEOSContext` alive.
///
/// Make one from a value with `init(_:context:)` when several operations use the same geometry
/// (it is converted once); `GeometryEngine` offers the same operations on plain values.
/// Lengths, areas and distances are planar, in the units of the geometry's CRS (which the
/// geometry does not know: the caller does); angles play no part.
///
/// Operations with a second geometry accept one from any context; the result belongs to this
/// geometry's context.
public final class GEOSGeometry {
    /// The context the geometry was made in; GEOS calls on it go through this context.
    public let context: GEOSContext
    /// The `GEOSGeometry *`, owned.
    let raw: OpaquePointer

    /// Takes ownership of `raw`, made in `context`.
    init(owning raw: OpaquePointer, context: GEOSContext) {
        self.raw = raw
        self.context = context
        context.handleCounter?.geos += 1
    }

    deinit {
        GEOSGeom_destroy_r(context.handle, raw)
        context.handleCounter?.geos -= 1
    }

    /// A GEOS geometry equal to `geometry`, made in `context`.
    ///
    /// - Throws: `GEOSError` when GEOS refuses the structure (a line of one point, a ring that is
    ///   not closed or has fewer than 4 points).
    /// Wraps `GEOSCoordSeq_copyFromBuffer_r` and the `GEOSGeom_create…_r` functions.
    public convenience init(_ geometry: Geometry, context: GEOSContext) throws {
        self.init(owning: try context.makeRaw(geometry), context: context)
    }

    // MARK: Properties

    /// Whether the geometry has no vertex. Wraps `GEOSisEmpty_r`.
    /// - Throws: `GEOSError`.
    public var isEmpty: Bool {
        get throws { try context.predicate("GEOSisEmpty_r") { GEOSisEmpty_r($0, raw) } }
    }

    /// Whether the geometry is valid in the OGC Simple Features sense (rings closed and simple,
    /// holes inside their shell, no self-intersection…). Wraps `GEOSisValid_r`.
    /// - Throws: `GEOSError`.
    public var isValid: Bool {
        get throws { try context.predicate("GEOSisValid_r") { GEOSisValid_r($0, raw) } }
    }

    /// GEOS's verdict in its own words: `Valid Geometry`, or the problem with its location in
    /// CRS units, e.g. `Self-intersection[5 5]`, `Ring Self-intersection[0 10]`,
    /// `Hole lies outside shell[20 20]`. Wraps `GEOSisValidReason_r`.
    /// - Throws: `GEOSError`.
    public func isValidReason() throws -> String {
        try context.string("GEOSisValidReason_r") { GEOSisValidReason_r($0, raw) }
    }

    /// The first problem GEOS finds, with its location, or nil when the geometry is valid.
    /// Wraps `GEOSisValidDetail_r`.
    /// - Throws: `GEOSError`.
    public func invalidity() throws -> Invalidity? {
        var reason: UnsafeMutablePointer<CChar>?
        var location: OpaquePointer?
        let status = context.call { GEOSisValidDetail_r($0, raw, 0, &reason, &location) }
        defer {
            if let reason { GEOSFree_r(context.handle, reason) }
            if let location { GEOSGeom_destroy_r(context.handle, location) }
        }
        switch status {
        case 1: return nil
        case 0:
            let text = reason.map { String(cString: $0) } ?? "unknown"
            let point = try location.flatMap { try context.value(of: $0) }.flatMap { value -> Point? in
                if case .point(let p) = value, p.isFinite { return p }
                return nil
            }
            return Invalidity(reason: text, location: point)
        default:
            throw context.failure("GEOSisValidDetail_r")
        }
    }

    /// A valid geometry covering the same area or line work: a bow-tie polygon becomes a
    /// multipolygon of its two triangles; collapsed parts (a zero-area ring) are dropped.
    ///
    /// Uses GEOS's `structure` method, which keeps polygons polygonal. Coordinates stay in the
    /// CRS of the input. Wraps `GEOSMakeValidWithParams_r`.
    /// - Throws: `GEOSError`.
    public func makeValid() throws -> GEOSGeometry {
        guard let params = GEOSMakeValidParams_create_r(context.handle) else {
            throw context.failure("GEOSMakeValidParams_create_r")
        }
        defer { GEOSMakeValidParams_destroy_r(context.handle, params) }
        guard GEOSMakeValidParams_setMethod_r(context.handle, params, GEOS_MAKE_VALID_STRUCTURE) != 0 else {
            throw context.failure("GEOSMakeValidParams_setMethod_r")
        }
        guard GEOSMakeValidParams_setKeepCollapsed_r(context.handle, params, 0) != 0 else {
            throw context.failure("GEOSMakeValidParams_setKeepCollapsed_r")
        }
        return try context.geometry("GEOSMakeValidWithParams_r") { GEOSMakeValidWithParams_r($0, raw, params) }
    }

    /// The geometry value of this GEOS geometry.
    /// - Throws: `EngineError.unsupportedGeometry` for a GEOMETRYCOLLECTION that mixes points,
    ///   lines and polygons, `GEOSError`.
    public func value() throws -> Geometry {
        try context.value(of: raw)
    }

    /// Planar length in CRS units: the sum of the lines' lengths, or the perimeter of polygons
    /// (all rings); 0 for points. Wraps `GEOSLength_r`.
    /// - Throws: `GEOSError`.
    public var length: Double {
        get throws { try context.number("GEOSLength_r") { GEOSLength_r($0, raw, $1) } }
    }

    /// Planar area in square CRS units (holes subtracted); 0 for points and lines.
    /// Wraps `GEOSArea_r`.
    /// - Throws: `GEOSError`.
    public var area: Double {
        get throws { try context.number("GEOSArea_r") { GEOSArea_r($0, raw, $1) } }
    }

    /// The bounding box in CRS units, or nil for an empty geometry. Wraps `GEOSGeom_getExtent_r`.
    /// - Throws: `GEOSError`.
    public var envelope: Envelope? {
        get throws {
            if try isEmpty { return nil }
            var minX = 0.0, minY = 0.0, maxX = 0.0, maxY = 0.0
            guard context.call({ GEOSGeom_getExtent_r($0, raw, &minX, &minY, &maxX, &maxY) }) != 0 else {
                throw context.failure("GEOSGeom_getExtent_r")
            }
            return Envelope(minX: minX, minY: minY, maxX: maxX, maxY: maxY)
        }
    }

    // MARK: Two geometries

    /// The closest points of the two geometries: the first on this geometry, the second on
    /// `other`, in CRS units. Wraps `GEOSNearestPoints_r`.
    /// - Throws: `EngineError.emptyGeometry` when either is empty, `GEOSError`.
    public func nearestPoints(with other: GEOSGeometry) throws -> (Point, Point) {
        try requireNonEmpty(other, "nearestPoints(with:)")
        guard let sequence = context.call({ GEOSNearestPoints_r($0, raw, other.raw) }) else {
            throw context.failure("GEOSNearestPoints_r")
        }
        defer { GEOSCoordSeq_destroy_r(context.handle, sequence) }
        func point(_ index: UInt32) throws -> Point {
            var x = 0.0, y = 0.0
            guard context.call({ GEOSCoordSeq_getXY_r($0, sequence, index, &x, &y) }) != 0 else {
                throw context.failure("GEOSCoordSeq_getXY_r")
            }
            return Point(x: x, y: y)
        }
        return (try point(0), try point(1))
    }

    /// The shortest planar distance between the two geometries, in CRS units; 0 when they
    /// intersect. Wraps `GEOSDistance_r`.
    /// - Throws: `EngineError.emptyGeometry` when either is empty (GEOS would answer 0),
    ///   `GEOSError`.
    public func distance(to other: GEOSGeometry) throws -> Double {
        try requireNonEmpty(other, "distance(to:)")
        return try context.number("GEOSDistance_r") { GEOSDistance_r($0, raw, other.raw, $1) }
    }

    /// Whether the two geometries share at least one point (touching counts); false when either
    /// is empty. Wraps `GEOSIntersects_r`.
    /// - Throws: `GEOSError`.
    public func intersects(_ other: GEOSGeometry) throws -> Bool {
        try context.predicate("GEOSIntersects_r") { GEOSIntersects_r($0, raw, other.raw) }
    }

    /// Whether the two geometries are at most `distance` apart (CRS units, inclusive); false when
    /// either is empty. Faster than comparing `distance(to:)`: GEOS stops at the first pair
    /// close enough. Wraps `GEOSDistanceWithin_r`.
    /// - Throws: `EngineError.invalidArgument` for a negative or NaN distance, `GEOSError`.
    public func isWithinDistance(_ distance: Double, of other: GEOSGeometry) throws -> Bool {
        guard distance >= 0 else {
            throw EngineError.invalidArgument("the distance must be zero or more, not \(distance)")
        }
        return try context.predicate("GEOSDistanceWithin_r") { GEOSDistanceWithin_r($0, raw, other.raw, distance) }
    }

    // MARK: Vertices and lines

    /// The vertex of this geometry nearest to `point` (CRS units), numbered as `NearestVertex`
    /// explains. Computed in Swift: GEOS has no such operation.
    /// - Throws: `EngineError.emptyGeometry`, `EngineError.invalidArgument` for a NaN or
    ///   infinite `point`, `GEOSError`.
    public func nearestVertex(to point: Point) throws -> NearestVertex {
        try NearestVertex.find(in: try value(), to: point)
    }

    /// The point at `distance` (CRS units) along the line from its start; a negative distance
    /// counts back from the end; distances beyond the line clamp to its ends. Along a
    /// MULTILINESTRING the parts count one after another. Wraps `GEOSInterpolate_r`.
    /// - Throws: `EngineError.notLineal`, `EngineError.emptyGeometry`,
    ///   `EngineError.invalidArgument` for a NaN distance, `GEOSError`.
    public func interpolatedPoint(atDistance distance: Double) throws -> Point {
        try requireLine("interpolatedPoint(atDistance:)")
        guard !distance.isNaN else { throw EngineError.invalidArgument("the distance along the line is NaN") }
        return try pointValue(try context.geometry("GEOSInterpolate_r") { GEOSInterpolate_r($0, raw, distance) })
    }

    /// The point at `fraction` of the line's length (0 start, 1 end, 0.5 halfway); as
    /// `interpolatedPoint(atDistance:)` otherwise. Wraps `GEOSInterpolateNormalized_r`.
    /// - Throws: `EngineError.notLineal`, `EngineError.emptyGeometry`,
    ///   `EngineError.invalidArgument` for a NaN fraction, `GEOSError`.
    public func interpolatedPoint(atFraction fraction: Double) throws -> Point {
        try requireLine("interpolatedPoint(atFraction:)")
        guard !fraction.isNaN else { throw EngineError.invalidArgument("the fraction of the line is NaN") }
        return try pointValue(try context.geometry("GEOSInterpolateNormalized_r") { GEOSInterpolateNormalized_r($0, raw, fraction) })
    }

    /// The distance along the line (CRS units, from its start) of the line's point nearest to
    /// `point`: the inverse of `interpolatedPoint(atDistance:)`. Wraps `GEOSProject_r`.
    /// - Throws: `EngineError.notLineal`, `EngineError.emptyGeometry`,
    ///   `EngineError.invalidArgument` for a NaN or infinite `point`, `GEOSError`.
    public func distanceAlongLine(to point: Point) throws -> Double {
        try lineLocation(of: point, "distanceAlongLine(to:)", "GEOSProject_r") { GEOSProject_r($0, $1, $2) }
    }

    /// The fraction of the line's length (0 to 1) at which the line comes nearest to `point`.
    /// Wraps `GEOSProjectNormalized_r`.
    /// - Throws: as `distanceAlongLine(to:)`.
    public func fractionAlongLine(to point: Point) throws -> Double {
        try lineLocation(of: point, "fractionAlongLine(to:)", "GEOSProjectNormalized_r") { GEOSProjectNormalized_r($0, $1, $2) }
    }

    // MARK: New geometries

    /// The area within `distance` (CRS units) of the geometry; a negative distance shrinks
    /// polygons. Curves are approximated with `style.quadrantSegments` segments per quarter
    /// circle. Wraps `GEOSBufferWithStyle_r`.
    /// - Throws: `EngineError.invalidArgument` for a non-finite distance or a style GEOS cannot
    ///   use, `GEOSError`.
    public func buffer(by distance: Double, style: BufferStyle = BufferStyle()) throws -> GEOSGeometry {
        guard distance.isFinite else {
            throw EngineError.invalidArgument("the buffer distance must be finite, not \(distance)")
        }
        guard style.quadrantSegments >= 1, let segments = Int32(exactly: style.quadrantSegments) else {
            throw EngineError.invalidArgument("quadrant segments must be 1 or more, not \(style.quadrantSegments)")
        }
        return try context.geometry("GEOSBufferWithStyle_r") {
            GEOSBufferWithStyle_r($0, raw, distance, segments, Int32(style.endCap.geosValue.rawValue),
                                  Int32(style.join.geosValue.rawValue), style.mitreLimit)
        }
    }

    /// The geometry with vertices removed where the line strays less than `tolerance` (CRS
    /// units) from the simplified one (Douglas–Peucker). With `preservingTopology` (the default)
    /// rings keep their validity and do not cross; without it, polygons may collapse.
    /// Wraps `GEOSTopologyPreserveSimplify_r` or `GEOSSimplify_r`.
    /// - Throws: `EngineError.invalidArgument` for a negative or NaN tolerance, `GEOSError`.
    public func simplify(tolerance: Double, preservingTopology: Bool = true) throws -> GEOSGeometry {
        guard tolerance >= 0 else {
            throw EngineError.invalidArgument("the simplification tolerance must be zero or more, not \(tolerance)")
        }
        if preservingTopology {
            return try context.geometry("GEOSTopologyPreserveSimplify_r") { GEOSTopologyPreserveSimplify_r($0, raw, tolerance) }
        }
        return try context.geometry("GEOSSimplify_r") { GEOSSimplify_r($0, raw, tolerance) }
    }

    // MARK: Helpers

    private func requireNonEmpty(_ other: GEOSGeometry, _ operation: String) throws {
        if try isEmpty || other.isEmpty { throw EngineError.emptyGeometry(operation: operation) }
    }

    private func requireLine(_ operation: String) throws {
        let type = try context.count("GEOSGeomTypeId_r") { GEOSGeomTypeId_r($0, raw) }
        switch UInt32(type) {
        case GEOS_LINESTRING.rawValue, GEOS_LINEARRING.rawValue, GEOS_MULTILINESTRING.rawValue: break
        default: throw EngineError.notLineal(try value().kind, operation: operation)
        }
        if try isEmpty { throw EngineError.emptyGeometry(operation: operation) }
    }

    private func pointValue(_ geometry: GEOSGeometry) throws -> Point {
        guard case .point(let point) = try geometry.value() else {
            throw EngineError.unsupportedGeometry("a non-point where a point was expected")
        }
        return point
    }

    private func lineLocation(
        of point: Point, _ operation: String, _ function: String,
        _ body: (OpaquePointer, OpaquePointer, OpaquePointer) -> Double
    ) throws -> Double {
        try requireLine(operation)
        guard point.isFinite else {
            throw EngineError.invalidArgument("the point \(format(point)) has a non-finite coordinate")
        }
        let target = try GEOSGeometry(.point(point), context: context)
        // GEOS returns -1 on exception; a real answer is never negative.
        let result = context.call { body($0, raw, target.raw) }
        guard result >= 0 else { throw context.failure(function) }
        return result
    }
}

@available(*, unavailable)
extension GEOSGeometry: Sendable {}

/// What GEOS finds wrong with an invalid geometry (`GEOSisValidDetail_r`).
public struct Invalidity: Hashable, Sendable {
    /// GEOS's reason without the location, e.g. `Self-intersection`.
    public var reason: String
    /// Where the problem is, in CRS units, when GEOS says.
    public var location: Point?

    /// A problem `reason` at `location`.
    public init(reason: String, location: Point?) {
        self.reason = reason
        self.location = location
    }
}

/// How `GEOSGeometry.buffer(by:style:)` draws the buffer's ends, corners and curves.
public struct BufferStyle: Hashable, Sendable {
    /// The shape at the ends of lines.
    public enum EndCap: Hashable, Sendable {
        /// Half circles around the ends (the default).
        case round
        /// Cut square at the end points.
        case flat
        /// Squares extending the buffer distance past the ends.
        case square

        var geosValue: GEOSBufCapStyles {
            switch self {
            case .round: GEOSBUF_CAP_ROUND
            case .flat: GEOSBUF_CAP_FLAT
            case .square: GEOSBUF_CAP_SQUARE
            }
        }
    }

    /// The shape at convex corners.
    public enum Join: Hashable, Sendable {
        /// Circular arcs (the default).
        case round
        /// Sharp corners, cut off at `mitreLimit` times the distance.
        case mitre
        /// Corners cut off straight.
        case bevel

        var geosValue: GEOSBufJoinStyles {
            switch self {
            case .round: GEOSBUF_JOIN_ROUND
            case .mitre: GEOSBUF_JOIN_MITRE
            case .bevel: GEOSBUF_JOIN_BEVEL
            }
        }
    }

    /// Segments per quarter circle on curved ends and corners (GEOS's default 8).
    public var quadrantSegments: Int
    /// The shape at the ends of lines.
    public var endCap: EndCap
    /// The shape at convex corners.
    public var join: Join
    /// For mitre joins: how far a corner may reach, as a multiple of the distance.
    public var mitreLimit: Double

    /// A style; the defaults are GEOS's (round ends and joins, 8 segments per quarter circle).
    public init(quadrantSegments: Int = 8, endCap: EndCap = .round, join: Join = .round, mitreLimit: Double = 5) {
        self.quadrantSegments = quadrantSegments
        self.endCap = endCap
        self.join = join
        self.mitreLimit = mitreLimit
    }
}
