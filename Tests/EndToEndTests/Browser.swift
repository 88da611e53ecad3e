/// What every browser test's Python script shares: `chromium(width, height)`, Debian's headless
/// Chromium driven by chromedriver (Selenium, in the venv of scripts/test-venv) in a window of
/// that size, its console kept for `get_log("browser")`. A script interpolates it after its
/// imports (`\#(Browser.chromium)`), which must include `webdriver` and `Service`.
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
}
