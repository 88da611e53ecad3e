"""Arguments: the server's URL, the service name. Times views at a few scales (from the
call that moves the map to the frame after the view is drawn) and reads what each
fetched. Prints JSON.

Run by MapEditorLiveTests.swift, which checks what it prints. By hand, against `annolink serve`
on `annolink sample FILE --parcels 100000` (docs/testing.md, "The browser tests' scripts"):

    .test/venv/bin/python Tests/EndToEndTests/Browser/live_perf.py http://127.0.0.1:8080 parcels
"""
import json, math, sys, time
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait
from annolink_browser import chromium, get, settled
base, name = sys.argv[1], sys.argv[2]
service = base + "/arcgis/rest/services/" + name + "/FeatureServer"
d = chromium(1280, 800)
out = {"views": []}
try:
    t0 = time.time()
    d.get(base + "/")
    WebDriverWait(d, 300).until(lambda d: "in view" in d.find_element(By.ID, "status").text)
    out["firstView"] = time.time() - t0
    d.execute_script("""
      window.viewTimes = [];
      new MutationObserver(() => requestAnimationFrame(() => window.viewTimes.push(performance.now())))
        .observe(document.body, { attributes: true, attributeFilter: ['data-views'] });""")
    info = get(service + "?f=json")
    out["maxRecordCount"] = info["maxRecordCount"]
    e = info["fullExtent"]
    cx, cy = (e["xmin"] + e["xmax"]) / 2, (e["ymin"] + e["ymax"]) / 2
    for scale in ["full", 20000, 4800, 1200]:
        for step in range(3):
            WebDriverWait(d, 300).until(lambda d: settled(journal=True))
            d.execute_script("performance.clearResourceTimings()")
            n = d.execute_script("return window.viewTimes.length")
            if scale == "full":
                js = "annolinkMap.fitBounds([[%r,%r],[%r,%r]], {animate: false})" % (e["ymin"], e["xmin"], e["ymax"], e["xmax"]) if step == 0 else "annolinkMap.panBy([40, 0], {animate: false})"
            else:
                zoom = -math.log2(scale * 0.0254 / 96 / (1200 / 3937))
                # A 40-pixel step east after the first view (map units per CSS pixel at 1:scale).
                js = "annolinkMap.setView([%r,%r], %r, {animate: false})" % (cy, cx + step * 40 * scale * 0.0254 / 96 / (1200 / 3937), zoom)
            start = d.execute_script("const t = performance.now(); " + js + "; return t;")
            WebDriverWait(d, 300).until(lambda d: d.execute_script("return window.viewTimes.length") > n and settled(journal=True))
            end = d.execute_script("return window.viewTimes[%d]" % n)
            # What the view fetched: the counts, the layers' features, the overview image.
            fetched = d.execute_script("""return performance.getEntriesByType('resource')
                .filter(r => r.name.includes('/render.png?') || (r.name.includes('/query?') && r.name.includes('esriGeometryEnvelope')))
                .map(r => [r.name.includes('returnCountOnly') ? 'count' : r.name.includes('/render.png?') ? 'image' : 'features', r.encodedBodySize])""")
            # The overview image, where it is on the screen and the box it was drawn for,
            # against the view's.
            seen = d.execute_script("""
              const img = document.querySelector('img.overview'), b = annolinkMap.getBounds();
              const r = img && img.getBoundingClientRect(), m = annolinkMap.getContainer().getBoundingClientRect();
              return { overview: document.body.dataset.overview, images: document.querySelectorAll('img.overview').length,
                bbox: img ? img.dataset.bbox.split(',').map(Number) : null, view: [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()],
                size: img ? img.dataset.size : null, mapSize: annolinkMap.getSize().x + ',' + annolinkMap.getSize().y,
                rect: r ? [r.left - m.left, r.top - m.top, r.width, r.height] : null, mapRect: [m.width, m.height],
                vectors: Object.values(annolinkMap._layers).filter(l => l instanceof L.Path).length };""")
            seen.update({"scale": scale, "ms": end - start, "status": d.find_element(By.ID, "status").text,
                         "labels": len(d.find_elements(By.CSS_SELECTOR, "#annotation text")),
                         "counts": sum(1 for k, _ in fetched if k == "count"),
                         "queries": sum(1 for k, _ in fetched if k == "features"),
                         "images": sum(1 for k, _ in fetched if k == "image"),
                         "bytes": sum(n for _, n in fetched)})
            out["views"].append(seen)
    out["severe"] = [x["message"] for x in d.get_log("browser") if x["level"] == "SEVERE"]
finally:
    d.quit()
print(json.dumps(out))
