/// Every set of endpoints `annolink serve` answers, in the order the server asks them.
public enum ServiceRoutes {
    /// The routes of a server with the default configuration (`routes(for:)`).
    public static let all: [any Routes] = routes(for: ServerConfiguration())

    /// The routes of a server started with `configuration`: the GeoServices FeatureServer, OGC
    /// API Features, the journal (state, undo, redo), one label edited by hand (`/annotation/place`), the map editor's sketch sessions (bounded
    /// by its `sketchSessionLimit` and `sketchIdleSeconds`), the map page.
    public static func routes(for configuration: ServerConfiguration) -> [any Routes] {
        [
            FeatureServerRoutes(),
            OGCFeaturesRoutes(),
            JournalRoutes(),
            SketchRoutes(limit: configuration.sketchSessionLimit, idleSeconds: configuration.sketchIdleSeconds),
            AnnotationPlaceRoutes(),
            MapPageRoutes(),
        ]
    }
}
