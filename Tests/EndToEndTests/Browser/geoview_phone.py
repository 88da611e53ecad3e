"""A phone (390 × 844, touch, device pixel ratio 3): controls on the screen, a finger pans,
two fingers zoom, taps identify and choose, "Zoom to" and "Export image" by taps; takes the 390 × 844
screenshot. Arguments: the server's URL, the screenshot folder.

Run by MapGeoViewTests.swift, which checks what it prints. By hand, against `annolink serve`
on the Loudoun import (docs/testing.md, "The browser tests' scripts"):

    .test/venv/bin/python Tests/EndToEndTests/Browser/geoview_phone.py http://127.0.0.1:8080 /tmp/shots
"""
import json, math, os, sys, time
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait
from annolink_browser import chromium, get, body, settled, drawn_after

base, shot = sys.argv[1], sys.argv[2]
service = base + "/arcgis/rest/services/loudoun/FeatureServer"
d = chromium(390, 844)
# A phone: 390 × 844 CSS pixels at 3 device pixels each, touch events and no mouse.
d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": True})
d.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
out = {}
def touch(kind, points):
    d.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": kind, "touchPoints": [{"x": x, "y": y, "id": i} for i, (x, y) in enumerate(points)]})
def tap(x, y):
    # A finger down and up at page pixel (x, y): the browser makes the click of a tap.
    touch("touchStart", [(x, y)])
    time.sleep(0.05)
    touch("touchEnd", [])
def page_pixel(x, y):
    return d.execute_script("""const p = annolinkMap.latLngToContainerPoint([arguments[1], arguments[0]]);
        const r = annolinkMap.getContainer().getBoundingClientRect(); return [p.x + r.left, p.y + r.top];""", x, y)
def centre():
    return d.execute_script("const c = annolinkMap.getCenter(); return [c.lng, c.lat, Math.pow(2, -annolinkMap.getZoom())];")
try:
    wait = WebDriverWait(d, 20)
    d.get(base + "/")
    wait.until(lambda d: "in view" in d.find_element(By.ID, "status").text)
    wait.until(lambda d: settled())
    out["viewport"] = d.execute_script("return [innerWidth, innerHeight, devicePixelRatio, 'ontouchstart' in window, navigator.maxTouchPoints, L.Browser.touch, L.Browser.mobile];")
    # Every control inside the screen, none covering another.
    out["controls"] = d.execute_script("""
        const sel = ['#full-extent', '#scale', '#token-button', '#export-image', '.leaflet-control-zoom-in', '.leaflet-control-zoom-out', '#coords', '#status'];
        return sel.map(s => { const r = document.querySelector(s).getBoundingClientRect(); return [s, r.left, r.top, r.right, r.bottom]; });""")
    # 831 at 1:1200 in the middle of the screen.
    p = get(service + "/0/query?objectIds=831&returnGeometry=true&f=json")["features"][0]["geometry"]
    zoom = -math.log2(1200 * 0.0254 / 96 / (1200 / 3937))
    drawn_after(lambda: d.execute_script("annolinkMap.setView([%r,%r], %r, {animate: false})" % (p["y"], p["x"], zoom)))
    # A finger drag of 80 px to the left pans the map 80 px to the right.
    before = centre()
    def drag():
        touch("touchStart", [(240, 300)])
        for i in range(1, 9):
            time.sleep(0.03)
            touch("touchMove", [(240 - 10 * i, 300)])
        # The finger rests before it lifts: no fling.
        time.sleep(0.3)
        touch("touchMove", [(160, 300)])
        time.sleep(0.3)
        touch("touchEnd", [])
    drawn_after(drag)
    after = centre()
    out["pan"] = {"before": before, "after": after}
    # Two fingers 100 px apart spread to 300 px: three times closer (Leaflet's touch zoom).
    z0 = d.execute_script("return annolinkMap.getZoom()")
    def pinch():
        touch("touchStart", [(195, 350), (195, 450)])
        for i in range(1, 11):
            time.sleep(0.03)
            touch("touchMove", [(195, 350 - 10 * i), (195, 450 + 10 * i)])
        time.sleep(0.3)
        touch("touchEnd", [])
    drawn_after(pinch)
    out["pinch"] = [z0, d.execute_script("return annolinkMap.getZoom()")]
    drawn_after(lambda: d.execute_script("annolinkMap.setView([%r,%r], %r, {animate: false})" % (p["y"], p["x"], zoom)))
    # A tap 5 px from 831: the list, then a tap on 831's entry: its popup, inside the screen.
    x, y = page_pixel(p["x"], p["y"])
    # Where the tap falls, read before the popup's opening pans the map to fit it.
    out["tapExpected"] = d.execute_script("""const r = annolinkMap.getContainer().getBoundingClientRect();
        const l = annolinkMap.containerPointToLatLng([arguments[0] - r.left, arguments[1] - r.top]); return [l.lng, l.lat, Math.pow(2, -annolinkMap.getZoom())];""", x + 5, y - 4)
    tap(x + 5, y - 4)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".identify-list button"))
    wait.until(lambda d: settled())
    out["list"] = [[b.get_attribute("data-layer"), b.get_attribute("data-oid")] for b in d.find_elements(By.CSS_SELECTOR, ".identify-list button")]
    out["tapReadout"] = [float(d.find_element(By.ID, "coords").get_attribute("data-pointer-x")), float(d.find_element(By.ID, "coords").get_attribute("data-pointer-y"))]
    entry = d.find_element(By.CSS_SELECTOR, '.identify-list button[data-oid="831"]')
    r = d.execute_script("const r = arguments[0].getBoundingClientRect(); return [(r.left + r.right) / 2, (r.top + r.bottom) / 2];", entry)
    tap(r[0], r[1])
    form = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, '.feature-form[data-oid="831"]'))
    wait.until(lambda d: settled())
    out["popup"] = d.execute_script("const r = document.querySelector('.leaflet-popup-content-wrapper').getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom];")
    out["popupButtons"] = [b.text for b in form.find_elements(By.TAG_NAME, "button")]
    d.save_screenshot(os.path.join(shot, "editor-phone.png"))
    # Zoom to by touch: from further out, back to 1:1200 about 831.
    drawn_after(lambda: d.execute_script("annolinkMap.setZoom(annolinkMap.getZoom() - 2, {animate: false})"))
    button = form.find_element(By.NAME, "zoom-to")
    r = d.execute_script("const r = arguments[0].getBoundingClientRect(); return [(r.left + r.right) / 2, (r.top + r.bottom) / 2];", button)
    drawn_after(lambda: tap(r[0], r[1]))
    out["zoomTo"] = {"centre": centre(), "point": [p["x"], p["y"]], "shown": d.find_element(By.ID, "status").text.split("1:")[-1]}
    # Export image of the phone's view.
    d.execute_script("annolinkMap.closePopup()")
    b = d.find_element(By.ID, "export-image")
    r = d.execute_script("const r = arguments[0].getBoundingClientRect(); return [(r.left + r.right) / 2, (r.top + r.bottom) / 2];", b)
    tap(r[0], r[1])
    wait.until(lambda d: body("data-exports") == "1")
    out["export"] = json.loads(body("data-last-export"))
    out["mapSize"] = d.execute_script("const s = annolinkMap.getSize(); return [s.x, s.y];")
    out["severe"] = [entry["message"] for entry in d.get_log("browser") if entry["level"] == "SEVERE"]
finally:
    d.quit()
print(json.dumps(out))
