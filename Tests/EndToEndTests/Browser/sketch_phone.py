"""A new parcel line by touch and keyboard: New line and the reticle button tapped, the map
dragged by a finger under the reticle, the third point inserted with Enter on the map
(reached with Tab), the button then pressed with Space (Pick up point), the vertex
carried by a finger and dropped with a tap; then the Vertex tool, a vertex and a
mid-vertex dragged by a finger, Delete on the map, Undo tapped, Save tapped. Prints what it saw as JSON. Arguments: the
server's URL, the map point to start at, the screenshot's path.

Run by MapEditorSketchPhoneTests.swift, which checks what it prints. By hand, against `annolink serve`
on the Loudoun import (docs/testing.md, "The browser tests' scripts"):

    .test/venv/bin/python Tests/EndToEndTests/Browser/sketch_phone.py http://127.0.0.1:8080 11789200 7057600 /tmp/editor-sketch-phone.png
"""
import json, math, sys, time
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait
from annolink_browser import chromium, body, views, idle, answered, state

base, x0, y0, shot = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
d = chromium(390, 844)
# A phone: 390 x 844 CSS pixels, two device pixels each, touch. Set before the page loads,
# so that the page (and Leaflet) start on a touch screen.
d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True})
d.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
out = {"labels": [], "layout": {}, "centres": []}
def touch(kind, x=None, y=None):
    points = [] if kind == "touchEnd" else [{"x": x, "y": y, "id": 1, "radiusX": 1, "radiusY": 1, "force": 1}]
    d.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})
def swipe(x, y, dx, dy):
    # A finger down at x,y, moved by dx,dy in steps with pauses, as a hand moves, then lifted.
    touch("touchStart", x, y)
    time.sleep(0.1)
    for i in range(1, 6):
        touch("touchMove", x + dx * i / 5, y + dy * i / 5)
        time.sleep(0.1)
    time.sleep(0.2)
    touch("touchEnd")
def centre(element):
    r = d.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]", element)
    return r[0], r[1]
def tap(element_id):
    x, y = centre(d.find_element(By.ID, element_id))
    touch("touchStart", x, y)
    time.sleep(0.05)
    touch("touchEnd")
def pan(dx, dy):
    # A finger drags the map so that the reticle goes dx pixels right and dy down over it.
    answered(lambda: swipe(120, 300, -dx, -dy))
def label():
    return d.find_element(By.ID, "sketch-button").text
def pressed(action):
    # A press of the reticle button (by `action`): what its label said, and the reticle it was pressed at.
    out["labels"].append(label())
    answered(action)
    out["centres"].append(state()["view"]["center"])
def tab_to(element_id):
    # Tab from wherever the focus is until it is on `element_id`; how many presses it took.
    for n in range(1, 80):
        ActionChains(d).send_keys(Keys.TAB).perform()
        if d.execute_script("return document.activeElement && document.activeElement.id") == element_id:
            return n
    raise Exception("Tab never reached #" + element_id)
