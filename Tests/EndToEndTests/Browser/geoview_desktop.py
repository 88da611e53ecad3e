"""Viewpoints (typed scale, full extent, zoom to a point and a polygon, animated), identify
(the list), the coordinate read-out, an empty label field refused, "Export image"; takes
the 1280 × 800 screenshot. Arguments: the server's URL, the screenshot folder, the
download folder.

Run by MapGeoViewTests.swift, which checks what it prints. By hand, against `annolink serve`
on the Loudoun import (docs/testing.md, "The browser tests' scripts"):

    .test/venv/bin/python Tests/EndToEndTests/Browser/geoview_desktop.py http://127.0.0.1:8080 /tmp/shots /tmp/downloads
"""
import json, math, os, sys, time
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait
from annolink_browser import chromium, get, body, settled, drawn_after

base, shot, downloads = sys.argv[1], sys.argv[2], sys.argv[3]
service = base + "/arcgis/rest/services/loudoun/FeatureServer"

d = chromium(1280, 800)
# A viewport of exactly 1280 × 800 CSS pixels (the window's size includes the browser's own parts).
d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
d.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
out = {}
def scale_shown():
    return d.find_element(By.ID, "status").text.split("1:")[-1]
def state():
    return d.execute_script("const c = annolinkMap.getCenter(); return [c.lng, c.lat, annolinkMap.getZoom()];")
def counting_zooms():
    d.execute_script("window.zoomFrames = 0; if (!window.counting) { window.counting = true; annolinkMap.on('zoom', () => window.zoomFrames++); }")
def zoom_frames():
    return d.execute_script("return window.zoomFrames;")
mapElement = None
def pixel_of(x, y):
    return d.execute_script("const p = annolinkMap.latLngToContainerPoint([arguments[1], arguments[0]]); return [p.x, p.y];", x, y)
def map_point(px, py):
    return d.execute_script("const l = annolinkMap.containerPointToLatLng([arguments[0], arguments[1]]); return [l.lng, l.lat];", px, py)
def pointer_to(px, py):
    # The mouse to the page pixel nearest map pixel (px, py); answers the map point under it.
    r = d.execute_script("const r = annolinkMap.getContainer().getBoundingClientRect(); return [r.left, r.top];")
    x, y = round(r[0] + px), round(r[1] + py)
    a = ActionBuilder(d)
    a.pointer_action.move_to_location(x, y)
    a.perform()
    return map_point(x - r[0], y - r[1])
def set_view(x, y, scale):
    zoom = -math.log2(scale * 0.0254 / 96 / (1200 / 3937))
    drawn_after(lambda: d.execute_script("annolinkMap.setView([%r,%r], %r, {animate: false})" % (y, x, zoom)))
    return zoom
def errors():
    return d.find_element(By.ID, "errors").text
def dismiss_errors():
    for b in d.find_elements(By.CSS_SELECTOR, "#errors button"): b.click()
