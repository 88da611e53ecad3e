"""The serve task of scripts/bench: `annolink serve` against pygeoapi, side by side on the same
GeoPackage and machine (issue 14).

- Reads: OGC API - Features bbox item queries (`/collections/address_points/items?bbox=…`,
  CRS84 boxes as clients send them, so both servers transform the box into the storage CRS and
  the features out of it), driven by wrk (Debian) with N connections for a fixed time. Reported:
  requests per second and p50/p99 latency from wrk's `--latency` distribution. Before timing,
  both servers' answers for a few boxes are compared (the same feature ids), so the figures
  compare the same work. pygeoapi runs as it is deployed, under gunicorn with one worker per CPU
  (its own Flask server is single-threaded and would be an unfair peer); annolink with
  `--threads` = 2 × CPUs, read-only.
- Edits: single attribute edits of address points with their annotation, as Esri clients send
  them (`applyEdits` with a form body), with 1 and 8 connections; every edit is one durable
  transaction. Reported: edits per second, and the journal's entry count against the requests
  wrk counted (they must agree).

Goals (issue 14): annolink ≥ 10 × pygeoapi's requests per second at a lower p99; ≥ 200 edits/s.

Run through scripts/bench (`--tasks serve`), which installs wrk and makes pygeoapi's virtualenv
(.bench/pygeoapi-venv: Debian's python3 with its GDAL bindings, pygeoapi and gunicorn).
"""
import csv
import json
import os
import random
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
PYGEOAPI_VENV = ROOT / ".bench" / "pygeoapi-venv"
TABLE = "address_points"
BOXES = 64
CRS84 = "http://www.opengis.net/def/crs/OGC/1.3/CRS84"


def log(*parts):
    print("[serve]", *parts, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url, timeout=30):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.read()


def wait_for(url, process, seconds=120):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args[0]} exited with {process.returncode}")
        try:
            if get(url, timeout=5)[0] == 200:
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"no answer from {url} in {seconds} s")


def stop(process):
    if process and process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            return process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            return process.wait()
    return process.returncode if process else None


def boxes(gpkg, count=BOXES, seed=1):
    """`count` CRS84 boxes, each about 1/20 of the layer's extent wide, at seeded places in it."""
    from osgeo import osr
    db = sqlite3.connect(f"file:{gpkg}?mode=ro", uri=True)
    minx, miny, maxx, maxy, srs = db.execute(
        "SELECT min_x, min_y, max_x, max_y, srs_id FROM gpkg_contents WHERE table_name = ?", (TABLE,)).fetchone()
    db.close()
    source, target = osr.SpatialReference(), osr.SpatialReference()
    source.ImportFromEPSG(srs)
    target.ImportFromEPSG(4326)
    for s in (source, target):
        s.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    transform = osr.CoordinateTransformation(source, target)
    rng = random.Random(seed)
    w, h = (maxx - minx) / 20, (maxy - miny) / 20
    out = []
    for _ in range(count):
        x, y = rng.uniform(minx, maxx - w), rng.uniform(miny, maxy - h)
        lon0, lat0, _ = transform.TransformPoint(x, y)
        lon1, lat1, _ = transform.TransformPoint(x + w, y + h)
        out.append((min(lon0, lon1), min(lat0, lat1), max(lon0, lon1), max(lat0, lat1)))
    return out


def items_path(prefix, box, limit):
    return f"{prefix}/collections/{TABLE}/items?bbox={box[0]:.7f},{box[1]:.7f},{box[2]:.7f},{box[3]:.7f}&limit={limit}&f=json"


