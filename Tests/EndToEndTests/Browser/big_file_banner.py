"""Arguments: the server's URL. In a window wider than the widest picture `/render.png`
draws (4096 px), the first view's overview is refused (400); then the window is made
1280 px wide and the next view is drawn. Prints what the page showed after each.

Run by BigFileTests.swift, which checks what it prints. By hand, against `annolink serve`
on `annolink sample FILE --parcels 3000` (docs/testing.md, "The browser tests' scripts"):

    .test/venv/bin/python Tests/EndToEndTests/Browser/big_file_banner.py http://127.0.0.1:8080
"""
import json, sys
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait
from annolink_browser import chromium, body, views, settled
d = chromium(4600, 800)
def seen():
    return {"status": d.find_element(By.ID, "status").text, "views": views(), "failed": int(body("data-failed-views") or 0),
            "banners": [e.text for e in d.find_elements(By.CSS_SELECTOR, "#errors .error")],
            "mapWidth": d.execute_script("return annolinkMap.getSize().x"), "overview": body("data-overview")}
out = {}
try:
    d.get(sys.argv[1] + "/")
    WebDriverWait(d, 60).until(lambda d: int(body("data-failed-views") or 0) > 0 and settled())
    out["failed"] = seen()
    drawn = views()
    d.set_window_size(1280, 800)
    WebDriverWait(d, 60).until(lambda d: views() > drawn and settled())
    out["drawn"] = seen()
    out["severe"] = [x["message"] for x in d.get_log("browser") if x["level"] == "SEVERE" and "render.png" not in x["message"]]
finally:
    d.quit()
print(json.dumps(out))
