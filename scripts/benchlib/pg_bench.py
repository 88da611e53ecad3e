"""The PostGIS tasks of scripts/bench (issue 17), on a throw-away cluster of their own
(scripts/pg-test-cluster, stopped at the end).

- pgbulk: the bulk move of every parcel line and its label, `annolink translate
  postgresql://… parcel_lines --where 'fid <= N' --by 10,20`, beside the same move written by
  hand: two `UPDATE … ST_Translate` in one transaction through `psql`. The data set is copied
  in once with `annolink copy` (timed and reported too); each variant of each round gets its
  own database made from that one (`CREATE DATABASE … TEMPLATE`, not timed), and a
  `CHECKPOINT` before each timed run so that no run pays for another's writes. Verified: each
  variant's moved rows (geometry bytes and anchors) against PostGIS's own `ST_Translate` of
  the original, by digest; annolink's journal has one entry. Goal: annolink ≤ 1.5 × psql.
- pgserve: single attribute edits with their labels through `annolink serve`'s applyEdits on
  PostGIS and on the GeoPackage of the same data, with 1 and 16 clients (wrk): edits/s, p50
  and p99, journal entries against requests. `serve` on a `postgresql://` target is being
  built (branch pgserve); until it lands the PostGIS rows say it did not start.
"""
import os
import re
import shutil
import statistics
import subprocess
import time
from pathlib import Path

import serve_bench

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
PSQL = "/usr/lib/postgresql/15/bin/psql"
DX, DY = 10.0, 20.0
LINES, LABELS = "parcel_lines", "parcel_lines_anno"


def log(*parts):
    print("[pg]", *parts, flush=True)


