"""Arguments: the server's URL, the served file, the CLI's copy, a path for a snapshot of the
served file after the three edits, the screenshot folder.

Run by MapEditorLabelTests.swift, which checks what it prints. By hand, against `annolink serve`
on the Loudoun import (docs/testing.md, "The browser tests' scripts"):

    .test/venv/bin/python Tests/EndToEndTests/Browser/labels.py http://127.0.0.1:8080 /tmp/loudoun.gpkg /tmp/cli.gpkg /tmp/snapshot.gpkg /tmp/shots
"""
import json, math, os, sqlite3, struct, sys
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait
from annolink_browser import chromium, get, body, settled, drawn_after

base, served, cli, snapshot, shot = sys.argv[1:6]
service = base + "/arcgis/rest/services/loudoun/FeatureServer"
TABLE = "Loudoun_Address_PointsAnno_1"

def footprint(blob):
    # A GeoPackage polygon: the header (magic, version, flags, srs id, envelope), then WKB.
    flags = blob[3]
    envelope = {0: 0, 1: 32, 2: 48, 3: 48, 4: 64}[(flags >> 1) & 7]
    wkb = blob[8 + envelope:]
    order = "<" if wkb[0] == 1 else ">"
    kind, rings = struct.unpack(order + "II", wkb[1:9])
    at, out = 9, []
    for _ in range(rings):
        (n,) = struct.unpack(order + "I", wkb[at:at + 4]); at += 4
        out.append([list(struct.unpack(order + "dd", wkb[at + 16 * i:at + 16 * i + 16])) for i in range(n)])
        at += 16 * n
    return {"kind": kind, "rings": out}

def row(path, fid=1):
    # Every column of the label, as the file holds it (the footprint decoded).
    c = sqlite3.connect("file:" + path + "?mode=ro", uri=True)
    try:
        cur = c.execute('SELECT * FROM "%s" WHERE fid = ?' % TABLE, (fid,))
        names = [x[0] for x in cur.description]
        values = cur.fetchone()
    finally:
        c.close()
    return {n: (footprint(v) if n == "geom" else v.hex() if isinstance(v, bytes) else v) for n, v in zip(names, values)}

d = chromium(1280, 800)
d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
out = {}
def container():
    return d.execute_script("const r = annolinkMap.getContainer().getBoundingClientRect(); return [r.left, r.top];")
def client_of(x, y):
    r = container()
    p = d.execute_script("const p = annolinkMap.latLngToContainerPoint([arguments[1], arguments[0]]); return [p.x, p.y];", x, y)
    return [r[0] + p[0], r[1] + p[1]]
def gesture(points):
    # Press at the first point, move through the others, let go at the last (page pixels).
    a = ActionBuilder(d)
    a.pointer_action.move_to_location(points[0][0], points[0][1])
    a.pointer_action.pointer_down()
    for p in points[1:]:
        a.pointer_action.move_to_location(p[0], p[1])
    a.pointer_action.pointer_up()
    a.perform()
def edits():
    return int(body("data-label-edits") or 0)
def after_edit(action):
    seen = edits()
    action()
    WebDriverWait(d, 20).until(lambda d: edits() > seen and settled())
