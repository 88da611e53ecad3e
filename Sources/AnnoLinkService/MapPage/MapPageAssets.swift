import Foundation

/// The map editor's page, style and script, embedded in the binary so `annolink serve` needs no
/// installed files of its own (Leaflet and Tahoma come from Debian, `MapPageRoutes`). Plain
/// JavaScript for the browser, no build step; docs/editor.md says what it does.
enum MapPageAssets {
    /// The page for the dataset `name` (the file's stem, which names the FeatureServer).
    static func html(dataset name: String) -> String {
        let service = "/arcgis/rest/services/" + (name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? name) + "/FeatureServer"
        return """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>annolink — \(escaped(name))</title>
        <link rel="icon" href="data:,">
        <link rel="stylesheet" href="/leaflet/leaflet.css">
        <link rel="stylesheet" href="/editor.css">
        </head>
        <body data-service="\(escaped(service))">
        <div id="map" aria-label="map"></div>
        <div id="tools" role="toolbar" aria-label="tools"></div>
        <div id="bar"><button type="button" id="full-extent" title="Zoom to the full extent">Full extent</button> <label>1:<input id="scale" inputmode="numeric" size="7" aria-label="map scale 1:N (Enter sets it)"></label> <span id="status">loading…</span> <span id="message"></span> <span id="coords"></span></div>
        <div id="errors" role="alert"></div>
        <script src="/leaflet/leaflet.js"></script>
        <script src="/editor.js"></script>
        \(MapPageModule.all.map { "<script src=\"\($0.path)\"></script>" }.joined(separator: "\n"))
        </body>
        </html>

        """
    }

