import AnnoLinkGeometry
import CPROJ

/// A coordinate transformation from one CRS to another, with x east (longitude) and y north
/// (latitude) on both sides whatever the CRSs' own axis order (PROJ's
/// `proj_normalize_for_visualization`). Angles are in degrees.
///
/// Get one from `CoordinateTransformer.transformation(from:to:)`, which caches it. Owns its
/// PROJ object; not `Sendable`.
public final class Transformation {
    /// The CRS of the coordinates given.
    public let source: CoordinateReferenceSystem
    /// The CRS of the coordinates returned.
    public let target: CoordinateReferenceSystem
    /// The normalised operation (`PJ *`), possibly with several alternatives that PROJ picks
    /// from per coordinate by area of use, as `cs2cs` does.
    private let operation: PROJObject

    init(source: CoordinateReferenceSystem, target: CoordinateReferenceSystem, operation: PROJObject) {
        self.source = source
        self.target = target
        self.operation = operation
    }

    /// `point` (source CRS units) in the target CRS.
    ///
    /// Besides PROJ's own refusals, a coordinate counts as outside the domain when transforming
    /// the result back misses it by more than a millionth of its magnitude: PROJ answers
    /// (-89.99997°, 115.49°) for (1e30, 1e30) US survey feet in EPSG:2924 instead of failing.
    /// This costs one inverse transformation per coordinate. Wraps `proj_trans`.
    /// - Throws: `EngineError.nonFiniteCoordinate` for NaN or infinite input,
    ///   `EngineError.outsideDomain` when PROJ cannot transform it or it does not survive the
    ///   round trip, `EngineError.nonFiniteResult`.
    public func transform(_ point: Point) throws -> Point {
        guard point.isFinite else {
            throw EngineError.nonFiniteCoordinate(point, crs: source.definition)
        }
        let context = operation.context
        // HUGE_VAL as the time: no epoch, as cs2cs does when none is given.
        let input = proj_coord(point.x, point.y, 0, .infinity)
        let output = try apply(PJ_FWD, input, to: point)
        let result = Point(x: output.xy.x, y: output.xy.y)
        guard result.isFinite else {
            throw EngineError.nonFiniteResult(point, from: source.definition, to: target.definition)
        }

        proj_errno_reset(operation.raw)
        let back = context.call { _ in proj_trans(operation.raw, PJ_INV, output) }
        let backCode = proj_errno(operation.raw)
        if backCode == PROJ_ERR_OTHER_NO_INVERSE_OP { return result }
        let returned = Point(x: back.xy.x, y: back.xy.y)
        let tolerance = 1e-6 * max(1, abs(point.x), abs(point.y))
        guard backCode == 0, abs(returned.x - point.x) <= tolerance, abs(returned.y - point.y) <= tolerance else {
            throw EngineError.outsideDomain(
                point, from: source.definition, to: target.definition,
                reason: "the result \(format(result)) does not transform back to it, so it lies outside the region where the transformation is defined")
        }
        return result
    }

    /// `geometry` (source CRS units) in the target CRS, vertex by vertex; straight segments
    /// stay straight in the target CRS (no densification). Wraps `proj_trans`.
    /// - Throws: as `transform(_:)` for the first vertex that fails.
    public func transform(_ geometry: Geometry) throws -> Geometry {
        try geometry.mapPoints(transform)
    }

    private func apply(_ direction: PJ_DIRECTION, _ coordinate: PJ_COORD, to point: Point) throws -> PJ_COORD {
        let context = operation.context
        proj_errno_reset(operation.raw)
        let output = context.call { _ in proj_trans(operation.raw, direction, coordinate) }
        let code = proj_errno(operation.raw)
        guard code == 0 else {
            let error = context.failure("proj_trans", code: code)
            throw EngineError.outsideDomain(point, from: source.definition, to: target.definition, reason: error.reason)
        }
        return output
    }
}

@available(*, unavailable)
extension Transformation: Sendable {}
