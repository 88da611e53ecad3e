"""Tab order, visible focus and accessible names of every control; Enter on the map
identifies at the centre; Space and Enter work the list and the popup; Escape closes it.

Run by MapGeoViewTests.swift, which checks what it prints. By hand, against `annolink serve`
on the Loudoun import (docs/testing.md, "The browser tests' scripts"):

    .test/venv/bin/python Tests/EndToEndTests/Browser/geoview_keyboard.py http://127.0.0.1:8080
"""
import json, math, sys, time
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.support.ui import WebDriverWait
from annolink_browser import chromium, get, views, settled, drawn_after

base = sys.argv[1]
service = base + "/arcgis/rest/services/loudoun/FeatureServer"
d = chromium(1280, 800)
# A viewport of exactly 1280 × 800 CSS pixels (the window's size includes the browser's own parts).
d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
out = {}
# What has the focus: a name for it, whether it has an accessible name, and its focus ring.
FOCUSED = """
const e = document.activeElement;
const label = e.getAttribute('aria-label') || (e.labels && e.labels[0] && e.labels[0].textContent) || e.getAttribute('title') || e.textContent.trim();
const s = getComputedStyle(e);
return {id: e.id, tag: e.tagName.toLowerCase(), name: e.getAttribute('name'), cls: e.className && e.className.baseVal === undefined ? e.className : '',
        label: label, outline: s.outlineStyle + ' ' + s.outlineWidth, visible: s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2};
"""
def focused():
    return d.execute_script(FOCUSED)
def press(*keys):
    ActionChains(d).send_keys(*keys).perform()
try:
    wait = WebDriverWait(d, 20)
    d.get(base + "/")
    wait.until(lambda d: "in view" in d.find_element(By.ID, "status").text)
    wait.until(lambda d: settled())
    # Tab from the start of the page round to where it began: every control on the way.
    d.execute_script("document.activeElement.blur(); window.focus();")
    order = []
    for _ in range(30):
        press(Keys.TAB)
        f = focused()
        if f["tag"] == "body": continue   # the browser's own stop between the last control and the first
        if order and f["id"] == order[0]["id"] and f["cls"] == order[0]["cls"] and f["label"] == order[0]["label"]: break
        order.append(f)
    out["tabOrder"] = order
    # Leaflet's zoom buttons are links: Space presses them as Enter does.
    zoom = lambda: d.execute_script("return annolinkMap.getZoom()")
    z0 = zoom()
    drawn_after(lambda: (d.execute_script("document.querySelector('.leaflet-control-zoom-in').focus()"), press(Keys.SPACE)))
    z1 = zoom()
    drawn_after(lambda: (d.execute_script("document.querySelector('.leaflet-control-zoom-out').focus()"), press(Keys.ENTER)))
    out["zoomKeys"] = [z0, z1, zoom()]

    # The keyboard's tap: the map centred near 831 at 1:2400, focused, Enter identifies.
    p = get(service + "/0/query?objectIds=831&returnGeometry=true&f=json")["features"][0]["geometry"]
    zoom = -math.log2(2400 * 0.0254 / 96 / (1200 / 3937))
    drawn_after(lambda: d.execute_script("annolinkMap.setView([%r,%r], %r, {animate: false})" % (p["y"] + 2, p["x"] - 3, zoom)))
    d.execute_script("annolinkMap.getContainer().focus()")
    press(Keys.ENTER)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".identify-list button"))
    wait.until(lambda d: settled())
    out["afterEnter"] = focused()
    # Arrow through the list with Tab to 831, and Space chooses it.
    for _ in range(10):
        f = focused()
        if f["tag"] == "button" and "Loudoun_Address_Points_1 831" in f["label"]: break
        press(Keys.TAB)
    press(Keys.SPACE)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, '.feature-form[data-oid="831"]'))
    wait.until(lambda d: settled())
    out["popupFocus"] = focused()
    inside = []
    for _ in range(40):
        f = focused()
        inside.append(f)
        if f["name"] == "zoom-to": break
        press(Keys.TAB)
    out["popupOrder"] = inside
    seen = views()
    press(Keys.ENTER)
    wait.until(lambda d: views() > seen and settled())
    c = d.execute_script("const c = annolinkMap.getCenter(); return [c.lng, c.lat];")
    out["zoomTo"] = {"centre": c, "point": [p["x"], p["y"]], "shown": d.find_element(By.ID, "status").text.split("1:")[-1]}
    # Escape closes the popup from inside it, and the focus goes back to the map.
    d.execute_script("annolinkMap.getContainer().focus()")
    press(Keys.ESCAPE)
    wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, ".leaflet-popup"))
    out["afterEscape"] = focused()
    # The scale box by keyboard.
    scale = d.find_element(By.ID, "scale")
    def typed():
        scale.clear(); scale.send_keys("600", Keys.ENTER)
    drawn_after(typed)
    out["typedScale"] = d.find_element(By.ID, "status").text.split("1:")[-1]
    # Move by keyboard: Enter on the map at 831 and on its entry, Tab to Move, Enter; the focus is
    # the map's again; an arrow key pans, Enter puts the point at the centre.
    zoom = -math.log2(1200 * 0.0254 / 96 / (1200 / 3937))
    drawn_after(lambda: d.execute_script("annolinkMap.setView([%r,%r], %r, {animate: false})" % (p["y"], p["x"], zoom)))
    d.execute_script("annolinkMap.getContainer().focus()")
    press(Keys.ENTER)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, '.identify-list button[data-oid="831"]'))
    wait.until(lambda d: settled())
    press(Keys.ENTER)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, '.feature-form[data-oid="831"]'))
    wait.until(lambda d: settled())
    for _ in range(40):
        if focused()["name"] == "move": break
        press(Keys.TAB)
    press(Keys.ENTER)
    wait.until(lambda d: "tap where" in d.find_element(By.ID, "message").text)
    time.sleep(0.3)
    out["afterMove"] = focused()
    drawn_after(lambda: press(Keys.ARROW_RIGHT))
    centre = d.execute_script("const c = annolinkMap.getCenter(); return [c.lng, c.lat];")
    drawn_after(lambda: press(Keys.ENTER))
    moved = get(service + "/0/query?objectIds=831&returnGeometry=true&f=json")["features"][0]["geometry"]
    out["keyboardMove"] = {"centre": centre, "before": [p["x"], p["y"]], "stored": [moved["x"], moved["y"]],
                           "message": d.find_element(By.ID, "message").text}
    out["severe"] = [entry["message"] for entry in d.get_log("browser") if entry["level"] == "SEVERE"]
finally:
    d.quit()
print(json.dumps(out))
