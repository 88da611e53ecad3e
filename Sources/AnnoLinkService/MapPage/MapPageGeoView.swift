extension MapPageModule {
    /// Identify, viewpoints, coordinate read-out and image export (GeoView operations) (docs/editor.md).
    static let geoView = MapPageModule(path: "/editor-geoview.js", script: ##"""
    'use strict';
    // annolink map editor: Identify, viewpoints, coordinate read-out and image export (GeoView operations). docs/editor.md.
    document.addEventListener('annolink:ready', event => {
      const annolink = event.detail;
    });
    """##, style: ##"""
    """##)
}
