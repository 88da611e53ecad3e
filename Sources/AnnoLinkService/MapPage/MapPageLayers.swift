extension MapPageModule {
    /// The layer list (docs/editor.md, "Layers"): every table of the service, features and
    /// annotation, with a checkbox for its visibility. The core keeps the hidden layers
    /// (`annolink.isVisible`, `setVisible`, in the browser's localStorage): a hidden layer is not
    /// fetched, drawn or identified.
    static let layers = MapPageModule(path: "/editor-layers.js", script: ##"""
    'use strict';
    // annolink map editor: the layer list. docs/editor.md, "Layers".
    document.addEventListener('annolink:ready', event => {
      const annolink = event.detail;
      const fold = document.createElement('details');
      fold.id = 'layers';
      const summary = document.createElement('summary');
      summary.textContent = 'Layers';
      summary.title = 'Show and hide layers: hidden layers are not drawn, and a tap does not list them';
      const list = document.createElement('ul');
      list.setAttribute('aria-label', 'layers: a hidden layer is not drawn nor identified');
      const kinds = { esriGeometryPoint: 'points', esriGeometryMultipoint: 'points', esriGeometryPolyline: 'lines',
        esriGeometryPolygon: 'polygons' };
      // Each feature layer, then the annotation that labels it (its classes' originTable).
      const annotationOf = layer => annolink.annotationLayers.filter(a =>
        (a.annotationClasses || []).some(c => (c.originTable || '').toLowerCase() === layer.name.toLowerCase()));
      const listed = new Set();
      function row(layer, kind, indent) {
        listed.add(layer);
        const item = document.createElement('li');
        if (indent) item.className = 'layer-annotation';
        const box = document.createElement('input');
        box.type = 'checkbox';
        box.checked = annolink.isVisible(layer);
        box.dataset.layer = layer.name;
        box.id = 'layer-' + layer.id;
        const label = document.createElement('label');
        label.htmlFor = box.id;
        label.textContent = layer.name + ' (' + kind + ')';
        box.addEventListener('change', () => {
          annolink.setVisible(layer, box.checked).catch(e => annolink.showError(annolink.describe(e)));
          annolink.message((box.checked ? 'showing ' : 'hiding ') + layer.name);
        });
        item.append(box, label);
        list.append(item);
      }
      for (const layer of annolink.featureLayers) {
        row(layer, kinds[layer.geometryType] || 'features', false);
        for (const anno of annotationOf(layer)) if (!listed.has(anno)) row(anno, 'annotation', true);
      }
      for (const anno of annolink.annotationLayers) if (!listed.has(anno)) row(anno, 'annotation', false);
      fold.append(summary, list);
      annolink.tools.append(fold);
    });
    """##, style: ##"""
    #layers { background: rgba(255, 255, 255, 0.9); border: 1px solid #ccc; border-radius: 3px; padding: 2px 6px; max-width: 300px; }
    #layers summary { cursor: pointer; text-align: right; }
    #layers ul { list-style: none; margin: 4px 0 0; padding: 0; max-height: 50vh; overflow-y: auto; }
    #layers li { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
    #layers li.layer-annotation { padding-left: 1.2em; }
    #layers input { margin: 0 4px 0 0; vertical-align: middle; }
    @media (pointer: coarse) {
      #layers summary { min-height: 36px; line-height: 36px; }
      #layers input { width: 22px; height: 22px; }
      #layers li { min-height: 36px; line-height: 36px; }
    }
    """##)
}
