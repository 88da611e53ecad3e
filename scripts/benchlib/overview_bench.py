"""The overview task of scripts/bench (issue 27, item 5; docs/benchmarks.md, "Big files"): the
map editor's full-extent overview of a large sample through `annolink serve`, against the
service's query time limit, and `annolink render` of the whole file without a view.

- Overview: `GET /render.png?bbox=<extent>&width=1280&height=633&overview=true`, as the page
  asks for it in a 1280 × 800 window, timed by the client from the request to the last byte.
  Each round asks a box moved by a millionth of a foot, so that it is drawn (a miss in the
  server's render cache); then the last box again, answered from the cache (a hit). The status
  (200, or 503 past the 5 s limit), the picture's size and the X-Annolink-* headers are kept.
- Render: `annolink render FILE OUT.png --json` without a view, the whole process timed, with
  what it drew.

Run through scripts/bench (`--tasks overview`), or alone against any binary and file, e.g. a
build from before the change: `python3 scripts/benchlib/overview_bench.py --annolink BIN
--data FILE.gpkg [--rounds 3] [--render-timeout 600]`.
"""
import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

WIDTH, HEIGHT = 1280, 633


def extent(gpkg):
    db = sqlite3.connect(f"file:{gpkg}?mode=ro", uri=True)
    box = db.execute("SELECT min(min_x), min(min_y), max(max_x), max(max_y) FROM gpkg_contents WHERE data_type = 'features'").fetchone()
    db.close()
    return box


def start_server(annolink, gpkg):
    process = subprocess.Popen([str(annolink), "serve", str(gpkg), "--listen", "127.0.0.1:0", "--read-only", "--quiet"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # The first line is the URL it listens on.
    line = process.stdout.readline()
    url = next((w for w in line.split() if w.startswith("http://")), None)
    if not url:
        process.kill()
        raise RuntimeError(f"annolink serve did not start: {line} {process.stderr.read()[:400]}")
    return process, url.rstrip("/")


def fetch(url):
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(url, timeout=120) as r:
            body = r.read()
            return time.perf_counter() - started, r.status, dict(r.headers), len(body)
    except urllib.error.HTTPError as e:
        body = e.read()
        return time.perf_counter() - started, e.code, dict(e.headers), len(body)


def overview(annolink, gpkg, rounds):
    x0, y0, x1, y1 = extent(gpkg)
    process, base = start_server(annolink, gpkg)
    try:
        drawn = []
        for i in range(rounds):
            d = (i + 1) * 1e-6
            query = f"/render.png?bbox={x0 - d!r},{y0 - d!r},{x1 + d!r},{y1 + d!r}&width={WIDTH}&height={HEIGHT}&overview=true"
            seconds, status, headers, size = fetch(base + query)
            drawn.append({"seconds": seconds, "status": status, "bytes": size,
                          "headers": {k: v for k, v in headers.items() if k.lower().startswith("x-annolink")}})
        repeat = fetch(base + query)
        return drawn, {"seconds": repeat[0], "status": repeat[1], "cache": repeat[2].get("X-Annolink-Cache")}
    finally:
        process.terminate()
        process.wait(timeout=30)


def render(annolink, gpkg, work, timeout):
    out = Path(work) / "all.png"
    started = time.perf_counter()
    try:
        result = subprocess.run([str(annolink), "render", str(gpkg), str(out), "--json"], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"seconds": timeout, "timedOut": True}
    seconds = time.perf_counter() - started
    report = json.loads(result.stdout) if result.returncode == 0 else {"error": result.stderr.strip()[:300]}
    return {"seconds": seconds, "report": report}


def run(ds_name, gpkg, annolink, work, rounds=3, render_timeout=900):
    """The task's section of docs/benchmarks.md's table, as markdown."""
    os.makedirs(work, exist_ok=True)
    drawn, repeat = overview(annolink, gpkg, rounds)
    times = [r["seconds"] for r in drawn]
    statuses = sorted({r["status"] for r in drawn})
    h = drawn[-1]["headers"]
    pictured = render(annolink, gpkg, work, render_timeout)
    lines = [f"### overview — {ds_name}", "",
             f"Full-extent overview {WIDTH} × {HEIGHT} (`overview=true`), {rounds} rounds: median {statistics.median(times):.2f} s "
             f"(range {min(times):.2f}–{max(times):.2f}), statuses {statuses}, {drawn[-1]['bytes']:,} bytes; "
             f"features {h.get('X-Annolink-Features', '?')}, from the index {h.get('X-Annolink-Features-From-Index', '?')}, "
             f"sharing pixels {h.get('X-Annolink-Features-Sharing-Pixels', '?')}, labels under 1 px {h.get('X-Annolink-Labels-Under-Minimum', '?')}. "
             f"The same view again: {repeat['seconds'] * 1000:.1f} ms (status {repeat['status']}, cache {repeat['cache']}).", ""]
    if pictured.get("timedOut"):
        lines.append(f"`annolink render` without a view: not finished in {render_timeout} s.")
    else:
        r = pictured["report"]
        lines.append(f"`annolink render` without a view: {pictured['seconds']:.2f} s (whole process); "
                     + (f"{r.get('features')} features ({r.get('featuresFromIndex', 'n/a')} from the index), {r.get('labels')} labels "
                        f"({r.get('labelsUnderMinimum', 'n/a')} under 1 px), {r.get('width')} × {r.get('height')} px" if "error" not in r else r["error"]))
    lines.append("")
    (Path(work) / "overview.json").write_text(json.dumps({"overview": drawn, "repeat": repeat, "render": pictured}, indent=1))
    return "\n".join(lines)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--annolink", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--render-timeout", type=int, default=900)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as work:
        print(run(Path(a.data).stem, a.data, a.annolink, work, a.rounds, a.render_timeout))
