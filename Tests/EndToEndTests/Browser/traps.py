"""The layer list and what a tap identifies, tools offered by the layer's geometry, one undo
in view while a sketch is open (Ctrl+Z undoes the sketch, not the journal), the journal Undo
naming table, fid and field. Arguments: the server's URL. Prints what it saw as JSON.

Run by MapEditorTrapsTests.swift, which checks what it prints. By hand, against `annolink serve`
on the Loudoun import (docs/testing.md, "The browser tests' scripts"):

    .test/venv/bin/python Tests/EndToEndTests/Browser/traps.py http://127.0.0.1:8080
"""
import json, math, sys, time
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait
from annolink_browser import chromium, get, body, settled, drawn_after, idle, answered, state

base = sys.argv[1]
service = base + "/arcgis/rest/services/loudoun/FeatureServer"
d = chromium(1280, 800)
out = {}
# When each step ended, seconds from the start: where a slow run spent its time.
began = time.time()
marks = out["marks"] = []
def shown(element_id):
    found = d.find_elements(By.ID, element_id)
    return bool(found) and found[0].is_displayed()
def offered():
    return [t for t in ("point", "polyline", "polygon") if shown("sketch-new-" + t)]
def journal_undo():
    b = d.find_element(By.CSS_SELECTOR, '#journal-tools button[name="undo"]')
    return {"shown": b.is_displayed(), "title": b.get_attribute("title"), "enabled": b.is_enabled()}
def undo_buttons():
    return [b.get_attribute("id") or b.get_attribute("name") for b in d.find_elements(By.TAG_NAME, "button") if b.is_displayed() and b.text == "Undo"]
