"""A server with `--tokens`: read-only without a token (an edit refused with 499, the token
form opened), an unknown token (401, forgotten), a read token (403), an edit token (the
edit made, by that user); the token never in a URL.

Run by MapGeoViewTests.swift, which checks what it prints. By hand, against `annolink serve`
on the Loudoun import with `--tokens FILE` (docs/testing.md, "The browser tests' scripts"):

    .test/venv/bin/python Tests/EndToEndTests/Browser/geoview_tokens.py http://127.0.0.1:8080
"""
import json, sys
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait
from selenium.webdriver.support import expected_conditions as EC
from annolink_browser import chromium, get, body, settled

base = sys.argv[1]
service = base + "/arcgis/rest/services/loudoun/FeatureServer"
d = chromium(1280, 800)
out = {}
wait = WebDriverWait(d, 20)
p = get(service + "/0/query?objectIds=831&returnGeometry=true&f=json")["features"][0]["geometry"]
def loaded():
    wait.until(lambda d: "in view" in d.find_element(By.ID, "status").text)
    wait.until(lambda d: settled())
def errors():
    return d.find_element(By.ID, "errors").text
def dismiss():
    for b in d.find_elements(By.CSS_SELECTOR, "#errors button"): b.click()
def popup():
    # 831's popup, through identify as a tap does.
    d.execute_script("""const l = L.latLng(arguments[1], arguments[0]);
        annolink.identify(l).then(h => { const hit = h.find(x => x.layer.name === 'Loudoun_Address_Points_1');
          return annolink.openPopup(hit.layer, hit.feature, l); });""", p["x"], p["y"])
    form = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, '.feature-form[data-oid="831"]'))
    wait.until(lambda d: settled())
    note = form.find_elements(By.CSS_SELECTOR, ".read-only")
    return [note[0].text if note else "", form.find_element(By.NAME, "update").is_enabled(), len(form.find_elements(By.NAME, "AD_ADDRESS"))]
def refused():
    # The edit a stale page would send (the popup does not offer it): the refusal shown.
    d.execute_script("""const layer = annolink.featureLayers.find(l => l.name === 'Loudoun_Address_Points_1');
        annolink.applyEdit(layer, {attributes: {fid: 831, AD_ADDRESS: 45002}}).catch(e => annolink.showError(annolink.describe(e)));""")
    wait.until(lambda d: errors().strip())
    return errors()
def sketch_refused():
    # A sketch started in the sketch module: the sketch routes' refusal, with the core's token hint.
    d.execute_script("annolinkSketch.begin({table: 'ParcelLines_1', type: 'polyline'})")
    wait.until(lambda d: errors().strip())
    return errors()
def update(value):
    # 831's popup (through identify, as a tap does), AD_ADDRESS changed, Update.
    d.execute_script("""const l = L.latLng(arguments[1], arguments[0]);
        annolink.identify(l).then(h => { const hit = h.find(x => x.layer.name === 'Loudoun_Address_Points_1');
          return annolink.openPopup(hit.layer, hit.feature, l); });""", p["x"], p["y"])
    form = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, '.feature-form[data-oid="831"]'))
    wait.until(lambda d: settled())
    field = form.find_element(By.NAME, "AD_ADDRESS")
    field.clear(); field.send_keys(value)
    form.find_element(By.NAME, "update").click()
    wait.until(lambda d: settled())
def use_token(value):
    if not d.find_element(By.ID, "token-form").is_displayed():
        d.find_element(By.ID, "token-button").click()
    field = d.find_element(By.ID, "token")
    old = d.find_element(By.TAG_NAME, "body")
    field.clear(); field.send_keys(value, Keys.ENTER)
    wait.until(EC.staleness_of(old))
    loaded()
try:
    d.get(base + "/")
    loaded()
    out["anonymous"] = d.find_element(By.ID, "message").text
    out["anonymousPopup"] = popup()
    out["anonymousEdit"] = refused()
    out["formShown"] = d.find_element(By.ID, "token-form").is_displayed()
    dismiss()
    out["anonymousSketch"] = sketch_refused()
    dismiss()
    use_token("not-a-token")
    wait.until(lambda d: errors().strip())
    out["invalid"] = errors()
    out["afterInvalid"] = [d.find_element(By.ID, "message").text, d.execute_script("return sessionStorage.getItem('annolink.token')")]
    dismiss()
    use_token("bob-secret")
    out["reader"] = [d.find_element(By.ID, "message").text, d.find_element(By.ID, "token-button").text]
    out["readerPopup"] = popup()
    out["readerEdit"] = refused()
    dismiss()
    out["readerSketch"] = sketch_refused()
    dismiss()
    use_token("alice-secret")
    out["editor"] = [d.find_element(By.ID, "message").text, d.find_element(By.ID, "token-button").text]
    update("45003")
    wait.until(lambda d: "updated" in d.find_element(By.ID, "message").text or errors().strip())
    out["editorEdit"] = [d.find_element(By.ID, "message").text, errors()]
    d.find_element(By.ID, "export-image").click()
    wait.until(lambda d: body("data-exports") == "1" or errors().strip())
    out["export"] = [body("data-exports"), errors()]
    out["storedToken"] = d.execute_script("return sessionStorage.getItem('annolink.token')")
    out["urls"] = d.execute_script("return performance.getEntriesByType('resource').map(e => e.name).filter(n => n.includes('secret'))")
finally:
    d.quit()
print(json.dumps(out))