class Cluster:
    """A cluster started by scripts/pg-test-cluster; `stop()` removes it."""

    def __init__(self):
        out = subprocess.run([str(ROOT / "scripts" / "pg-test-cluster"), "start"], capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError(f"scripts/pg-test-cluster start failed: {out.stderr.strip()[-300:]}")
        env = dict(re.findall(r"export (\w+)=(\S+)", out.stdout))
        self.url, self.dir = env["ANNOLINK_TEST_POSTGRES"], env["ANNOLINK_TEST_POSTGRES_DIR"]
        self.port = re.search(r":(\d+)/", self.url).group(1)

    def stop(self):
        subprocess.run([str(ROOT / "scripts" / "pg-test-cluster"), "stop", self.dir], capture_output=True)

    def database(self, name):
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"

    def psql_argv(self, db):
        return [PSQL, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", self.port, "-U", "postgres", "-d", db]

    def sql(self, db, text):
        out = subprocess.run(self.psql_argv(db) + ["-A", "-t", "-c", text], capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError(f"psql: {out.stderr.strip()[-300:]}")
        return out.stdout.strip()


def timed(argv, work, name):
    """Runs argv as one process; returns its wall-clock seconds (raises on failure)."""
    with open(work / f"{name}.out", "wb") as out, open(work / f"{name}.err", "wb") as err:
        t0 = time.perf_counter()
        code = subprocess.run([str(a) for a in argv], stdout=out, stderr=err).returncode
        seconds = time.perf_counter() - t0
    errors = (work / f"{name}.err").read_text(errors="replace")
    if code != 0 or "ERROR" in errors:
        raise RuntimeError(f"{Path(str(argv[0])).name} exited {code}: {errors.strip()[-300:]}")
    return seconds


def digest_sql(n, dx, dy, moved):
    """One digest of the lines' geometry bytes and the labels' geometry and anchors: of the rows
    as they are (moved=True), or of PostGIS's ST_Translate of them (the oracle)."""
    g = "geom" if moved else f"ST_Translate(geom, {dx!r}, {dy!r})"
    ax, ay = ('"AnchorX"', '"AnchorY"') if moved else (f'"AnchorX" + {dx!r}', f'"AnchorY" + {dy!r}')
    return (f"SELECT md5(string_agg(md5(ST_AsEWKB({g})), '' ORDER BY fid)) FROM {LINES} WHERE fid <= {n} "
            f"UNION ALL SELECT md5(string_agg(md5(ST_AsEWKB({g}) || float8send({ax}) || float8send({ay})), '' ORDER BY fid)) "
            f"FROM {LABELS} WHERE \"FeatureID\" <= {n}")


def bulk(ds, annolink, work, rounds=3):
    """The pgbulk task on dataset `ds` (bench.Dataset); returns the Markdown section."""
    n, by = ds.lines, f"{DX:g},{DY:g}"
    work.mkdir(parents=True, exist_ok=True)
    cluster = Cluster()
    try:
        cluster.sql("postgres", "CREATE DATABASE bench_base TEMPLATE annolink_template")
        t0 = time.perf_counter()
        timed([annolink, "copy", ds.gpkg, cluster.database("bench_base")], work, "copy")
        copy_s = time.perf_counter() - t0
        cluster.sql("bench_base", "VACUUM ANALYZE")
        lines = int(cluster.sql("bench_base", f"SELECT count(*) FROM {LINES} WHERE fid <= {n}"))
        labels = int(cluster.sql("bench_base", f"SELECT count(*) FROM {LABELS} WHERE \"FeatureID\" <= {n}"))
        oracle = cluster.sql("bench_base", digest_sql(n, DX, DY, moved=False))
        log(f"copied {ds.name} into PostGIS in {copy_s:.1f} s: {lines:,} lines, {labels:,} labels")
        script = work / "move.sql"
        script.write_text(f"BEGIN;\nUPDATE {LINES} SET geom = ST_Translate(geom, {DX!r}, {DY!r}) WHERE fid <= {n};\n"
                          f"UPDATE {LABELS} SET geom = ST_Translate(geom, {DX!r}, {DY!r}), \"AnchorX\" = \"AnchorX\" + {DX!r}, "
                          f"\"AnchorY\" = \"AnchorY\" + {DY!r} WHERE \"FeatureID\" <= {n};\nCOMMIT;\n")
        variants = {
            "annolink": lambda db: [annolink, "translate", cluster.database(db), LINES, "--where", f"fid <= {n}", "--by", by],
            "psql": lambda db: cluster.psql_argv(db) + ["-f", script],
        }
        results = {k: [] for k in variants}
        verdicts = {k: "OK" for k in variants}
        loads = []
        for r in range(rounds):
            order = list(variants) if r % 2 == 0 else list(variants)[::-1]
            for key in order:
                db = f"bench_{key}"
                cluster.sql("postgres", f"DROP DATABASE IF EXISTS {db}")
                cluster.sql("postgres", f"CREATE DATABASE {db} TEMPLATE bench_base")
                cluster.sql(db, "CHECKPOINT")
                os.sync()
                load = os.getloadavg()[0]
                try:
                    seconds = timed(variants[key](db), work, f"{key}-{r}")
                except RuntimeError as e:
                    verdicts[key] = f"FAILED: {e}"[:200]
                    continue
                loads.append(load)
                results[key].append(seconds)
                got = cluster.sql(db, digest_sql(n, DX, DY, moved=True))
                if got != oracle:
                    verdicts[key] = "FAILED: the moved rows are not ST_Translate of the original"
                if key == "annolink" and cluster.sql(db, "SELECT count(*) FROM annolink.journal") != "1":
                    verdicts[key] = "FAILED: not one journal entry"
                log(f"round {r + 1} {key}: {seconds:.2f} s (load {load:.1f})")
                cluster.sql("postgres", f"DROP DATABASE {db}")
    finally:
        cluster.stop()
    section = [f"### Bulk move on PostGIS: {lines:,} parcel lines and {labels:,} labels by ({DX:g}, {DY:g}) — {ds.title} ({ds.name})", "",
               f"`annolink copy` into PostGIS: {copy_s:.1f} s. {rounds} rounds, interleaved; a fresh database per run "
               f"(CREATE DATABASE … TEMPLATE, not timed); load average (1 min) at the runs' starts "
               f"{min(loads, default=0):.1f}–{max(loads, default=0):.1f}.", "",
               "| variant | median | runs | verified |", "|---|---:|---|---|"]
    labels_of = {"annolink": "annolink translate postgresql://… (journal, undo)",
                 "psql": "by hand: psql, two UPDATE … ST_Translate in one transaction"}
    for key in variants:
        runs = results[key]
        shown = f"{statistics.median(runs):.2f} s" if runs else "—"
        section.append(f"| {labels_of[key]} | {shown} | {', '.join(f'{s:.2f}' for s in runs)} | {verdicts[key]} |")
    section.append("")
    pairs = [a / b for a, b in zip(results["annolink"], results["psql"])]
    if pairs and all(v == "OK" for v in verdicts.values()):
        ratio = statistics.median(pairs)
        section.append(f"Goal: annolink ≤ 1.5 × psql by hand: {ratio:.2f}× (median of the rounds' ratios; "
                       f"{', '.join(f'{p:.2f}' for p in pairs)}) — {'met' if ratio <= 1.5 else 'MISSED'}")
    else:
        section.append("Goal: annolink ≤ 1.5 × psql by hand: not measured (a variant failed)")
    return "\n".join(section)


def service_name(url):
    _, body = serve_bench.get(f"{url}/arcgis/rest/services?f=json")
    import json
    return json.loads(body)["services"][0]["name"]


def serve_edits(ds, annolink, work, seconds=10, clients_list=(1, 16)):
    """The pgserve task: applyEdits on PostGIS against the same on a GeoPackage."""
    cpus = os.cpu_count() or 1
    if shutil.which("wrk") is None:
        return f"### serve edits, PostGIS and GeoPackage — {ds.name}\n\nnot run: wrk is not installed (Debian package wrk)\n"
    work.mkdir(parents=True, exist_ok=True)
    section = [f"### Single edits with annotation through applyEdits: PostGIS against GeoPackage — {ds.title} ({ds.name})", "",
               f"wrk, {seconds} s per run; each request one update of AD_ADDRESS (label regenerated), one transaction; "
               f"annolink serve --threads {2 * cpus}; the PostGIS cluster on the same machine (fsync off, as the test cluster).", "",
               "| store | clients | edits/s | p50 | p99 | non-2xx | journal entries / requests |", "|---|---:|---:|---:|---:|---:|---|"]
    cluster = Cluster()
    try:
        cluster.sql("postgres", "CREATE DATABASE bench_serve_base TEMPLATE annolink_template")
        timed([annolink, "copy", ds.gpkg, cluster.database("bench_serve_base")], work, "copy")
        cluster.sql("bench_serve_base", "VACUUM ANALYZE")
        for clients in clients_list:
            for store in ("GeoPackage", "PostGIS"):
                if store == "GeoPackage":
                    target = work / f"{ds.name}-edit-{clients}.gpkg"
                    shutil.copyfile(ds.gpkg, target)
                    count = lambda: serve_bench.journal_count(target)
                else:
                    db = f"bench_serve_{clients}"
                    cluster.sql("postgres", f"DROP DATABASE IF EXISTS {db}")
                    cluster.sql("postgres", f"CREATE DATABASE {db} TEMPLATE bench_serve_base")
                    target = cluster.database(db)
                    count = lambda db=db: int(cluster.sql(db, "SELECT count(*) FROM annolink.journal")
                                              if cluster.sql(db, "SELECT to_regclass('annolink.journal') IS NOT NULL") == "t" else 0)
                p = None
                try:
                    try:
                        p, url = serve_bench.start_annolink(annolink, target, cpus, work, read_only=False)
                        path, forms = serve_bench.edit_forms(url, service_name(url), ds.gpkg, 40000)
                    except Exception as e:
                        why = " ".join(f"{type(e).__name__}: {e}".split())[:200]
                        section.append(f"| {store} | {clients} | not run: {why} | | | | |")
                        continue
                    before = count()
                    r = serve_bench.wrk(url, [path], clients, seconds, work, f"edit-{store}-{clients}", method="POST", bodies=forms)
                finally:
                    serve_bench.stop(p)
                entries = count() - before
                answered = r["requests"] - r["non2xx"]
                agree = "OK" if answered <= entries <= answered + clients else "DIFFERENT"
                section.append(f"| {store} | {clients} | {r['rps']:.0f} | {r['p50_ms']:.1f} ms | {r['p99_ms']:.1f} ms | {r['non2xx']} | "
                               f"{entries} / {r['requests']} {agree} |")
                log(f"{store} {clients} clients: {r}")
    finally:
        cluster.stop()
    return "\n".join(section)
