"""Drives the page through Esri's feature-linked annotation workflow and prints what it saw
as JSON. Arguments: the server's URL, the screenshot's path.

Run by MapEditorTests.swift, which checks what it prints. By hand, against `annolink serve`
on the Loudoun import (docs/testing.md, "The browser tests' scripts"):

    .test/venv/bin/python Tests/EndToEndTests/Browser/editor_workflow.py http://127.0.0.1:8080 /tmp/editor.png
"""
import json, math, sys
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait
from annolink_browser import chromium, get, settled, drawn_after

base, shot = sys.argv[1], sys.argv[2]
service = base + "/arcgis/rest/services/loudoun/FeatureServer"

d = chromium(1280, 800)
# A viewport of exactly 1280 × 800 CSS pixels (the window's size includes the browser's own parts).
d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
out = {}
LABELS = 'text[data-layer="Loudoun_Address_PointsAnno_1"]'
def choose(layer, oid):
    # A tap with several features under it lists them (identify): the feature is chosen there.
    form = '.feature-form[data-layer="%s"][data-oid="%d"]' % (layer, oid)
    entry = '.identify-list button[data-layer="%s"][data-oid="%d"]' % (layer, oid)
    found = WebDriverWait(d, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, form) or d.find_elements(By.CSS_SELECTOR, entry))
    if not d.find_elements(By.CSS_SELECTOR, form):
        found[0].click()
    return WebDriverWait(d, 20).until(lambda d: d.find_element(By.CSS_SELECTOR, form))
