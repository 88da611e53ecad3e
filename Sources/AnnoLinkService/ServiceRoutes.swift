/// Every set of endpoints `annolink serve` answers, in the order the server asks them.
public enum ServiceRoutes {
    /// The routes of a server: the GeoServices FeatureServer, OGC API Features, the journal
    /// (state, undo, redo), the map editor's sketch sessions, the map page.
    public static let all: [any Routes] = [
        FeatureServerRoutes(),
        OGCFeaturesRoutes(),
        JournalRoutes(),
        SketchRoutes(),
        MapPageRoutes(),
    ]

    /// The routes of a server started with `configuration`: as `all`, the sketch sessions
    /// bounded by its `sketchSessionLimit` and `sketchIdleSeconds`.
    public static func routes(for configuration: ServerConfiguration) -> [any Routes] {
        [
            FeatureServerRoutes(),
            OGCFeaturesRoutes(),
            SketchRoutes(limit: configuration.sketchSessionLimit, idleSeconds: configuration.sketchIdleSeconds),
            MapPageRoutes(),
        ]
    }
}
