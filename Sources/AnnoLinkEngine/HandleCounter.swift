/// Counts the GEOS and PROJ objects alive that were made through the contexts given this
/// counter, so that a test can show that everything it made was freed.
///
/// A counter belongs to whoever made it: pass it to `GEOSContext(handleCounter:)`,
/// `GeometryEngine(handleCounter:)` or `CoordinateTransformer(handleCounter:)`, and every
/// context, geometry, coordinate reference system and transformation owned by those contexts
/// counts itself here from its creation to its `deinit`. Contexts made without a counter count
/// nowhere. Because each test makes its own counter, tests that run in parallel do not disturb
/// each other's counts.
///
/// Like the objects it counts, a counter stays in one isolation domain.
public final class HandleCounter {
    /// GEOS objects alive: contexts (`GEOS_init_r`) and geometries.
    public internal(set) var geos = 0
    /// PROJ objects alive: contexts (`proj_context_create`) and `PJ` objects.
    public internal(set) var proj = 0

    /// A counter at zero.
    public init() {}

    /// All GEOS and PROJ objects alive.
    public var total: Int { geos + proj }
}

@available(*, unavailable)
extension HandleCounter: Sendable {}
