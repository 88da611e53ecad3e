"""Arguments: the server's URL, the file, the annolink binary. Prints what it saw as JSON.

Run by MapEditorLiveTests.swift, which checks what it prints. By hand, against `annolink serve`
on the Loudoun import (docs/testing.md, "The browser tests' scripts"):

    .test/venv/bin/python Tests/EndToEndTests/Browser/live.py http://127.0.0.1:8080 /tmp/loudoun.gpkg .build/debug/annolink
"""
import json, math, subprocess, sys, time, urllib.parse, urllib.request
from selenium.webdriver.common.action_chains import ActionChains
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait
from annolink_browser import chromium, get, body, settled
base, path, annolink = sys.argv[1], sys.argv[2], sys.argv[3]
service = base + "/arcgis/rest/services/loudoun/FeatureServer"
LABEL = 'text[data-layer="Loudoun_Address_PointsAnno_1"][data-feature-id="831"]'
def sqlite(sql):
    return subprocess.run(["sqlite3", path, sql], capture_output=True, text=True, check=True).stdout.strip()
d = chromium(1280, 800)
out = {}
# A live redraw can replace the labels between finding one and reading it.
wait = WebDriverWait(d, 30, ignored_exceptions=[StaleElementReferenceException])
def label():
    return d.find_element(By.CSS_SELECTOR, LABEL).text
def label_becomes(text):
    # Waits for the label drawn to read `text`; returns the seconds it took.
    t0 = time.time()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, LABEL) and label() == text)
    return time.time() - t0
try:
    d.get(base + "/")
    wait.until(lambda d: "in view" in d.find_element(By.ID, "status").text)
    wait.until(lambda d: d.find_element(By.ID, "live").text == "live")
    undo, redo = d.find_element(By.NAME, "undo"), d.find_element(By.NAME, "redo")
    out["start"] = {"undo": undo.is_enabled(), "redo": redo.is_enabled(), "title": undo.get_attribute("title")}
    d.execute_script("window.notReloaded = true")

    # Address point 831 at 1:1200, its popup open.
    p = get(service + "/0/query?objectIds=831&returnGeometry=true&f=json")["features"][0]["geometry"]
    zoom = -math.log2(1200 * 0.0254 / 96 / (1200 / 3937))
    d.execute_script("annolinkMap.setView([%r,%r], %r, {animate: false})" % (p["y"], p["x"], zoom))
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, LABEL) and settled(journal=True))
    m = d.find_element(By.ID, "map")
    c = d.execute_script("const p = annolinkMap.latLngToContainerPoint([arguments[1], arguments[0]]); return [p.x, p.y];", p["x"], p["y"])
    ActionChains(d).move_to_element_with_offset(m, c[0] + 4 - m.size["width"] / 2, c[1] - 3 - m.size["height"] / 2).click().perform()
    # Several features are within 10 px there: 831 is chosen from the identify list.
    found = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, '.feature-form[data-oid="831"]')
                       or d.find_elements(By.CSS_SELECTOR, '.identify-list button[data-oid="831"]'))
    if not d.find_elements(By.CSS_SELECTOR, '.feature-form[data-oid="831"]'):
        found[0].click()
    form = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, '.feature-form[data-oid="831"]'))
    wait.until(lambda d: settled(journal=True))
    out["before"] = {"label": wait.until(lambda d: label()), "popup": form.find_element(By.CSS_SELECTOR, ".annotation").text}

    # The command line, in another process, changes the house number: the label drawn and
    # the open popup follow, without a reload.
    redraws = int(body("data-live-redraws") or 0)
    t0 = time.time()
    cli = subprocess.run([annolink, "set", path, "Loudoun_Address_Points_1", "831", "AD_ADDRESS=45888"], capture_output=True, text=True)
    out["cliStatus"] = cli.returncode
    label_becomes("45888 ELMWOOD")
    out["cliSeconds"] = time.time() - t0
    wait.until(lambda d: form.find_element(By.CSS_SELECTOR, ".annotation").text == "45888 ELMWOOD")
    out["cli"] = {"label": wait.until(lambda d: label()), "popup": form.find_element(By.CSS_SELECTOR, ".annotation").text,
                  "field": form.find_element(By.NAME, "AD_ADDRESS").get_attribute("value"),
                  "redraws": int(body("data-live-redraws") or 0) - redraws,
                  "undoTitle": undo.get_attribute("title"), "undo": undo.is_enabled()}

    # Undo in the page: the file and the page go back.
    wait.until(lambda d: undo.is_enabled())
    undo.click()
    label_becomes("45763 ELMWOOD")
    wait.until(lambda d: settled(journal=True) and d.find_element(By.ID, "message").text.startswith("undid"))
    out["undo"] = {"message": d.find_element(By.ID, "message").text, "popup": form.find_element(By.CSS_SELECTOR, ".annotation").text,
                   "file": sqlite("SELECT AD_ADDRESS FROM Loudoun_Address_Points_1 WHERE fid = 831") + "|" +
                           sqlite("SELECT TextString FROM Loudoun_Address_PointsAnno_1 WHERE FeatureID = 831"),
                   "redo": redo.is_enabled(), "redoTitle": redo.get_attribute("title")}
    # Redo in the page.
    redo.click()
    label_becomes("45888 ELMWOOD")
    wait.until(lambda d: settled(journal=True) and d.find_element(By.ID, "message").text.startswith("redid"))
    out["redo"] = {"message": d.find_element(By.ID, "message").text,
                   "file": sqlite("SELECT TextString FROM Loudoun_Address_PointsAnno_1 WHERE FeatureID = 831")}

    # Another client of the server (an HTTP applyEdits): the page follows it too.
    edit = urllib.parse.urlencode({"f": "json", "updates": json.dumps([{"attributes": {"fid": 831, "AD_ADDRESS": 45777}}])}).encode()
    with urllib.request.urlopen(urllib.request.Request(service + "/0/applyEdits", data=edit)) as r:
        out["httpEdit"] = json.load(r)["updateResults"][0]["success"]
    out["httpSeconds"] = label_becomes("45777 ELMWOOD")

    # A change outside the journal (GDAL, in another process, past the change capture, whose
    # update trigger is dropped first: a recorded change would be followed and journaled,
    # docs/follow.md): the page's undo is refused with the command line's words, and nothing
    # changes.
    subprocess.run(["sqlite3", path, 'DROP TRIGGER "annolink_changes_Loudoun_Address_Points_1_update"'], check=True, capture_output=True)
    subprocess.run(["ogrinfo", "-q", path, "-dialect", "SQLite", "-sql",
                    "UPDATE Loudoun_Address_Points_1 SET AD_ADDRESS = 45111 WHERE fid = 831"], check=True, capture_output=True)
    wait.until(lambda d: settled(journal=True) and undo.is_enabled())
    undo.click()
    wait.until(lambda d: d.find_element(By.ID, "errors").text.strip())
    out["refused"] = {"error": d.find_element(By.ID, "errors").text,
                      "file": sqlite("SELECT AD_ADDRESS FROM Loudoun_Address_Points_1 WHERE fid = 831")}
    out["notReloaded"] = d.execute_script("return window.notReloaded === true")
    out["navigations"] = d.execute_script("return performance.getEntriesByType('navigation').length")
    out["severe"] = [e["message"] for e in d.get_log("browser") if e["level"] == "SEVERE"]
finally:
    d.quit()
print(json.dumps(out))