try:
    wait = WebDriverWait(d, 20)
    d.get(base + "/")
    wait.until(lambda d: "in view" in d.find_element(By.ID, "status").text)
    first = d.find_element(By.ID, "scale").get_attribute("value")   # the full extent's

    # The address labels' extent (layer 6; some labels reach beyond their points'): every
    # one of the 33 drawn, inside the map.
    e = get(service + "/6?f=json")["extent"]
    drawn_after(lambda: d.execute_script("annolinkMap.fitBounds([[%r,%r],[%r,%r]], {animate: false})" % (e["ymin"], e["xmin"], e["ymax"], e["xmax"])))
    out["addressLabels"] = len(d.find_elements(By.CSS_SELECTOR, LABELS))
    out["labelsInside"] = d.execute_script("""
        const box = document.getElementById('map').getBoundingClientRect();
        return [...document.querySelectorAll(arguments[0])].every(t => {
          const r = t.getBoundingClientRect();
          return r.width > 0 && r.left >= box.left && r.right <= box.right && r.top >= box.top && r.bottom <= box.bottom; });""", LABELS)

    # A typed scale, then the full extent again.
    scale = d.find_element(By.ID, "scale")
    def typed():
        scale.clear(); scale.send_keys("1:1200\n")
    drawn_after(typed)
    out["typedScale"] = d.find_element(By.ID, "status").text.split("1:")[-1]
    drawn_after(lambda: d.find_element(By.ID, "full-extent").click())
    out["fullExtentScale"] = [first, scale.get_attribute("value")]

    # Address point 831 at 1:1200 (a CSS pixel is 1/96 inch; US survey feet).
    p = get(service + "/0/query?objectIds=831&returnGeometry=true&f=json")["features"][0]["geometry"]
    out["point"] = [p["x"], p["y"]]
    zoom = -math.log2(1200 * 0.0254 / 96 / (1200 / 3937))
    drawn_after(lambda: d.execute_script("annolinkMap.setView([%r,%r], %r, {animate: false})" % (p["y"], p["x"], zoom)))
    out["scale"] = d.find_element(By.ID, "status").text.split("1:")[-1]
    mapElement = d.find_element(By.ID, "map")
    def tap(x, y, dx, dy):
        # Taps (dx, dy) pixels from the map point (x, y); Selenium's offsets are from the centre.
        c = d.execute_script("const p = annolinkMap.latLngToContainerPoint([arguments[1], arguments[0]]); return [p.x, p.y];", x, y)
        size = mapElement.size
        ActionChains(d).move_to_element_with_offset(mapElement, c[0] + dx - size["width"] / 2, c[1] + dy - size["height"] / 2).click().perform()
        return d.execute_script("const l = annolinkMap.containerPointToLatLng([arguments[0], arguments[1]]); return [l.lng, l.lat];", c[0] + dx, c[1] + dy)

    tap(p["x"], p["y"], 6, -5)
    form = choose("Loudoun_Address_Points_1", 831)
    wait.until(lambda d: settled())
    out["popupAnnotation"] = form.find_element(By.CSS_SELECTOR, ".annotation").text
    field = form.find_element(By.NAME, "AD_ADDRESS")
    out["popupAddress"] = field.get_attribute("value")
    field.clear(); field.send_keys("45999")
    drawn_after(lambda: form.find_element(By.NAME, "update").click())
    label = LABELS + '[data-feature-id="831"]'
    out["labelAfterUpdate"] = d.find_element(By.CSS_SELECTOR, label).text
    out["popupAfterUpdate"] = form.find_element(By.CSS_SELECTOR, ".annotation").text
    # Where the label sits: the middle of its box in map units, and map units per pixel.
    out["labelCentre"] = d.execute_script("""
        const r = document.querySelector(arguments[0]).getBoundingClientRect(), m = document.getElementById('map').getBoundingClientRect();
        const l = annolinkMap.containerPointToLatLng([(r.left + r.right) / 2 - m.left, (r.top + r.bottom) / 2 - m.top]);
        return [l.lng, l.lat, Math.pow(2, -annolinkMap.getZoom())];""", label)
    d.save_screenshot(shot)

    # Dates: shown as ISO 8601 in UTC, typed the same way; a day the calendar has not is
    # refused on the page, and the field put back before the next step.
    out["createdShown"] = form.find_element(By.NAME, "created_date").get_attribute("value")
    edited = form.find_element(By.NAME, "last_edited_date")
    edited.clear(); edited.send_keys("2026-12-01T10:20:30Z")
    drawn_after(lambda: form.find_element(By.NAME, "update").click())
    out["editedServed"] = get(service + "/0/query?objectIds=831&outFields=last_edited_date&returnGeometry=false&f=json")["features"][0]["attributes"]["last_edited_date"]
    edited.clear(); edited.send_keys("2026-02-30")
    form.find_element(By.NAME, "update").click()
    wait.until(lambda d: d.find_element(By.ID, "errors").text.strip())
    out["dateError"] = d.find_element(By.ID, "errors").text
    d.find_element(By.CSS_SELECTOR, "#errors button").click()
    edited.clear(); edited.send_keys("2026-12-01T10:20:30Z")

    # A value that is not a whole number is refused, and the refusal is shown.
    field.clear(); field.send_keys("12.5")
    form.find_element(By.NAME, "update").click()
    wait.until(lambda d: d.find_element(By.ID, "errors").text.strip())
    out["error"] = d.find_element(By.ID, "errors").text

    # Move: then a tap puts the point there; the label follows.
    form.find_element(By.NAME, "move").click()
    target = []
    drawn_after(lambda: target.extend(tap(p["x"], p["y"], 60, 30)))
    out["target"] = target
    out["message"] = d.find_element(By.ID, "message").text
    out["anchorAfterMove"] = [float(v) for v in d.find_element(By.CSS_SELECTOR, label).get_attribute("data-anchor").split()]
    # Parcel lines: a two-point line's end moved by "Move end" (its length label follows); a
    # line of more segments has no "Move end" (the service would refuse it). Each is
    # chosen where no other point or line lies within 15 ft of the tap.
    d.find_element(By.CSS_SELECTOR, "#errors button").click()
    kinds = {l["id"]: l["geometryType"] for l in get(service + "?f=json")["layers"]}
    def alone(x, y):
        return sum(get(service + "/%d/query?geometry=%r,%r&geometryType=esriGeometryPoint&distance=15&returnCountOnly=true&f=json" % (i, x, y))["count"]
                   for i, k in kinds.items() if k in ("esriGeometryPoint", "esriGeometryPolyline") and i < 6) == 1
    labelled = {f["attributes"]["FeatureID"] for f in get(service + "/7/query?where=1%3D1&outFields=FeatureID&returnGeometry=false&f=json")["features"]}
    lines = get(service + "/5/query?where=1%3D1&outFields=fid&orderByFields=fid&returnGeometry=true&f=json")["features"]
    def pick(test):
        for f in lines:
            path = f["geometry"]["paths"][0]
            a, b = path[0], path[1]
            m = [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2]
            if len(f["geometry"]["paths"]) == 1 and test(len(path)) and f["attributes"]["fid"] in labelled and alone(*m):
                return f["attributes"]["fid"], path, m
    def open_line(fid, m):
        drawn_after(lambda: d.execute_script("annolinkMap.setView([%r,%r], %r, {animate: false})" % (m[1], m[0], zoom)))
        tap(m[0], m[1], 0, 0)
        form = choose("ParcelLines_1", fid)
        wait.until(lambda d: settled())
        return form
    fid, path, m = pick(lambda n: n == 2)
    out["line"] = {"fid": fid, "first": path[0]}
    form = open_line(fid, m)
    out["line"]["popupAnnotation"] = form.find_element(By.CSS_SELECTOR, ".annotation").text
    form.find_element(By.NAME, "move").click()
    target = []
    drawn_after(lambda: target.extend(tap(path[1][0], path[1][1], 40, 0)))
    out["line"]["target"] = target
    # Selenium taps whole pixels: where the end went, as the server now reads the file.
    out["line"]["stored"] = get(service + "/5/query?objectIds=%d&returnGeometry=true&f=json" % fid)["features"][0]["geometry"]["paths"]
    out["line"]["label"] = d.find_element(By.CSS_SELECTOR, 'text[data-layer="ParcelLinesAnno_1"][data-feature-id="%d"]' % fid).text
    fid, path, m = pick(lambda n: n > 2)
    out["multi"] = {"fid": fid}
    form = open_line(fid, m)
    # Not offered: the edit service moves an end of a single-segment line only.
    out["multi"]["moveButtons"] = [b.text for b in form.find_elements(By.NAME, "move") if b.is_displayed()]
    out["multi"]["buttons"] = [b.text for b in form.find_elements(By.CSS_SELECTOR, ".buttons button") if b.is_displayed()]
    out["severe"] = [entry["message"] for entry in d.get_log("browser") if entry["level"] == "SEVERE"]
finally:
    d.quit()
print(json.dumps(out))
