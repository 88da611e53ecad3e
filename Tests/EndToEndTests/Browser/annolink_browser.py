"""What the map editor's browser tests share (docs/testing.md, "The browser tests' scripts").

The scripts beside this file drive `annolink serve`'s map editor (docs/editor.md) in Debian's
headless Chromium through chromedriver with Selenium (PyPI, in the venv of scripts/test-venv);
each prints what it saw as one JSON object, which the Swift test that runs it checks
(Tests/EndToEndTests/Map*Tests.swift and others, through `Browser.script`). Python finds this
module because it sits in the running script's folder.

- `chromium(width, height)`: the browser, in a window of that size, its console kept for
  `get_log("browser")`; the page helpers below wait on the driver it made last.
- The page: `get(url)` (JSON), `body(name)` (an attribute of the page's body), `views()` (views
  drawn), `settled()` (no request in flight, twice 100 ms apart), `drawn_after(action)`.
- The sketch tools: `version()`, `idle()`, `answered(action)`, `state()`.
"""
import json
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

__all__ = ["chromium", "get", "body", "views", "settled", "drawn_after", "version", "idle", "answered", "state"]

# The driver chromium() made last: the page the helpers look at.
d = None


def chromium(width, height):
    global d
    options = webdriver.ChromeOptions()
    for a in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=%d,%d" % (width, height)]:
        options.add_argument(a)
    options.binary_location = "/usr/bin/chromium"
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    d = webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))
    return d


def get(url):
    with urllib.request.urlopen(url) as r:
        return json.load(r)


def body(name):
    return d.find_element(By.TAG_NAME, "body").get_attribute(name)


def views():
    return int(body("data-views") or 0)


def settled(journal=False):
    # No request in flight, twice 100 ms apart (a pan's refresh starts on its moveend); with
    # `journal`, no request of the live module's either (its long poll on PostGIS counts).
    def idle():
        return body("data-pending") in (None, "0") and (not journal or body("data-journal-pending") in (None, "0"))
    if not idle():
        return False
    time.sleep(0.1)
    return idle()


def drawn_after(action):
    # Runs `action` and waits until the page has drawn the view that follows it and is idle.
    WebDriverWait(d, 20).until(lambda d: settled())
    seen = views()
    action()
    WebDriverWait(d, 20).until(lambda d: views() > seen and settled())


def version():
    return int(body("data-sketch-version") or 0)


def idle():
    return body("data-sketch-pending") in (None, "0") and body("data-pending") in (None, "0")


def answered(action):
    # Runs `action`, then waits for the session's answer to it and for every request to end.
    WebDriverWait(d, 20).until(lambda d: idle())
    seen = version()
    action()
    WebDriverWait(d, 20).until(lambda d: version() > seen and idle())
    time.sleep(0.2)
    WebDriverWait(d, 20).until(lambda d: idle())


def state():
    return d.execute_script("return annolinkSketch.state")