try:
    wait = WebDriverWait(d, 20)
    d.get(base + "/")
    wait.until(lambda d: "in view" in d.find_element(By.ID, "status").text)
    wait.until(lambda d: settled())
    out["original"] = row(served)
    layer = [l for l in get(service + "?f=json")["layers"] if l["name"] == TABLE][0]["id"]
    ring = get(service + "/%d/query?objectIds=1&outFields=*&returnGeometry=true&f=json" % layer)["features"][0]["geometry"]["rings"][0]
    cx = sum(p[0] for p in ring[:-1]) / (len(ring) - 1)
    cy = sum(p[1] for p in ring[:-1]) / (len(ring) - 1)
    # Zoom 0: one CSS pixel is one foot, so a 20 px drag is 20 ft.
    drawn_after(lambda: d.execute_script("annolinkMap.setView([%r,%r], 0, {animate: false})" % (cy, cx)))

    # Tap the text: the label is listed with the address point under the finger (or selected at once).
    c = client_of(cx, cy)
    tap = [round(c[0]), round(c[1])]
    a = ActionBuilder(d); a.pointer_action.move_to_location(tap[0], tap[1]); a.perform()
    ActionChains(d).click().perform()
    wait.until(lambda d: body("data-label-selected") or d.find_elements(By.CSS_SELECTOR, ".identify-list button"))
    listed = [[b.get_attribute("data-layer"), b.get_attribute("data-oid"), b.text] for b in d.find_elements(By.CSS_SELECTOR, ".identify-list button")]
    out["identifyList"] = listed
    if not body("data-label-selected"):
        d.find_element(By.CSS_SELECTOR, '.identify-list button[data-layer="%s"][data-oid="1"]' % TABLE).click()
    wait.until(lambda d: body("data-label-selected") == TABLE + "/1")
    wait.until(lambda d: settled())
    # The handles sit on the true text box: the footprint's vertices, in layer pixels.
    out["box"] = d.execute_script("""
        const box = document.querySelector('#label-edit .label-box');
        const drawn = Array.from(box.points).map(p => [p.x, p.y]);
        const ring = arguments[0].map(p => { const q = annolinkMap.latLngToLayerPoint([p[1], p[0]]); return [q.x, q.y]; });
        return {drawn: drawn, ring: ring, panel: !document.getElementById('label-panel').hidden,
                text: document.querySelector('#label-panel input[name="TextString"]').value};""", ring)

    # Drag the box 20 px east: 20 ft (from where the text is now: the list's popup may have panned the map).
    c = client_of(cx, cy)
    start = [round(c[0]), round(c[1])]
    after_edit(lambda: gesture([start, [start[0] + 7, start[1]], [start[0] + 14, start[1]], [start[0] + 20, start[1]]]))
    out["drag"] = row(served)
    out["dragMessage"] = d.find_element(By.ID, "message").text

    # Turn 15° with the handle: the pointer moved about the anchor, to the whole pixel that
    # makes the angle about the anchor nearest 15° (the page rounds to whole degrees).
    h = d.execute_script("const r = document.querySelector('#label-edit .label-rotate').getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2];")
    now = row(served)
    anchor = client_of(now["AnchorX"], now["AnchorY"])
    press = [round(h[0]), round(h[1])]
    def turn_of(p):
        # Degrees counter-clockwise on the map (screen y is down).
        a0 = math.atan2(-(press[1] - anchor[1]), press[0] - anchor[0])
        a1 = math.atan2(-(p[1] - anchor[1]), p[0] - anchor[0])
        return math.degrees(a1 - a0)
    r0 = math.hypot(press[0] - anchor[0], press[1] - anchor[1])
    a0 = math.atan2(-(press[1] - anchor[1]), press[0] - anchor[0])
    def at(deg):
        t = a0 + math.radians(deg)
        return [anchor[0] + r0 * math.cos(t), anchor[1] - r0 * math.sin(t)]
    wanted = 15 - (now["Angle"] or 0)
    ideal = at(wanted)
    candidates = [[round(ideal[0]) + i, round(ideal[1]) + j] for i in range(-3, 4) for j in range(-3, 4)]
    target = min(candidates, key=lambda p: abs(turn_of(p) - wanted))
    out["turnTarget"] = turn_of(target) + (now["Angle"] or 0)
    mid = at(wanted / 2)
    after_edit(lambda: gesture([press, [round(mid[0]), round(mid[1])], target]))
    out["turn"] = row(served)

    # Retype it in the label's panel.
    field = d.find_element(By.CSS_SELECTOR, '#label-panel input[name="TextString"]')
    field.clear()
    field.send_keys("45763 ELMWOOD CT")
    after_edit(lambda: d.find_element(By.CSS_SELECTOR, '#label-panel button[name="retext"]').click())
    out["text"] = row(served)
    out["panelFacts"] = d.find_element(By.CSS_SELECTOR, "#label-panel .facts").text
    out["drawnText"] = d.execute_script("const t = document.querySelector('#annotation text[data-oid=\"1\"][data-layer=\"%s\"]'); return t ? t.textContent : null;" % TABLE)
    d.save_screenshot(os.path.join(shot, "editor-labels.png"))
    # The served file as it stands (the WAL's pages included), for regenerate and check --fix.
    src = sqlite3.connect("file:" + served + "?mode=ro", uri=True); dst = sqlite3.connect(snapshot)
    src.backup(dst); dst.close(); src.close()

    # Undo each step with the page's Undo, newest first.
    undone = []
    for step in range(3):
        before = d.find_element(By.ID, "message").text
        d.find_element(By.CSS_SELECTOR, '#journal-tools button[name="undo"]').click()
        wait.until(lambda d: d.find_element(By.ID, "message").text.startswith("undid #") and d.find_element(By.ID, "message").text != before)
        wait.until(lambda d: settled())
        undone.append({"row": row(served), "message": d.find_element(By.ID, "message").text,
                       "panelText": d.find_element(By.CSS_SELECTOR, '#label-panel input[name="TextString"]').get_attribute("value")})
    out["undone"] = undone
    out["cli"] = row(cli)
    out["severe"] = [entry["message"] for entry in d.get_log("browser") if entry["level"] == "SEVERE"]
finally:
    d.quit()
print(json.dumps(out))
