'use strict';
// annolink map editor: labels moved, turned, retyped, reset and marked unplaced by hand.
// docs/editor.md, "Labels". State lives on the server: every gesture is one edit, and the
// selection is read again from the server after each (and after Undo, Redo, live changes).
document.addEventListener('annolink:ready', event => {
  const annolink = event.detail;
  const map = annolink.map;
  const body = document.body;
  const SVG = 'http://www.w3.org/2000/svg';
  const HANDLE_GAP_PX = 24;   // the rotation handle's distance above the box
  const PLACE = 'annotation/place';

  map.createPane('labelEdit').classList.add('label-edit-pane');
  map.getPane('labelEdit').style.zIndex = 460;
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('id', 'label-edit');
  map.getPane('labelEdit').append(svg);
  map.on('zoomstart', () => { svg.style.display = 'none'; });
  map.on('zoomend viewreset', () => { draw(); svg.style.display = ''; });

  let selected = null;   // {layer, feature} of the label selected, as the server last answered
  let drag = null;       // the gesture in progress

  const oidOf = s => s.feature.attributes[s.layer.objectIdField];
  const editable = layer => /\bUpdate\b/.test(layer.capabilities || '');
  const normalized = angle => ((angle % 360) + 360) % 360;
  function mark() {
    body.dataset.labelSelected = selected ? selected.layer.name + '/' + oidOf(selected) : '';
  }

  // The labels whose footprint holds `latlng`, in every visible annotation layer (a hidden
  // one is not identified, as a hidden feature layer is not): [{layer, feature}].
  async function labelsAt(latlng) {
    const layers = annolink.annotationLayers.filter(annolink.isVisible);
    const answers = await Promise.all(layers.map(layer => annolink.get('/' + layer.id + '/query', {
      where: '1=1', geometry: latlng.lng + ',' + latlng.lat, geometryType: 'esriGeometryPoint',
      spatialRel: 'esriSpatialRelIntersects', outFields: '*', returnGeometry: 'true' })));
    const found = [];
    layers.forEach((layer, i) => {
      for (const feature of answers[i].features) if (feature.attributes.TextString) found.push({ layer: layer, feature: feature });
    });
    return found;
  }

  // Identify lists the labels under the tap after the features; a label alone is selected.
  annolink.identifyExtras.push(async latlng => (await labelsAt(latlng)).map(hit => ({
    layer: hit.layer, feature: hit.feature, distance: 0, label: hit.feature.attributes.TextString + ' (label)',
    choose: options => select(hit.layer, hit.feature, options || {}),
  })));
  // A new tap lets go of the selection (a tap on the label selects it again).
  annolink.tapHandlers.push(async () => { if (selected) deselect(); return false; });

  function select(layer, feature, options) {
    map.closePopup();
    selected = { layer: layer, feature: feature };
    draw();
    fillPanel();
    mark();
    annolink.message('label ' + layer.name + ' ' + oidOf(selected) + ': drag the box to move it, the handle to turn it');
    if (options.focus) (panel.querySelector('input') || panel.querySelector('button')).focus();
  }

  function deselect() {
    selected = null;
    drag = null;
    draw();
    panel.hidden = true;
    mark();
  }

  // The selection read again from the server (after an edit, an undo, another client's edit).
  async function reload() {
    if (!selected) return;
    const layer = selected.layer, oid = oidOf(selected);
    const answer = await annolink.get('/' + layer.id + '/query', { objectIds: String(oid), outFields: '*', returnGeometry: 'true' });
    if (!selected || selected.layer !== layer || oidOf(selected) !== oid) return;
    if (!answer.features.length) { deselect(); annolink.message('label ' + layer.name + ' ' + oid + ' was deleted'); return; }
    selected = { layer: layer, feature: answer.features[0] };
    draw();
    fillPanel();
  }
  // Every redraw the modules ask for (the live module's, after Undo and Redo) reads it again.
  const coreRefresh = annolink.refresh;
  annolink.refresh = async () => { await coreRefresh(); await reload(); };

  // The footprint (the true text box), the anchor, and the rotation handle above the box.
  function draw() {
    while (svg.firstChild) svg.firstChild.remove();
    const ring = selected && selected.feature.geometry && selected.feature.geometry.rings && selected.feature.geometry.rings[0];
    if (!ring || ring.length < 3) return;
    const a = selected.feature.attributes;
    const px = p => map.latLngToLayerPoint([p[1], p[0]]);
    const group = document.createElementNS(SVG, 'g');
    group.setAttribute('id', 'label-selection');
    const box = document.createElementNS(SVG, 'polygon');
    box.setAttribute('class', 'label-box');
    box.setAttribute('points', ring.map(p => { const q = px(p); return q.x + ',' + q.y; }).join(' '));
    box.setAttribute('aria-label', 'label ' + a.TextString + ': drag to move');
    const corners = ring.slice(0, -1);
    const centre = [corners.reduce((s, p) => s + p[0], 0) / corners.length, corners.reduce((s, p) => s + p[1], 0) / corners.length];
    const t = (a.Angle || 0) * Math.PI / 180;
    const up = [-Math.sin(t), Math.cos(t)];
    const half = Math.max.apply(null, corners.map(p => (p[0] - centre[0]) * up[0] + (p[1] - centre[1]) * up[1]));
    const gap = HANDLE_GAP_PX / Math.pow(2, map.getZoom());
    const top = px([centre[0] + up[0] * half, centre[1] + up[1] * half]);
    const handlePoint = px([centre[0] + up[0] * (half + gap), centre[1] + up[1] * (half + gap)]);
    const stem = document.createElementNS(SVG, 'line');
    stem.setAttribute('class', 'label-stem');
    stem.setAttribute('x1', top.x); stem.setAttribute('y1', top.y);
    stem.setAttribute('x2', handlePoint.x); stem.setAttribute('y2', handlePoint.y);
    const handle = document.createElementNS(SVG, 'circle');
    handle.setAttribute('class', 'label-rotate');
    handle.setAttribute('r', 6);
    handle.setAttribute('cx', handlePoint.x); handle.setAttribute('cy', handlePoint.y);
    handle.setAttribute('aria-label', 'rotation handle: drag to turn the label');
    group.append(box, stem, handle);
    if (a.AnchorX != null && a.AnchorY != null) {
      const anchor = px([a.AnchorX, a.AnchorY]);
      const dot = document.createElementNS(SVG, 'circle');
      dot.setAttribute('class', 'label-anchor');
      dot.setAttribute('r', 2.5);
      dot.setAttribute('cx', anchor.x); dot.setAttribute('cy', anchor.y);
      group.append(dot);
    }
    svg.append(group);
    if (!editable(selected.layer)) { group.classList.add('read-only'); return; }
    box.addEventListener('pointerdown', ev => begin(ev, 'move'));
    handle.addEventListener('pointerdown', ev => begin(ev, 'turn'));
    // Not a tap on the map: the selection's own gestures.
    for (const element of [box, handle]) {
      for (const type of ['mousedown', 'click', 'dblclick', 'touchstart']) element.addEventListener(type, ev => ev.stopPropagation());
    }
  }

  // The text drawn for the selected row by the core (MapPageAssets' drawAnnotation).
  function drawnText() {
    if (!selected) return null;
    return Array.from(document.querySelectorAll('#annotation text')).find(t =>
      t.getAttribute('data-layer') === selected.layer.name && t.getAttribute('data-oid') === String(oidOf(selected)));
  }

  function begin(ev, kind) {
    if (!selected || (ev.pointerType === 'mouse' && ev.button !== 0)) return;
    const a = selected.feature.attributes;
    if (a.AnchorX == null || a.AnchorY == null) { annolink.showError('this label has no anchor to move or turn about'); return; }
    ev.preventDefault();
    ev.stopPropagation();
    map.dragging.disable();
    try { ev.target.setPointerCapture(ev.pointerId); } catch (e) { /* a synthetic event has no capture */ }
    const text = drawnText();
    drag = { kind: kind, pointerId: ev.pointerId, start: map.mouseEventToLatLng(ev), startPx: map.mouseEventToLayerPoint(ev),
      anchor: [a.AnchorX, a.AnchorY], angle: a.Angle || 0, value: null, text: text, textTransform: text ? text.getAttribute('transform') || '' : '' };
  }

  function preview(ev) {
    const latlng = map.mouseEventToLatLng(ev);
    const group = document.getElementById('label-selection');
    if (drag.kind === 'move') {
      drag.value = { dx: latlng.lng - drag.start.lng, dy: latlng.lat - drag.start.lat };
      const p = map.mouseEventToLayerPoint(ev);
      const shift = 'translate(' + (p.x - drag.startPx.x) + ' ' + (p.y - drag.startPx.y) + ')';
      if (group) group.setAttribute('transform', shift);
      if (drag.text) drag.text.setAttribute('transform', (shift + ' ' + drag.textTransform).trim());
    } else {
      const from = Math.atan2(drag.start.lat - drag.anchor[1], drag.start.lng - drag.anchor[0]);
      const to = Math.atan2(latlng.lat - drag.anchor[1], latlng.lng - drag.anchor[0]);
      // Whole degrees: a hand does not place a label to a hundredth of a degree.
      drag.value = normalized(Math.round(drag.angle + (to - from) * 180 / Math.PI));
      const centre = map.latLngToLayerPoint([drag.anchor[1], drag.anchor[0]]);
      const turn = -(drag.value - drag.angle);
      if (group) group.setAttribute('transform', 'rotate(' + turn + ' ' + centre.x + ' ' + centre.y + ')');
      if (drag.text) drag.text.setAttribute('transform', 'rotate(' + (-drag.value) + ' ' + centre.x + ' ' + centre.y + ')');
    }
    body.dataset.labelDrag = JSON.stringify(drag.value);
  }

  function finish(ev, cancelled) {
    const done = drag;
    drag = null;
    map.dragging.enable();
    if (done.value === null || cancelled) { draw(); if (done.text) done.text.setAttribute('transform', done.textTransform); return; }
    if (done.kind === 'move') {
      if (done.value.dx === 0 && done.value.dy === 0) { draw(); return; }
      edit({ AnchorX: done.anchor[0] + done.value.dx, AnchorY: done.anchor[1] + done.value.dy }, 'moved');
    } else {
      if (done.value === normalized(done.angle)) { draw(); if (done.text) done.text.setAttribute('transform', done.textTransform); return; }
      edit({ Angle: done.value }, 'turned');
    }
  }
  document.addEventListener('pointermove', ev => { if (drag && ev.pointerId === drag.pointerId) preview(ev); });
  document.addEventListener('pointerup', ev => { if (drag && ev.pointerId === drag.pointerId) { preview(ev); finish(ev, false); } });
  document.addEventListener('pointercancel', ev => { if (drag && ev.pointerId === drag.pointerId) finish(ev, true); });
  document.addEventListener('keydown', ev => {
    if (ev.key !== 'Escape' || !selected) return;
    if (drag) { finish(ev, true); return; }
    deselect();
  });

  // One edit of the selected label: an applyEdits update of its layer (one journal entry).
  async function edit(attributes, verb) {
    const target = selected;
    try {
      await annolink.applyEdit(target.layer, { attributes: Object.assign({ [target.layer.objectIdField]: oidOf(target) }, attributes) });
      await annolink.refresh();
      annolink.message(verb + ' label ' + target.layer.name + ' ' + oidOf(target));
    } catch (err) {
      annolink.showError(annolink.describe(err));
      draw();
    } finally {
      body.dataset.labelEdits = String(Number(body.dataset.labelEdits || 0) + 1);
    }
  }

  // A reset to the rules: the edit service's PlaceAnnotation over POST /annotation/place.
  async function reset() {
    const target = selected;
    try {
      const form = new URLSearchParams({ table: target.layer.name, fid: String(oidOf(target)), reset: 'true' });
      await annolink.answer(await annolink.fetch(PLACE, { method: 'POST', body: form,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' } }));
      for (const hook of annolink.afterEdit) await hook();
      await annolink.refresh();
      annolink.message('reset label ' + target.layer.name + ' ' + oidOf(target) + ' to the rules');
    } catch (err) {
      annolink.showError(annolink.describe(err));
    } finally {
      body.dataset.labelEdits = String(Number(body.dataset.labelEdits || 0) + 1);
    }
  }

  // The selected label's panel: its text to retype, what was set by hand, Reset to rules,
  // Unplaced (or Placed), Close.
  const panel = document.createElement('form');
  panel.id = 'label-panel';
  panel.hidden = true;
  panel.setAttribute('aria-label', 'the selected label');
  body.append(panel);
  panel.addEventListener('submit', ev => {
    ev.preventDefault();
    if (!selected) return;
    const input = panel.querySelector('input[name="TextString"]');
    const text = input.value;
    if (!text.trim()) { annolink.showError(selected.layer.name + '.TextString: a label\'s text may not be empty or blank'); return; }
    if (text === selected.feature.attributes.TextString) { annolink.message('nothing changed'); return; }
    edit({ TextString: text }, 'retyped');
  });

  function fillPanel() {
    if (!selected) { panel.hidden = true; return; }
    const a = selected.feature.attributes;
    const typing = document.activeElement && panel.contains(document.activeElement) && document.activeElement.name === 'TextString';
    const old = panel.querySelector('input[name="TextString"]');
    const kept = typing && old && old.value !== old.dataset.original ? old.value : null;
    while (panel.firstChild) panel.firstChild.remove();
    const title = document.createElement('div');
    title.innerHTML = '<b></b>';
    title.firstChild.textContent = 'label ' + selected.layer.name + ' ' + oidOf(selected);
    const label = document.createElement('label');
    label.textContent = 'Text ';
    const input = document.createElement('input');
    input.name = 'TextString';
    input.value = kept != null ? kept : a.TextString;
    input.dataset.original = a.TextString;
    input.setAttribute('aria-label', 'the label\'s text');
    label.append(input);
    const facts = document.createElement('div');
    facts.className = 'facts';
    const bits = a.Override || 0;
    const byHand = [[1, 'position'], [2, 'angle'], [4, 'text']].filter(b => bits & b[0]).map(b => b[1]);
    facts.textContent = 'angle ' + Number(a.Angle || 0).toFixed(2) + '°, ' + (a.Status === 1 ? 'unplaced' : 'placed') +
      (byHand.length ? ', set by hand: ' + byHand.join(', ') : ', placed by the rules');
    const buttons = document.createElement('div');
    buttons.className = 'buttons';
    const button = (name, text, onclick, type) => {
      const b = document.createElement('button');
      b.type = type || 'button';
      b.name = name;
      b.textContent = text;
      if (onclick) b.onclick = onclick;
      buttons.append(b);
      return b;
    };
    const update = button('retext', 'Update text', null, 'submit');
    const resetButton = button('reset', 'Reset to rules', () => reset());
    const status = button('status', a.Status === 1 ? 'Placed' : 'Unplaced',
      () => edit({ Status: a.Status === 1 ? 0 : 1 }, a.Status === 1 ? 'marked placed' : 'marked unplaced'));
    button('close', 'Close', () => deselect());
    panel.append(title, label, facts, buttons);
    if (!editable(selected.layer)) {
      input.disabled = update.disabled = resetButton.disabled = status.disabled = true;
      const note = document.createElement('div');
      note.className = 'read-only';
      note.textContent = 'read only';
      panel.append(note);
    }
    panel.hidden = false;
    if (typing) input.focus();
  }
});