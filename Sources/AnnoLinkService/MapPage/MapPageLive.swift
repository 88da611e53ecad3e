extension MapPageModule {
    /// Live updates from other clients and the journal's undo/redo (docs/editor.md).
    static let live = MapPageModule(path: "/editor-live.js", script: ##"""
    'use strict';
    // annolink map editor: Live updates from other clients and the journal's undo/redo. docs/editor.md.
    document.addEventListener('annolink:ready', event => {
      const annolink = event.detail;
    });
    """##, style: ##"""
    """##)
}
