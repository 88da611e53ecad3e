/// One part of the map editor's script beyond the core (`MapPageAssets.script`): `NAME.js` of
/// `MapPage/Assets`, served at `/editor-NAME.js` after the core, and `NAME.css`, appended to
/// `/editor.css`. A module waits for the core's `annolink:ready` event and builds on
/// `window.annolink` (the map, the layers, `get`/`post` to the FeatureServer, `showError`,
/// `refresh`, `tools` for its buttons, `tapHandlers`).
struct MapPageModule: Sendable {
    /// The stem of the module's files, and of its served path.
    var name: String

    /// Where the page loads the module's script.
    var path: String { "/editor-\(name).js" }
    var script: String { MapPageAssets.asset(name + ".js") }
    var style: String { MapPageAssets.asset(name + ".css") }

    /// Every module, in the order the page loads them.
    static let all: [MapPageModule] = [.geoView, .sketch, .live, .layers, .labels]

    /// GeoView operations beyond the core's identify and viewpoints (docs/editor.md): "Zoom to"
    /// in a feature's popup, the live read-out of the pointer's coordinates in the data's CRS and
    /// in longitude/latitude (`GET /coordinates`, PROJ on the server), and "Export image" (`GET
    /// /render.png`, the server's `render`).
    static let geoView = MapPageModule(name: "geoview")

    /// The reticle and vertex tools over a sketch session on the server (docs/editor.md,
    /// "Sketching"; the routes are `SketchRoutes`). Every gesture is an action of the session,
    /// which runs Swift's `GeometryEditor`; the page draws the state each answer carries and
    /// holds no editing rule of its own.
    static let sketch = MapPageModule(name: "sketch")

    /// Live updates from other clients and the journal's undo/redo (docs/editor.md): polls
    /// `GET /journal` (`JournalRoutes`) and draws the view again when its key changes; "Undo"
    /// and "Redo" post to `/journal/undo` and `/journal/redo`.
    static let live = MapPageModule(name: "live")

    /// The layer list (docs/editor.md, "Layers"): every table of the service, features and
    /// annotation, with a checkbox for its visibility. The core keeps the hidden layers
    /// (`annolink.isVisible`, `setVisible`, in the browser's localStorage): a hidden layer is not
    /// fetched, drawn or identified.
    static let layers = MapPageModule(name: "layers")

    /// Labels edited by hand (docs/editor.md, "Labels"): a tap inside a label's footprint lists
    /// it with the features under the tap (alone, it is selected at once); the selected label
    /// shows its footprint with a rotation handle; dragging the box moves it, dragging the handle
    /// turns it (whole degrees), its panel retypes it, resets it to the rules or marks it
    /// unplaced. Each is one edit: an `applyEdits` update of the annotation layer's
    /// `AnchorX`/`AnchorY`, `Angle`, `TextString` or `Status` (the edit service marks them set by
    /// hand, as `annolink set` and `annolink place` do), or for the reset `POST
    /// /annotation/place` (`AnnotationPlaceRoutes`) — one journal entry each, undone by Undo.
    static let labels = MapPageModule(name: "labels")
}
