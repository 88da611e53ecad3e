import AnnoLinkTestSupport
import Foundation
import Testing

/// The map editor's GeoView operations, keyboard, phone viewport and tokens (issue 15 items 3,
/// 4 and 7; docs/editor.md) in a real browser: Debian's headless Chromium driven by Selenium
/// (the venv of scripts/test-venv) against a real `annolink serve` on the Loudoun import. What
/// the page shows is compared with outside oracles (PROJ's `cs2cs`, `sqlite3`) and with what the
/// server answers to other clients.
@Suite("Map editor GeoView operations in a browser", .serialized)
struct MapGeoViewTests {
    /// Viewpoints (typed scale, full extent, zoom to a point and a polygon, animated), identify
    /// (the list), the coordinate read-out, an empty label field refused, "Export image"; takes
    /// the 1280 × 800 screenshot. Arguments: the server's URL, the screenshot folder, the
    /// download folder.
    static let desktop = #"""
    import json, math, os, sys, time, urllib.request
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait
    \#(Browser.chromium)
    \#(Browser.page)

    base, shot, downloads = sys.argv[1], sys.argv[2], sys.argv[3]
    service = base + "/arcgis/rest/services/loudoun/FeatureServer"

    d = chromium(1280, 800)
    # A viewport of exactly 1280 × 800 CSS pixels (the window's size includes the browser's own parts).
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
    d.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
    out = {}
    def scale_shown():
        return d.find_element(By.ID, "status").text.split("1:")[-1]
    def state():
        return d.execute_script("const c = annolinkMap.getCenter(); return [c.lng, c.lat, annolinkMap.getZoom()];")
    def counting_zooms():
        d.execute_script("window.zoomFrames = 0; if (!window.counting) { window.counting = true; annolinkMap.on('zoom', () => window.zoomFrames++); }")
    def zoom_frames():
        return d.execute_script("return window.zoomFrames;")
    mapElement = None
    def pixel_of(x, y):
        return d.execute_script("const p = annolinkMap.latLngToContainerPoint([arguments[1], arguments[0]]); return [p.x, p.y];", x, y)
    def map_point(px, py):
        return d.execute_script("const l = annolinkMap.containerPointToLatLng([arguments[0], arguments[1]]); return [l.lng, l.lat];", px, py)
    def pointer_to(px, py):
        # The mouse to the page pixel nearest map pixel (px, py); answers the map point under it.
        r = d.execute_script("const r = annolinkMap.getContainer().getBoundingClientRect(); return [r.left, r.top];")
        x, y = round(r[0] + px), round(r[1] + py)
        a = ActionBuilder(d)
        a.pointer_action.move_to_location(x, y)
        a.perform()
        return map_point(x - r[0], y - r[1])
    def set_view(x, y, scale):
        zoom = -math.log2(scale * 0.0254 / 96 / (1200 / 3937))
        drawn_after(lambda: d.execute_script("annolinkMap.setView([%r,%r], %r, {animate: false})" % (y, x, zoom)))
        return zoom
    def errors():
        return d.find_element(By.ID, "errors").text
    def dismiss_errors():
        for b in d.find_elements(By.CSS_SELECTOR, "#errors button"): b.click()
    try:
        wait = WebDriverWait(d, 20)
        d.get(base + "/")
        wait.until(lambda d: "in view" in d.find_element(By.ID, "status").text)
        wait.until(lambda d: settled())
        mapElement = d.find_element(By.ID, "map")
        first = scale_shown()

        # Viewpoints, animated: a typed scale about the centre, then the full extent.
        before = state()
        counting_zooms()
        scale = d.find_element(By.ID, "scale")
        def typed():
            scale.clear(); scale.send_keys("1:1200" + Keys.ENTER)
        drawn_after(typed)
        after = state()
        out["typedScale"] = {"shown": scale_shown(), "frames": zoom_frames(), "before": before, "after": after,
                             "unitsPerPixel": 2 ** -after[2]}
        counting_zooms()
        drawn_after(lambda: d.find_element(By.ID, "full-extent").click())
        out["fullExtent"] = {"shown": scale_shown(), "first": first, "frames": zoom_frames()}

