"""Opens the map page of one server at `fid`'s address point, edits it through the other
server, and prints what the page saw as JSON. Arguments: the page's server, the other
server's FeatureServer URL, the layer id, the fid, the point's x and y.

Run by ServePostGISTests.swift, which checks what it prints. By hand, against `annolink serve`
twice, on one PostGIS database (docs/postgis.md) (docs/testing.md, "The browser tests' scripts"):

    .test/venv/bin/python Tests/EndToEndTests/Browser/postgis_page.py http://127.0.0.1:8080 http://127.0.0.1:8081/arcgis/rest/services/NAME/FeatureServer LAYER FID X Y
"""
import json, math, sys, time, urllib.parse, urllib.request
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait
from annolink_browser import chromium
base, other, layer, fid, x, y = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5]), float(sys.argv[6])
d = chromium(1280, 800)
LABEL = 'text[data-layer="Loudoun_Address_PointsAnno_1"][data-feature-id="%s"]' % fid
out = {}
try:
    wait = WebDriverWait(d, 30, ignored_exceptions=[StaleElementReferenceException])
    d.get(base + "/")
    wait.until(lambda d: "in view" in d.find_element(By.ID, "status").text)
    d.execute_script("window.notReloaded = true")
    zoom = -math.log2(1200 * 0.0254 / 96 / (1200 / 3937))
    d.execute_script("annolinkMap.setView([%r,%r], %r, {animate: false})" % (y, x, zoom))
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, LABEL))
    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-journal-listening") == "true")
    out["before"] = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, LABEL).text)   # a redraw may replace the element
    time.sleep(1.5)   # the page's poll is now held by the server
    body = urllib.parse.urlencode({"f": "json", "updates": json.dumps([{"attributes": {"fid": int(fid), "AD_ADDRESS": 45111}}])}).encode()
    with urllib.request.urlopen(other + "/%s/applyEdits" % layer, data=body) as r:
        out["edit"] = json.load(r)
    t0 = time.time()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, LABEL) and d.find_element(By.CSS_SELECTOR, LABEL).text.startswith("45111 "))
    out["seconds"] = time.time() - t0
    out["after"] = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, LABEL).text)
    out["notReloaded"] = d.execute_script("return window.notReloaded === true")
    out["errors"] = d.find_element(By.ID, "errors").text
finally:
    d.quit()
print(json.dumps(out))
