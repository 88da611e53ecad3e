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
}
