extension MapPageModule {
    /// The reticle and vertex tools over a sketch session on the server (docs/editor.md).
    static let sketch = MapPageModule(path: "/editor-sketch.js", script: ##"""
    'use strict';
    // annolink map editor: The reticle and vertex tools over a sketch session on the server. docs/editor.md.
    document.addEventListener('annolink:ready', event => {
      const annolink = event.detail;
    });
    """##, style: ##"""
    """##)
}
