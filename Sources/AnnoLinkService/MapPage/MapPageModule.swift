/// One part of the map editor's script beyond the core (`MapPageAssets.script`): served at
/// `path` after the core, its style appended to `/editor.css`. A module waits for the core's
/// `annolink:ready` event and builds on `window.annolink` (the map, the layers, `get`/`post`
/// to the FeatureServer, `showError`, `refresh`, `tools` for its buttons, `tapHandlers`).
struct MapPageModule: Sendable {
    var path: String
    var script: String
    var style: String

    /// Every module, in the order the page loads them.
    static let all: [MapPageModule] = [.geoView, .sketch, .live, .layers, .labels]
}
