"""The geometry-editor sample's reticle workflow, pressed in the page: a new polyline, three
points inserted by dragging the map under the reticle, the middle one picked up and
dropped, undo, redo, save. Prints what it saw as JSON. Arguments: the server's URL and
the map point to start at.

Run by MapEditorSketchTests.swift, which checks what it prints. By hand, against `annolink serve`
on the Loudoun import (docs/testing.md, "The browser tests' scripts"):

    .test/venv/bin/python Tests/EndToEndTests/Browser/sketch_reticle.py http://127.0.0.1:8080 11789200 7057600 /tmp/editor-sketch.png
"""
import json, math, sys
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait
from annolink_browser import chromium, body, idle, answered, state

base, x0, y0, shot = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
d = chromium(1280, 800)
out = {"presses": [], "labels": [], "feedback": []}
def press():
    # The reticle button: what its label said, and the view the press was made in.
    label = d.find_element(By.ID, "sketch-button").text
    reticle = d.find_element(By.ID, "sketch-reticle").get_attribute("class")
    answered(lambda: d.find_element(By.ID, "sketch-button").click())
    s = state()
    out["presses"].append({"label": label, "reticleClass": reticle, "center": s["view"]["center"], "scale": s["view"]["scale"],
                           "width": s["view"]["width"], "height": s["view"]["height"],
                           # The view as `annolink sketch` takes it, each number in Python's shortest exact form.
                           "command": "view %r,%r %r" % (float(s["view"]["center"][0]), float(s["view"]["center"][1]), float(s["view"]["scale"]))})
    out["labels"].append(d.find_element(By.ID, "sketch-button").text)
mapElement = None
def pan(dx, dy):
    # Drags the map so that the reticle goes dx pixels right and dy down over it.
    # In steps with pauses, as a hand moves: Leaflet draws a drag's moves on animation frames.
    def drag():
        chain = ActionChains(d).move_to_element(mapElement).click_and_hold().pause(0.1)
        for _ in range(4):
            chain = chain.move_by_offset(-dx / 4, -dy / 4).pause(0.1)
        chain.pause(0.2).release().perform()
    answered(drag)
try:
    wait = WebDriverWait(d, 30)
    d.get(base + "/")
    wait.until(lambda d: "in view" in d.find_element(By.ID, "status").text)
    mapElement = d.find_element(By.ID, "map")
    zoom = -math.log2(1200 * 0.0254 / 96 / (1200 / 3937))
    seen = int(body("data-views") or 0)
    d.execute_script("annolinkMap.setView([%r,%r], %r, {animate: false})" % (y0, x0, zoom))
    wait.until(lambda d: int(body("data-views") or 0) > seen and idle())
    from selenium.webdriver.support.ui import Select
    Select(d.find_element(By.ID, "sketch-layer")).select_by_value("ParcelLines_1")
    answered(lambda: d.find_element(By.ID, "sketch-new-polyline").click())
    out["start"] = state()
    press()            # Insert point
    pan(100, 0)
    press()            # Insert point
    pan(0, 100)
    press()            # Insert point
    pan(0, -100)       # back over the middle vertex
    out["hoverFeedback"] = {"label": d.find_element(By.ID, "sketch-button").text,
                            "reticle": d.find_element(By.ID, "sketch-reticle").get_attribute("class"),
                            "hovered": d.execute_script("return [...document.querySelectorAll('path.sketch-hovered')].map(p => p.getAttribute('class'))")}
    press()            # Pick up point
    out["carrying"] = {"reticle": d.find_element(By.ID, "sketch-reticle").get_attribute("class"), "pickedUp": state()["pickedUp"]}
    pan(30, 30)
    out["preview"] = state()["preview"]
    d.save_screenshot(shot)
    press()            # Drop point
    out["afterDrop"] = state()["parts"]
    answered(lambda: d.find_element(By.ID, "sketch-undo").click())
    out["afterUndo"] = {"parts": state()["parts"], "canRedo": state()["canRedo"], "redoEnabled": d.find_element(By.ID, "sketch-redo").is_enabled()}
    answered(lambda: d.find_element(By.ID, "sketch-redo").click())
    out["afterRedo"] = {"parts": state()["parts"], "canRedo": state()["canRedo"]}
    # The new feature's fields: a value that does not fit is refused on the page and nothing
    # is saved; then a whole number and a date go with the save.
    out["fieldNames"] = [i.get_attribute("name") for i in d.find_elements(By.CSS_SELECTOR, "#sketch-fields input")]
    out["fieldsFolded"] = not d.find_element(By.ID, "sketch-field-LEFT_FID").is_displayed()
    d.find_element(By.ID, "sketch-fields-open").click()
    left = d.find_element(By.ID, "sketch-field-LEFT_FID")
    left.send_keys("12.5")
    d.find_element(By.ID, "sketch-save").click()
    wait.until(lambda d: d.find_element(By.ID, "errors").text.strip())
    out["fieldError"] = d.find_element(By.ID, "errors").text
    out["openAfterRefusal"] = state() is not None and not body("data-sketch-saved")
    d.find_element(By.CSS_SELECTOR, "#errors button").click()
    left.clear(); left.send_keys("4242")
    d.find_element(By.ID, "sketch-field-created_date").send_keys("2026-12-01T10:20:30Z")
    d.find_element(By.ID, "sketch-save").click()
    wait.until(lambda d: body("data-sketch-saved"))
    wait.until(lambda d: idle())
    out["saved"] = json.loads(body("data-sketch-saved"))
    out["fieldsAfterSave"] = len(d.find_elements(By.CSS_SELECTOR, "#sketch-fields input"))
    out["message"] = d.find_element(By.ID, "message").text
    out["errors"] = d.find_element(By.ID, "errors").text
    out["severe"] = [entry["message"] for entry in d.get_log("browser") if entry["level"] == "SEVERE"]
finally:
    d.quit()
print(json.dumps(out))
