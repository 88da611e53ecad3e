"""A page on another origin (another port of 127.0.0.1, served by Python's http.server)
auto-submits three forms in Chromium, as the probe did: an attribute edit of fid 831, the
delete of 834, an empty POST to /journal/undo. Arguments: the server's URL.

Run by CrossSiteTests.swift, which checks what it prints. By hand, against `annolink serve`
on the Loudoun import without `--tokens` (docs/testing.md, "The browser tests' scripts"):

    .test/venv/bin/python Tests/EndToEndTests/Browser/cross_site_attack.py http://127.0.0.1:8080
"""
import http.server, json, os, sys, tempfile, threading
from selenium.webdriver.support.ui import WebDriverWait
from annolink_browser import chromium
target = sys.argv[1]
folder = tempfile.mkdtemp()
forms = [
    ("/arcgis/rest/services/loudoun/FeatureServer/0/applyEdits",
     {"f": "json", "updates": json.dumps([{"attributes": {"fid": 831, "AD_ADDRESS": 99999}}])}),
    ("/arcgis/rest/services/loudoun/FeatureServer/0/applyEdits", {"f": "json", "deletes": "834"}),
    ("/journal/undo", {}),
]
html = ["<!doctype html><title>elsewhere</title><body><script>window.loaded = 0;</script>"]
for i, (path, fields) in enumerate(forms):
    inputs = "".join('<input type="hidden" name="%s" value="%s">' % (k, v.replace('"', "&quot;")) for k, v in fields.items())
    html.append('<form id="f%d" method="post" action="%s%s" target="w%d">%s</form>' % (i, target, path, i, inputs))
html.append("""<script>
for (let i = 0; i < %d; i++) {
  const frame = document.createElement("iframe");
  frame.name = "w" + i;
  document.body.appendChild(frame);
  frame.onload = () => window.loaded++;
  document.getElementById("f" + i).submit();
}
</script></body>""" % len(forms))
with open(os.path.join(folder, "attack.html"), "w") as f:
    f.write("".join(html))
handler = lambda *a, **k: http.server.SimpleHTTPRequestHandler(*a, directory=folder, **k)
httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
threading.Thread(target=httpd.serve_forever, daemon=True).start()
d = chromium(800, 600)
try:
    d.get("http://127.0.0.1:%d/attack.html" % httpd.server_address[1])
    WebDriverWait(d, 60).until(lambda d: d.execute_script("return window.loaded") >= len(forms))
    print(json.dumps({"loaded": d.execute_script("return window.loaded")}))
finally:
    d.quit()
    httpd.shutdown()