try:
    wait = WebDriverWait(d, 20)
    d.get(base + "/")
    wait.until(lambda d: "in view" in d.find_element(By.ID, "status").text)
    wait.until(lambda d: settled())
    mapElement = d.find_element(By.ID, "map")
    first = scale_shown()

    # Viewpoints, animated: a typed scale about the centre, then the full extent.
    before = state()
    counting_zooms()
    scale = d.find_element(By.ID, "scale")
    def typed():
        scale.clear(); scale.send_keys("1:1200" + Keys.ENTER)
    drawn_after(typed)
    after = state()
    out["typedScale"] = {"shown": scale_shown(), "frames": zoom_frames(), "before": before, "after": after,
                         "unitsPerPixel": 2 ** -after[2]}
    counting_zooms()
    drawn_after(lambda: d.find_element(By.ID, "full-extent").click())
    out["fullExtent"] = {"shown": scale_shown(), "first": first, "frames": zoom_frames()}

    # Identify: a tap 6 px right and 5 px up of address point 831 at 1:1200.
    p = get(service + "/0/query?objectIds=831&returnGeometry=true&f=json")["features"][0]["geometry"]
    set_view(p["x"], p["y"], 1200)
    c = pixel_of(p["x"], p["y"])
    # The map point under the mouse, read before the click (the list's popup may pan the map).
    at = pointer_to(c[0] + 6, c[1] - 5)
    ActionChains(d).click().perform()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".identify-list button"))
    wait.until(lambda d: settled())
    out["tapAt"] = at
    out["tolerance"] = 10 * 2 ** -state()[2]
    out["identifyList"] = [[b.get_attribute("data-layer"), int(b.get_attribute("data-oid"))]
                           for b in d.find_elements(By.CSS_SELECTOR, ".identify-list button")]
    # The server's answer for the same circle, layer by layer (annotation layers left out).
    layers = get(service + "?f=json")["layers"]
    expected = []
    for l in layers:
        if l["type"] != "Feature Layer": continue
        q = get(service + "/%d/query?geometry=%r,%r&geometryType=esriGeometryPoint&distance=%r&returnIdsOnly=true&f=json" % (l["id"], at[0], at[1], out["tolerance"]))
        expected += [[l["name"], i] for i in q["objectIds"]]
    # Then the labels whose footprint holds the tap point (the label tools, docs/editor.md).
    for l in layers:
        if l["type"] != "Annotation Layer": continue
        q = get(service + "/%d/query?geometry=%r,%r&geometryType=esriGeometryPoint&returnIdsOnly=true&f=json" % (l["id"], at[0], at[1]))
        expected += [[l["name"], i] for i in q["objectIds"]]
    out["identifyExpected"] = expected

    # One feature under a tap opens its popup at once; none says so. Places found through the
    # FeatureServer where as many features lie within 8 and 12 px at 1:1200 (a pixel's rounding
    # cannot change the count).
    feature_layers = [l for l in layers if l["type"] == "Feature Layer"]
    full = get(service + "?f=json")["fullExtent"]
    def count_at(x, y, px):
        return sum(get(service + "/%d/query?geometry=%r,%r&geometryType=esriGeometryPoint&distance=%r&returnCountOnly=true&f=json"
                       % (l["id"], x, y, px * out["tolerance"] / 10))["count"] for l in feature_layers)
    annotation_layers = [l for l in layers if l["type"] == "Annotation Layer"]
    def labels_at(x, y):
        return sum(get(service + "/%d/query?geometry=%r,%r&geometryType=esriGeometryPoint&returnCountOnly=true&f=json"
                       % (l["id"], x, y))["count"] for l in annotation_layers)
    spots = {}
    for i in range(1, 24):
        for j in range(1, 24):
            x = full["xmin"] + (full["xmax"] - full["xmin"]) * ((i * 7) % 24) / 24
            y = full["ymin"] + (full["ymax"] - full["ymin"]) * ((j * 11) % 24) / 24
            n = count_at(x, y, 8)
            if n <= 1 and n not in spots and count_at(x, y, 12) == n and labels_at(x, y) == 0: spots[n] = (x, y)
        if len(spots) == 2: break
    singles = {}
    for n, (x, y) in sorted(spots.items()):
        d.execute_script("annolinkMap.closePopup()")
        set_view(x, y, 1200)
        pointer_to(d.execute_script("return annolinkMap.getSize().x") / 2, d.execute_script("return annolinkMap.getSize().y") / 2)
        ActionChains(d).click().perform()
        if n == 1:
            wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".feature-form"))
        else:
            wait.until(lambda d: "nothing within 10 px" in d.find_element(By.ID, "message").text)
        wait.until(lambda d: settled())
        singles[str(n)] = {"forms": len(d.find_elements(By.CSS_SELECTOR, ".feature-form")), "lists": len(d.find_elements(By.CSS_SELECTOR, ".identify-list")),
                           "message": d.find_element(By.ID, "message").text}
    out["singles"] = singles
    d.execute_script("annolinkMap.closePopup()")
    set_view(p["x"], p["y"], 1200)
    at = pointer_to(c[0] + 6, c[1] - 5)
    ActionChains(d).click().perform()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".identify-list button"))
    wait.until(lambda d: settled())

    # Choose 831: its popup, with "Zoom to" and a way back to the list.
    d.find_element(By.CSS_SELECTOR, '.identify-list button[data-layer="Loudoun_Address_Points_1"][data-oid="831"]').click()
    form = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, '.feature-form[data-oid="831"]'))
    wait.until(lambda d: settled())
    out["popupButtons"] = [b.text for b in form.find_elements(By.TAG_NAME, "button")]
    # The coordinate read-out: three pointer positions; x, y and longitude/latitude as shown.
    size = mapElement.size
    readouts = []
    for px, py in [(37, 41), (size["width"] // 2 + 3, size["height"] // 2 + 150), (size["width"] - 29, size["height"] - 17)]:
        expect = pointer_to(px, py)
        box = d.find_element(By.ID, "coords")
        wait.until(lambda d: box.get_attribute("data-x") is not None and abs(float(box.get_attribute("data-x")) - expect[0]) < 1e-6
                   and abs(float(box.get_attribute("data-y")) - expect[1]) < 1e-6)
        readouts.append({"pixel": [px, py], "expect": expect, "x": float(box.get_attribute("data-x")), "y": float(box.get_attribute("data-y")),
                         "longitude": float(box.get_attribute("data-longitude")), "latitude": float(box.get_attribute("data-latitude")),
                         "text": box.text})
    out["readouts"] = readouts
    pointer_to(c[0] + 80, c[1] + 40)
    time.sleep(0.3)
    d.save_screenshot(os.path.join(shot, "editor-geoview.png"))

    # An empty label field is refused in the page, before any request: a text, and a number
    # (which would be sent as null).
    def refusal_of_clearing(name):
        field = form.find_element(By.NAME, name)
        field.clear()
        form.find_element(By.NAME, "update").click()
        wait.until(lambda d: errors().strip())
        refusal = errors()
        dismiss_errors()
        field.send_keys(field.get_attribute("data-original"))
        return refusal
    out["labelFieldMarked"] = form.find_element(By.NAME, "ST_STR_NAM").get_attribute("data-label-field") is not None
    out["emptyRefusal"] = refusal_of_clearing("ST_STR_NAM")
    out["emptyNumberRefusal"] = refusal_of_clearing("AD_ADDRESS")

    # Zoom to: from the full extent back to 831 at 1:1200, animated, the popup still open.
    d.execute_script("annolinkMap.fitBounds(annolink.extent ? [[annolink.extent.ymin, annolink.extent.xmin], [annolink.extent.ymax, annolink.extent.xmax]] : null, {animate: false})")
    wait.until(lambda d: settled())
    counting_zooms()
    drawn_after(lambda: d.find_element(By.CSS_SELECTOR, '.feature-form[data-oid="831"] button[name="zoom-to"]').click())
    out["zoomToPoint"] = {"centre": state()[:2], "point": [p["x"], p["y"]], "shown": scale_shown(), "frames": zoom_frames()}
    # Back to the list, then a polygon: its extent fills the view.
    d.find_element(By.CSS_SELECTOR, '.feature-form button[name="back"]').click()
    entries = d.find_elements(By.CSS_SELECTOR, ".identify-list button")
    polygon = next(b for b in entries if b.get_attribute("data-layer") == "Loudoun_Subdivision_1")
    layer, oid = polygon.get_attribute("data-layer"), int(polygon.get_attribute("data-oid"))
    polygon.click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, '.feature-form[data-layer="%s"][data-oid="%d"]' % (layer, oid)))
    wait.until(lambda d: settled())
    layer_id = next(l["id"] for l in layers if l["name"] == layer)
    e = get(service + "/%d/query?objectIds=%d&returnExtentOnly=true&f=json" % (layer_id, oid))["extent"]
    counting_zooms()
    drawn_after(lambda: d.find_element(By.CSS_SELECTOR, '.feature-form[data-oid="%d"] button[name="zoom-to"]' % oid).click())
    b = d.execute_script("const b = annolinkMap.getBounds(); return [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()];")
    out["zoomToPolygon"] = {"layer": layer, "oid": oid, "extent": [e["xmin"], e["ymin"], e["xmax"], e["ymax"]], "view": b, "frames": zoom_frames()}

    # Export image: the server's render of the view, as big as the view.
    d.execute_script("annolinkMap.closePopup()")
    set_view(p["x"], p["y"], 1200)
    d.find_element(By.ID, "export-image").click()
    wait.until(lambda d: body("data-exports") == "1")
    out["export"] = json.loads(body("data-last-export"))
    out["mapSize"] = d.execute_script("const s = annolinkMap.getSize(); return [s.x, s.y];")
    deadline = time.time() + 20
    while time.time() < deadline and not [f for f in os.listdir(downloads) if f.endswith(".png")]:
        time.sleep(0.1)
    out["downloads"] = sorted(os.listdir(downloads))
    out["severe"] = [entry["message"] for entry in d.get_log("browser") if entry["level"] == "SEVERE"]
finally:
    d.quit()
print(json.dumps(out))