        # Identify: a tap 6 px right and 5 px up of address point 831 at 1:1200.
        p = get(service + "/0/query?objectIds=831&returnGeometry=true&f=json")["features"][0]["geometry"]
        set_view(p["x"], p["y"], 1200)
        c = pixel_of(p["x"], p["y"])
        # The map point under the mouse, read before the click (the list's popup may pan the map).
        at = pointer_to(c[0] + 6, c[1] - 5)
        ActionChains(d).click().perform()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".identify-list button"))
        wait.until(lambda d: settled())
        out["tapAt"] = at
        out["tolerance"] = 10 * 2 ** -state()[2]
        out["identifyList"] = [[b.get_attribute("data-layer"), int(b.get_attribute("data-oid"))]
                               for b in d.find_elements(By.CSS_SELECTOR, ".identify-list button")]
        # The server's answer for the same circle, layer by layer (annotation layers left out).
        layers = get(service + "?f=json")["layers"]
        expected = []
        for l in layers:
            if l["type"] != "Feature Layer": continue
            q = get(service + "/%d/query?geometry=%r,%r&geometryType=esriGeometryPoint&distance=%r&returnIdsOnly=true&f=json" % (l["id"], at[0], at[1], out["tolerance"]))
            expected += [[l["name"], i] for i in q["objectIds"]]
        # Then the labels whose footprint holds the tap point (the label tools, docs/editor.md).
        for l in layers:
            if l["type"] != "Annotation Layer": continue
            q = get(service + "/%d/query?geometry=%r,%r&geometryType=esriGeometryPoint&returnIdsOnly=true&f=json" % (l["id"], at[0], at[1]))
            expected += [[l["name"], i] for i in q["objectIds"]]
        out["identifyExpected"] = expected

        # One feature under a tap opens its popup at once; none says so. Places found through the
        # FeatureServer where as many features lie within 8 and 12 px at 1:1200 (a pixel's rounding
        # cannot change the count).
        feature_layers = [l for l in layers if l["type"] == "Feature Layer"]
        full = get(service + "?f=json")["fullExtent"]
        def count_at(x, y, px):
            return sum(get(service + "/%d/query?geometry=%r,%r&geometryType=esriGeometryPoint&distance=%r&returnCountOnly=true&f=json"
                           % (l["id"], x, y, px * out["tolerance"] / 10))["count"] for l in feature_layers)
        annotation_layers = [l for l in layers if l["type"] == "Annotation Layer"]
        def labels_at(x, y):
            return sum(get(service + "/%d/query?geometry=%r,%r&geometryType=esriGeometryPoint&returnCountOnly=true&f=json"
                           % (l["id"], x, y))["count"] for l in annotation_layers)
        spots = {}
        for i in range(1, 24):
            for j in range(1, 24):
                x = full["xmin"] + (full["xmax"] - full["xmin"]) * ((i * 7) % 24) / 24
                y = full["ymin"] + (full["ymax"] - full["ymin"]) * ((j * 11) % 24) / 24
                n = count_at(x, y, 8)
                if n <= 1 and n not in spots and count_at(x, y, 12) == n and labels_at(x, y) == 0: spots[n] = (x, y)
            if len(spots) == 2: break
        singles = {}
        for n, (x, y) in sorted(spots.items()):
            d.execute_script("annolinkMap.closePopup()")
            set_view(x, y, 1200)
            pointer_to(d.execute_script("return annolinkMap.getSize().x") / 2, d.execute_script("return annolinkMap.getSize().y") / 2)
            ActionChains(d).click().perform()
            if n == 1:
                wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".feature-form"))
            else:
                wait.until(lambda d: "nothing within 10 px" in d.find_element(By.ID, "message").text)
            wait.until(lambda d: settled())
            singles[str(n)] = {"forms": len(d.find_elements(By.CSS_SELECTOR, ".feature-form")), "lists": len(d.find_elements(By.CSS_SELECTOR, ".identify-list")),
                               "message": d.find_element(By.ID, "message").text}
        out["singles"] = singles
        d.execute_script("annolinkMap.closePopup()")
        set_view(p["x"], p["y"], 1200)
        at = pointer_to(c[0] + 6, c[1] - 5)
        ActionChains(d).click().perform()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".identify-list button"))
        wait.until(lambda d: settled())

        # Choose 831: its popup, with "Zoom to" and a way back to the list.
        d.find_element(By.CSS_SELECTOR, '.identify-list button[data-layer="Loudoun_Address_Points_1"][data-oid="831"]').click()
        form = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, '.feature-form[data-oid="831"]'))
        wait.until(lambda d: settled())
        out["popupButtons"] = [b.text for b in form.find_elements(By.TAG_NAME, "button")]
        # The coordinate read-out: three pointer positions; x, y and longitude/latitude as shown.
        size = mapElement.size
        readouts = []
        for px, py in [(37, 41), (size["width"] // 2 + 3, size["height"] // 2 + 150), (size["width"] - 29, size["height"] - 17)]:
            expect = pointer_to(px, py)
            box = d.find_element(By.ID, "coords")
            wait.until(lambda d: box.get_attribute("data-x") is not None and abs(float(box.get_attribute("data-x")) - expect[0]) < 1e-6
                       and abs(float(box.get_attribute("data-y")) - expect[1]) < 1e-6)
            readouts.append({"pixel": [px, py], "expect": expect, "x": float(box.get_attribute("data-x")), "y": float(box.get_attribute("data-y")),
                             "longitude": float(box.get_attribute("data-longitude")), "latitude": float(box.get_attribute("data-latitude")),
                             "text": box.text})
        out["readouts"] = readouts
        pointer_to(c[0] + 80, c[1] + 40)
        time.sleep(0.3)
        d.save_screenshot(os.path.join(shot, "editor-geoview.png"))

        # An empty label field is refused in the page, before any request: a text, and a number
        # (which would be sent as null).
        def refusal_of_clearing(name):
            field = form.find_element(By.NAME, name)
            field.clear()
            form.find_element(By.NAME, "update").click()
            wait.until(lambda d: errors().strip())
            refusal = errors()
            dismiss_errors()
            field.send_keys(field.get_attribute("data-original"))
            return refusal
        out["labelFieldMarked"] = form.find_element(By.NAME, "ST_STR_NAM").get_attribute("data-label-field") is not None
        out["emptyRefusal"] = refusal_of_clearing("ST_STR_NAM")
        out["emptyNumberRefusal"] = refusal_of_clearing("AD_ADDRESS")

        # Zoom to: from the full extent back to 831 at 1:1200, animated, the popup still open.
        d.execute_script("annolinkMap.fitBounds(annolink.extent ? [[annolink.extent.ymin, annolink.extent.xmin], [annolink.extent.ymax, annolink.extent.xmax]] : null, {animate: false})")
        wait.until(lambda d: settled())
        counting_zooms()
        drawn_after(lambda: d.find_element(By.CSS_SELECTOR, '.feature-form[data-oid="831"] button[name="zoom-to"]').click())
        out["zoomToPoint"] = {"centre": state()[:2], "point": [p["x"], p["y"]], "shown": scale_shown(), "frames": zoom_frames()}
        # Back to the list, then a polygon: its extent fills the view.
        d.find_element(By.CSS_SELECTOR, '.feature-form button[name="back"]').click()
        entries = d.find_elements(By.CSS_SELECTOR, ".identify-list button")
        polygon = next(b for b in entries if b.get_attribute("data-layer") == "Loudoun_Subdivision_1")
        layer, oid = polygon.get_attribute("data-layer"), int(polygon.get_attribute("data-oid"))
        polygon.click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, '.feature-form[data-layer="%s"][data-oid="%d"]' % (layer, oid)))
        wait.until(lambda d: settled())
        layer_id = next(l["id"] for l in layers if l["name"] == layer)
        e = get(service + "/%d/query?objectIds=%d&returnExtentOnly=true&f=json" % (layer_id, oid))["extent"]
        counting_zooms()
        drawn_after(lambda: d.find_element(By.CSS_SELECTOR, '.feature-form[data-oid="%d"] button[name="zoom-to"]' % oid).click())
        b = d.execute_script("const b = annolinkMap.getBounds(); return [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()];")
        out["zoomToPolygon"] = {"layer": layer, "oid": oid, "extent": [e["xmin"], e["ymin"], e["xmax"], e["ymax"]], "view": b, "frames": zoom_frames()}

        # Export image: the server's render of the view, as big as the view.
        d.execute_script("annolinkMap.closePopup()")
        set_view(p["x"], p["y"], 1200)
        d.find_element(By.ID, "export-image").click()
        wait.until(lambda d: body("data-exports") == "1")
        out["export"] = json.loads(body("data-last-export"))
        out["mapSize"] = d.execute_script("const s = annolinkMap.getSize(); return [s.x, s.y];")
        deadline = time.time() + 20
        while time.time() < deadline and not [f for f in os.listdir(downloads) if f.endswith(".png")]:
            time.sleep(0.1)
        out["downloads"] = sorted(os.listdir(downloads))
        out["severe"] = [entry["message"] for entry in d.get_log("browser") if entry["level"] == "SEVERE"]
    finally:
        d.quit()
    print(json.dumps(out))
    """#

    /// Tab order, visible focus and accessible names of every control; Enter on the map
    /// identifies at the centre; Space and Enter work the list and the popup; Escape closes it.
    static let keyboard = #"""
    import json, math, sys, time, urllib.request
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.support.ui import WebDriverWait
    \#(Browser.chromium)
    \#(Browser.page)

    base = sys.argv[1]
    service = base + "/arcgis/rest/services/loudoun/FeatureServer"
    d = chromium(1280, 800)
    # A viewport of exactly 1280 × 800 CSS pixels (the window's size includes the browser's own parts).
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
    out = {}
    # What has the focus: a name for it, whether it has an accessible name, and its focus ring.
    FOCUSED = """
    const e = document.activeElement;
    const label = e.getAttribute('aria-label') || (e.labels && e.labels[0] && e.labels[0].textContent) || e.getAttribute('title') || e.textContent.trim();
    const s = getComputedStyle(e);
    return {id: e.id, tag: e.tagName.toLowerCase(), name: e.getAttribute('name'), cls: e.className && e.className.baseVal === undefined ? e.className : '',
            label: label, outline: s.outlineStyle + ' ' + s.outlineWidth, visible: s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2};
    """
    def focused():
        return d.execute_script(FOCUSED)
    def press(*keys):
        ActionChains(d).send_keys(*keys).perform()
    try:
        wait = WebDriverWait(d, 20)
        d.get(base + "/")
        wait.until(lambda d: "in view" in d.find_element(By.ID, "status").text)
        wait.until(lambda d: settled())
        # Tab from the start of the page round to where it began: every control on the way.
        d.execute_script("document.activeElement.blur(); window.focus();")
        order = []
        for _ in range(30):
            press(Keys.TAB)
            f = focused()
            if f["tag"] == "body": continue   # the browser's own stop between the last control and the first
            if order and f["id"] == order[0]["id"] and f["cls"] == order[0]["cls"] and f["label"] == order[0]["label"]: break
            order.append(f)
        out["tabOrder"] = order
        # Leaflet's zoom buttons are links: Space presses them as Enter does.
        zoom = lambda: d.execute_script("return annolinkMap.getZoom()")
        z0 = zoom()
        drawn_after(lambda: (d.execute_script("document.querySelector('.leaflet-control-zoom-in').focus()"), press(Keys.SPACE)))
        z1 = zoom()
        drawn_after(lambda: (d.execute_script("document.querySelector('.leaflet-control-zoom-out').focus()"), press(Keys.ENTER)))
        out["zoomKeys"] = [z0, z1, zoom()]

        # The keyboard's tap: the map centred near 831 at 1:2400, focused, Enter identifies.
        p = get(service + "/0/query?objectIds=831&returnGeometry=true&f=json")["features"][0]["geometry"]
        zoom = -math.log2(2400 * 0.0254 / 96 / (1200 / 3937))
        drawn_after(lambda: d.execute_script("annolinkMap.setView([%r,%r], %r, {animate: false})" % (p["y"] + 2, p["x"] - 3, zoom)))
        d.execute_script("annolinkMap.getContainer().focus()")
        press(Keys.ENTER)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".identify-list button"))
        wait.until(lambda d: settled())
        out["afterEnter"] = focused()
        # Arrow through the list with Tab to 831, and Space chooses it.
        for _ in range(10):
            f = focused()
            if f["tag"] == "button" and "Loudoun_Address_Points_1 831" in f["label"]: break
            press(Keys.TAB)
        press(Keys.SPACE)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, '.feature-form[data-oid="831"]'))
        wait.until(lambda d: settled())
        out["popupFocus"] = focused()
        inside = []
        for _ in range(40):
            f = focused()
            inside.append(f)
            if f["name"] == "zoom-to": break
            press(Keys.TAB)
        out["popupOrder"] = inside
        seen = views()
        press(Keys.ENTER)
        wait.until(lambda d: views() > seen and settled())
        c = d.execute_script("const c = annolinkMap.getCenter(); return [c.lng, c.lat];")
        out["zoomTo"] = {"centre": c, "point": [p["x"], p["y"]], "shown": d.find_element(By.ID, "status").text.split("1:")[-1]}
        # Escape closes the popup from inside it, and the focus goes back to the map.
        d.execute_script("annolinkMap.getContainer().focus()")
        press(Keys.ESCAPE)
        wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, ".leaflet-popup"))
        out["afterEscape"] = focused()
        # The scale box by keyboard.
        scale = d.find_element(By.ID, "scale")
        def typed():
            scale.clear(); scale.send_keys("600", Keys.ENTER)
        drawn_after(typed)
        out["typedScale"] = d.find_element(By.ID, "status").text.split("1:")[-1]
        # Move by keyboard: Enter on the map at 831 and on its entry, Tab to Move, Enter; the focus is
        # the map's again; an arrow key pans, Enter puts the point at the centre.
        zoom = -math.log2(1200 * 0.0254 / 96 / (1200 / 3937))
        drawn_after(lambda: d.execute_script("annolinkMap.setView([%r,%r], %r, {animate: false})" % (p["y"], p["x"], zoom)))
        d.execute_script("annolinkMap.getContainer().focus()")
        press(Keys.ENTER)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, '.identify-list button[data-oid="831"]'))
        wait.until(lambda d: settled())
        press(Keys.ENTER)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, '.feature-form[data-oid="831"]'))
        wait.until(lambda d: settled())
        for _ in range(40):
            if focused()["name"] == "move": break
            press(Keys.TAB)
        press(Keys.ENTER)
        wait.until(lambda d: "tap where" in d.find_element(By.ID, "message").text)
        time.sleep(0.3)
        out["afterMove"] = focused()
        drawn_after(lambda: press(Keys.ARROW_RIGHT))
        centre = d.execute_script("const c = annolinkMap.getCenter(); return [c.lng, c.lat];")
        drawn_after(lambda: press(Keys.ENTER))
        moved = get(service + "/0/query?objectIds=831&returnGeometry=true&f=json")["features"][0]["geometry"]
        out["keyboardMove"] = {"centre": centre, "before": [p["x"], p["y"]], "stored": [moved["x"], moved["y"]],
                               "message": d.find_element(By.ID, "message").text}
        out["severe"] = [entry["message"] for entry in d.get_log("browser") if entry["level"] == "SEVERE"]
    finally:
        d.quit()
    print(json.dumps(out))
    """#

    /// A phone (390 × 844, touch, device pixel ratio 3): controls on the screen, a finger pans,
    /// two fingers zoom, taps identify and choose, "Zoom to" and "Export image" by taps; takes the 390 × 844
    /// screenshot. Arguments: the server's URL, the screenshot folder.
    static let phone = #"""
    import json, math, os, sys, time, urllib.request
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    \#(Browser.chromium)
    \#(Browser.page)

    base, shot = sys.argv[1], sys.argv[2]
    service = base + "/arcgis/rest/services/loudoun/FeatureServer"
    d = chromium(390, 844)
    # A phone: 390 × 844 CSS pixels at 3 device pixels each, touch events and no mouse.
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": True})
    d.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    out = {}
    def touch(kind, points):
        d.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": kind, "touchPoints": [{"x": x, "y": y, "id": i} for i, (x, y) in enumerate(points)]})
    def tap(x, y):
        # A finger down and up at page pixel (x, y): the browser makes the click of a tap.
        touch("touchStart", [(x, y)])
        time.sleep(0.05)
        touch("touchEnd", [])
    def page_pixel(x, y):
        return d.execute_script("""const p = annolinkMap.latLngToContainerPoint([arguments[1], arguments[0]]);
            const r = annolinkMap.getContainer().getBoundingClientRect(); return [p.x + r.left, p.y + r.top];""", x, y)
    def centre():
        return d.execute_script("const c = annolinkMap.getCenter(); return [c.lng, c.lat, Math.pow(2, -annolinkMap.getZoom())];")
    try:
        wait = WebDriverWait(d, 20)
        d.get(base + "/")
        wait.until(lambda d: "in view" in d.find_element(By.ID, "status").text)
        wait.until(lambda d: settled())
        out["viewport"] = d.execute_script("return [innerWidth, innerHeight, devicePixelRatio, 'ontouchstart' in window, navigator.maxTouchPoints, L.Browser.touch, L.Browser.mobile];")
        # Every control inside the screen, none covering another.
        out["controls"] = d.execute_script("""
            const sel = ['#full-extent', '#scale', '#token-button', '#export-image', '.leaflet-control-zoom-in', '.leaflet-control-zoom-out', '#coords', '#status'];
            return sel.map(s => { const r = document.querySelector(s).getBoundingClientRect(); return [s, r.left, r.top, r.right, r.bottom]; });""")
        # 831 at 1:1200 in the middle of the screen.
        p = get(service + "/0/query?objectIds=831&returnGeometry=true&f=json")["features"][0]["geometry"]
        zoom = -math.log2(1200 * 0.0254 / 96 / (1200 / 3937))
        drawn_after(lambda: d.execute_script("annolinkMap.setView([%r,%r], %r, {animate: false})" % (p["y"], p["x"], zoom)))
        # A finger drag of 80 px to the left pans the map 80 px to the right.
        before = centre()
        def drag():
            touch("touchStart", [(240, 300)])
            for i in range(1, 9):
                time.sleep(0.03)
                touch("touchMove", [(240 - 10 * i, 300)])
            # The finger rests before it lifts: no fling.
            time.sleep(0.3)
            touch("touchMove", [(160, 300)])
            time.sleep(0.3)
            touch("touchEnd", [])
        drawn_after(drag)
        after = centre()
        out["pan"] = {"before": before, "after": after}
        # Two fingers 100 px apart spread to 300 px: three times closer (Leaflet's touch zoom).
        z0 = d.execute_script("return annolinkMap.getZoom()")
        def pinch():
            touch("touchStart", [(195, 350), (195, 450)])
            for i in range(1, 11):
                time.sleep(0.03)
                touch("touchMove", [(195, 350 - 10 * i), (195, 450 + 10 * i)])
            time.sleep(0.3)
            touch("touchEnd", [])
        drawn_after(pinch)
        out["pinch"] = [z0, d.execute_script("return annolinkMap.getZoom()")]
        drawn_after(lambda: d.execute_script("annolinkMap.setView([%r,%r], %r, {animate: false})" % (p["y"], p["x"], zoom)))
        # A tap 5 px from 831: the list, then a tap on 831's entry: its popup, inside the screen.
        x, y = page_pixel(p["x"], p["y"])
        # Where the tap falls, read before the popup's opening pans the map to fit it.
        out["tapExpected"] = d.execute_script("""const r = annolinkMap.getContainer().getBoundingClientRect();
            const l = annolinkMap.containerPointToLatLng([arguments[0] - r.left, arguments[1] - r.top]); return [l.lng, l.lat, Math.pow(2, -annolinkMap.getZoom())];""", x + 5, y - 4)
        tap(x + 5, y - 4)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".identify-list button"))
        wait.until(lambda d: settled())
        out["list"] = [[b.get_attribute("data-layer"), b.get_attribute("data-oid")] for b in d.find_elements(By.CSS_SELECTOR, ".identify-list button")]
        out["tapReadout"] = [float(d.find_element(By.ID, "coords").get_attribute("data-pointer-x")), float(d.find_element(By.ID, "coords").get_attribute("data-pointer-y"))]
        entry = d.find_element(By.CSS_SELECTOR, '.identify-list button[data-oid="831"]')
        r = d.execute_script("const r = arguments[0].getBoundingClientRect(); return [(r.left + r.right) / 2, (r.top + r.bottom) / 2];", entry)
        tap(r[0], r[1])
        form = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, '.feature-form[data-oid="831"]'))
        wait.until(lambda d: settled())
        out["popup"] = d.execute_script("const r = document.querySelector('.leaflet-popup-content-wrapper').getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom];")
        out["popupButtons"] = [b.text for b in form.find_elements(By.TAG_NAME, "button")]
        d.save_screenshot(os.path.join(shot, "editor-phone.png"))
        # Zoom to by touch: from further out, back to 1:1200 about 831.
        drawn_after(lambda: d.execute_script("annolinkMap.setZoom(annolinkMap.getZoom() - 2, {animate: false})"))
        button = form.find_element(By.NAME, "zoom-to")
        r = d.execute_script("const r = arguments[0].getBoundingClientRect(); return [(r.left + r.right) / 2, (r.top + r.bottom) / 2];", button)
        drawn_after(lambda: tap(r[0], r[1]))
        out["zoomTo"] = {"centre": centre(), "point": [p["x"], p["y"]], "shown": d.find_element(By.ID, "status").text.split("1:")[-1]}
        # Export image of the phone's view.
        d.execute_script("annolinkMap.closePopup()")
        b = d.find_element(By.ID, "export-image")
        r = d.execute_script("const r = arguments[0].getBoundingClientRect(); return [(r.left + r.right) / 2, (r.top + r.bottom) / 2];", b)
        tap(r[0], r[1])
        wait.until(lambda d: body("data-exports") == "1")
        out["export"] = json.loads(body("data-last-export"))
        out["mapSize"] = d.execute_script("const s = annolinkMap.getSize(); return [s.x, s.y];")
        out["severe"] = [entry["message"] for entry in d.get_log("browser") if entry["level"] == "SEVERE"]
    finally:
        d.quit()
    print(json.dumps(out))
    """#

    /// A server with `--tokens`: read-only without a token (an edit refused with 499, the token
    /// form opened), an unknown token (401, forgotten), a read token (403), an edit token (the
    /// edit made, by that user); the token never in a URL.
    static let tokens = #"""
    import json, math, sys, time, urllib.request
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait
    from selenium.webdriver.support import expected_conditions as EC
    \#(Browser.chromium)
    \#(Browser.page)

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
    """#

    /// Runs `script` with the venv's Python and reads the JSON it prints.
    func browse(_ script: String, _ arguments: [String]) throws -> [String: Any] {
        let result = try Harness.run(try Harness.venvTool("python"), ["-c", script] + arguments)
        try #require(result.status == 0, "\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    /// The width and height in a PNG's IHDR chunk.
    func pngSize(_ data: Data) -> (Int, Int)? {
        let bytes = [UInt8](data)
        guard bytes.count > 24, bytes.prefix(8) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], bytes[12..<16] == [0x49, 0x48, 0x44, 0x52] else { return nil }
        let be = { (i: Int) in bytes[i..<i + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (be(16), be(20))
    }

    /// Where the screenshots go: a scratch folder, copied to `ANNOLINK_EDITOR_SCREENSHOTS`
    /// (e.g. `docs`) when it is set.
    func keepScreenshot(_ name: String, from folder: URL) throws {
        let made = folder.appendingPathComponent(name)
        let png = try Data(contentsOf: made)
        #expect(pngSize(png) != nil, "\(name) is a PNG")
        if let keep = ProcessInfo.processInfo.environment["ANNOLINK_EDITOR_SCREENSHOTS"] {
            let target = URL(fileURLWithPath: keep).appendingPathComponent(name).path
            try? FileManager.default.removeItem(atPath: target)
            try FileManager.default.copyItem(atPath: made.path, toPath: target)
        }
    }

    @Test("viewpoints animated, identify list, zoom to, read-out against cs2cs, empty label field refused, export image as render")
    func geoViewOperations() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let server = try ServeProcess(file: path)
        defer { _ = server.stop() }
        let shots = try Harness.temporaryDirectory(), downloads = try Harness.temporaryDirectory()
        let seen = try browse(Self.desktop, [server.url, shots.path, downloads.path])
        #expect(seen["severe"] as? [String] == [], "console errors")

        // A typed 1:1200 and Full extent: animated (many zoom frames), the centre kept.
        let typed = try #require(seen["typedScale"] as? [String: Any])
        #expect(typed["shown"] as? String == "1200")
        #expect((typed["frames"] as? Int ?? 0) > 3, "zoom frames \(typed["frames"] ?? "")")
        let before = try #require(typed["before"] as? [Double]), after = try #require(typed["after"] as? [Double])
        let pixel = try #require(typed["unitsPerPixel"] as? Double)
        #expect(hypot(after[0] - before[0], after[1] - before[1]) < pixel, "centre \(before) → \(after)")
        let full = try #require(seen["fullExtent"] as? [String: Any])
        #expect(full["shown"] as? String == full["first"] as? String)
        #expect((full["frames"] as? Int ?? 0) > 3)

        // Identify: every feature the server finds within 10 px of the tap, listed points first,
        // then lines, then polygons; after them the labels whose footprint holds the tap point.
        let listed = try #require(seen["identifyList"] as? [[Any]]), found = try #require(seen["identifyExpected"] as? [[Any]])
        let list = listed.map { "\($0[0]) \($0[1])" }, expected = found.map { "\($0[0]) \($0[1])" }
        #expect(list.count > 1 && Set(list) == Set(expected) && list.count == expected.count, "list \(list) vs server \(expected)")
        #expect(list.first == "Loudoun_Address_Points_1 831")
        let features = Array(list.prefix { !$0.contains("Anno") })
        #expect(list.dropFirst(features.count).allSatisfy { $0.contains("Anno") }, "labels after the features: \(list)")
        let kinds = features.map { $0.hasPrefix("Loudoun_Address_Points_1") ? 0 : $0.hasPrefix("ParcelLines_1") ? 1 : 2 }
        #expect(kinds == kinds.sorted(), "points, lines, polygons: \(list)")
        // A place with one feature within 10 px: its popup at once; with none: said so.
        let singles = try #require(seen["singles"] as? [String: [String: Any]])
        #expect(singles["1"]?["forms"] as? Int == 1 && singles["1"]?["lists"] as? Int == 0, "one feature: \(singles["1"] ?? [:])")
        #expect((singles["1"]?["message"] as? String ?? "").hasPrefix("Loudoun_"), "\(singles["1"] ?? [:])")
        #expect(singles["0"]?["forms"] as? Int == 0 && singles["0"]?["lists"] as? Int == 0
                && singles["0"]?["message"] as? String == "nothing within 10 px", "no feature: \(singles["0"] ?? [:])")
        let buttons = seen["popupButtons"] as? [String] ?? []
        #expect(["Update", "Move", "‹ List", "Zoom to"].allSatisfy(buttons.contains), "\(buttons)")

        // The read-out: x, y where the pointer is; longitude/latitude as cs2cs gives them.
        let readouts = try #require(seen["readouts"] as? [[String: Any]])
        try #require(readouts.count == 3)
        let input = readouts.map { String(format: "%.6f %.6f", $0["x"] as? Double ?? 0, $0["y"] as? Double ?? 0) }.joined(separator: "\n") + "\n"
        let proj = try ExternalTool.cs2cs.output(["-f", "%.10f", "EPSG:2924", "EPSG:4326"], input: input).split(separator: "\n")
        try #require(proj.count == 3)
        for (readout, line) in zip(readouts, proj) {
            let expect = readout["expect"] as? [Double] ?? []
            let x = readout["x"] as? Double ?? .nan, y = readout["y"] as? Double ?? .nan
            #expect(abs(x - expect[0]) < 1e-6 && abs(y - expect[1]) < 1e-6)
            // cs2cs writes latitude, longitude (EPSG:4326's axis order).
            let numbers = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap { Double($0) }
            let longitude = readout["longitude"] as? Double ?? .nan, latitude = readout["latitude"] as? Double ?? .nan
            #expect(abs(longitude - numbers[1]) < 1e-6 && abs(latitude - numbers[0]) < 1e-6, "page \(longitude), \(latitude) vs cs2cs \(line)")
            let text = readout["text"] as? String ?? ""
            #expect(text.contains(String(format: "lon %.7f°", longitude)) && text.contains(String(format: "x %.2f", x)), "\(text)")
        }

        // An empty label field: refused in the page with the edit service's words, no request sent.
        #expect(seen["labelFieldMarked"] as? Bool == true)
        let refusal = seen["emptyRefusal"] as? String ?? ""
        let words = #"Loudoun_Address_Points_1.ST_STR_NAM may not be empty or NULL: annotation class 'Class 1' (Loudoun_Address_PointsAnno_1 class 0) labels with $feature.AD_ADDRESS + " " + $feature.ST_STR_NAM, which reads it"#
        #expect(refusal.contains(words), "\(refusal)")
        let numberWords = words.replacingOccurrences(of: "ST_STR_NAM may", with: "AD_ADDRESS may")
        #expect((seen["emptyNumberRefusal"] as? String ?? "").contains(numberWords), "\(seen["emptyNumberRefusal"] ?? "")")
        #expect(!server.stderr.contains("applyEdits"), "the page sent an edit")
        let direct = try server.request("/arcgis/rest/services/loudoun/FeatureServer/0/applyEdits", method: "POST", form: [
            ("f", "json"), ("updates", #"[{"attributes": {"fid": 831, "ST_STR_NAM": ""}}]"#)])
        let outcome = (direct.object?["updateResults"] as? [[String: Any]])?.first
        let description = (outcome?["error"] as? [String: Any])?["description"] as? String ?? ""
        #expect(outcome?["success"] as? Bool == false && description.hasPrefix(words), "the server's refusal: \(direct.text)")
        #expect(try Harness.sqlite(path, "SELECT ST_STR_NAM FROM Loudoun_Address_Points_1 WHERE fid = 831") == "ELMWOOD")

        // Zoom to: a point centred at 1:1200, a polygon's extent fitted; both animated.
        let point = try #require(seen["zoomToPoint"] as? [String: Any])
        let centre = try #require(point["centre"] as? [Double]), target = try #require(point["point"] as? [Double])
        #expect(hypot(centre[0] - target[0], centre[1] - target[1]) < pixel, "centre \(centre) vs 831 \(target)")
        #expect(point["shown"] as? String == "1200")
        #expect((point["frames"] as? Int ?? 0) > 3)
        let polygon = try #require(seen["zoomToPolygon"] as? [String: Any])
        let extent = try #require(polygon["extent"] as? [Double]), view = try #require(polygon["view"] as? [Double])
        #expect(view[0] <= extent[0] && view[1] <= extent[1] && view[2] >= extent[2] && view[3] >= extent[3], "extent \(extent) in view \(view)")
        let fill = max((extent[2] - extent[0]) / (view[2] - view[0]), (extent[3] - extent[1]) / (view[3] - view[1]))
        #expect(fill > 0.8, "the extent fills \(fill) of the view")
        #expect((polygon["frames"] as? Int ?? 0) > 3)

        // Export image: a PNG as big as the view, the picture `annolink render` makes of its box.
        let export = try #require(seen["export"] as? [String: Any])
        let size = try #require(seen["mapSize"] as? [Int])
        #expect(export["width"] as? Int == size[0] && export["height"] as? Int == size[1])
        #expect(seen["downloads"] as? [String] == ["loudoun-1-1200.png"])
        let downloaded = try Data(contentsOf: downloads.appendingPathComponent("loudoun-1-1200.png"))
        let picture = try #require(pngSize(downloaded))
        #expect(picture == (size[0], size[1]), "PNG \(picture) vs view \(size)")
        let rendered = try Harness.temporaryDirectory().appendingPathComponent("render.png").path
        let render = try Harness.annolink("render", path, rendered, "--bbox", export["bbox"] as? String ?? "", "--size", "\(size[0]),\(size[1])")
        #expect(render.status == 0, "\(render.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: rendered)) == downloaded, "the exported image is render's")
        try keepScreenshot("editor-geoview.png", from: shots)
    }

    @Test("every control reachable by keyboard, with a visible focus and a name; Enter on the map identifies at the centre")
    func keyboard() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let server = try ServeProcess(file: path, arguments: ["--quiet"])
        defer { _ = server.stop() }
        let seen = try browse(Self.keyboard, [server.url])
        #expect(seen["severe"] as? [String] == [], "console errors")
        let order = try #require(seen["tabOrder"] as? [[String: Any]])
        let names = order.map { f -> String in
            let id = f["id"] as? String ?? "", cls = f["cls"] as? String ?? ""
            if !id.isEmpty { return "#" + id }
            if cls.contains("leaflet-control-zoom-in") { return "zoom in" }
            if cls.contains("leaflet-control-zoom-out") { return "zoom out" }
            return f["tag"] as? String ?? "?"
        }
        #expect(names == ["#map", "zoom in", "zoom out", "#token-button", "#export-image", "#full-extent", "#scale"]
                || Array(names.prefix(3)) == ["#map", "zoom in", "zoom out"] && Set(["#token-button", "#export-image", "#full-extent", "#scale"]).isSubset(of: Set(names)),
                "tab order \(names)")
        for f in order {
            #expect(f["visible"] as? Bool == true, "no visible focus on \(f)")
            #expect(!(f["label"] as? String ?? "").isEmpty, "no name for \(f)")
        }
        let zooms = seen["zoomKeys"] as? [Double] ?? []
        #expect(zooms.count == 3 && abs(zooms[1] - zooms[0] - 0.5) < 1e-9 && abs(zooms[2] - zooms[0]) < 1e-9, "Space on zoom in, Enter on zoom out: \(zooms)")
        #expect((seen["afterEnter"] as? [String: Any])?["tag"] as? String == "button", "Enter on the map puts the focus in the list")
        #expect((seen["popupFocus"] as? [String: Any])?["tag"] as? String == "input")
        let inside = try #require(seen["popupOrder"] as? [[String: Any]])
        let buttonNames = inside.compactMap { $0["tag"] as? String == "button" ? $0["name"] as? String : nil }
        #expect(buttonNames == ["update", "move", "back", "zoom-to"], "\(buttonNames)")
        #expect(inside.count > 10 && inside.allSatisfy { $0["visible"] as? Bool == true })
        let zoom = try #require(seen["zoomTo"] as? [String: Any])
        let centre = try #require(zoom["centre"] as? [Double]), point = try #require(zoom["point"] as? [Double])
        #expect(zoom["shown"] as? String == "1200")
        #expect(hypot(centre[0] - point[0], centre[1] - point[1]) < 0.5)
        #expect(((seen["afterEscape"] as? [String: Any])?["cls"] as? String ?? "").contains("leaflet-container"))
        #expect(seen["typedScale"] as? String == "600")
        // A point moved with the keyboard alone: to the centre after an arrow key's pan.
        #expect(((seen["afterMove"] as? [String: Any])?["cls"] as? String ?? "").contains("leaflet-container"), "the map has the focus after Move")
        let move = try #require(seen["keyboardMove"] as? [String: Any])
        let moveCentre = try #require(move["centre"] as? [Double]), stored = try #require(move["stored"] as? [Double])
        let before = try #require(move["before"] as? [Double])
        #expect(move["message"] as? String == "moved Loudoun_Address_Points_1 831")
        #expect(abs(stored[0] - moveCentre[0]) < 1e-6 && abs(stored[1] - moveCentre[1]) < 1e-6, "stored \(stored) vs centre \(moveCentre)")
        #expect(stored[0] - before[0] > 20, "the arrow key panned right: \(before) → \(stored)")
        #expect(try Harness.sqlite(path, "SELECT count(*) FROM annolink_journal") == "1")
    }

    @Test("a phone: 390 × 844 with touch; pan, identify and choose by taps, zoom to, export the view")
    func phone() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let server = try ServeProcess(file: path, arguments: ["--quiet"])
        defer { _ = server.stop() }
        let shots = try Harness.temporaryDirectory()
        let seen = try browse(Self.phone, [server.url, shots.path])
        #expect(seen["severe"] as? [String] == [], "console errors")
        let viewport = try #require(seen["viewport"] as? [Any])
        #expect(viewport[0] as? Int == 390 && viewport[1] as? Int == 844 && viewport[3] as? Bool == true && viewport[5] as? Bool == true, "\(viewport)")
        let controls = try #require(seen["controls"] as? [[Any]])
        let boxes = controls.map { c in (c[0] as? String ?? "", (1...4).map { (c[$0] as? NSNumber)?.doubleValue ?? .nan }) }
        for (name, r) in boxes {
            #expect(r[0] >= 0 && r[1] >= 0 && r[2] <= 390 && r[3] <= 844 && r[2] > r[0] && r[3] > r[1], "\(name) at \(r)")
        }
        for (i, a) in boxes.enumerated() {
            for b in boxes[(i + 1)...] where a.0 != "#status" && b.0 != "#status" {
                let overlap = a.1[0] < b.1[2] && b.1[0] < a.1[2] && a.1[1] < b.1[3] && b.1[1] < a.1[3]
                #expect(!overlap, "\(a.0) \(a.1) covers \(b.0) \(b.1)")
            }
        }
        // A finger dragged 80 px to the left moves the map's centre right by as much, less
        // Chromium's touch slop (its first 10 px move reaches Leaflet only as the drag's start),
        // and not up or down.
        let pan = try #require(seen["pan"] as? [String: Any])
        let before = try #require(pan["before"] as? [Double]), after = try #require(pan["after"] as? [Double])
        let panned = (after[0] - before[0]) / before[2]
        #expect(panned > 65 && panned < 81, "panned \(panned) px")
        #expect(abs(after[1] - before[1]) / before[2] < 3)
        let pinch = seen["pinch"] as? [Double] ?? []
        #expect(pinch.count == 2 && abs(pinch[1] - pinch[0] - log2(3)) < 0.05, "a pinch from 100 to 300 px zooms by log2(3): \(pinch)")
        let list = try #require(seen["list"] as? [[String]])
        #expect(list.count > 1 && list.first == ["Loudoun_Address_Points_1", "831"], "\(list)")
        let tapped = try #require(seen["tapReadout"] as? [Double]), expected = try #require(seen["tapExpected"] as? [Double])
        #expect(hypot(tapped[0] - expected[0], tapped[1] - expected[1]) < expected[2], "read-out \(tapped) at the tap \(expected)")
        let popup = try #require(seen["popup"] as? [Double])
        #expect(popup[0] >= 0 && popup[2] <= 390, "popup \(popup) inside the screen")
        #expect((seen["popupButtons"] as? [String] ?? []).contains("Zoom to"))
        let zoom = try #require(seen["zoomTo"] as? [String: Any])
        let centre = try #require(zoom["centre"] as? [Double]), point = try #require(zoom["point"] as? [Double])
        #expect(zoom["shown"] as? String == "1200")
        #expect(hypot(centre[0] - point[0], centre[1] - point[1]) < centre[2])
        let export = try #require(seen["export"] as? [String: Any]), size = try #require(seen["mapSize"] as? [Int])
        #expect(size[0] == 390 && export["width"] as? Int == 390 && export["height"] as? Int == size[1])
        try keepScreenshot("editor-phone.png", from: shots)
    }

    @Test("with --tokens: read only without one, unknown and read tokens refused clearly, an edit token edits as its user")
    func tokens() throws {
        guard let path = try Harness.importLoudoun() else { return }
        let tokenFile = try Harness.temporaryDirectory().appendingPathComponent("tokens").path
        try "alice-secret alice edit\nbob-secret bob read\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let server = try ServeProcess(file: path, arguments: ["--tokens", tokenFile])
        defer { _ = server.stop() }
        let seen = try browse(Self.tokens, [server.url])
        #expect(seen["anonymous"] as? String == #"read only without a token: "Token" to edit"#)
        #expect((seen["anonymousEdit"] as? String ?? "").contains(#"Token Required (499) — this needs a token: enter one with "Token""#), "\(seen["anonymousEdit"] ?? "")")
        // The sketch module reads its answers through the core's: the sketch routes' problem
        // documents get the same hints as Esri's codes.
        #expect((seen["anonymousSketch"] as? String ?? "").contains(#"sketch: sketching needs a token (Authorization: Bearer TOKEN) (401) — this needs a token: enter one with "Token""#), "\(seen["anonymousSketch"] ?? "")")
        #expect(seen["formShown"] as? Bool == true)
        // The popups say why they cannot edit: no fields to type in, Update off.
        let anonymousPopup = seen["anonymousPopup"] as? [Any] ?? []
        #expect(anonymousPopup.count == 3 && anonymousPopup[0] as? String == #"read only: "Token" to edit"# && anonymousPopup[1] as? Bool == false
                && anonymousPopup[2] as? Int == 0, "\(anonymousPopup)")
        let readerPopup = seen["readerPopup"] as? [Any] ?? []
        #expect(readerPopup.first as? String == "read only: the token of bob does not allow edits", "\(readerPopup)")
        #expect((seen["invalid"] as? String ?? "").contains("the token kept in this tab is not valid on this server (401)"), "\(seen["invalid"] ?? "")")
        let afterInvalid = seen["afterInvalid"] as? [Any] ?? []
        #expect(afterInvalid.count == 2 && afterInvalid[1] is NSNull, "the unknown token is forgotten: \(afterInvalid)")
        #expect(seen["reader"] as? [String] == ["signed in as bob (read only)", "Token: bob"])
        #expect((seen["readerEdit"] as? String ?? "").contains("(403) — your token does not allow this"), "\(seen["readerEdit"] ?? "")")
        #expect((seen["readerSketch"] as? String ?? "").contains("sketch: the token of bob grants reading only (403) — your token does not allow this"), "\(seen["readerSketch"] ?? "")")
        #expect(seen["editor"] as? [String] == ["signed in as alice", "Token: alice"])
        #expect(seen["editorEdit"] as? [String] == ["updated Loudoun_Address_Points_1 831", ""])
        #expect(try Harness.sqlite(path, "SELECT AD_ADDRESS FROM Loudoun_Address_Points_1 WHERE fid = 831") == "45003")
        #expect(try Harness.sqlite(path, "SELECT user FROM annolink_journal ORDER BY id DESC LIMIT 1") == "alice")
        #expect(seen["export"] as? [String] == ["1", ""])
        #expect(seen["storedToken"] as? String == "alice-secret")
        #expect(seen["urls"] as? [String] == [], "the token in a URL")
        // The page's requests carried the token (a Bearer header): the access log names alice.
        #expect(server.stderr.split(separator: "\n").contains { $0.contains("GET /render.png 200") && $0.hasSuffix(" alice") })
    }
}