def start_annolink(annolink, gpkg, cpus, work, read_only=True):
    args = [str(annolink), "serve", str(gpkg), "--listen", "127.0.0.1:0", "--quiet", "--threads", str(2 * cpus),
            "--max-records", "10000"]
    if read_only:
        args.append("--read-only")
    out = open(work / "annolink.out", "w+")
    p = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.time() + 60
    while time.time() < deadline:
        out.seek(0)
        m = re.search(r"http://127\.0\.0\.1:(\d+)", out.read())
        if m:
            url = f"http://127.0.0.1:{m.group(1)}"
            wait_for(url + "/health", p)
            return p, url
        if p.poll() is not None:
            break
        time.sleep(0.1)
    stop(p)
    out.seek(0)
    raise RuntimeError(f"annolink serve did not start: {out.read()[-300:]}")


def start_pygeoapi(gpkg, cpus, work):
    """pygeoapi under gunicorn, one worker per CPU, the OGR provider on the GeoPackage."""
    srs = sqlite3.connect(f"file:{gpkg}?mode=ro", uri=True).execute(
        "SELECT srs_id FROM gpkg_contents WHERE table_name = ?", (TABLE,)).fetchone()[0]
    port = free_port()
    config = work / "pygeoapi.yml"
    config.write_text(f"""server:
  bind: {{host: 127.0.0.1, port: {port}}}
  url: http://127.0.0.1:{port}
  mimetype: application/json; charset=UTF-8
  encoding: utf-8
  languages: [en-US]
  limits: {{default_items: 10, max_items: 10000}}
  map: {{url: "https://tile.openstreetmap.org/{{z}}/{{x}}/{{y}}.png", attribution: OSM}}
logging: {{level: ERROR}}
metadata:
  identification: {{title: bench, description: bench, keywords: [bench], keywords_type: theme, terms_of_service: none, url: http://localhost}}
  license: {{name: none, url: http://localhost}}
  provider: {{name: bench, url: http://localhost}}
  contact: {{name: bench}}
resources:
  {TABLE}:
    type: collection
    title: {TABLE}
    description: {TABLE}
    keywords: [bench]
    extents:
      spatial: {{bbox: [-180, -90, 180, 90], crs: {CRS84}}}
    providers:
      - type: feature
        name: OGR
        data: {{source_type: GPKG, source: {gpkg}, source_capabilities: {{paging: true}}}}
        id_field: fid
        layer: {TABLE}
        storage_crs: http://www.opengis.net/def/crs/EPSG/0/{srs}
        crs: [{CRS84}, http://www.opengis.net/def/crs/EPSG/0/{srs}]
""")
    bindir = PYGEOAPI_VENV / "bin"
    env = dict(os.environ, PYGEOAPI_CONFIG=str(config), PYGEOAPI_OPENAPI=str(work / "openapi.yml"))
    subprocess.run([str(bindir / "pygeoapi"), "openapi", "generate", str(config), "--output-file", str(work / "openapi.yml")],
                   env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    log_file = open(work / "pygeoapi.log", "w")
    p = subprocess.Popen([str(bindir / "gunicorn"), "-w", str(cpus), "-b", f"127.0.0.1:{port}", "pygeoapi.flask_app:APP"],
                         env=env, stdout=log_file, stderr=subprocess.STDOUT, cwd=work)
    url = f"http://127.0.0.1:{port}"
    wait_for(url + "/collections?f=json", p)
    return p, url


def feature_ids(url):
    status, body = get(url)
    doc = json.loads(body)
    return status, sorted(int(f["id"]) for f in doc.get("features", []))


def oracle(gpkg, work):
    """The CRS84 position of every address point by GDAL's own transformation (ogr2ogr), an
    oracle neither server wrote: fid → (lon, lat)."""
    out = work / "crs84-oracle.csv"
    out.unlink(missing_ok=True)
    # `fid + 0`: a column named as the fid would become the layer's FID, which CSV does not write.
    subprocess.run(["ogr2ogr", "-f", "CSV", str(out), str(gpkg), "-dialect", "sqlite", "-sql", f"SELECT fid + 0 AS oid, geom FROM {TABLE}",
                    "-t_srs", "OGC:CRS84", "-lco", "GEOMETRY=AS_XY"], check=True, capture_output=True)
    with open(out, newline="") as f:
        return {int(r["oid"]): (float(r["X"]), float(r["Y"])) for r in csv.DictReader(f)}


def compare(urls, positions, sample):
    """Each server's answers for the boxes of `sample` against the oracle's points inside them
    (a point exactly on an edge may go either way: GDAL's and PROJ's operations differ by about a
    centimetre, so points within 1e-7° of an edge are not counted against either)."""
    verdicts = {}
    for key, url in urls.items():
        verdicts[key] = f"OK: the oracle's features for {len(sample)} boxes"
        for box in sample:
            status, ids = feature_ids(items_path(url, box, 10000))
            inside = {fid for fid, (x, y) in positions.items() if box[0] <= x <= box[2] and box[1] <= y <= box[3]}
            near_edge = {fid for fid, (x, y) in positions.items()
                         if min(abs(x - box[0]), abs(x - box[2]), abs(y - box[1]), abs(y - box[3])) < 1e-7}
            got = set(ids)
            if status != 200 or (got ^ inside) - near_edge:
                verdicts[key] = (f"DIFFERENT for box {box}: {status}, {len(got)} features, the oracle {len(inside)} "
                                 f"({len(got - inside)} extra, {len(inside - got)} missing)")
                break
    return verdicts


def wrk(url, paths, connections, seconds, work, name, method="GET", bodies=None):
    """Runs wrk over `paths` (round robin per thread) and returns requests/s, p50 and p99 (ms),
    the request count and the non-2xx count."""
    script = work / f"{name}.lua"
    threads = max(1, min(connections, os.cpu_count() or 1))
    lines = ["local paths = {" + ",".join(json.dumps(p) for p in paths) + "}"]
    if bodies is None:
        lines += ["local i = 0",
                  "request = function() i = i % #paths + 1; return wrk.format(nil, paths[i]) end"]
    else:
        # Each thread starts in its own share of the bodies, so no edit repeats another (an edit
        # that changes nothing writes no journal entry).
        lines += ["local bodies = {" + ",".join(json.dumps(b) for b in bodies) + "}",
                  "local counter = 0",
                  "local threads_made = 0",
                  "local made = {}",
                  "function setup(thread) thread:set('offset', threads_made); threads_made = threads_made + 1; table.insert(made, thread) end",
                  f"function init(args) counter = offset * math.floor(#bodies / {threads}); failures = 0 end",
                  "request = function() counter = counter % #bodies + 1; "
                  f"return wrk.format('{method}', paths[1], {{['Content-Type'] = 'application/x-www-form-urlencoded'}}, bodies[counter]) end",
                  # Esri answers a failed edit with status 200 and the error in the body: count those.
                  "response = function(status, headers, body) if not string.find(body, '\"success\":true', 1, true) then failures = failures + 1 end end",
                  "function done(summary, latency, requests) local n = 0; for _, t in ipairs(made) do n = n + t:get('failures') end; "
                  "io.write(string.format('failed edits: %d\\n', n)) end"]
    script.write_text("\n".join(lines) + "\n")
    out = subprocess.run(["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{seconds}s", "--latency", "-s", str(script), url],
                         capture_output=True, text=True, check=True).stdout
    (work / f"{name}.wrk.txt").write_text(out)

    def ms(text):
        value, unit = re.match(r"([\d.]+)(us|ms|s)", text).groups()
        return float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p50 = ms(re.search(r"\s50%\s+(\S+)", out).group(1))
    p99 = ms(re.search(r"\s99%\s+(\S+)", out).group(1))
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    non2xx = int(m.group(1)) if (m := re.search(r"Non-2xx or 3xx responses: (\d+)", out)) else 0
    # An edit refused in the body (status 200, Esri's way) counts as an error answer too.
    non2xx += int(m.group(1)) if (m := re.search(r"failed edits: (\d+)", out)) else 0
    return {"rps": rps, "p50_ms": p50, "p99_ms": p99, "requests": requests, "non2xx": non2xx}


def edit_forms(annolink_url, name, gpkg, count):
    """The applyEdits URL of the address point layer and `count` form bodies, each one update
    of AD_ADDRESS of another point, found through the service's own description."""
    from urllib.parse import quote
    _, body = get(f"{annolink_url}/arcgis/rest/services/{name}/FeatureServer?f=json")
    layers = json.loads(body).get("layers", [])
    layer = next(l for l in layers if l.get("name") == TABLE)
    _, body = get(f"{annolink_url}/arcgis/rest/services/{name}/FeatureServer/{layer['id']}?f=json")
    oid = json.loads(body).get("objectIdField", "fid")
    points = sqlite3.connect(f"file:{gpkg}?mode=ro", uri=True).execute(f"SELECT count(*) FROM {TABLE}").fetchone()[0]
    forms = []
    for i in range(count):
        update = [{"attributes": {oid: i % points + 1, "AD_ADDRESS": 50_000 + i}}]
        forms.append("f=json&rollbackOnFailure=true&updates=" + quote(json.dumps(update)))
    return f"/arcgis/rest/services/{name}/FeatureServer/{layer['id']}/applyEdits", forms


def journal_count(gpkg):
    db = sqlite3.connect(f"file:{gpkg}?mode=ro", uri=True)
    try:
        return db.execute("SELECT count(*) FROM annolink_journal").fetchone()[0]
    except sqlite3.OperationalError:
        return 0
    finally:
        db.close()


def run(ds, annolink, work, rounds=3, seconds=10, connections=16):
    """The serve task on dataset `ds` (bench.Dataset); returns the Markdown section."""
    cpus = os.cpu_count() or 1
    if shutil.which("wrk") is None:
        return f"### serve — {ds.name}\n\nnot run: wrk is not installed (Debian package wrk)\n"
    work.mkdir(parents=True, exist_ok=True)
    gpkg = work / f"{ds.name}.gpkg"
    shutil.copyfile(ds.gpkg, gpkg)
    name = gpkg.stem
    sample = boxes(gpkg)
    paths = [items_path("/ogc", b, 100) for b in sample]
    peer_paths = [items_path("", b, 100) for b in sample]
    section = [f"### OGC API Features bbox item queries (limit 100, CRS84 boxes) — {ds.title} ({ds.name})", "",
               f"wrk, {connections} connections, {seconds} s per run, {rounds} rounds, interleaved; "
               f"annolink --threads {2 * cpus} --read-only; pygeoapi under gunicorn -w {cpus}.", "",
               "| server | requests/s (median) | p50 | p99 | non-2xx | verified |", "|---|---:|---:|---:|---:|---|"]
    results = {"annolink": [], "pygeoapi": []}
    annolink_p = pygeo_p = None
    verdicts = {"annolink": "not compared", "pygeoapi": "not compared"}
    try:
        annolink_p, annolink_url = start_annolink(annolink, gpkg, cpus, work)
        try:
            pygeo_p, pygeo_url = start_pygeoapi(gpkg, cpus, work)
        except Exception as e:                     # a peer that cannot run is reported, never replaced
            log(f"pygeoapi did not start: {e}")
            pygeo_url = None
        try:
            urls = {"annolink": annolink_url + "/ogc"} | ({"pygeoapi": pygeo_url} if pygeo_url else {})
            verdicts |= compare(urls, oracle(gpkg, work), sample[:4])
        except Exception as e:
            verdicts = {key: f"FAILED: {type(e).__name__}: {e}"[:200] for key in verdicts}
        for url, ps in ((annolink_url, paths), (pygeo_url, peer_paths)):     # warm-up, not timed
            for p in ps[:8]:
                try:
                    get(url + p, timeout=120) if url else None
                except OSError:
                    pass
        for r in range(rounds):
            order = [("annolink", annolink_url, paths), ("pygeoapi", pygeo_url, peer_paths)]
            for key, url, ps in (order if r % 2 == 0 else order[::-1]):
                if url:
                    results[key].append(wrk(url, ps, connections, seconds, work, f"{key}-{r}"))
                    log(f"round {r + 1} {key}: {results[key][-1]}")
    finally:
        stop(annolink_p)
        stop(pygeo_p)

    def median(values):
        values = sorted(values)
        return values[len(values) // 2] if values else None
    figures = {}
    for key in ("annolink", "pygeoapi"):
        runs = results[key]
        if not runs:
            section.append(f"| {key} | not run | | | | |")
            continue
        figures[key] = {m: median([x[m] for x in runs]) for m in ("rps", "p50_ms", "p99_ms", "non2xx")}
        f = figures[key]
        section.append(f"| {key} | {f['rps']:.0f} | {f['p50_ms']:.1f} ms | {f['p99_ms']:.1f} ms | {f['non2xx']} | {verdicts[key]} |")
    section.append("")
    # annolink's answers must be the oracle's; the peer's are reported as they are (pygeoapi's
    # OGR provider selects by the box's corners transformed, and misses points inside it).
    verdict = verdicts["annolink"]
    clean = all(f["non2xx"] == 0 for f in figures.values()) and verdict.startswith("OK")
    if not clean:
        section.append(f"Goal: annolink ≥ 10 × pygeoapi's requests/s at a lower p99: not measured "
                       f"(non-2xx answers or the answers differ: {verdict})")
    elif "annolink" in figures and "pygeoapi" in figures:
        ratio = figures["annolink"]["rps"] / figures["pygeoapi"]["rps"]
        lower = figures["annolink"]["p99_ms"] < figures["pygeoapi"]["p99_ms"]
        met = ratio >= 10 and lower
        section.append(f"Goal: annolink ≥ 10 × pygeoapi's requests/s at a lower p99: {ratio:.1f} ×, p99 "
                       f"{'lower' if lower else 'NOT lower'} — {'met' if met else 'MISSED'}")
    section.append("")

    # Edits through applyEdits, 1 and 8 clients, on a fresh writable copy each.
    section += [f"### Single edits with annotation through applyEdits — {ds.title} ({ds.name})", "",
                f"wrk, {seconds} s per run; each request one update of AD_ADDRESS (label regenerated), one durable transaction.", "",
                "| clients | edits/s | p50 | p99 | non-2xx | journal entries / requests |", "|---:|---:|---:|---:|---:|---|"]
    best = None
    for clients in (1, 8):
        copy = work / f"{ds.name}-edit-{clients}.gpkg"
        shutil.copyfile(ds.gpkg, copy)
        p = None
        try:
            p, url = start_annolink(annolink, copy, cpus, work, read_only=False)
            try:
                path, forms = edit_forms(url, copy.stem, copy, 40000)
            except Exception as e:
                section.append(f"| {clients} | not run: no FeatureServer layer {TABLE} ({type(e).__name__}: {e}) | | | | |")
                continue
            before = journal_count(copy)
            r = wrk(url, [path], clients, seconds, work, f"edit-{clients}", method="POST", bodies=forms)
        finally:
            stop(p)
        entries = journal_count(copy) - before
        # wrk does not count the requests in flight when it stops; their edits may have committed.
        answered = r["requests"] - r["non2xx"]
        agree = "OK" if answered <= entries <= answered + clients else "DIFFERENT"
        if r["non2xx"] == 0 and agree == "OK":
            best = max(best or 0, r["rps"])
        section.append(f"| {clients} | {r['rps']:.0f} | {r['p50_ms']:.1f} ms | {r['p99_ms']:.1f} ms | {r['non2xx']} | "
                       f"{entries} / {r['requests']} {agree} |")
    section.append("")
    if best is not None:
        section.append(f"Goal: ≥ 200 edits/s: {best:.0f} — {'met' if best >= 200 else 'MISSED'}")
    return "\n".join(section)
