'use strict';
// annolink map editor: the reticle and vertex tools. Every gesture is an action of a sketch
// session on the server (/sketch/sessions, Swift's GeometryEditor, as `annolink sketch`);
// the page draws the state each answer carries: the geometry, the selected, hovered and
// picked-up elements, the button's label. No editing rule lives here. docs/editor.md.
document.addEventListener('annolink:ready', event => {
  const annolink = event.detail;
  const map = annolink.map;
  const SESSIONS = 'sketch/sessions';
  const TYPES = { point: 'esriGeometryPoint', multipoint: 'esriGeometryMultipoint', polyline: 'esriGeometryPolyline', polygon: 'esriGeometryPolygon' };
  let session = null;          // the server's last answer while a session is open
  let queue = Promise.resolve();
  let pending = 0, answers = 0;
  let picking = false;         // "Edit shape" waits for the tap on a feature
  let draggedAt = 0;           // when a vertex drag ended: the click that follows is not a tap
  const inertia = map.options.inertia;
  // How the map zooms (around the pointer, by default): while the reticle is up a pinch, the
  // wheel and a double tap zoom around the centre, so what is under the crosshair stays there.
  const ZOOMS = ['touchZoom', 'scrollWheelZoom', 'doubleClickZoom'];
  const zoomAround = Object.fromEntries(ZOOMS.map(k => [k, map.options[k]]));
  function zoomAroundCentre(yes) { for (const k of ZOOMS) map.options[k] = yes && zoomAround[k] ? 'center' : zoomAround[k]; }
  // A finger is wider than a mouse pointer: vertices are drawn larger where it is the pointer.
  const coarse = window.matchMedia('(pointer: coarse)');

  function element(tag, props, text) {
    const e = document.createElement(tag);
    Object.assign(e, props || {});
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function button(id, text, title) {
    const b = element('button', { type: 'button', id: id, title: title || text }, text);
    return b;
  }

  // The toolbar: a layer and New point / line / polygon, Edit shape; while a session is open,
  // the tool switch, the reticle's one button, Delete vertex, Undo, Redo, Save, Cancel.
  const panel = element('div', { id: 'sketch' });
  panel.setAttribute('role', 'group');
  panel.setAttribute('aria-label', 'sketch');
  const layerSelect = element('select', { id: 'sketch-layer' });
  layerSelect.setAttribute('aria-label', 'layer to sketch in');
  for (const layer of annolink.featureLayers) {
    const option = element('option', { value: layer.name }, layer.name);
    option.dataset.geometryType = layer.geometryType;
    layerSelect.append(option);
  }
  const startRow = element('div', { className: 'sketch-row' });
  const newButtons = ['point', 'polyline', 'polygon'].map(type =>
    button('sketch-new-' + type, 'New ' + (type === 'polyline' ? 'line' : type), 'Draw a new ' + type + ' in the chosen layer'));
  newButtons.forEach((b, i) => {
    b.onclick = () => {
      const option = layerSelect.selectedOptions[0];
      const multipoint = option && option.dataset.geometryType === 'esriGeometryMultipoint';
      begin({ type: i === 0 && multipoint ? 'multipoint' : ['point', 'polyline', 'polygon'][i] });
    };
  });
  const editButton = button('sketch-edit', 'Edit shape', 'Tap a feature to reshape it');
  editButton.onclick = () => {
    picking = !picking;
    editButton.setAttribute('aria-pressed', String(picking));
    annolink.message(picking ? 'tap the feature whose shape to edit' : '');
  };
  startRow.append(layerSelect, ...newButtons, editButton);
  // Only what the chosen layer's geometry allows: a point layer has New point alone (a
  // multipoint layer's New point starts a multipoint), a line layer New line, a polygon
  // layer New polygon; a layer that takes any geometry all three.
  const ALLOWED = { esriGeometryPoint: ['point'], esriGeometryMultipoint: ['point'], esriGeometryPolyline: ['polyline'],
    esriGeometryPolygon: ['polygon'] };
  function offerTypes() {
    const option = layerSelect.selectedOptions[0];
    const allowed = (option && ALLOWED[option.dataset.geometryType]) || ['point', 'polyline', 'polygon'];
    ['point', 'polyline', 'polygon'].forEach((type, i) => { newButtons[i].hidden = !allowed.includes(type); });
  }
  layerSelect.addEventListener('change', offerTypes);
  offerTypes();
  const editRow = element('div', { className: 'sketch-row', hidden: true });
  const reticleTool = button('sketch-tool-reticle', 'Reticle', 'Reticle tool: move the map under the crosshair');
  const vertexTool = button('sketch-tool-vertex', 'Vertex', 'Vertex tool: tap to select, drag vertices and mid-vertices');
  reticleTool.onclick = () => act({ action: 'tool', tool: 'reticle' });
  vertexTool.onclick = () => act({ action: 'tool', tool: 'vertex' });
  const mainButton = button('sketch-button', 'Insert point', 'The reticle button: its label says what it does (Enter or Space on the map)');
  mainButton.setAttribute('aria-keyshortcuts', 'Enter Space');
  mainButton.onclick = () => act({ action: 'button' });
  const deleteButton = button('sketch-delete', 'Delete vertex', 'Delete the selected vertex (Delete on the map)');
  deleteButton.setAttribute('aria-keyshortcuts', 'Delete');
  deleteButton.onclick = () => act({ action: 'delete' });
  const undoButton = button('sketch-undo', 'Undo', 'Undo the sketch\'s last step (Ctrl+Z): nothing is written until Save');
  undoButton.setAttribute('aria-keyshortcuts', 'Control+Z');
  undoButton.onclick = () => act({ action: 'undo' });
  const redoButton = button('sketch-redo', 'Redo', 'Redo the sketch\'s step undone (Ctrl+Shift+Z or Ctrl+Y)');
  redoButton.setAttribute('aria-keyshortcuts', 'Control+Shift+Z Control+Y');
  redoButton.onclick = () => act({ action: 'redo' });
  const saveButton = button('sketch-save', 'Save', 'Write the sketch to the file (one edit, undoable with annolink undo)');
  saveButton.onclick = () => save();
  const cancelButton = button('sketch-cancel', 'Cancel', 'End the sketch without writing');
  cancelButton.onclick = () => cancel();
  const status = element('div', { id: 'sketch-status' });
  status.setAttribute('aria-live', 'polite');
  editRow.append(reticleTool, vertexTool, mainButton, deleteButton, undoButton, redoButton, saveButton, cancelButton, status);
  // A new feature's fields, given before it is saved (the popup's inputs; blank ones are left
  // empty, as the service leaves them), folded away until opened so that the map stays in view.
  const fieldsRow = element('div', { className: 'sketch-row', id: 'sketch-fields', hidden: true });
  const fieldsFold = element('details');
  const fieldsSummary = element('summary', { id: 'sketch-fields-open' }, 'Fields of the new feature');
  const fieldsList = element('div', { className: 'sketch-fields-list' });
  fieldsList.setAttribute('role', 'group');
  fieldsList.setAttribute('aria-label', 'fields of the new feature');
  fieldsFold.append(fieldsSummary, fieldsList);
  fieldsRow.append(fieldsFold);
  panel.append(startRow, editRow, fieldsRow);
  annolink.tools.append(panel);

  // The crosshair, fixed at the centre of the map: the map moves under it.
  const reticle = element('div', { id: 'sketch-reticle', hidden: true });
  map.getContainer().append(reticle);

  // The sketch, drawn in a pane of its own above the features and the annotation.
  map.createPane('sketch').style.zIndex = 620;
  const renderer = L.svg({ pane: 'sketch' });
  const drawing = L.layerGroup().addTo(map);

  // What the map shows, as the server's MapViewport takes it: the centre, the scale 1:N (a
  // CSS pixel is 1/96 inch) and the size in CSS pixels.
  function view() {
    const c = map.getCenter(), size = map.getSize();
    return { center: [c.lng, c.lat], scale: Math.pow(2, -map.getZoom()) * annolink.metresPerUnit / 0.0254 * 96,
      width: size.x, height: size.y };
  }

  // One request to the sketch routes, in order after the ones before it.
  function request(method, path, body) {
    const run = async () => {
      document.body.dataset.sketchPending = String(++pending);
      try {
        const init = { method: method, headers: { 'Content-Type': 'application/json' } };
        if (body) init.body = JSON.stringify(typeof body === 'function' ? body() : body);
        // With the tab's token; a refusal is an Error with `status` and the server's `detail`.
        return await annolink.answer(await annolink.fetch(SESSIONS + path, init));
      } finally {
        document.body.dataset.sketchPending = String(--pending);
      }
    };
    const result = queue.then(run, run);
    queue = result.catch(() => {});
    return result;
  }

  function report(error, quiet) {
    if (quiet && error.status === 409) annolink.message(error.detail || error.message);
    else annolink.showError('sketch: ' + error.message);
  }

  async function begin(options) {
    if (session) { annolink.showError('sketch: a sketch is open: save or cancel it first'); return; }
    picking = false;
    editButton.setAttribute('aria-pressed', 'false');
    const body = Object.assign({ table: options.table || layerSelect.value, tool: 'reticle' }, options);
    try {
      show(await request('POST', '', () => Object.assign(body, { view: view() })));
    } catch (error) { report(error); }
  }

  // An action of the open session; the map's view goes with it, so the server's reticle is
  // the centre of what the page shows.
  async function act(body, quiet) {
    if (!session) return;
    const id = session.id;
    try {
      show(await request('POST', '/' + id + '/actions', () => Object.assign({ view: view() }, body)));
    } catch (error) {
      if (error.status === 404) end();
      report(error, quiet);
    }
  }

  // The fields typed for a new feature, as the save request's `values` (dates as ISO 8601
  // text, which the service stores as the column does); throws on a value that does not fit.
  function newFeatureValues() {
    if (fieldsRow.hidden) return {};
    const layer = annolink.featureLayers.find(l => l.name === session.table);
    const values = annolink.changedAttributes(layer, fieldsList);
    for (const input of fieldsList.querySelectorAll('input[name]')) {
      if (input.dataset.type === 'esriFieldTypeDate' && typeof values[input.name] === 'number') {
        values[input.name] = new Date(values[input.name]).toISOString();
      }
    }
    return values;
  }

  function showFields(state) {
    const layer = annolink.featureLayers.find(l => l.name === state.table);
    if (state.fid !== null || !layer) { fieldsRow.hidden = true; return; }
    if (fieldsRow.dataset.table === state.table && !fieldsRow.hidden) return;
    fieldsList.replaceChildren();
    for (const field of layer.fields || []) {
      const input = annolink.fieldInput(layer, field, null);
      if (!input) continue;
      input.id = 'sketch-field-' + field.name;
      const label = element('label', { htmlFor: input.id }, (field.alias || field.name) + ' ');
      label.append(input);
      fieldsList.append(label);
    }
    fieldsFold.open = false;
    fieldsRow.dataset.table = state.table;
    fieldsRow.hidden = !fieldsList.childElementCount;
  }

  async function save() {
    if (!session) return;
    let values;
    try {
      values = newFeatureValues();
    } catch (error) {
      annolink.showError('sketch: ' + error.message);
      return;
    }
    try {
      const answer = await request('POST', '/' + session.id + '/save', Object.keys(values).length ? { values: values } : {});
      const r = answer.result;
      end();
      annolink.message('saved: ' + (r.edit === 'add' ? 'added ' : 'reshaped ') + r.table + ' ' + r.fid +
        (r.journalEntry ? ' (journal entry ' + r.journalEntry + ')' : ''));
      document.body.dataset.sketchSaved = JSON.stringify(r);
      await annolink.refresh();
    } catch (error) {
      if (error.status === 404) end();
      report(error);
    }
  }

  async function cancel() {
    if (!session) return;
    const id = session.id;
    try {
      await request('DELETE', '/' + id);
      annolink.message('sketch cancelled; nothing was written');
    } catch (error) {
      if (error.status !== 404) report(error);
    }
    end();
  }

  // One undo in view at a time: while a sketch is open its Undo and Redo (and Ctrl+Z,
  // Ctrl+Shift+Z, Ctrl+Y) are the sketch's, and the journal's are put away until it closes
  // (the live module listens for 'annolink:sketch'). docs/editor.md, "Sketching".
  function announce(open) {
    if (annolink.sketchOpen === open) return;
    annolink.sketchOpen = open;
    document.body.dataset.sketchOpen = String(open);
    document.dispatchEvent(new CustomEvent('annolink:sketch', { detail: { open: open } }));
  }
  annolink.sketchOpen = false;
  document.addEventListener('keydown', ev => {
    if (!session || !(ev.ctrlKey || ev.metaKey) || ev.altKey) return;
    if (ev.target && (ev.target.tagName === 'INPUT' || ev.target.tagName === 'TEXTAREA' || ev.target.isContentEditable)) return;
    const key = ev.key.toLowerCase();
    const redo = (key === 'z' && ev.shiftKey) || key === 'y';
    if (key !== 'z' && !redo) return;
    ev.preventDefault();
    ev.stopImmediatePropagation();
    if (!ev.repeat && !(redo ? redoButton : undoButton).disabled) act({ action: redo ? 'redo' : 'undo' });
  });

  function end() {
    session = null;
    announce(false);
    drawing.clearLayers();
    reticle.hidden = true;
    editRow.hidden = true;
    fieldsRow.hidden = true;
    fieldsList.replaceChildren();
    delete fieldsRow.dataset.table;
    startRow.hidden = false;
    map.options.inertia = inertia;
    zoomAroundCentre(false);
    document.body.dataset.sketchTool = '';
  }

  // Draws a state the server answered.
  function show(state) {
    session = state;
    announce(true);
    answers += 1;
    const reticleMode = state.tool === 'reticle';
    startRow.hidden = true;
    editRow.hidden = false;
    showFields(state);
    reticle.hidden = !reticleMode;
    // Placing with the reticle wants the map to stop where the hand leaves it.
    map.options.inertia = reticleMode ? false : inertia;
    zoomAroundCentre(reticleMode);
    reticle.classList.toggle('hovering', !!state.hovered && (state.hovered.kind === 'vertex' || state.hovered.kind === 'midVertex'));
    reticle.classList.toggle('carrying', !!state.pickedUp);
    reticleTool.setAttribute('aria-pressed', String(reticleMode));
    vertexTool.setAttribute('aria-pressed', String(!reticleMode));
    mainButton.hidden = !reticleMode;
    mainButton.textContent = state.button || '';
    deleteButton.disabled = !(state.selected && state.selected.canBeDeleted);
    undoButton.disabled = !state.canUndo;
    redoButton.disabled = !state.canRedo;
    saveButton.disabled = !state.valid || !!state.pickedUp;
    const count = state.parts.reduce((n, p) => n + p.length, 0);
    status.textContent = state.type + ' (' + (state.fid === null ? 'new in ' + state.table : state.table + ' ' + state.fid) + '), ' +
      count + (count === 1 ? ' vertex' : ' vertices') +
      ' · selected: ' + (state.selected ? state.selected.description : 'none') +
      ' · hovered: ' + (state.hovered ? state.hovered.description : 'none') +
      ' · picked up: ' + (state.pickedUp ? state.pickedUp.description : 'none');
    if (state.message) annolink.message(state.message);
    // The server moved the view (a tap in the reticle tool centres on the vertex): follow it.
    const c = map.getCenter();
    if (state.view.center[0] !== c.lng || state.view.center[1] !== c.lat) {
      map.setView([state.view.center[1], state.view.center[0]], map.getZoom(), { animate: false });
    }
    draw(state);
    document.body.dataset.sketchTool = state.tool;
    document.body.dataset.sketchVersion = String(answers);
  }

  // Whether the element `a` the server named is the one `b` (kind and indices) describes.
  function same(a, b) { return !!a && Object.keys(b).every(k => a[k] === b[k]); }

  function draw(state) {
    drawing.clearLayers();
    const latlngs = part => part.map(p => [p[1], p[0]]);
    // The outline: the drop preview while something is picked up, else the geometry.
    const parts = state.preview || state.parts;
    const line = { renderer: renderer, color: '#c30', weight: 2, interactive: false };
    if (state.type === 'polyline') parts.forEach(p => drawing.addLayer(L.polyline(latlngs(p), line)));
    if (state.type === 'polygon') parts.forEach(p => drawing.addLayer(L.polygon(latlngs(p), Object.assign({ fillOpacity: 0.08 }, line))));
    const vertexMode = state.tool === 'vertex';
    const marker = (point, kind, attributes, grow) => {
      const mid = kind === 'midVertex';
      const selected = same(state.selected, attributes);
      const m = L.circleMarker([point[1], point[0]], { renderer: renderer, radius: (mid ? 3.5 : 5) * (grow ? 1.6 : 1) * (coarse.matches ? 1.8 : 1),
        color: mid ? '#777' : '#c30', weight: 1.5, fillColor: selected ? '#c30' : '#fff', fillOpacity: 1, interactive: vertexMode });
      drawing.addLayer(m);
      const path = m.getElement();
      if (path) {
        path.classList.add('sketch-' + kind);
        if (selected) path.classList.add('sketch-selected');
        if (grow) path.classList.add('sketch-hovered');
        path.dataset.part = attributes.part;
        path.dataset[mid ? 'segment' : 'vertex'] = mid ? attributes.segment : attributes.vertex;
      }
      if (vertexMode && path) path.addEventListener('pointerdown', ev => startDrag(ev, m));
      return m;
    };
    // While a vertex is carried the mid-vertices of the old outline would mislead: not drawn.
    if (!state.pickedUp) state.midVertices.forEach(m => marker(m.point, 'midVertex', { kind: 'midVertex', part: m.part, segment: m.segment },
      same(state.hovered, { kind: 'midVertex', part: m.part, segment: m.segment })));
    state.parts.forEach((part, p) => part.forEach((point, v) => {
      const attributes = { kind: 'vertex', part: p, vertex: v };
      if (!same(state.pickedUp, attributes)) marker(point, 'vertex', attributes, same(state.hovered, attributes));
    }));
  }

  // Vertex tool: a drag from a vertex or mid-vertex is the tool's drag, from where the pointer
  // went down to where it came up, in the map's screen points; a press without a move is a
  // tap. Pointer Events, so a mouse, a finger and a pen take the one path.
  function startDrag(ev, marker) {
    if (!session || session.tool !== 'vertex' || !ev.isPrimary || (ev.pointerType === 'mouse' && ev.button !== 0)) return;
    // Neither the map's drag (stopPropagation) nor the mouse events a browser makes from a
    // touch (preventDefault) see this press.
    ev.stopPropagation();
    ev.preventDefault();
    const from = map.mouseEventToContainerPoint(ev);
    map.dragging.disable();
    const id = ev.pointerId;
    const move = e => { if (e.pointerId === id) marker.setLatLng(map.mouseEventToLatLng(e)); };
    const finish = e => {
      if (e.pointerId !== id) return;
      document.removeEventListener('pointermove', move);
      document.removeEventListener('pointerup', finish);
      document.removeEventListener('pointercancel', finish);
      map.dragging.enable();
      if (e.type === 'pointercancel') { if (session) draw(session); return; }
      const to = map.mouseEventToContainerPoint(e);
      if (from.distanceTo(to) < 3) return;   // the click that follows is the tap
      draggedAt = Date.now();
      act({ action: 'drag', from: [from.x, from.y], to: [to.x, to.y] });
    };
    document.addEventListener('pointermove', move);
    document.addEventListener('pointerup', finish);
    document.addEventListener('pointercancel', finish);
  }

  // Taps: "Edit shape" takes the feature under the finger; while sketching every tap is the
  // session's (the vertex tool's tap, or the reticle tool's select-and-centre).
  annolink.tapHandlers.push(async e => {
    if (picking) {
      picking = false;
      editButton.setAttribute('aria-pressed', 'false');
      const hit = await featureAt(e.latlng);
      if (!hit) { annolink.message('no feature within 10 pixels of the tap'); return true; }
      await begin({ table: hit.layer.name, fid: hit.fid, type: undefined });
      return true;
    }
    if (!session) return false;
    // The core's keyboard tap (Enter or Space on the map): in the reticle tool those keys
    // press the reticle button (the keydown handler below), so the tap is not the session's.
    if (e.keyboard && session.tool === 'reticle') return true;
    if (Date.now() - draggedAt < 500) return true;
    const p = e.containerPoint;
    await act({ action: 'tap', at: [p.x, p.y] }, true);
    return true;
  });

  // The feature under a tap: points first, then lines, then polygons, as the popup's tap.
  async function featureAt(latlng) {
    const tolerance = 10 / Math.pow(2, map.getZoom());
    for (const layer of annolink.featureLayers.filter(annolink.isVisible)) {
      const found = await annolink.get('/' + layer.id + '/query', { where: '1=1', geometry: latlng.lng + ',' + latlng.lat,
        geometryType: 'esriGeometryPoint', spatialRel: 'esriSpatialRelIntersects', distance: String(tolerance),
        outFields: layer.objectIdField, returnGeometry: 'false' });
      if (found.features.length) return { layer: layer, fid: found.features[0].attributes[layer.objectIdField] };
    }
    return null;
  }

  // The reticle's hover follows the map: each view it comes to rest on is sent.
  map.on('moveend', () => { if (session) act({ action: 'view' }, true); });
  map.on('resize', () => { if (session) act({ action: 'view' }, true); });
  // Keys. Escape puts a picked-up vertex back. On the map (focused: Tab, or a tap on it; the
  // arrow keys move it under the reticle) Enter or Space presses the reticle button and
  // Delete deletes the selected vertex, so the whole reticle workflow needs no pointer.
  document.addEventListener('keydown', ev => {
    if (!session) return;
    if (ev.key === 'Escape' && session.pickedUp) { act({ action: 'cancel' }); return; }
    if (ev.target !== map.getContainer() || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    if ((ev.key === 'Enter' || ev.key === ' ') && session.tool === 'reticle') {
      ev.preventDefault();
      if (!ev.repeat) act({ action: 'button' });
    } else if (ev.key === 'Delete' && !deleteButton.disabled) {
      ev.preventDefault();
      act({ action: 'delete' });
    }
  });

  // On a phone the panel sits on the status bar (--annolink-bar-height), which wraps and
  // grows with its content and with a finger's larger buttons: its height is measured, so
  // the panel never covers Full extent or the scale box.
  const bar = document.getElementById('bar');
  function measureBar() { document.documentElement.style.setProperty('--annolink-bar-height', bar.offsetHeight + 'px'); }
  if (bar) {
    measureBar();
    if (window.ResizeObserver) new ResizeObserver(measureBar).observe(bar);
  }

  // For the console and the browser tests.
  window.annolinkSketch = { get state() { return session; }, act: act, begin: begin, save: save, cancel: cancel, types: TYPES };
});