# Every visible sketch control inside the viewport, not covered (what a finger at its centre
# would hit is the control), and the crosshair clear of the toolbar.
layout = """
  const vw = window.innerWidth, vh = window.innerHeight, problems = [];
  const panel = document.getElementById('sketch').getBoundingClientRect();
  const reticle = document.getElementById('sketch-reticle');
  const controls = [...document.querySelectorAll('#sketch button, #sketch select')].filter(e => e.offsetParent !== null);
  for (const c of controls) {
    const r = c.getBoundingClientRect();
    if (r.left < 0 || r.top < 0 || r.right > vw || r.bottom > vh) problems.push(c.id + ' is outside the viewport');
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!c.contains(hit)) problems.push(c.id + ' is covered by ' + (hit ? hit.id || hit.tagName : 'nothing'));
    if (r.height < 40) problems.push(c.id + ' is ' + r.height + ' px high');
  }
  const rr = reticle.getBoundingClientRect();
  const covered = !reticle.hidden && !(rr.right <= panel.left || rr.left >= panel.right || rr.bottom <= panel.top || rr.top >= panel.bottom);
  return { viewport: [vw, vh], panel: [panel.left, panel.top, panel.right, panel.bottom], reticle: reticle.hidden ? null : [rr.left, rr.top, rr.right, rr.bottom],
           reticleCovered: covered, controls: controls.map(c => c.id), problems: problems };
"""
try:
    wait = WebDriverWait(d, 30)
    d.get(base + "/")
    wait.until(lambda d: "in view" in d.find_element(By.ID, "status").text)
    out["touchScreen"] = d.execute_script("return [navigator.maxTouchPoints, window.matchMedia('(pointer: coarse)').matches, L.Browser.touch]")
    zoom = -math.log2(1200 * 0.0254 / 96 / (1200 / 3937))
    seen = int(body("data-views") or 0)
    d.execute_script("annolinkMap.setView([%r,%r], %r, {animate: false})" % (y0, x0, zoom))
    wait.until(lambda d: int(body("data-views") or 0) > seen and idle())
    out["layout"]["start"] = d.execute_script(layout)
    Select(d.find_element(By.ID, "sketch-layer")).select_by_value("ParcelLines_1")
    answered(lambda: tap("sketch-new-polyline"))
    out["layout"]["reticle"] = d.execute_script(layout)
    out["start"] = state()["view"]
    pressed(lambda: tap("sketch-button"))                  # Insert point, by a tap
    pan(80, 0)
    pressed(lambda: tap("sketch-button"))                  # Insert point, by a tap
    pan(0, 80)
    # The keyboard: Tab to the map, Enter presses the reticle button.
    d.execute_script("document.activeElement && document.activeElement.blur()")
    out["tabsToMap"] = tab_to("map")
    out["mapFocusOutline"] = d.execute_script("const s = getComputedStyle(document.activeElement); return [s.outlineStyle, s.outlineWidth]")
    pressed(lambda: ActionChains(d).send_keys(Keys.ENTER).perform())    # Insert point, by Enter on the map
    out["afterInserts"] = state()["parts"]
    # Tab on to the reticle button itself; its focus is drawn; Space presses it.
    out["tabsToButton"] = tab_to("sketch-button")
    out["focusOutline"] = d.execute_script("const s = getComputedStyle(document.activeElement); return [s.outlineStyle, s.outlineWidth]")
    pressed(lambda: ActionChains(d).send_keys(Keys.SPACE).perform())    # Pick up point, by Space on the button
    out["pickedUp"] = state()["pickedUp"]
    pan(20, 20)
    out["layout"]["carrying"] = d.execute_script(layout)
    out["reticleClass"] = d.find_element(By.ID, "sketch-reticle").get_attribute("class")
    d.save_screenshot(shot)
    pressed(lambda: tap("sketch-button"))                  # Drop point, by a tap
    out["afterDrop"] = state()["parts"]
    # Two fingers spread apart, away from the centre: the map zooms in around the reticle;
    # then they pinch back together: it zooms out again, still around the reticle.
    def pinch(a, b):
        touches = lambda t: [{"x": a[i][0] + (b[i][0] - a[i][0]) * t, "y": a[i][1] + (b[i][1] - a[i][1]) * t, "id": i + 1} for i in range(2)]
        d.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": touches(0)})
        for i in range(1, 7):
            time.sleep(0.1)
            d.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": touches(i / 6)})
        time.sleep(0.2)
        d.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        try:
            # The view the map came to rest on is sent, and the session answers with it.
            WebDriverWait(d, 10).until(lambda d: idle() and state()["view"]["scale"] != views[-1]["scale"])
        except Exception:
            pass   # reported by the comparison of the views
        # A tap or touch within a few hundred ms of a pinch's end is taken by Chromium as part
        # of the gesture (no click); a hand is slower.
        time.sleep(1)
        WebDriverWait(d, 20).until(lambda d: idle())
        views.append(state()["view"])
    time.sleep(1)   # not so soon after the tap that the two could be one gesture
    views = [state()["view"]]
    near, far = [(100, 250), (160, 310)], [(40, 190), (220, 370)]
    pinch(near, far)
    pinch(far, near)
    out["pinch"] = views
    out["unitsPerPixel"] = d.execute_script("return Math.pow(2, -annolinkMap.getZoom())")
    # The vertex tool, by a tap; a vertex, then a mid-vertex, dragged by a finger.
    answered(lambda: tap("sketch-tool-vertex"))
    out["layout"]["vertex"] = d.execute_script(layout)
    x, y = centre(d.find_element(By.CSS_SELECTOR, 'path.sketch-vertex[data-vertex="0"]'))
    answered(lambda: swipe(x, y, -40, 0))
    out["afterVertexDrag"] = state()["parts"]
    x, y = centre(d.find_element(By.CSS_SELECTOR, 'path.sketch-midVertex[data-segment="0"]'))
    answered(lambda: swipe(x, y, 0, -30))
    out["afterMidDrag"] = {"parts": state()["parts"], "selected": state()["selected"]}
    # Delete on the focused map deletes the selected vertex; Undo, tapped, puts it back.
    tab_to("map")
    answered(lambda: ActionChains(d).send_keys(Keys.DELETE).perform())
    out["afterDelete"] = state()["parts"]
    answered(lambda: tap("sketch-undo"))
    out["beforeSave"] = state()["parts"]
    tap("sketch-save")
    wait.until(lambda d: body("data-sketch-saved"))
    wait.until(lambda d: idle())
    out["saved"] = json.loads(body("data-sketch-saved"))
    out["errors"] = d.find_element(By.ID, "errors").text
    out["severe"] = [entry["message"] for entry in d.get_log("browser") if entry["level"] == "SEVERE"]
finally:
    d.quit()
print(json.dumps(out))
