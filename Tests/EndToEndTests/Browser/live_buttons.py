"""Arguments: the server's URL. Prints the Undo and Redo buttons' state once the page polls.

Run by MapEditorLiveTests.swift, which checks what it prints. By hand, against `annolink serve`
on the Loudoun import (docs/testing.md, "The browser tests' scripts"):

    .test/venv/bin/python Tests/EndToEndTests/Browser/live_buttons.py http://127.0.0.1:8080
"""
import json, sys
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait
from annolink_browser import chromium
d = chromium(1280, 800)
try:
    d.get(sys.argv[1] + "/")
    WebDriverWait(d, 30).until(lambda d: d.find_element(By.ID, "live").text == "live")
    b = {n: d.find_element(By.NAME, n) for n in ("undo", "redo")}
    print(json.dumps({n: [e.is_enabled(), e.get_attribute("title")] for n, e in b.items()}))
finally:
    d.quit()