try:
    wait = WebDriverWait(d, 30)
    d.get(base + "/")
    wait.until(lambda d: "in view" in d.find_element(By.ID, "status").text)
    wait.until(lambda d: d.find_elements(By.ID, "layers"))
    layers = get(service + "?f=json")["layers"]
    ids = {l["name"]: l["id"] for l in layers}
    p = get(service + "/%d/query?objectIds=831&returnGeometry=true&f=json" % ids["Loudoun_Address_Points_1"])["features"][0]["geometry"]
    zoom = -math.log2(1200 * 0.0254 / 96 / (1200 / 3937))
    drawn_after(lambda: d.execute_script("annolinkMap.setView([%r,%r], %r, {animate: false})" % (p["y"], p["x"], zoom)))
    mapElement = d.find_element(By.ID, "map")
    def tap(x, y, dx, dy):
        c = d.execute_script("const p = annolinkMap.latLngToContainerPoint([arguments[1], arguments[0]]); return [p.x, p.y];", x, y)
        size = mapElement.size
        ActionChains(d).move_to_element_with_offset(mapElement, c[0] + dx - size["width"] / 2, c[1] + dy - size["height"] / 2).click().perform()

    # The layer list: every table, each with its checkbox.
    d.find_element(By.CSS_SELECTOR, "#layers summary").click()
    boxes = d.find_elements(By.CSS_SELECTOR, "#layers input[type=checkbox]")
    out["listed"] = sorted(b.get_attribute("data-layer") for b in boxes)
    out["tables"] = sorted(l["name"] for l in layers if l["type"] != "Annotation SubLayer")
    out["allChecked"] = all(b.is_selected() for b in boxes)
    # With every table on, a tap 6 px from 831 lists several features.
    tap(p["x"], p["y"], 6, -5)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".identify-list button") or d.find_elements(By.CSS_SELECTOR, ".leaflet-popup .feature-form"))
    out["listBefore"] = len(d.find_elements(By.CSS_SELECTOR, ".identify-list button"))
    marks.append(['listBefore', round(time.time() - began, 1)])
    d.execute_script("annolinkMap.closePopup()")
    # Only the address points left on: the others are not drawn, and the same tap opens 831's popup at once.
    for b in boxes:
        if b.get_attribute("data-layer") != "Loudoun_Address_Points_1" and b.is_selected():
            drawn_after(lambda: b.click())
    out["storedHidden"] = sorted(json.loads(d.execute_script("return localStorage.getItem('annolink.hidden.loudoun')")))
    out["drawnLabels"] = sorted(set(t.get_attribute("data-layer") for t in d.find_elements(By.CSS_SELECTOR, "#annotation text")))
    tap(p["x"], p["y"], 6, -5)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".leaflet-popup .feature-form") or d.find_elements(By.CSS_SELECTOR, ".identify-list button"))
    out["listAfter"] = len(d.find_elements(By.CSS_SELECTOR, ".identify-list button"))
    form = d.find_element(By.CSS_SELECTOR, ".leaflet-popup .feature-form")
    out["popupOf"] = [form.get_attribute("data-layer"), form.get_attribute("data-oid")]
    out["message"] = d.find_element(By.ID, "message").text
    # An edit of 831's AD_ADDRESS: the journal's Undo names the table, the fid and the field.
    wait.until(lambda d: settled())
    field = form.find_element(By.NAME, "AD_ADDRESS")
    field.clear(); field.send_keys("45999")
    drawn_after(lambda: form.find_element(By.NAME, "update").click())
    wait.until(lambda d: "AD_ADDRESS" in journal_undo()["title"])
    out["undoAfterUpdate"] = journal_undo()
    marks.append(['undoAfterUpdate', round(time.time() - began, 1)])
    # The hidden layers are remembered across a reload.
    d.get(base + "/")
    wait.until(lambda d: "in view" in d.find_element(By.ID, "status").text)
    wait.until(lambda d: d.find_elements(By.ID, "layers"))
    out["checkedAfterReload"] = sorted(b.get_attribute("data-layer") for b in d.find_elements(By.CSS_SELECTOR, "#layers input[type=checkbox]") if b.is_selected())
    d.execute_script("localStorage.removeItem('annolink.hidden.loudoun')")
    d.get(base + "/")
    wait.until(lambda d: "in view" in d.find_element(By.ID, "status").text)
    drawn_after(lambda: d.execute_script("annolinkMap.setView([%r,%r], %r, {animate: false})" % (p["y"] + 150, p["x"] + 150, zoom)))

    # Tools by geometry: a point layer offers New point only; a line layer New line only.
    layer = Select(d.find_element(By.ID, "sketch-layer"))
    layer.select_by_value("Loudoun_Address_Points_1")
    out["offeredPoints"] = offered()
    marks.append(['offeredPoints', round(time.time() - began, 1)])
    layer.select_by_value("ParcelLines_1")
    out["offeredLines"] = offered()
    layer.select_by_value("Loudoun_Buildings_1")
    out["offeredPolygons"] = offered()

    # The trap: add a point and Save; then New line in ParcelLines_1, Insert point, Ctrl+Z on the map.
    layer.select_by_value("Loudoun_Address_Points_1")
    answered(lambda: d.find_element(By.ID, "sketch-new-point").click())
    answered(lambda: d.find_element(By.ID, "sketch-button").click())
    d.find_element(By.ID, "sketch-save").click()
    wait.until(lambda d: body("data-sketch-saved"))
    wait.until(lambda d: idle() and settled())
    out["saved"] = json.loads(body("data-sketch-saved"))
    wait.until(lambda d: journal_undo()["enabled"] and "add" in journal_undo()["title"])
    out["journalUndoIdle"] = journal_undo()
    marks.append(['journalUndoIdle', round(time.time() - began, 1)])
    layer.select_by_value("ParcelLines_1")
    answered(lambda: d.find_element(By.ID, "sketch-new-polyline").click())
    answered(lambda: d.find_element(By.ID, "sketch-button").click())
    out["sketchBefore"] = state()["parts"]
    out["journalBefore"] = get(base + "/journal")
    out["undoButtonsSketching"] = undo_buttons()
    out["journalUndoSketching"] = journal_undo()
    d.execute_script("document.getElementById('map').focus()")
    answered(lambda: ActionChains(d).key_down(Keys.CONTROL).send_keys("z").key_up(Keys.CONTROL).perform())
    out["sketchAfterUndo"] = state()["parts"]
    time.sleep(1.5)   # a journal undo, had one been sent, would have answered by now
    wait.until(lambda d: body("data-journal-pending") in (None, "0") and settled())
    out["journalAfterUndo"] = get(base + "/journal")
    answered(lambda: ActionChains(d).key_down(Keys.CONTROL).key_down(Keys.SHIFT).send_keys("z").key_up(Keys.SHIFT).key_up(Keys.CONTROL).perform())
    out["sketchAfterRedo"] = state()["parts"]
    marks.append(['sketchAfterRedo', round(time.time() - began, 1)])
    out["journalAfterRedo"] = get(base + "/journal")
    d.find_element(By.ID, "sketch-cancel").click()
    wait.until(lambda d: state() is None and idle())
    out["journalUndoAfterCancel"] = journal_undo()
    out["undoButtonsAfterCancel"] = undo_buttons()
    marks.append(['undoButtonsAfterCancel', round(time.time() - began, 1)])
    out["errors"] = d.find_element(By.ID, "errors").text
    out["severe"] = [entry["message"] for entry in d.get_log("browser") if entry["level"] == "SEVERE"]
finally:
    d.quit()
print(json.dumps(out))
