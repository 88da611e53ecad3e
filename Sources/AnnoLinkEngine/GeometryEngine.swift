import AnnoLinkGeometry

/// GEOS operations on geometry values: what the edit service and the checks call.
///
/// The engine owns a `GEOSContext`; each call converts its values to GEOS, runs one operation
/// and frees what it made. To run several operations on one geometry, convert it once with
/// `GEOSGeometry(_:context:)` and use the same operations there.
///
/// Geometry values carry no CRS: coordinates, lengths, distances and tolerances are all in the
/// units of the caller's CRS (US survey feet for EPSG:2924), areas in square units, and the
/// computations are planar. Not `Sendable`: make one engine per task.
public final class GeometryEngine {
    /// The GEOS context every operation runs in.
    public let context: GEOSContext

    /// An engine with its own GEOS context.
    /// - Parameter handleCounter: counts the engine's GEOS objects while they live.
    /// - Throws: `GEOSError` when GEOS cannot make a context. Wraps `GEOS_init_r`.
    public init(handleCounter: HandleCounter? = nil) throws {
        context = try GEOSContext(handleCounter: handleCounter)
    }

    /// `geometry` as a GEOS geometry in this engine's context, for repeated operations.
    /// - Throws: `GEOSError` when GEOS refuses the structure (a line of one point, an unclosed
    ///   ring). Wraps `GEOSCoordSeq_copyFromBuffer_r` and `GEOSGeom_create…_r`.
    public func geos(_ geometry: Geometry) throws -> GEOSGeometry {
        try GEOSGeometry(geometry, context: context)
    }

    /// Whether `geometry` is valid in the OGC Simple Features sense. Wraps `GEOSisValid_r`.
    /// - Throws: `GEOSError`, also when GEOS cannot build the geometry at all.
    public func isValid(_ geometry: Geometry) throws -> Bool {
        try geos(geometry).isValid
    }

    /// GEOS's verdict in its own words: `Valid Geometry`, or e.g. `Self-intersection[5 5]` with
    /// the location in CRS units. Wraps `GEOSisValidReason_r`.
    /// - Throws: `GEOSError`.
    public func isValidReason(of geometry: Geometry) throws -> String {
        try geos(geometry).isValidReason()
    }

    /// The problem GEOS finds and where, or nil when `geometry` is valid.
    /// Wraps `GEOSisValidDetail_r`.
    /// - Throws: `GEOSError`.
    public func invalidity(of geometry: Geometry) throws -> Invalidity? {
        try geos(geometry).invalidity()
    }

    /// A valid geometry covering the same area or line work (GEOS's `structure` method: a
    /// bow-tie becomes a multipolygon of two triangles). Wraps `GEOSMakeValidWithParams_r`.
    /// - Throws: `EngineError.unsupportedGeometry` when the result mixes kinds, `GEOSError`.
    public func makeValid(_ geometry: Geometry) throws -> Geometry {
        try geos(geometry).makeValid().value()
    }

    /// The closest points of `first` and `second`, in that order, in CRS units.
    /// Wraps `GEOSNearestPoints_r`.
    /// - Throws: `EngineError.emptyGeometry` when either is empty, `GEOSError`.
    public func nearestPoints(_ first: Geometry, _ second: Geometry) throws -> (Point, Point) {
        try geos(first).nearestPoints(with: geos(second))
    }

    /// The shortest planar distance between the geometries, in CRS units. Wraps `GEOSDistance_r`.
    /// - Throws: `EngineError.emptyGeometry` when either is empty, `GEOSError`.
    public func distance(from first: Geometry, to second: Geometry) throws -> Double {
        try geos(first).distance(to: geos(second))
    }

    /// The vertex of `geometry` nearest to `point` (CRS units): its part, its index and the
    /// distance; see `NearestVertex` for the numbering. Linear in the number of vertices,
    /// computed in Swift (GEOS has no such operation), without a GEOS call.
    /// - Throws: `EngineError.emptyGeometry`, `EngineError.invalidArgument` for a non-finite
    ///   `point`.
    public func nearestVertex(of geometry: Geometry, to point: Point) throws -> NearestVertex {
        try NearestVertex.find(in: geometry, to: point)
    }

    /// Planar length in CRS units (perimeter for polygons, 0 for points). Wraps `GEOSLength_r`.
    /// - Throws: `GEOSError`.
    public func length(of geometry: Geometry) throws -> Double {
        try geos(geometry).length
    }

    /// Planar area in square CRS units (0 for points and lines). Wraps `GEOSArea_r`.
    /// - Throws: `GEOSError`.
    public func area(of geometry: Geometry) throws -> Double {
        try geos(geometry).area
    }

    /// The bounding box in CRS units, nil when empty. Wraps `GEOSGeom_getExtent_r`.
    /// - Throws: `GEOSError`.
    public func envelope(of geometry: Geometry) throws -> Envelope? {
        try geos(geometry).envelope
    }

