'use strict';
// annolink map editor: "Zoom to", the coordinate read-out and "Export image" (GeoView
// operations). docs/editor.md.
document.addEventListener('annolink:ready', event => {
  const annolink = event.detail;
  const map = annolink.map;
  // A point is zoomed to at this scale (or closer, when the view already is).
  const POINT_SCALE = 1200;

  // "Zoom to": the feature's extent (a point: centred), animated.
  function zoomTo(g) {
    if (!g) { annolink.showError('this feature has no geometry to zoom to'); return; }
    const duration = annolink.flightSeconds;
    if (g.x !== undefined) {
      map.flyTo([g.y, g.x], Math.max(map.getZoom(), annolink.zoomForScale(POINT_SCALE)), { duration: duration });
      return;
    }
    const parts = g.points ? [g.points] : (g.paths || g.rings || []);
    const corners = [].concat.apply([], parts).map(p => [p[1], p[0]]);
    if (!corners.length) { annolink.showError('this feature has no coordinates to zoom to'); return; }
    map.flyToBounds(L.latLngBounds(corners), { padding: [40, 40], duration: duration,
      maxZoom: Math.max(map.getZoom(), annolink.zoomForScale(POINT_SCALE / 8)) });
  }
  annolink.zoomToGeometry = zoomTo;
  annolink.popupActions.push(popup => {
    const button = document.createElement('button');
    button.type = 'button';
    button.name = 'zoom-to';
    button.textContent = 'Zoom to';
    button.setAttribute('aria-label', 'zoom to ' + popup.layer.name + ' ' + popup.oid);
    button.onclick = () => zoomTo(popup.feature.geometry);
    popup.buttons.append(button);
  });

  // The read-out: the pointer's map coordinates at once, its longitude/latitude from the
  // server (PROJ, as cs2cs) — one request at a time, at most one every 50 ms, the newest
  // position winning. Without a pointer (touch, keyboard) it follows the taps and the centre.
  const box = document.getElementById('coords');
  const srs = annolink.spatialReference || {};
  const crsName = srs.latestWkid || srs.wkid ? 'EPSG:' + (srs.latestWkid || srs.wkid) : 'data CRS';
  const unit = { esriFeet: ' ft', esriMeters: ' m' }[annolink.units] || '';
  box.title = 'x, y in ' + crsName + '; longitude, latitude in WGS 84 (EPSG:4326), from the server';
  let wanted = null, asking = false, timer = null, lastSent = 0, pointerInside = false, failed = false;

  function show(point, geographic) {
    const xy = (point.how === 'centre' ? 'centre ' : '') + 'x ' + point.x.toFixed(2) + ' y ' + point.y.toFixed(2) + unit + ' (' + crsName + ')';
    const lonlat = geographic ? '  lon ' + geographic.longitude.toFixed(7) + '° lat ' + geographic.latitude.toFixed(7) + '°'
      : failed ? '  lon/lat unknown' : '  lon … lat …';
    // Two parts, each kept on one line, so that a narrow screen wraps between them.
    const parts = [xy, lonlat.trim()].map(text => {
      const span = document.createElement('span');
      span.textContent = text;
      return span;
    });
    box.replaceChildren(parts[0], document.createTextNode(' '), parts[1]);
    box.dataset.pointerX = point.x;
    box.dataset.pointerY = point.y;
    if (geographic) {
      box.dataset.x = geographic.x;
      box.dataset.y = geographic.y;
      box.dataset.longitude = geographic.longitude;
      box.dataset.latitude = geographic.latitude;
    }
  }

  function readOut(latlng, how) {
    wanted = { x: latlng.lng, y: latlng.lat, how: how };
    show(wanted, null);
    pump();
  }

  async function pump() {
    if (asking || !wanted || timer) return;
    const wait = lastSent + 50 - Date.now();
    if (wait > 0) { timer = setTimeout(() => { timer = null; pump(); }, wait); return; }
    const point = wanted;
    wanted = null;
    asking = true;
    lastSent = Date.now();
    try {
      const answer = await annolink.answer(await annolink.fetch('coordinates?x=' + encodeURIComponent(point.x) + '&y=' + encodeURIComponent(point.y)));
      if (!wanted) show(point, answer);
    } catch (e) {
      // Said once: a CRS without longitude/latitude fails for every point.
      if (!failed) annolink.showError('longitude/latitude: ' + annolink.describe(e));
      failed = true;
      if (!wanted) show(point, null);
    } finally {
      asking = false;
      if (wanted) pump();
    }
  }

  map.on('mousemove', e => { pointerInside = true; readOut(e.latlng, 'pointer'); });
  map.on('mouseout', () => { pointerInside = false; });
  map.on('click', e => readOut(e.latlng, 'tap'));
  map.on('moveend', () => { if (!pointerInside) readOut(map.getCenter(), 'centre'); });
  readOut(map.getCenter(), 'centre');

  // "Export image": the view as the server's `render` draws it, as big as the view, saved as
  // a PNG file.
  const exportButton = document.createElement('button');
  exportButton.type = 'button';
  exportButton.id = 'export-image';
  exportButton.textContent = 'Export image';
  exportButton.title = 'Download this view as a PNG drawn by the server (annolink render)';
  let exporting = false;
  exportButton.onclick = () => {
    if (exporting) return;
    exporting = true;
    exportButton.setAttribute('aria-busy', 'true');
    exportImage().catch(e => annolink.showError('Export image: ' + annolink.describe(e)))
      .finally(() => { exporting = false; exportButton.removeAttribute('aria-busy'); });
  };
  annolink.tools.append(exportButton);

  async function exportImage() {
    const b = map.getBounds(), size = map.getSize();
    const query = new URLSearchParams({ bbox: [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()].join(','),
      width: String(size.x), height: String(size.y) });
    annolink.message('drawing the view on the server…');
    const response = await annolink.fetch('render.png?' + query.toString());
    if (!response.ok) await annolink.answer(response);
    const blob = await response.blob();
    if (blob.type !== 'image/png') throw new Error('the server answered ' + (blob.type || 'no type') + ', not a PNG');
    const name = (annolink.dataset || 'map') + '-1-' + Math.round(annolink.scaleDenominator()) + '.png';
    const url = URL.createObjectURL(blob);
    const link = document.createElement('a');
    link.href = url;
    link.download = name;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
    document.body.dataset.exports = String(Number(document.body.dataset.exports || 0) + 1);
    document.body.dataset.lastExport = JSON.stringify({ file: name, width: size.x, height: size.y, bytes: blob.size, bbox: query.get('bbox') });
    annolink.message('exported ' + name + ' (' + size.x + ' × ' + size.y + ' px)');
  }
});