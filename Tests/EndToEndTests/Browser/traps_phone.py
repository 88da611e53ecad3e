"""The idle sketch toolbar at 390 × 844 with touch: its rectangles and those of Full
extent and the scale box. Arguments: the server's URL, the screenshot's path.

Run by MapEditorTrapsTests.swift, which checks what it prints. By hand, against `annolink serve`
on the Loudoun import (docs/testing.md, "The browser tests' scripts"):

    .test/venv/bin/python Tests/EndToEndTests/Browser/traps_phone.py http://127.0.0.1:8080 /tmp/editor-phone.png
"""
import json, sys, time
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait
from annolink_browser import chromium

base, shot = sys.argv[1], sys.argv[2]
d = chromium(390, 844)
d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True})
d.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
try:
    d.get(base + "/")
    WebDriverWait(d, 30).until(lambda d: "in view" in d.find_element(By.ID, "status").text and d.find_elements(By.ID, "layers"))
    time.sleep(0.5)   # the bar's ResizeObserver and a layout
    out = d.execute_script("""
      const rect = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
      const rows = [...document.querySelectorAll('#sketch .sketch-row')].filter(e => e.offsetParent !== null);
      const controls = [...document.querySelectorAll('#sketch button, #sketch select')].filter(e => e.offsetParent !== null);
      return { coarse: window.matchMedia('(pointer: coarse)').matches, viewport: [innerWidth, innerHeight],
               toolbar: rows.map(rect), controls: controls.map(c => [c.id].concat(rect(c))),
               fullExtent: rect(document.getElementById('full-extent')), scale: rect(document.getElementById('scale')),
               bar: rect(document.getElementById('bar')), layers: rect(document.querySelector('#layers summary')) };
    """)
    d.save_screenshot(shot)
    out["severe"] = [entry["message"] for entry in d.get_log("browser") if entry["level"] == "SEVERE"]
finally:
    d.quit()
print(json.dumps(out))