    /// The point `distance` CRS units along `line` from its start (negative: back from the end;
    /// clamped to the ends). Wraps `GEOSInterpolate_r`.
    /// - Throws: `EngineError.notLineal`, `EngineError.emptyGeometry`,
    ///   `EngineError.invalidArgument`, `GEOSError`.
    public func interpolatedPoint(along line: Geometry, atDistance distance: Double) throws -> Point {
        try geos(line).interpolatedPoint(atDistance: distance)
    }

    /// The point at `fraction` (0…1) of `line`'s length. Wraps `GEOSInterpolateNormalized_r`.
    /// - Throws: as `interpolatedPoint(along:atDistance:)`.
    public func interpolatedPoint(along line: Geometry, atFraction fraction: Double) throws -> Point {
        try geos(line).interpolatedPoint(atFraction: fraction)
    }

    /// The distance (CRS units, from the start) along `line` of its point nearest to `point`.
    /// Wraps `GEOSProject_r`.
    /// - Throws: `EngineError.notLineal`, `EngineError.emptyGeometry`,
    ///   `EngineError.invalidArgument`, `GEOSError`.
    public func distanceAlong(_ line: Geometry, to point: Point) throws -> Double {
        try geos(line).distanceAlongLine(to: point)
    }

    /// The fraction (0…1) of `line`'s length at which it comes nearest to `point`.
    /// Wraps `GEOSProjectNormalized_r`.
    /// - Throws: as `distanceAlong(_:to:)`.
    public func fractionAlong(_ line: Geometry, to point: Point) throws -> Double {
        try geos(line).fractionAlongLine(to: point)
    }

    /// Whether the geometries share at least one point. Wraps `GEOSIntersects_r`.
    /// - Throws: `GEOSError`.
    public func intersects(_ first: Geometry, _ second: Geometry) throws -> Bool {
        try geos(first).intersects(geos(second))
    }

    /// Whether the geometries are at most `distance` CRS units apart (inclusive).
    /// Wraps `GEOSDistanceWithin_r`.
    /// - Throws: `EngineError.invalidArgument` for a negative distance, `GEOSError`.
    public func isWithinDistance(_ distance: Double, _ first: Geometry, _ second: Geometry) throws -> Bool {
        try geos(first).isWithinDistance(distance, of: geos(second))
    }

    /// The area within `distance` CRS units of `geometry`. Wraps `GEOSBufferWithStyle_r`.
    /// - Throws: `EngineError.invalidArgument`, `EngineError.unsupportedGeometry`, `GEOSError`.
    public func buffer(_ geometry: Geometry, by distance: Double, style: BufferStyle = BufferStyle()) throws -> Geometry {
        try geos(geometry).buffer(by: distance, style: style).value()
    }

    /// `geometry` with vertices within `tolerance` CRS units of the simplified line removed.
    /// Wraps `GEOSTopologyPreserveSimplify_r` (default) or `GEOSSimplify_r`.
    /// - Throws: `EngineError.invalidArgument`, `EngineError.unsupportedGeometry`, `GEOSError`.
    public func simplify(_ geometry: Geometry, tolerance: Double, preservingTopology: Bool = true) throws -> Geometry {
        try geos(geometry).simplify(tolerance: tolerance, preservingTopology: preservingTopology).value()
    }

    /// Refuses a geometry that may not be written to a GeoPackage: a non-finite coordinate, an
    /// empty geometry (unless `allowEmpty`), or a geometry GEOS finds invalid (a self-intersecting
    /// or unclosed ring, a hole outside its shell, a line with fewer than two distinct points),
    /// with GEOS's reason.
    ///
    /// Checks in that order and reports the first problem. Wraps `GEOSisValidDetail_r` and
    /// `GEOSisValidReason_r`.
    /// - Throws: `GeometryValidationError`; `GEOSError` only when GEOS itself fails.
    public func validateForWriting(_ geometry: Geometry, allowEmpty: Bool = false) throws {
        var nonFinite: GeometryValidationError?
        forEachPart(of: geometry) { part, points in
            guard nonFinite == nil, let index = points.firstIndex(where: { !$0.isFinite }) else { return }
            nonFinite = .nonFiniteCoordinate(points[index], part: part, vertex: index)
        }
        if let nonFinite { throw nonFinite }
        if geometry.isEmpty {
            if allowEmpty { return }
            throw GeometryValidationError.empty(geometry.kind)
        }
        let converted: GEOSGeometry
        do {
            converted = try geos(geometry)
        } catch let error as GEOSError {
            let reason = error.messages.isEmpty ? error.description : error.messages.joined(separator: "; ")
            throw GeometryValidationError.invalid(reason: reason, location: nil)
        }
        guard let invalidity = try converted.invalidity() else { return }
        throw GeometryValidationError.invalid(reason: try converted.isValidReason(), location: invalidity.location)
    }
}

@available(*, unavailable)
extension GeometryEngine: Sendable {}
