import CGEOS

/// Owns one GEOS prepared geometry (`GEOSPreparedGeom_destroy_r` in `deinit`): a geometry with
/// its segment index built once, for testing it against many others — the exact test after an
/// envelope search, as the overlap check makes it.
///
/// Keeps the geometry it was prepared from (GEOS requires it to outlive the prepared one) and,
/// through it, the context. Not `Sendable`, as its geometry is not.
public final class GEOSPreparedGeometry {
    /// The geometry prepared.
    public let geometry: GEOSGeometry
    /// The `const GEOSPreparedGeometry *`, owned.
    private let raw: OpaquePointer

    /// `geometry`, prepared in its own context.
    /// - Throws: `GEOSError` when GEOS cannot prepare it. Wraps `GEOSPrepare_r`.
    public init(_ geometry: GEOSGeometry) throws {
        self.geometry = geometry
        raw = try geometry.context.pointer("GEOSPrepare_r") { GEOSPrepare_r($0, geometry.raw) }
        geometry.context.handleCounter?.geos += 1
    }

    deinit {
        GEOSPreparedGeom_destroy_r(geometry.context.handle, raw)
        geometry.context.handleCounter?.geos -= 1
    }

    /// Whether the prepared geometry and `other` share at least one point (touching counts);
    /// false when either is empty. `other` may come from any context. Wraps
    /// `GEOSPreparedIntersects_r`.
    /// - Throws: `GEOSError`.
    public func intersects(_ other: GEOSGeometry) throws -> Bool {
        try geometry.context.predicate("GEOSPreparedIntersects_r") { GEOSPreparedIntersects_r($0, raw, other.raw) }
    }
}

@available(*, unavailable)
extension GEOSPreparedGeometry: Sendable {}
