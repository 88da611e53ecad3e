/// What the browser tests' Python scripts share, interpolated after a script's imports
/// (`\#(Browser.chromium)`), which must include `webdriver` and `Service`:
///
/// - `chromium`: `chromium(width, height)`, Debian's headless Chromium driven by chromedriver
///   (Selenium, in the venv of scripts/test-venv) in a window of that size, its console kept for
///   `get_log("browser")`;
/// - `page`: waiting for the map page of the driver `d` (a global of the script) — `get(url)`
///   (JSON), `body(name)` (an attribute of the page's body), `views()` (views drawn),
///   `settled()` (no request in flight, twice 100 ms apart), `drawn_after(action)`; the script
///   imports `json`, `time`, `urllib.request`, `By` and `WebDriverWait`;
/// - `sketch`: the sketch tools' — `version()`, `idle()`, `answered(action)`, `state()`; after
///   `page`.
enum Browser {
    static let chromium = #"""
    def chromium(width, height):
        options = webdriver.ChromeOptions()
        for a in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=%d,%d" % (width, height)]:
            options.add_argument(a)
        options.binary_location = "/usr/bin/chromium"
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        return webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))

    """#

    static let page = #"""
    def get(url):
        with urllib.request.urlopen(url) as r:
            return json.load(r)
    def body(name):
        return d.find_element(By.TAG_NAME, "body").get_attribute(name)
    def views():
        return int(body("data-views") or 0)
    def settled():
        # No request in flight, twice 100 ms apart (a pan's refresh starts on its moveend).
        idle = lambda: body("data-pending") in (None, "0")
        if not idle(): return False
        time.sleep(0.1)
        return idle()
    def drawn_after(action):
        # Runs `action` and waits until the page has drawn the view that follows it and is idle.
        WebDriverWait(d, 20).until(lambda d: settled())
        seen = views()
        action()
        WebDriverWait(d, 20).until(lambda d: views() > seen and settled())

    """#

    static let sketch = #"""
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

    """#
}
