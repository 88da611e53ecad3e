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