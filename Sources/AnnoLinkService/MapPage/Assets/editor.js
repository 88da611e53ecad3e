'use strict';
// annolink map editor: Leaflet in the data's own projected CRS, features and annotation fetched
// per view through the FeatureServer, edits through applyEdits. docs/editor.md.
(function () {
  const service = document.body.dataset.service;
  const statusBox = document.getElementById('status');
  const messageBox = document.getElementById('message');
  const scaleInput = document.getElementById('scale');
  const errorsBox = document.getElementById('errors');
  const metresPerUnitByName = { esriFeet: 1200 / 3937, esriMeters: 1 };
  const TAP_TOLERANCE_PX = 10;
  const TOKEN_KEY = 'annolink.token';
  const FLIGHT_SECONDS = 0.6;

  // A red banner over the map until dismissed; one of kind 'view' (a view that could not be
  // drawn) also goes when a later view is drawn (finishView).
  function showError(message, kind) {
    const box = document.createElement('div');
    box.className = 'error';
    if (kind) box.dataset.kind = kind;
    const close = document.createElement('button');
    close.type = 'button';
    close.textContent = '×';
    close.setAttribute('aria-label', 'dismiss this message');
    close.onclick = () => box.remove();
    box.append(close, document.createTextNode(String(message)));
    errorsBox.append(box);
  }

  function describe(error) {
    if (!error) return 'unknown error';
    let text = error.message || error.description || String(error);
    if (error.details && error.details.length) text += ': ' + error.details.join('; ');
    return text;
  }

  // The token of this tab (sessionStorage: it goes when the tab does), sent as a Bearer
  // header so it never appears in a URL.
  function token() {
    try { return sessionStorage.getItem(TOKEN_KEY) || ''; } catch (e) { return ''; }
  }
  function authorized(init) {
    const t = token();
    const copy = Object.assign({}, init || {});
    if (t) copy.headers = Object.assign({}, copy.headers || {}, { Authorization: 'Bearer ' + t });
    return copy;
  }
  function request(url, init) { return fetch(url, authorized(init)); }

  // What a refusal of the caller means, in words a user can act on; the token form opens.
  function accessRefusal(code, text) {
    // A problem document's 401 is Esri's 498 with a token and its 499 without one.
    const hint = code === 498 || (code === 401 && token()) ? 'the token is not valid on this server: enter another with "Token"'
      : code === 499 || code === 401 ? 'this needs a token: enter one with "Token"'
      : code === 403 ? (token() ? 'your token does not allow this' : 'this needs a token that allows it: enter one with "Token"')
      : null;
    if (!hint) return null;
    if (code !== 403 || !token()) openTokenForm();
    return text + ' (' + code + ') — ' + hint;
  }

  // A response's JSON, or an Error saying why not: with a hint for a refusal of the caller,
  // the status (Esri's error code) in `status` and the server's own words in `detail`.
  async function answer(response) {
    const text = await response.text();
    const refused = (message, status, detail) => Object.assign(new Error(message), { status: status, detail: detail });
    let json;
    try { json = JSON.parse(text); } catch (e) {
      throw refused(accessRefusal(response.status, 'HTTP ' + response.status) || 'HTTP ' + response.status + ': ' + text.slice(0, 200),
        response.status, text.slice(0, 200));
    }
    if (json.error) throw refused(accessRefusal(json.error.code, describe(json.error)) || describe(json.error), json.error.code, describe(json.error));
    if (!response.ok) {
      const detail = json.detail || text.slice(0, 200);
      throw refused(accessRefusal(response.status, detail) || 'HTTP ' + response.status + ': ' + detail, response.status, detail);
    }
    return json;
  }

  // Requests in flight, on the body for tests to wait on.
  let pending = 0;
  async function counted(send) {
    document.body.dataset.pending = String(++pending);
    try { return answer(await send()); } finally { document.body.dataset.pending = String(--pending); }
  }

  async function get(path, params) {
    const query = new URLSearchParams(Object.assign({ f: 'json' }, params || {}));
    return counted(() => request(service + path + '?' + query.toString()));
  }

  async function post(path, params) {
    const body = new URLSearchParams(Object.assign({ f: 'json' }, params));
    return counted(() => request(service + path, { method: 'POST', body: body,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' } }));
  }

  // The token form: "Token" shows it; "Use" keeps the token for this tab and reloads the page
  // (the layers' editing capabilities depend on it), "Forget" drops it.
  const tokenButton = document.getElementById('token-button');
  const tokenForm = document.getElementById('token-form');
  const tokenInput = document.getElementById('token');
  function openTokenForm() {
    tokenForm.hidden = false;
    tokenButton.setAttribute('aria-expanded', 'true');
  }
  tokenButton.onclick = () => {
    tokenForm.hidden = !tokenForm.hidden;
    tokenButton.setAttribute('aria-expanded', String(!tokenForm.hidden));
    if (!tokenForm.hidden) tokenInput.focus();
  };
  tokenForm.addEventListener('submit', ev => {
    ev.preventDefault();
    const value = tokenInput.value.trim();
    if (!value) { showError('token: enter the token the server\'s token file gives you'); return; }
    try { sessionStorage.setItem(TOKEN_KEY, value); } catch (e) { showError('this browser keeps no session storage: ' + e); return; }
    location.reload();
  });
  document.getElementById('token-forget').onclick = () => {
    try { sessionStorage.removeItem(TOKEN_KEY); } catch (e) { /* nothing kept */ }
    location.reload();
  };

  // Who the server takes this tab to be (GET /health): shown in the bar and the token button.
  async function checkCaller() {
    let health;
    try { health = await answer(await request('health')); } catch (e) { return null; }
    let caller = health.caller || {};
    if (caller.invalidToken) {
      showError('the token kept in this tab is not valid on this server (401) — it was forgotten: enter another with "Token"');
      try { sessionStorage.removeItem(TOKEN_KEY); } catch (e) { /* nothing kept */ }
      openTokenForm();
      health = await answer(await request('health'));
      caller = health.caller || {};
    }
    if (caller.user) {
      tokenButton.textContent = 'Token: ' + caller.user;
      messageBox.textContent = 'signed in as ' + caller.user + (caller.mayEdit && !health.readOnly ? '' : ' (read only)');
    } else if (health.readOnly) {
      messageBox.textContent = 'the server is read-only';
    } else if (!caller.mayEdit) {
      messageBox.textContent = 'read only without a token: "Token" to edit';
    }
    return Object.assign({ readOnly: health.readOnly }, caller);
  }

  // The layers of the service, with their resources; filled by start().
  const featureLayers = [];
  const annotationLayers = [];
  let metresPerUnit = 1;
  let map;
  let extent;
  let generation = 0;
  const drawn = new Map();      // layer id -> Leaflet layer group of its features
  let annotationRows = [];      // {layer, attributes} of every annotation row in view
  let svg;
  let moving = null;            // {layer, oid} while "Move" waits for its tap

  // Layer visibility (the layer list, MapPageLayers, shows and changes it): the names of the
  // hidden layers, kept per dataset in the browser's localStorage. A hidden layer is not
  // fetched nor drawn, and a tap does not identify it.
  const HIDDEN_KEY = 'annolink.hidden.' + document.body.dataset.dataset;
  const hidden = new Set((() => {
    try { return JSON.parse(localStorage.getItem(HIDDEN_KEY) || '[]'); } catch (e) { return []; }
  })());
  function isVisible(layer) { return !hidden.has(layer.name); }
  async function setVisible(layer, visible) {
    if (visible) hidden.delete(layer.name); else hidden.add(layer.name);
    try { localStorage.setItem(HIDDEN_KEY, JSON.stringify(Array.from(hidden))); } catch (e) { /* kept for this page only */ }
    await refresh();
  }

  async function start() {
    annolink.caller = await checkCaller();
    const info = await get('', {});
    metresPerUnit = metresPerUnitByName[info.units] || 1;
    // An annotation class's sublayer shows rows its annotation layer shows already.
    const tables = info.layers.filter(l => l.type !== 'Annotation SubLayer');
    const resources = await Promise.all(tables.map(l => get('/' + l.id, {})));
    for (const layer of resources) {
      if (layer.type === 'Annotation Layer') annotationLayers.push(layer); else featureLayers.push(layer);
    }
    // Points are listed before lines, lines before polygons: the smaller target first.
    const order = { esriGeometryPoint: 0, esriGeometryMultipoint: 0, esriGeometryPolyline: 1, esriGeometryPolygon: 2 };
    featureLayers.sort((a, b) => (order[a.geometryType] - order[b.geometryType]) || (a.id - b.id));
    extent = info.fullExtent || info.initialExtent;
    // The data's own CRS: Leaflet's "lat" is the projected y, "lng" the projected x, one pixel
    // one map unit at zoom 0, the origin moved near the data so pixel numbers stay small.
    const x0 = Math.floor(extent.xmin), y0 = Math.ceil(extent.ymax);
    const crs = L.extend({}, L.CRS.Simple, { transformation: new L.Transformation(1, -x0, -1, y0) });
    map = L.map('map', { crs: crs, minZoom: -12, maxZoom: 8, zoomSnap: 0, zoomDelta: 0.5,
      wheelPxPerZoomLevel: 120, preferCanvas: true, attributionControl: false });
    window.annolinkMap = map;   // for the console and the browser tests
    map.createPane('annotation').classList.add('annotation-pane');
    map.getPane('annotation').style.zIndex = 450;
    svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    svg.setAttribute('id', 'annotation');
    svg.setAttribute('aria-hidden', 'true');
    map.getPane('annotation').append(svg);
    // Draw order as render's: polygons, lines, points.
    for (const layer of featureLayers.slice().reverse()) drawn.set(layer.id, L.layerGroup().addTo(map));
    map.fitBounds(extentBounds());
    map.on('moveend', () => refresh().catch(e => showError(describe(e))));
    map.on('zoomstart', () => { svg.style.display = 'none'; });
    map.on('zoomend', () => { drawAnnotation(); svg.style.display = ''; });
    map.on('click', e => tapped(e).catch(err => showError(describe(err))));
    document.getElementById('full-extent').onclick = fullExtent;
    scaleInput.addEventListener('keydown', ev => {
      if (ev.key !== 'Enter') return;
      ev.preventDefault();
      const n = Number(scaleInput.value.replace(/^1:/, '').replace(/[ ,]/g, ''));
      if (!(n > 0) || !Number.isFinite(n)) { showError('scale: \'' + scaleInput.value + '\' is not a number N of 1:N'); return; }
      setScale(n);
    });
    document.addEventListener('keydown', ev => {
      if (ev.key === 'Escape' && moving) {
        moving = null;
        map.getContainer().classList.remove('moving-feature');
        messageBox.textContent = 'move cancelled';
      }
    });
    // The keyboard's tap: Enter or Space on the focused map identifies (or, after "Move",
    // moves to) what is at the centre of the view.
    const container = map.getContainer();
    container.addEventListener('keydown', ev => {
      // Leaflet's buttons are links (zoom in/out, a popup's close): Space presses them too,
      // as it presses a button.
      if (ev.key === ' ' && ev.target.matches && ev.target.matches('a[role="button"]')) {
        ev.preventDefault();
        ev.target.click();
        return;
      }
      if (ev.target !== container || (ev.key !== 'Enter' && ev.key !== ' ')) return;
      ev.preventDefault();
      const latlng = map.getCenter();
      tapped({ latlng: latlng, containerPoint: map.latLngToContainerPoint(latlng), keyboard: true })
        .catch(err => showError(describe(err)));
    });
    // Leaflet's popup close control is a link with a "×": give it a name, and give the focus
    // back to the map when the popup it was in closes.
    map.on('popupopen', e => {
      const close = e.popup.getElement() && e.popup.getElement().querySelector('.leaflet-popup-close-button');
      if (close) { close.setAttribute('aria-label', 'close the popup'); close.setAttribute('role', 'button'); }
    });
    map.on('popupclose', e => {
      const element = e.popup.getElement();
      if (!element || !element.contains(document.activeElement)) return;
      // Unless the next popup (a feature chosen from the list) took the focus meanwhile.
      setTimeout(() => {
        const now = document.activeElement;
        if (!now || now === document.body || element.contains(now)) container.focus();
      }, 0);
    });
    await refresh();
    // The modules (MapPageModule: /editor-*.js) build on this.
    Object.assign(annolink, { map: map, extent: extent, metresPerUnit: metresPerUnit,
      featureLayers: featureLayers, annotationLayers: annotationLayers, spatialReference: info.spatialReference,
      units: info.units });
    document.dispatchEvent(new CustomEvent('annolink:ready', { detail: annolink }));
  }

  // A popup as wide as its content, at most 360 px and never wider than the map allows.
  function popupOptions() {
    return { maxWidth: Math.max(160, Math.min(360, map.getSize().x - 70)), autoPan: true,
      autoPanPadding: [8, 8] };
  }

  function extentBounds() {
    return L.latLngBounds([[extent.ymin, extent.xmin], [extent.ymax, extent.xmax]]);
  }

  // Viewpoints, animated: the full extent, and the scale 1:n about the centre.
  function fullExtent() {
    map.flyToBounds(extentBounds(), { duration: FLIGHT_SECONDS });
  }
  function setScale(n) {
    map.flyTo(map.getCenter(), zoomForScale(n), { duration: FLIGHT_SECONDS });
  }

  function envelope() {
    const b = map.getBounds();
    return [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()].join(',');
  }

  // Whether a view is drawn as vectors or as the server's overview image, and what of the
  // annotation is fetched: docs/editor.md, "Features per view".
  const MIN_TEXT_PX = 1;          // annotation whose text is under this is not fetched
  const DENSE_LIMIT = 2000;       // more features of a layer in view than this: the overview
  let overlay = null;             // the overview's L.imageOverlay while the view is one

  // The most pixels high any class of an annotation layer sets its text at this zoom (its
  // font size in points at its reference scale).
  function textPixels(layer) {
    const pixelsPerUnit = Math.pow(2, map.getZoom());
    let most = 0;
    for (const c of layer.annotationClasses || []) {
      const unitsPerPoint = c.referenceScale * 0.0254 / 72 / metresPerUnit;
      most = Math.max(most, ((c.font && c.font.size) || 0) * unitsPerPoint * pixelsPerUnit);
    }
    return most;
  }

  // A PNG from the server (not JSON), counted as pending like the queries.
  async function fetchImage(url) {
    document.body.dataset.pending = String(++pending);
    try {
      const response = await request(url);
      if (!response.ok) await answer(response);   // throws the server's words
      return { blob: await response.blob(), headers: response.headers };
    } finally { document.body.dataset.pending = String(--pending); }
  }

  function removeOverlay() {
    if (!overlay) return;
    URL.revokeObjectURL(overlay.getElement() ? overlay.getElement().src : '');
    overlay.remove();
    overlay = null;
  }

  // The status of the view drawn; `detail`, when given, is its title (shown on hover), so
  // the bar keeps to one line at 1280 px and the map its size.
  function finishView(text, detail) {
    statusBox.textContent = text + '  1:' + Math.round(scaleDenominator());
    statusBox.title = detail || '';
    if (document.activeElement !== scaleInput) scaleInput.value = Math.round(scaleDenominator());
    for (const box of errorsBox.querySelectorAll('.error[data-kind="view"]')) box.remove();
    // How many views have been drawn: tests wait on it.
    document.body.dataset.views = String(Number(document.body.dataset.views || 0) + 1);
  }

  // Draws the view now shown (drawView), or says it could not be (viewFailed); a view the
  // user has already left says nothing.
  async function refresh() {
    const mine = ++generation;
    try {
      await drawView(mine);
    } catch (e) {
      if (mine === generation) viewFailed(describe(e));
    }
  }

  // A view that could not be drawn (a count, a query or the overview refused: the server's
  // query time limit, say): the status says so in place of the view's, and the banner shows
  // the server's words until a later view is drawn.
  function viewFailed(text) {
    statusBox.textContent = 'view not drawn: ' + text + ' — pan or zoom to try again  1:' + Math.round(scaleDenominator());
    statusBox.title = '';
    showError('the view could not be drawn: ' + text, 'view');
    // How many views have failed: tests wait on it.
    document.body.dataset.failedViews = String(Number(document.body.dataset.failedViews || 0) + 1);
  }

  // Fetches and draws the view: first how many features of each layer meet it (the
  // R-tree's count, no feature read); when a layer has more than DENSE_LIMIT (or than one
  // page), the view is one image drawn by the server's renderer (the overview), else each
  // layer's features and the annotation big enough to read, one query per layer.
  async function drawView(mine) {
    const geometry = envelope();
    const bounds = map.getBounds(), size = map.getSize();
    const shown = featureLayers.filter(isVisible);
    const readable = annotationLayers.filter(l => isVisible(l) && textPixels(l) >= MIN_TEXT_PX);
    const tooSmall = annotationLayers.filter(l => isVisible(l) && !readable.includes(l));
    const countedLayers = shown.concat(readable);
    const counts = await Promise.all(countedLayers.map(layer => get('/' + layer.id + '/query', { where: '1=1',
      geometry: geometry, geometryType: 'esriGeometryEnvelope', spatialRel: 'esriSpatialRelEnvelopeIntersects',
      returnCountOnly: 'true' }).then(a => a.count)));
    if (mine !== generation) return;
    const dense = countedLayers.filter((layer, i) => counts[i] > Math.min(DENSE_LIMIT, layer.maxRecordCount || DENSE_LIMIT));
    if (dense.length) {
      const denseText = dense.map(l => l.name + ' ' + counts[countedLayers.indexOf(l)]).join(', ');
      return drawOverview(mine, bounds, size, denseText);
    }
    const ask = layer => get('/' + layer.id + '/query', { where: '1=1', geometry: geometry,
      geometryType: 'esriGeometryEnvelope', spatialRel: 'esriSpatialRelIntersects',
      outFields: layer.type === 'Annotation Layer' ? '*' : layer.objectIdField,
      returnGeometry: layer.type === 'Annotation Layer' ? 'false' : 'true' });
    const [features, annotation] = await Promise.all([
      Promise.all(shown.map(ask)), Promise.all(readable.map(ask))]);
    if (mine !== generation) return;
    removeOverlay();
    document.body.dataset.overview = 'false';
    const truncated = [];
    for (const group of drawn.values()) group.clearLayers();
    shown.forEach((layer, i) => {
      const group = drawn.get(layer.id);
      for (const feature of features[i].features) {
        const shape = leafletShape(layer, feature.geometry);
        if (shape) group.addLayer(shape);
      }
      if (features[i].exceededTransferLimit) truncated.push(layer.name);
    });
    annotationRows = [];
    readable.forEach((layer, i) => {
      for (const feature of annotation[i].features) annotationRows.push({ layer: layer, attributes: feature.attributes });
      if (annotation[i].exceededTransferLimit) truncated.push(layer.name);
    });
    drawAnnotation();
    const count = features.reduce((n, f) => n + f.features.length, 0);
    finishView(count + ' features, ' + annotationRows.length + ' annotation in view' +
      (tooSmall.length ? ' (' + tooSmall.map(l => l.name).join(', ') + ': text under ' + MIN_TEXT_PX + ' px, not fetched)' : '') +
      (truncated.length ? ' — more than one page in ' + truncated.join(', ') + ': zoom in to see all' : ''));
  }

  // The view as one image drawn by the server's renderer (GET /render.png of the view's box
  // and pixel size, overview=true: the default symbology, the annotation as the file stores
  // it but for text under a pixel, features under a pixel one per pixel), in place of the
  // vectors; taps still identify through the queries.
  async function drawOverview(mine, bounds, size, denseText) {
    const box = [bounds.getWest(), bounds.getSouth(), bounds.getEast(), bounds.getNorth()];
    const params = new URLSearchParams({ bbox: box.join(','), width: String(size.x), height: String(size.y), overview: 'true' });
    const image = await fetchImage('render.png?' + params.toString());
    if (mine !== generation) return;
    const url = URL.createObjectURL(image.blob);
    const old = overlay;
    overlay = L.imageOverlay(url, bounds, { interactive: false, className: 'overview',
      alt: 'overview of the view drawn by the server: zoom in to edit' }).addTo(map);
    const element = overlay.getElement();
    element.dataset.bbox = box.join(',');
    element.dataset.size = size.x + ',' + size.y;
    if (old) { URL.revokeObjectURL(old.getElement() ? old.getElement().src : ''); old.remove(); }
    for (const group of drawn.values()) group.clearLayers();
    annotationRows = [];
    drawAnnotation();
    document.body.dataset.overview = 'true';
    const h = name => Number(image.headers.get(name) || 0);
    const under = h('X-Annolink-Labels-Under-Minimum');
    const shared = h('X-Annolink-Features-Sharing-Pixels');
    finishView('overview: zoom in to edit — ' + h('X-Annolink-Features') + ' features' +
      (h('X-Annolink-Labels') ? ', ' + h('X-Annolink-Labels') + ' labels' : '') + ' in view' +
      (under ? ' (' + under + ' labels under ' + MIN_TEXT_PX + ' px not drawn)' : ''),
      'more than ' + DENSE_LIMIT + ' in view (' + denseText + '): one image drawn by the server, ' + h('X-Annolink-Features') +
      ' features (' + h('X-Annolink-Features-From-Index') + ' under a pixel drawn from the spatial index' +
      (shared ? ', ' + shared + ' more sharing their pixel' : '') + '), ' + h('X-Annolink-Labels') + ' labels' +
      (under ? ', ' + under + ' labels under ' + MIN_TEXT_PX + ' px not drawn' : ''));
  }

  // The zoom at which the map scale is 1:n.
  function zoomForScale(n) {
    return -Math.log2(n * 0.0254 / 96 / metresPerUnit);
  }

  // The map scale 1:N of the view, a CSS pixel being 1/96 inch.
  function scaleDenominator() {
    return Math.pow(2, -map.getZoom()) * metresPerUnit / 0.0254 * 96;
  }

  // The default symbology of `annolink render`: points small filled circles, lines dashed,
  // polygons outlined.
  function leafletShape(layer, g) {
    if (!g) return null;
    const style = { color: '#333', weight: 0.8, interactive: false };
    const latlngs = ring => ring.map(p => [p[1], p[0]]);
    if (g.x !== undefined) return L.circleMarker([g.y, g.x], { radius: 2.5, stroke: false, fillColor: '#222', fillOpacity: 1, interactive: false });
    if (g.points) return L.featureGroup(g.points.map(p => L.circleMarker([p[1], p[0]], { radius: 2.5, stroke: false, fillColor: '#222', fillOpacity: 1, interactive: false })));
    if (g.paths) return L.polyline(g.paths.map(latlngs), Object.assign({ dashArray: '5 3' }, style));
    if (g.rings) return L.polygon(g.rings.map(latlngs), Object.assign({ fill: false }, style));
    return null;
  }

  // Annotation as annotation: TextString at its anchor, turned by Angle, at its true map size
  // (FontSize points at the class's reference scale), so it grows and shrinks with the zoom.
  function drawAnnotation() {
    while (svg.firstChild) svg.firstChild.remove();
    const pixelsPerUnit = Math.pow(2, map.getZoom());
    for (const row of annotationRows) {
      const a = row.attributes;
      if (!a.TextString || a.AnchorX == null || a.AnchorY == null) continue;
      const classes = row.layer.annotationClasses || [];
      const definition = classes.find(c => c.id === a.AnnotationClassID) || classes[0];
      if (!definition) continue;
      const unitsPerPoint = definition.referenceScale * 0.0254 / 72 / metresPerUnit;
      const k = unitsPerPoint * pixelsPerUnit;   // pixels per point at this zoom
      const p = map.latLngToLayerPoint([a.AnchorY, a.AnchorX]);
      const text = document.createElementNS('http://www.w3.org/2000/svg', 'text');
      const x = p.x + (a.XOffset || 0) * k, y = p.y - (a.YOffset || 0) * k;
      text.setAttribute('x', x);
      text.setAttribute('y', y);
      text.setAttribute('font-size', (a.FontSize || definition.font.size) * k);
      text.setAttribute('text-anchor', ['start', 'middle', 'end', 'middle'][a.HorizontalAlignment] || 'middle');
      const baseline = ['text-before-edge', 'central', 'alphabetic', 'text-after-edge'][a.VerticalAlignment];
      if (baseline && baseline !== 'alphabetic') text.setAttribute('dominant-baseline', baseline);
      if (a.Angle) text.setAttribute('transform', 'rotate(' + (-a.Angle) + ' ' + p.x + ' ' + p.y + ')');
      text.setAttribute('data-layer', row.layer.name);
      text.setAttribute('data-feature-id', a.FeatureID);
      text.setAttribute('data-anchor', a.AnchorX + ' ' + a.AnchorY);
      text.setAttribute('data-oid', a[row.layer.objectIdField]);
      text.textContent = a.TextString;
      svg.append(text);
    }
  }

  // A tap (or Enter on the map): the next "Move" target, a module's (a tap handler that
  // answers true took it), or identify: one feature under it opens its popup, several a list.
  async function tapped(e) {
    if (moving) return moveTo(e.latlng);
    for (const handler of annolink.tapHandlers) if (await handler(e)) return;
    // The modules' hits (the labels under the tap: MapPageLabels) come after the features',
    // each with its own `choose`.
    const [features, extras] = await Promise.all([identify(e.latlng),
      Promise.all(annolink.identifyExtras.map(extra => extra(e.latlng)))]);
    const hits = features.concat(...extras);
    if (!hits.length) {
      map.closePopup();
      messageBox.textContent = 'nothing within ' + TAP_TOLERANCE_PX + ' px';
      return;
    }
    if (hits.length === 1 && hits[0].choose) return hits[0].choose({ focus: !!e.keyboard });
    if (hits.length === 1) {
      messageBox.textContent = hits[0].layer.name + ' ' + hits[0].feature.attributes[hits[0].layer.objectIdField];
      return openPopup(hits[0].layer, hits[0].feature, e.latlng, { focus: !!e.keyboard });
    }
    const labels = await labelsOf(hits);
    for (const hit of hits) if (!hit.choose) hit.label = labels.get(hit.layer.name.toLowerCase() + '/' + hit.feature.attributes[hit.layer.objectIdField]);
    showIdentifyList(hits, e.latlng, !!e.keyboard);
  }

  // The label text of each hit that has one (one query per annotation layer), so that the
  // list names features as the map shows them. Map of 'layer/oid' (lower case) to text.
  async function labelsOf(hits) {
    const texts = new Map();
    await Promise.all(annotationLayers.map(async anno => {
      const classes = anno.annotationClasses || [];
      const ids = hits.filter(h => classes.some(c => c.originTable.toLowerCase() === h.layer.name.toLowerCase()))
        .map(h => Number(h.feature.attributes[h.layer.objectIdField])).filter(Number.isInteger);
      if (!ids.length) return;
      const rows = await get('/' + anno.id + '/query', { where: 'FeatureID IN (' + ids.join(',') + ')',
        outFields: 'FeatureID,AnnotationClassID,TextString', returnGeometry: 'false' });
      for (const f of rows.features) {
        const c = classes.find(k => k.id === f.attributes.AnnotationClassID) || classes[0];
        if (c && f.attributes.TextString) texts.set(c.originTable.toLowerCase() + '/' + f.attributes.FeatureID, f.attributes.TextString);
      }
    }));
    return texts;
  }

  // Every feature of every visible feature layer within 10 px of `latlng` (annotation layers are not
  // selectable): one query per layer, all at once; points first, then lines, then polygons,
  // each kind nearest first. [{layer, feature, distance}]
  async function identify(latlng) {
    const tolerance = TAP_TOLERANCE_PX / Math.pow(2, map.getZoom());
    const at = [latlng.lng, latlng.lat];
    const visible = featureLayers.filter(isVisible);
    const answers = await Promise.all(visible.map(layer => get('/' + layer.id + '/query', { where: '1=1',
      geometry: at.join(','), geometryType: 'esriGeometryPoint', spatialRel: 'esriSpatialRelIntersects',
      distance: String(tolerance), outFields: '*', returnGeometry: 'true' })));
    const kind = { esriGeometryPoint: 0, esriGeometryMultipoint: 0, esriGeometryPolyline: 1, esriGeometryPolygon: 2 };
    const hits = [];
    visible.forEach((layer, i) => {
      for (const feature of answers[i].features) hits.push({ layer: layer, feature: feature, distance: distanceTo(feature.geometry, at) });
    });
    hits.sort((a, b) => (kind[a.layer.geometryType] - kind[b.layer.geometryType]) || (a.distance - b.distance) || (a.layer.id - b.layer.id));
    return hits;
  }

  // The distance from `p` to a geometry in map units (0 inside a polygon), to order the hits.
  function distanceTo(g, p) {
    if (!g) return Infinity;
    if (g.x !== undefined) return Math.hypot(g.x - p[0], g.y - p[1]);
    const segment = (a, b) => {
      const dx = b[0] - a[0], dy = b[1] - a[1], l = dx * dx + dy * dy;
      const t = l ? Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / l)) : 0;
      return Math.hypot(a[0] + t * dx - p[0], a[1] + t * dy - p[1]);
    };
    let best = Infinity, inside = false;
    for (const part of g.points ? g.points.map(q => [q]) : (g.paths || g.rings || [])) {
      if (part.length === 1) best = Math.min(best, Math.hypot(part[0][0] - p[0], part[0][1] - p[1]));
      for (let i = 1; i < part.length; i++) {
        best = Math.min(best, segment(part[i - 1], part[i]));
        const a = part[i - 1], b = part[i];
        if (g.rings && ((a[1] > p[1]) !== (b[1] > p[1])) && p[0] < (b[0] - a[0]) * (p[1] - a[1]) / (b[1] - a[1]) + a[0]) inside = !inside;
      }
    }
    return inside ? 0 : best;
  }

  // Several features under the tap: a list to choose from, as Esri's identify shows.
  function showIdentifyList(hits, latlng, focus) {
    const box = document.createElement('div');
    box.className = 'identify-list';
    const title = document.createElement('div');
    title.innerHTML = '<b></b>';
    title.firstChild.textContent = hits.length + ' features here';
    const list = document.createElement('ul');
    list.setAttribute('aria-label', hits.length + ' features here: choose one');
    for (const hit of hits) {
      const oid = hit.feature.attributes[hit.layer.objectIdField];
      const shown = hit.label || (hit.layer.displayField && hit.layer.displayField !== hit.layer.objectIdField ? hit.feature.attributes[hit.layer.displayField] : null);
      const item = document.createElement('li');
      const button = document.createElement('button');
      button.type = 'button';
      button.dataset.layer = hit.layer.name;
      button.dataset.oid = oid;
      button.textContent = hit.layer.name + ' ' + oid + (shown != null && shown !== '' ? ' — ' + shown : '');
      // A click with no pointer behind it (detail 0) is the keyboard's: the focus follows it.
      const options = ev => ({ focus: ev.detail === 0, back: back => showIdentifyList(hits, latlng, back.detail === 0) });
      button.onclick = ev => (hit.choose ? Promise.resolve(hit.choose(options(ev))) : openPopup(hit.layer, hit.feature, latlng, options(ev)))
        .catch(err => showError(describe(err)));
      item.append(button);
      list.append(item);
    }
    box.append(title, list);
    L.popup(popupOptions()).setLatLng(latlng).setContent(box).openOn(map);
    messageBox.textContent = hits.length + ' features within ' + TAP_TOLERANCE_PX + ' px';
    if (focus) list.querySelector('button').focus();
  }

  // The annotation rows linked to a feature, from the server.
  async function linkedAnnotation(layer, oid) {
    const texts = [];
    for (const anno of annotationLayers) {
      if (!(anno.annotationClasses || []).some(c => c.originTable === layer.name)) continue;
      const rows = await get('/' + anno.id + '/query', { where: 'FeatureID = ' + Number(oid), outFields: 'TextString', returnGeometry: 'false' });
      for (const f of rows.features) texts.push(f.attributes.TextString);
    }
    return texts;
  }

  // The classes that label `layer`, each with the fields its label expression reads (the
  // service's `labelFields`): a blank text in one of them is refused, as the CLI refuses it.
  function labellingClasses(layer) {
    const found = [];
    for (const anno of annotationLayers) {
      for (const c of anno.annotationClasses || []) {
        if (c.originTable.toLowerCase() === layer.name.toLowerCase()) found.push({ annotationTable: anno.name, definition: c });
      }
    }
    return found;
  }
  function labelFieldNames(layer) {
    const names = new Set();
    for (const c of labellingClasses(layer)) for (const f of c.definition.labelFields || []) names.add(f.toLowerCase());
    return names;
  }

  const numeric = ['esriFieldTypeInteger', 'esriFieldTypeSmallInteger', 'esriFieldTypeDouble', 'esriFieldTypeSingle'];
  const editableTypes = numeric.concat(['esriFieldTypeString', 'esriFieldTypeDate']);

  // A date (Esri JSON's milliseconds since 1970) as the page shows and takes it: ISO 8601 in
  // UTC, the day alone at midnight ('2019-06-14', '2019-06-14T13:45:10Z', '…10.250Z').
  function dateText(ms) {
    if (ms == null) return '';
    const iso = new Date(ms).toISOString();
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.replace('.000Z', 'Z');
  }

  // The milliseconds of a typed date: a day, or a day and a time in UTC (a 'Z' may end it);
  // throws on anything else, and on a day the calendar has not (2026-02-30).
  function dateValue(name, text) {
    const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?)?Z?$/.exec(text);
    const ms = m && Date.UTC(+m[1], +m[2] - 1, +m[3], +(m[4] || 0), +(m[5] || 0), +(m[6] || 0), +((m[7] || '0') + '00').slice(0, 3));
    const back = m && new Date(ms);
    if (!m || back.getUTCFullYear() !== +m[1] || back.getUTCMonth() !== +m[2] - 1 || back.getUTCDate() !== +m[3] || +(m[4] || 0) > 23 ||
        +(m[5] || 0) > 59 || +(m[6] || 0) > 59) {
      throw new Error(name + ': \'' + text + '\' is not a date (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ, in UTC)');
    }
    return ms;
  }

  // The input that edits `field` (holding `value`), or null for a field the page does not
  // edit (the object id, the GlobalID, blobs, a field the layer marks not editable). The
  // popup's form and the sketch's fields of a new feature are made of these; read them back
  // with changedAttributes.
  function fieldInput(field, value, labelFields) {
    if (field.editable === false || !editableTypes.includes(field.type) || field.type === 'esriFieldTypeOID') return null;
    const input = document.createElement('input');
    input.name = field.name;
    input.value = fieldText(field, value);
    input.dataset.original = input.value;
    input.dataset.type = field.type;
    const readByLabel = labelFields.has(field.name.toLowerCase());
    input.setAttribute('aria-label', (field.alias || field.name) + (readByLabel ? ' (read by the label)' : ''));
    if (readByLabel) {
      input.dataset.labelField = '';
      if (field.type === 'esriFieldTypeString') input.setAttribute('aria-required', 'true');
    }
    if (field.length) input.maxLength = field.length;
    if (numeric.includes(field.type)) input.inputMode = 'decimal';
    if (field.type === 'esriFieldTypeDate') input.placeholder = 'YYYY-MM-DD[THH:MM:SSZ]';
    return input;
  }

  // A field's value as the popup shows it.
  function fieldText(field, value) {
    if (value == null) return '';
    return field.type === 'esriFieldTypeDate' ? dateText(value) : String(value);
  }

  // The popup of one feature: its fields, its annotation, the edit form. `options.focus` puts
  // the keyboard in it; `options.back` adds a button back to the identify list.
  async function openPopup(layer, feature, latlng, options) {
    options = options || {};
    const oid = feature.attributes[layer.objectIdField];
    const texts = await linkedAnnotation(layer, oid);
    const labelFields = labelFieldNames(layer);
    const form = document.createElement('form');
    form.className = 'feature-form';
    form.dataset.layer = layer.name;
    form.dataset.oid = oid;
    form.setAttribute('aria-label', layer.name + ' ' + oid);
    const title = document.createElement('div');
    title.innerHTML = '<b></b>';
    title.firstChild.textContent = layer.name + ' ' + layer.objectIdField + ' ' + oid;
    const annotation = document.createElement('div');
    annotation.className = 'annotation';
    annotation.textContent = texts.length ? texts.join(' / ') : '(no annotation)';
    const fields = document.createElement('div');
    fields.className = 'fields';
    const table = document.createElement('table');
    for (const field of layer.fields) {
      const row = table.insertRow();
      const th = document.createElement('th');
      th.textContent = field.alias || field.name;
      row.append(th);
      const cell = row.insertCell();
      const value = feature.attributes[field.name];
      const input = fieldInput(field, value, labelFields);
      if (input) cell.append(input); else cell.textContent = fieldText(field, value);
    }
    fields.append(table);
    const buttons = document.createElement('div');
    buttons.className = 'buttons';
    const update = document.createElement('button');
    update.type = 'submit';
    update.name = 'update';
    update.textContent = 'Update';
    const move = document.createElement('button');
    move.type = 'button';
    move.name = 'move';
    const isLine = layer.geometryType === 'esriGeometryPolyline';
    // Offered only for what the edit service moves: a point, or an end of a single-segment
    // line (one part, two points; `move-vertex`'s rule). Not offered is not shown.
    const paths = feature.geometry && feature.geometry.paths;
    const movable = layer.geometryType === 'esriGeometryPoint' || (isLine && (!paths || (paths.length === 1 && paths[0].length === 2)));
    move.textContent = isLine ? 'Move end' : 'Move';
    move.hidden = !movable;
    buttons.append(update, move);
    // The layer's capabilities say whether this caller may edit it (no token, a read token,
    // a read-only server): then the form is shown, not sent.
    let readOnlyNote = null;
    if (!/\bUpdate\b/.test(layer.capabilities || '')) {
      update.disabled = true;
      move.disabled = true;
      readOnlyNote = document.createElement('div');
      readOnlyNote.className = 'read-only';
      const caller = annolink.caller || {};
      readOnlyNote.textContent = caller.readOnly ? 'read only: the server is read-only'
        : caller.user ? 'read only: the token of ' + caller.user + ' does not allow edits' : 'read only: "Token" to edit';
    }
    if (options.back) {
      const back = document.createElement('button');
      back.type = 'button';
      back.name = 'back';
      back.textContent = '‹ List';
      back.setAttribute('aria-label', 'back to the list of features here');
      back.onclick = options.back;
      buttons.append(back);
    }
    for (const action of annolink.popupActions) {
      try { action({ layer: layer, feature: feature, oid: oid, form: form, buttons: buttons, latlng: latlng }); } catch (err) { showError(describe(err)); }
    }
    form.append(title, annotation, fields, buttons);
    if (readOnlyNote) form.append(readOnlyNote);
    form.addEventListener('submit', ev => {
      ev.preventDefault();
      applyUpdate(layer, oid, form).catch(err => showError(describe(err)));
    });
    move.onclick = () => {
      moving = { layer: layer, oid: oid, geometry: feature.geometry };
      map.getContainer().classList.add('moving-feature');
      messageBox.textContent = 'tap where ' + layer.name + ' ' + oid + (isLine ? '’s end' : '') + ' goes (or Enter on the map: its centre)';
      map.closePopup();
    };
    L.popup(popupOptions()).setLatLng(latlng).setContent(form).openOn(map);
    if (options.focus) (form.querySelector('input[name]') || update).focus();
    return form;
  }

  // The changed fields of the form as typed values; throws on a value that is not a number
  // and on a field a label expression reads left blank, whatever its type (the edit
  // service's rule: it would be sent as null or an empty text).
  function changedAttributes(layer, form) {
    const changed = {};
    for (const input of form.querySelectorAll('input[name]')) {
      if (input.value === input.dataset.original) continue;
      const text = input.value.trim();
      if (text === '') {
        const reader = labellingClasses(layer).find(c => (c.definition.labelFields || []).some(f => f.toLowerCase() === input.name.toLowerCase()));
        if (reader) {
          const d = reader.definition;
          throw new Error(layer.name + '.' + input.name + ' may not be empty or NULL: annotation class \'' + d.name + '\' (' + reader.annotationTable +
            ' class ' + d.id + ') labels with ' + d.labelExpression + ', which reads it');
        }
      }
      if (numeric.includes(input.dataset.type)) {
        if (text === '') { changed[input.name] = null; continue; }
        const number = Number(text);
        if (!Number.isFinite(number)) throw new Error(input.name + ': \'' + input.value + '\' is not a number');
        if (input.dataset.type.endsWith('Integer') && !Number.isInteger(number)) throw new Error(input.name + ': \'' + input.value + '\' is not a whole number');
        changed[input.name] = number;
      } else if (input.dataset.type === 'esriFieldTypeDate') {
        changed[input.name] = text === '' ? null : dateValue(input.name, text);
      } else {
        changed[input.name] = input.value;
      }
    }
    return changed;
  }

  async function applyEdit(layer, update) {
    const result = await post('/' + layer.id + '/applyEdits', { updates: JSON.stringify([update]), rollbackOnFailure: 'true' });
    const outcome = (result.updateResults || [])[0];
    if (!outcome) throw new Error('applyEdits answered no result');
    if (!outcome.success) throw new Error(describe(outcome.error));
    // The modules' business after an edit of the page's own (the live module takes the
    // journal's new state, so it does not draw the view a second time).
    for (const hook of annolink.afterEdit) await hook();
  }

  async function applyUpdate(layer, oid, form) {
    const changed = changedAttributes(layer, form);
    if (!Object.keys(changed).length) { messageBox.textContent = 'nothing changed'; return; }
    const attributes = Object.assign({ [layer.objectIdField]: oid }, changed);
    await applyEdit(layer, { attributes: attributes });
    for (const input of form.querySelectorAll('input[name]')) input.dataset.original = input.value;
    const texts = await linkedAnnotation(layer, oid);
    const box = form.querySelector('.annotation');
    if (box) box.textContent = texts.length ? texts.join(' / ') : '(no annotation)';
    messageBox.textContent = 'updated ' + layer.name + ' ' + oid;
    await refresh();
  }

  async function moveTo(latlng) {
    const target = moving;
    moving = null;
    map.getContainer().classList.remove('moving-feature');
    let geometry;
    if (target.layer.geometryType === 'esriGeometryPoint') {
      geometry = { x: latlng.lng, y: latlng.lat };
    } else {
      const paths = target.geometry && target.geometry.paths;
      if (!paths || !paths.length || !paths[0].length) throw new Error('the line has no vertices to move');
      const path = paths[0].slice(0, -1).concat([[latlng.lng, latlng.lat]]);
      geometry = { paths: [path].concat(paths.slice(1)) };
    }
    await applyEdit(target.layer, { attributes: { [target.layer.objectIdField]: target.oid }, geometry: geometry });
    messageBox.textContent = 'moved ' + target.layer.name + ' ' + target.oid;
    await refresh();
  }

  // What the modules use; `map` and the layers are added when the map is made, and
  // 'annolink:ready' is dispatched on the document then.
  const annolink = window.annolink = {
    service: service, dataset: document.body.dataset.dataset, get: get, post: post, showError: showError, describe: describe,
    refresh: refresh, redrawAnnotation: () => drawAnnotation(), applyEdit: applyEdit, openPopup: openPopup, linkedAnnotation: linkedAnnotation,
    message: text => { messageBox.textContent = text; },
    tools: document.getElementById('tools'),
    tapHandlers: [],
    // async (latlng) => [{layer, feature, distance, label, choose(options)}]: more hits for identify.
    identifyExtras: [],
    afterEdit: [],
    // Added for the GeoView operations (docs/editor.md, "The core's API").
    token: token, fetch: request, answer: answer, identify: identify, tapTolerancePx: TAP_TOLERANCE_PX,
    zoomForScale: zoomForScale, scaleDenominator: scaleDenominator, setScale: setScale, fullExtent: fullExtent,
    flightSeconds: FLIGHT_SECONDS, popupActions: [], labelFields: layer => Array.from(labelFieldNames(layer)),
    fieldInput: (layer, field, value) => fieldInput(field, value, labelFieldNames(layer)), fieldText: fieldText,
    changedAttributes: changedAttributes,
    caller: null,
    // Added with the layer list (docs/editor.md, "Layers").
    isVisible: isVisible, setVisible: setVisible,
  };

  if (typeof L === 'undefined') {
    showError('Leaflet did not load from /leaflet/leaflet.js (Debian: libjs-leaflet)');
    return;
  }
  start().catch(e => showError(describe(e)));
})();