    /// `text` with HTML's special characters as entities.
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "'", with: "&#39;")
    }

    static let style = ##"""
    @font-face { font-family: "annolink Tahoma"; src: url("/fonts/tahoma.ttf") format("truetype"); font-weight: normal; }
    @font-face { font-family: "annolink Tahoma"; src: url("/fonts/tahomabd.ttf") format("truetype"); font-weight: bold; }
    html, body { margin: 0; height: 100%; font-family: "annolink Tahoma", sans-serif; font-size: 13px; }
    #map { position: absolute; top: 0; bottom: 24px; left: 0; right: 0; background: #fff; }
    #bar { position: absolute; bottom: 0; left: 0; right: 0; height: 24px; line-height: 24px; padding: 0 6px;
           background: #f2f2f2; border-top: 1px solid #ccc; white-space: nowrap; overflow: hidden; }
    #message { color: #064; margin-left: 1em; }
    #bar button, #bar input { font: inherit; padding: 0 4px; }
    #coords { float: right; font-variant-numeric: tabular-nums; }
    #tools { position: absolute; top: 8px; right: 8px; z-index: 1000; display: flex; flex-direction: column; gap: 4px; align-items: flex-end; }
    #tools button { font: inherit; }
    #errors { position: absolute; top: 8px; left: 50px; right: 8px; z-index: 1000; }
    #errors div { background: #fde8e8; border: 1px solid #c33; color: #900; padding: 4px 8px; margin-bottom: 4px; }
    #errors button { float: right; margin-left: 8px; }
    .annotation-pane svg { position: absolute; left: 0; top: 0; width: 1px; height: 1px; overflow: visible; pointer-events: none; }
    .annotation-pane text { font-family: "annolink Tahoma", Tahoma, sans-serif; fill: #000; white-space: pre; }
    .leaflet-container.moving-feature { cursor: crosshair; }
    .feature-form table { border-collapse: collapse; }
    .feature-form th { text-align: right; font-weight: normal; color: #555; padding-right: 6px; }
    .feature-form input { width: 12em; font: inherit; }
    .feature-form .annotation { margin: 6px 0; font-weight: bold; }
    .feature-form .buttons { margin-top: 6px; }
    .feature-form .buttons button { margin-right: 6px; }
    .feature-form .fields { max-height: 240px; overflow-y: auto; }
    """##

    static let script = ##"""
    'use strict';
    // annolink map editor: Leaflet in the data's own projected CRS, features and annotation fetched
    // per view through the FeatureServer, edits through applyEdits. docs/editor.md.
    (function () {
      const service = document.body.dataset.service;
      const statusBox = document.getElementById('status');
      const coordsBox = document.getElementById('coords');
      const messageBox = document.getElementById('message');
      const scaleInput = document.getElementById('scale');
      const errorsBox = document.getElementById('errors');
      const metresPerUnitByName = { esriFeet: 1200 / 3937, esriMeters: 1 };
      const TAP_TOLERANCE_PX = 10;

      function showError(message) {
        const box = document.createElement('div');
        box.className = 'error';
        const close = document.createElement('button');
        close.type = 'button';
        close.textContent = '×';
        close.setAttribute('aria-label', 'dismiss');
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

      async function answer(response) {
        const text = await response.text();
        let json;
        try { json = JSON.parse(text); } catch (e) { throw new Error('HTTP ' + response.status + ': ' + text.slice(0, 200)); }
        if (json.error) throw new Error(describe(json.error));
        if (!response.ok) throw new Error('HTTP ' + response.status + ': ' + (json.detail || text.slice(0, 200)));
        return json;
      }

      // Requests in flight, on the body for tests to wait on.
      let pending = 0;
      async function counted(request) {
        document.body.dataset.pending = String(++pending);
        try { return answer(await request()); } finally { document.body.dataset.pending = String(--pending); }
      }

      async function get(path, params) {
        const query = new URLSearchParams(Object.assign({ f: 'json' }, params || {}));
        return counted(() => fetch(service + path + '?' + query.toString()));
      }

      async function post(path, params) {
        const body = new URLSearchParams(Object.assign({ f: 'json' }, params));
        return counted(() => fetch(service + path, { method: 'POST', body: body,
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' } }));
      }

      // The layers of the service, with their resources; filled by start().
      let featureLayers = [];
      let annotationLayers = [];
      let metresPerUnit = 1;
      let map;
      let generation = 0;
      const drawn = new Map();      // layer id -> Leaflet layer group of its features
      let annotationRows = [];      // {layer, attributes} of every annotation row in view
      let svg;
      let moving = null;            // {layer, oid} while "Move" waits for its tap

      async function start() {
        const info = await get('', {});
        metresPerUnit = metresPerUnitByName[info.units] || 1;
        const resources = await Promise.all(info.layers.map(l => get('/' + l.id, {})));
        for (const layer of resources) {
          if (layer.type === 'Annotation Layer') annotationLayers.push(layer); else featureLayers.push(layer);
        }
        // Points are tapped before lines, lines before polygons: the smaller target wins.
        const order = { esriGeometryPoint: 0, esriGeometryMultipoint: 0, esriGeometryPolyline: 1, esriGeometryPolygon: 2 };
        featureLayers.sort((a, b) => (order[a.geometryType] - order[b.geometryType]) || (a.id - b.id));
        const extent = info.fullExtent || info.initialExtent;
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
        map.getPane('annotation').append(svg);
        // Draw order as render's: polygons, lines, points.
        for (const layer of featureLayers.slice().reverse()) drawn.set(layer.id, L.layerGroup().addTo(map));
        map.fitBounds([[extent.ymin, extent.xmin], [extent.ymax, extent.xmax]]);
        map.on('moveend', () => refresh().catch(e => showError(describe(e))));
        map.on('zoomstart', () => { svg.style.display = 'none'; });
        map.on('zoomend', () => { drawAnnotation(); svg.style.display = ''; });
        map.on('click', e => tapped(e).catch(err => showError(describe(err))));
        const fullExtent = () => map.fitBounds([[extent.ymin, extent.xmin], [extent.ymax, extent.xmax]]);
        document.getElementById('full-extent').onclick = fullExtent;
        scaleInput.addEventListener('keydown', ev => {
          if (ev.key !== 'Enter') return;
          const n = Number(scaleInput.value.replace(/^1:/, '').replace(/[ ,]/g, ''));
          if (!(n > 0) || !Number.isFinite(n)) { showError('scale: \'' + scaleInput.value + '\' is not a number N of 1:N'); return; }
          map.setZoom(zoomForScale(n), { animate: true });
        });
        document.addEventListener('keydown', ev => {
          if (ev.key === 'Escape' && moving) {
            moving = null;
            map.getContainer().classList.remove('moving-feature');
            messageBox.textContent = 'move cancelled';
          }
        });
        map.on('mousemove', e => { coordsBox.textContent = 'x ' + e.latlng.lng.toFixed(2) + '  y ' + e.latlng.lat.toFixed(2); });
        await refresh();
        // The modules (MapPageModule: /editor-*.js) build on this.
        Object.assign(annolink, { map: map, extent: extent, metresPerUnit: metresPerUnit,
          featureLayers: featureLayers, annotationLayers: annotationLayers });
        document.dispatchEvent(new CustomEvent('annolink:ready', { detail: annolink }));
      }

      function envelope() {
        const b = map.getBounds();
        return [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()].join(',');
      }

      // Fetches the features and annotation in view, one query per layer, and draws them.
      async function refresh() {
        const mine = ++generation;
        const geometry = envelope();
        const ask = layer => get('/' + layer.id + '/query', { where: '1=1', geometry: geometry,
          geometryType: 'esriGeometryEnvelope', spatialRel: 'esriSpatialRelIntersects',
          outFields: layer.type === 'Annotation Layer' ? '*' : layer.objectIdField,
          returnGeometry: layer.type === 'Annotation Layer' ? 'false' : 'true' });
        const [features, annotation] = await Promise.all([
          Promise.all(featureLayers.map(ask)), Promise.all(annotationLayers.map(ask))]);
        if (mine !== generation) return;
        const truncated = [];
        featureLayers.forEach((layer, i) => {
          const group = drawn.get(layer.id);
          group.clearLayers();
          for (const feature of features[i].features) {
            const shape = leafletShape(layer, feature.geometry);
            if (shape) group.addLayer(shape);
          }
          if (features[i].exceededTransferLimit) truncated.push(layer.name);
        });
        annotationRows = [];
        annotationLayers.forEach((layer, i) => {
          for (const feature of annotation[i].features) annotationRows.push({ layer: layer, attributes: feature.attributes });
          if (annotation[i].exceededTransferLimit) truncated.push(layer.name);
        });
        drawAnnotation();
        const count = features.reduce((n, f) => n + f.features.length, 0);
        statusBox.textContent = count + ' features, ' + annotationRows.length + ' annotation in view' +
          (truncated.length ? ' — more than one page in ' + truncated.join(', ') + ': zoom in to see all' : '') +
          '  1:' + Math.round(scaleDenominator());
        // How many views have been drawn: tests wait on it.
        if (document.activeElement !== scaleInput) scaleInput.value = Math.round(scaleDenominator());
        document.body.dataset.views = String(Number(document.body.dataset.views || 0) + 1);
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
          text.textContent = a.TextString;
          svg.append(text);
        }
      }

      // A tap: the next "Move" target, a module's (a tap handler that answers true took it),
      // or the feature under the finger.
      async function tapped(e) {
        if (moving) return moveTo(e.latlng);
        for (const handler of annolink.tapHandlers) if (await handler(e)) return;
        const tolerance = TAP_TOLERANCE_PX / Math.pow(2, map.getZoom());
        for (const layer of featureLayers) {
          const found = await get('/' + layer.id + '/query', { where: '1=1',
            geometry: e.latlng.lng + ',' + e.latlng.lat, geometryType: 'esriGeometryPoint',
            spatialRel: 'esriSpatialRelIntersects', distance: String(tolerance), outFields: '*', returnGeometry: 'true' });
          if (!found.features.length) continue;
          const nearest = found.features.reduce((best, f) => {
            const d = distance(f.geometry, e.latlng);
            return d < best.d ? { f: f, d: d } : best;
          }, { f: found.features[0], d: Infinity }).f;
          return openPopup(layer, nearest, e.latlng);
        }
        map.closePopup();
      }

      function distance(g, latlng) {
        if (g && g.x !== undefined) return Math.hypot(g.x - latlng.lng, g.y - latlng.lat);
        return 0;
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

      const numeric = ['esriFieldTypeInteger', 'esriFieldTypeSmallInteger', 'esriFieldTypeDouble', 'esriFieldTypeSingle'];
      const editableTypes = numeric.concat(['esriFieldTypeString']);

      async function openPopup(layer, feature, latlng) {
        const oid = feature.attributes[layer.objectIdField];
        const texts = await linkedAnnotation(layer, oid);
        const form = document.createElement('form');
        form.className = 'feature-form';
        form.dataset.layer = layer.name;
        form.dataset.oid = oid;
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
          if (field.editable !== false && editableTypes.includes(field.type) && field.type !== 'esriFieldTypeOID') {
            const input = document.createElement('input');
            input.name = field.name;
            input.value = value == null ? '' : String(value);
            input.dataset.original = input.value;
            input.dataset.type = field.type;
            if (field.length) input.maxLength = field.length;
            if (numeric.includes(field.type)) input.inputMode = 'decimal';
            cell.append(input);
          } else {
            cell.textContent = value == null ? '' : String(value);
          }
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
        const movable = layer.geometryType === 'esriGeometryPoint' || isLine;
        move.textContent = isLine ? 'Move end' : 'Move';
        move.disabled = !movable;
        buttons.append(update, move);
        form.append(title, annotation, fields, buttons);
        form.addEventListener('submit', ev => {
          ev.preventDefault();
          applyUpdate(layer, oid, form).catch(err => showError(describe(err)));
        });
        move.onclick = () => {
          moving = { layer: layer, oid: oid, geometry: feature.geometry };
          map.getContainer().classList.add('moving-feature');
          messageBox.textContent = 'tap where ' + layer.name + ' ' + oid + (isLine ? '’s end' : '') + ' goes';
          map.closePopup();
        };
        L.popup({ maxWidth: 360, autoPan: true }).setLatLng(latlng).setContent(form).openOn(map);
      }

      // The changed fields of the form as typed values; throws on a value that is not a number.
      function changedAttributes(form) {
        const changed = {};
        for (const input of form.querySelectorAll('input[name]')) {
          if (input.value === input.dataset.original) continue;
          const text = input.value.trim();
          if (numeric.includes(input.dataset.type)) {
            if (text === '') { changed[input.name] = null; continue; }
            const number = Number(text);
            if (!Number.isFinite(number)) throw new Error(input.name + ': \'' + input.value + '\' is not a number');
            if (input.dataset.type.endsWith('Integer') && !Number.isInteger(number)) throw new Error(input.name + ': \'' + input.value + '\' is not a whole number');
            changed[input.name] = number;
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
      }

      async function applyUpdate(layer, oid, form) {
        const changed = changedAttributes(form);
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
        service: service, get: get, post: post, showError: showError, describe: describe,
        refresh: refresh, applyEdit: applyEdit, openPopup: openPopup, linkedAnnotation: linkedAnnotation,
        message: text => { messageBox.textContent = text; },
        tools: document.getElementById('tools'),
        tapHandlers: [],
      };

      if (typeof L === 'undefined') {
        showError('Leaflet did not load from /leaflet/leaflet.js (Debian: libjs-leaflet)');
        return;
      }
      start().catch(e => showError(describe(e)));
    })();
    """##
}
