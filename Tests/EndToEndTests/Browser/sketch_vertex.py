"""The vertex tool in the page: Edit shape on a two-point parcel line, a tap on it, the
Vertex tool, its end dragged, its mid-vertex dragged out, Delete vertex, Undo, Save.
Argument: the server's URL.

Run by MapEditorSketchTests.swift, which checks what it prints. By hand, against `annolink serve`
on the Loudoun import (docs/testing.md, "The browser tests' scripts"):

    .test/venv/bin/python Tests/EndToEndTests/Browser/sketch_vertex.py http://127.0.0.1:8080
"""
import json, math, sys
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait
from annolink_browser import chromium, get, body, idle, answered, state

base = sys.argv[1]
service = base + "/arcgis/rest/services/loudoun/FeatureServer"
d = chromium(1280, 800)
out = {}
def drag(selector, dx, dy):
    # Presses on a drawn vertex and moves in steps with pauses, as a hand does.
    target = d.find_element(By.CSS_SELECTOR, selector)
    def act():
        chain = ActionChains(d).move_to_element(target).click_and_hold().pause(0.1)
        for _ in range(4):
            chain = chain.move_by_offset(dx / 4, dy / 4).pause(0.1)
        chain.pause(0.2).release().perform()
    answered(act)
try:
    wait = WebDriverWait(d, 30)
    d.get(base + "/")
    wait.until(lambda d: "in view" in d.find_element(By.ID, "status").text)
    # A two-point parcel line with a length label, with no other point or line within 15 ft of its middle.
    kinds = {l["id"]: l["geometryType"] for l in get(service + "?f=json")["layers"]}
    def alone(x, y):
        return sum(get(service + "/%d/query?geometry=%r,%r&geometryType=esriGeometryPoint&distance=15&returnCountOnly=true&f=json" % (i, x, y))["count"]
                   for i, k in kinds.items() if k in ("esriGeometryPoint", "esriGeometryPolyline") and i < 6) == 1
    labelled = {f["attributes"]["FeatureID"] for f in get(service + "/7/query?where=1%3D1&outFields=FeatureID&returnGeometry=false&f=json")["features"]}
    for f in get(service + "/5/query?where=1%3D1&outFields=fid&orderByFields=fid&returnGeometry=true&f=json")["features"]:
        path = f["geometry"]["paths"][0]
        m = [(path[0][0] + path[1][0]) / 2, (path[0][1] + path[1][1]) / 2]
        if len(f["geometry"]["paths"]) == 1 and len(path) == 2 and f["attributes"]["fid"] in labelled and alone(*m):
            out["fid"], out["path"] = f["attributes"]["fid"], path
            break
    zoom = -math.log2(1200 * 0.0254 / 96 / (1200 / 3937))
    seen = int(body("data-views") or 0)
    d.execute_script("annolinkMap.setView([%r,%r], %r, {animate: false})" % (m[1], m[0], zoom))
    wait.until(lambda d: int(body("data-views") or 0) > seen and idle())
    # Edit shape, then a tap on the line: a session on that feature.
    d.find_element(By.ID, "sketch-edit").click()
    answered(lambda: ActionChains(d).move_to_element(d.find_element(By.ID, "map")).click().perform())
    s = state()
    out["session"] = {"table": s["table"], "fid": s["fid"], "parts": s["parts"], "tool": s["tool"]}
    answered(lambda: d.find_element(By.ID, "sketch-tool-vertex").click())
    out["tool"] = state()["tool"]
    out["reticleHidden"] = d.find_element(By.ID, "sketch-reticle").get_attribute("hidden")
    # Drag the line's end 40 px right, then its mid-vertex 30 px down.
    drag('path.sketch-vertex[data-vertex="1"]', 40, 0)
    out["afterEndDrag"] = state()["parts"]
    out["unitsPerPixel"] = d.execute_script("return Math.pow(2, -annolinkMap.getZoom())")
    drag('path.sketch-midVertex[data-segment="0"]', 0, 30)
    out["afterMidDrag"] = {"parts": state()["parts"], "selected": state()["selected"]}
    answered(lambda: d.find_element(By.ID, "sketch-delete").click())
    out["afterDelete"] = state()["parts"]
    answered(lambda: d.find_element(By.ID, "sketch-undo").click())
    out["afterUndo"] = state()["parts"]
    d.find_element(By.ID, "sketch-save").click()
    wait.until(lambda d: body("data-sketch-saved"))
    wait.until(lambda d: idle())
    out["saved"] = json.loads(body("data-sketch-saved"))
    def shown():
        found = d.find_elements(By.CSS_SELECTOR, 'text[data-layer="ParcelLinesAnno_1"][data-feature-id="%d"]' % out["fid"])
        return found[0].text if found else None
    # The view is drawn again after the save; on a busy machine that can come after idle().
    expected = ((out["saved"].get("annotation") or [{}])[0]).get("newText")
    try:
        wait.until(lambda d: shown() == expected)
    except Exception:
        pass
    out["label"] = shown()
    out["errors"] = d.find_element(By.ID, "errors").text
    out["severe"] = [entry["message"] for entry in d.get_log("browser") if entry["level"] == "SEVERE"]
finally:
    d.quit()
print(json.dumps(out))
