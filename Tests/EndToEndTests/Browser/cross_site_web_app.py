"""A page of another origin reads and edits (with a token) through `--cors`, in Chromium;
from a server without `--cors` the browser gives it nothing. Arguments: the URL of the
server with `--cors`, the URL of the one without.

Run by CrossSiteTests.swift, which checks what it prints. By hand, against `annolink serve`
on the Loudoun import, twice: with `--tokens FILE --cors '*'` and with `--tokens FILE` (its
lines `t-alice alice edit`; docs/testing.md, "The browser tests' scripts"):

    .test/venv/bin/python Tests/EndToEndTests/Browser/cross_site_web_app.py http://127.0.0.1:8080 http://127.0.0.1:8081
"""
import http.server, json, os, sys, tempfile, threading
from annolink_browser import chromium
folder = tempfile.mkdtemp()
with open(os.path.join(folder, "app.html"), "w") as f:
    f.write("<!doctype html><title>a web app elsewhere</title><p>app</p>")
handler = lambda *a, **k: http.server.SimpleHTTPRequestHandler(*a, directory=folder, **k)
httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
threading.Thread(target=httpd.serve_forever, daemon=True).start()
script = """
const done = arguments[arguments.length - 1];
async function use(base, value) {
  const out = {};
  try { const r = await fetch(base + "/ogc/collections?f=json"); out.read = r.status; out.collections = (await r.json()).collections.length; }
  catch (e) { out.read = String(e); }
  try {
    const body = new URLSearchParams({f: "json", updates: JSON.stringify([{attributes: {fid: 831, AD_ADDRESS: value}}])});
    const r = await fetch(base + "/arcgis/rest/services/loudoun/FeatureServer/0/applyEdits",
                          {method: "POST", headers: {"Authorization": "Bearer t-alice"}, body});
    out.edit = await r.json();
  } catch (e) { out.edit = String(e); }
  try {
    const r = await fetch(base + "/journal/undo", {method: "POST"});
    out.anonymousUndo = r.status;
  } catch (e) { out.anonymousUndo = String(e); }
  return out;
}
Promise.all([use(arguments[0], 21004), use(arguments[1], 21005)]).then(done);
"""
d = chromium(800, 600)
try:
    d.set_script_timeout(60)
    d.get("http://127.0.0.1:%d/app.html" % httpd.server_address[1])
    allowed, refused = d.execute_async_script(script, sys.argv[1], sys.argv[2])
    print(json.dumps({"allowed": allowed, "refused": refused}))
finally:
    d.quit()
    httpd.shutdown()
