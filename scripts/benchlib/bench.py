"""The driver of scripts/bench: annolink against the tools people use today, side by side.

Run through scripts/bench (which installs the peers and builds annolink), with Debian's
/usr/bin/python3: its sqlite3 module can load mod_spatialite. docs/benchmarks.md describes the
method; this file is the method.

Every variant of a task is a whole process (or two, for ogrinfo), timed by the wall clock around
its spawn and wait; peak RSS is the child's ru_maxrss from wait4(), the number GNU time's %M
prints. Each variant starts from its own fresh copy of the data (the copy is not timed). The
variants of a task run interleaved, in a rotated order, once per round; ratios are taken pair by
pair within a round, and the figure reported is the median over rounds.
"""
import argparse
import datetime
import json
import os
import platform
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SQL = HERE / "sql"
sys.path.insert(0, str(HERE))
import verify  # noqa: E402
import serve_bench  # noqa: E402
import pg_bench  # noqa: E402
import label_bench  # noqa: E402
import overview_bench  # noqa: E402

BENCH = ROOT / ".bench"
# BENCH_ANNOLINK overrides the binary, to try a task with a debug build.
ANNOLINK = Path(os.environ.get("BENCH_ANNOLINK", ROOT / ".build" / "release" / "annolink"))
VENV_PY = BENCH / "venv" / "bin" / "python"
SYSTEM_PY = "/usr/bin/python3"
DX, DY = 10.0, 20.0
SEED = 1

# Text units of the sample's classes (Tahoma 10 pt at 1:1200, EPSG:2924 in US survey feet):
# 1 pt in feet, Tahoma's usWinAscent/usWinDescent (2049, 423 of 2048 units per em).
PT = verify.PT
ASCENT_FT = 10 * 2049 / 2048 * PT
DESCENT_FT = 10 * 423 / 2048 * PT


class Dataset:
    def __init__(self, name, parcels, lines=None, title=""):
        self.name, self.parcels, self.trim_lines, self.title = name, parcels, lines, title
        self.gpkg = BENCH / "data" / f"{name}.gpkg"
        self.raw = BENCH / "data" / f"{name}.raw.db"
        self.stamp = BENCH / "data" / f"{name}.json"
        self.lines = self.points = None


DATASETS = {
    "p10k": Dataset("p10k", 10_000, title="10 k parcels (smoke test)"),
    "p100k": Dataset("p100k", 100_000, title="100 k parcels"),
    # 387,097 parcels make 1,000,002 parcel lines; the last two are deleted with `annolink delete`.
    "l1m": Dataset("l1m", 387_097, lines=1_000_000, title="1 M parcel lines"),
    "p1m": Dataset("p1m", 1_000_000, title="1 M parcels"),
}
QUICK = {"startup": ["p100k"], "bulk": ["p100k"], "set": ["p100k"], "edit": ["p100k"], "check": ["p100k"], "render": ["p100k"], "serve": ["p100k"],
         "pgbulk": ["p100k"], "pgserve": ["p100k"], "overview": ["p100k"]}
FULL = {"startup": ["p100k"], "bulk": ["p100k", "l1m"], "set": ["p100k"], "edit": ["p100k", "p1m"], "check": ["p100k", "p1m"], "render": ["p1m"], "serve": ["p100k"],
        "pgbulk": ["l1m"], "pgserve": ["p100k"], "labels": ["p100k"], "overview": ["p1m"]}
# The bulk set: a street rename of the first 100,000 address points (all of p100k's).
SET_COUNT = 100_000
SET_NAME = "GREENWAY"
# The render task's view: 1:1200, 1024 × 768 px at 96 dpi, centred on the middle of the data.
RENDER_SCALE, RENDER_SIZE, RENDER_DPI = 1200, (1024, 768), 96


def log(*parts):
    print(*parts, file=sys.stderr, flush=True)


def git_commit():
    try:
        return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"


# ------------------------------------------------------------------------------------------
# Tools: what is there, and versions

def probe(argv, **kw):
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=120, **kw)
        return p.returncode, (p.stdout + p.stderr).strip()
    except (OSError, subprocess.TimeoutExpired) as e:
        return -1, str(e)


def find_tools():
    """Which tools can run, with their versions; a missing one carries the reason."""
    tools = {}
    rc, out = probe([str(ANNOLINK), "--help"])
    tools["annolink"] = {"ok": rc == 0, "version": f"git {git_commit()}", "why": out[-200:]}
    rc, _ = probe([str(ANNOLINK), "check", "--help"])
    tools["annolink-check"] = {"ok": rc == 0, "version": f"git {git_commit()}",
                               "why": "not built yet (`annolink check --help` fails)"}
    rc, out = probe([str(ANNOLINK), "set", "--help"])
    tools["annolink-bulk-set"] = {"ok": rc == 0 and "--where" in out, "version": f"git {git_commit()}",
                                  "why": "not built yet (`annolink set --help` has no --where)"}
    rc, out = probe(["sqlite3", "--version"])
    tools["sqlite3"] = {"ok": rc == 0, "version": out.split()[0] if rc == 0 else "", "why": out}
    rc, out = probe(["sqlite3", ":memory:", ".load mod_spatialite",
                     "SELECT spatialite_version() || ', GEOS ' || geos_version()"])
    tools["spatialite"] = {"ok": rc == 0, "version": out, "why": out}
    rc, out = probe(["ogrinfo", "--version"])
    tools["ogrinfo"] = {"ok": rc == 0, "version": out, "why": out}
    rc, out = probe([SYSTEM_PY, "-c", "import sqlite3,sys; c=sqlite3.connect(':memory:'); "
                     "c.enable_load_extension(True); c.load_extension('mod_spatialite'); "
                     "print(sys.version.split()[0], 'sqlite', sqlite3.sqlite_version)"])
    tools["python-spatialite"] = {"ok": rc == 0, "version": out, "why": out[-300:]}
    rc, out = probe([str(VENV_PY), "-c", "import sys, shapely, pyogrio, geopandas, numpy, pandas, pyarrow; "
                     "print(sys.version.split()[0], 'shapely', shapely.__version__, '(GEOS', shapely.geos_version_string + ')',"
                     "'pyogrio', pyogrio.__version__, '(GDAL', pyogrio.__gdal_version_string__ + ')',"
                     "'geopandas', geopandas.__version__, 'numpy', numpy.__version__, 'pandas', pandas.__version__,"
                     "'pyarrow', pyarrow.__version__)"])
    tools["geopandas"] = {"ok": rc == 0, "version": out, "why": out[-300:]}
    rc, _ = probe([str(ANNOLINK), "render", "--help"])
    tools["annolink-render"] = {"ok": rc == 0, "version": f"git {git_commit()}",
                                "why": "not built yet (`annolink render --help` fails)"}
    rc, out = probe([SYSTEM_PY, "-c", "from qgis.core import Qgis; print('QGIS', Qgis.QGIS_VERSION)"],
                    env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    tools["qgis"] = {"ok": rc == 0, "version": out.splitlines()[-1] if rc == 0 and out else out, "why": out[-300:]}
    return tools


def machine():
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "?"
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    distro = "?"
    try:
        distro = open("/etc/debian_version").read().strip()
    except OSError:
        pass
    disk = shutil.disk_usage(BENCH)
    return {"cpu": cpu, "cpus": os.cpu_count(), "memory": mem, "kernel": platform.release(),
            "debian": distro, "disk_free_gb": round(disk.free / 1e9, 1), "load_at_start": os.getloadavg()}


# ------------------------------------------------------------------------------------------
# Data

def make_dataset(ds, rebuild=False):
    """Make the dataset's GeoPackage with `annolink sample` (and the plain-SQLite copy the floors
    use) unless a finished one is there."""
    if ds.stamp.exists() and ds.gpkg.exists() and ds.raw.exists() and not rebuild:
        info = json.loads(ds.stamp.read_text())
        ds.lines, ds.points = info["lines"], info["points"]
        return
    ds.gpkg.parent.mkdir(parents=True, exist_ok=True)
    for p in (ds.gpkg, ds.raw, ds.stamp):
        for suffix in ("", "-wal", "-shm"):
            Path(str(p) + suffix).unlink(missing_ok=True)
    tmp = ds.gpkg.with_suffix(".making.gpkg")
    for suffix in ("", "-wal", "-shm"):
        Path(str(tmp) + suffix).unlink(missing_ok=True)
    log(f"making {ds.name}: annolink sample --parcels {ds.parcels} --seed {SEED}")
    subprocess.run([str(ANNOLINK), "sample", str(tmp), "--parcels", str(ds.parcels), "--seed", str(SEED)],
                   check=True, stdout=subprocess.DEVNULL)
    if ds.trim_lines is not None:
        db = sqlite3.connect(f"file:{tmp}?mode=ro", uri=True)
        extra = [r[0] for r in db.execute("SELECT fid FROM parcel_lines WHERE fid > ? ORDER BY fid DESC",
                                          (ds.trim_lines,))]
        db.close()
        if len(extra) > 100:
            raise SystemExit(f"error: {ds.name}: {len(extra)} lines beyond {ds.trim_lines}; choose --parcels again")
        for fid in extra:
            subprocess.run([str(ANNOLINK), "delete", str(tmp), "parcel_lines", str(fid)], check=True,
                           stdout=subprocess.DEVNULL)
    db = sqlite3.connect(str(tmp))
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    lines, lo, hi = db.execute("SELECT count(*), min(fid), max(fid) FROM parcel_lines").fetchone()
    points = db.execute("SELECT count(*) FROM address_points").fetchone()[0]
    db.close()
    if lo != 1 or hi != lines:
        raise SystemExit(f"error: {ds.name}: parcel_lines fids are not 1..{lines}")
    if ds.trim_lines is not None and lines != ds.trim_lines:
        raise SystemExit(f"error: {ds.name}: {lines} parcel lines, expected {ds.trim_lines}")
    make_raw(tmp, ds.raw)
    os.replace(tmp, ds.gpkg)
    remove_db(tmp)                  # the -wal and -shm a read-only attach leaves behind
    ds.lines, ds.points = lines, points
    ds.stamp.write_text(json.dumps({"parcels": ds.parcels, "seed": SEED, "lines": lines, "points": points,
                                    "annolink": git_commit(), "made": now()}))


def make_raw(gpkg, raw):
    """The same four tables, rows and blobs in a plain SQLite file: no triggers, no R-trees."""
    db = sqlite3.connect(str(raw))
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("ATTACH ? AS g", (f"file:{gpkg}?mode=ro",))
    for table in ("address_points", "parcel_lines", "address_points_anno", "parcel_lines_anno"):
        ddl = db.execute("SELECT sql FROM g.sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone()[0]
        db.execute(ddl)
        db.execute(f'INSERT INTO main."{table}" SELECT * FROM g."{table}"')
    for table in ("address_points_anno", "parcel_lines_anno"):
        db.execute(f'CREATE INDEX "{table}_FeatureID" ON "{table}" (FeatureID, AnnotationClassID)')
    db.commit()
    db.execute("DETACH g")
    db.close()


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def fresh_copy(src, dst):
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(str(dst) + suffix).unlink(missing_ok=True)
    shutil.copyfile(src, dst)
    return dst


def remove_db(path):
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(str(path) + suffix).unlink(missing_ok=True)


def render(name, **values):
    text = (SQL / name).read_text()
    for key, value in values.items():
        text = text.replace("{" + key + "}", repr(value) if isinstance(value, float) else str(value))
    return text


# ------------------------------------------------------------------------------------------
# Running a variant

class Failed(Exception):
    pass


def run_steps(steps, work):
    """Run the steps (argv, stdin path or None) one after another as whole processes; return
    (seconds, peak RSS in KiB), the sum of the wall-clock times and the largest peak."""
    seconds, rss = 0.0, 0
    # Untimed: write back what is pending (the fresh copies, the previous variant's output), so
    # that no run pays for another's disk writes.
    os.sync()
    for i, (argv, stdin) in enumerate(steps):
        out_path, err_path = work / f"step{i}.out", work / f"step{i}.err"
        with open(out_path, "wb") as out, open(err_path, "wb") as err, \
                (open(stdin, "rb") if stdin else open(os.devnull, "rb")) as fin:
            t0 = time.perf_counter()
            proc = subprocess.Popen([str(a) for a in argv], stdin=fin, stdout=out, stderr=err)
            _, status, usage = os.wait4(proc.pid, 0)
            t1 = time.perf_counter()
            proc.returncode = os.waitstatus_to_exitcode(status)
        seconds += t1 - t0
        rss = max(rss, usage.ru_maxrss)
        errors = err_path.read_text(errors="replace")
        if proc.returncode != 0 or "ERROR" in errors:
            raise Failed(f"{Path(str(argv[0])).name} exited {proc.returncode}: {errors.strip()[-300:]}")
    return seconds, rss


class Variant:
    """One way of doing a task. `prepare(work)` makes its inputs (not timed) and returns a
    context; `steps(ctx, i)` gives the processes of its i-th timed run; `check(ctx, i)` says
    "OK" or what is wrong with that run's output."""

    def __init__(self, key, label, kind, needs, prepare, steps, check):
        self.key, self.label, self.kind, self.needs = key, label, kind, needs
        self.prepare, self.steps, self.check = prepare, steps, check


def spatialite_script(path, body):
    path.write_text(".bail on\n.load mod_spatialite\n.output /dev/null\nSELECT EnableGpkgAmphibiousMode();\n"
                    ".output stdout\n" + body)
    return path


# -- bulk move ------------------------------------------------------------------------------

def bulk_variants(ds):
    n = ds.lines
    by = f"{DX:g},{DY:g}"
    values = {"n": n, "dx": DX, "dy": DY}

    def copy_gpkg(work, name):
        return {"file": fresh_copy(ds.gpkg, work / name)}

    def annolink_prepare(work):
        return copy_gpkg(work, "annolink.gpkg")

    def floor_prepare(work):
        ctx = {"file": fresh_copy(ds.raw, work / "floor.db"), "script": work / "floor.sql"}
        ctx["script"].write_text(render("floor_move.sql", **values))
        return ctx

    def spatialite_prepare(work):
        ctx = copy_gpkg(work, "spatialite.gpkg")
        ctx["script"] = spatialite_script(work / "spatialite.sql", "BEGIN IMMEDIATE;\n"
                                          + render("move_lines.sql", **values).strip() + ";\n"
                                          + render("move_anno.sql", **values).strip() + ";\nCOMMIT;\n")
        return ctx

    def ogr_prepare(work):
        ctx = copy_gpkg(work, "ogrinfo.gpkg")
        ctx["lines"], ctx["anno"] = work / "ogr_lines.sql", work / "ogr_anno.sql"
        ctx["lines"].write_text(render("move_lines.sql", **values))
        ctx["anno"].write_text(render("move_anno.sql", **values))
        return ctx

    def gpd_prepare(work):
        ctx = copy_gpkg(work, "geopandas-in.gpkg")
        ctx["out"] = work / "geopandas-out.gpkg"
        remove_db(ctx["out"])
        return ctx

    return [
        Variant("annolink", "annolink translate", "annolink", ["annolink"], annolink_prepare,
                lambda c, i: [([ANNOLINK, "translate", c["file"], "parcel_lines", "--where", f"fid <= {n}",
                                "--by", by], None)],
                lambda c, i: verify.verify_move(ds.gpkg, c["file"], n, DX, DY)),
        Variant("floor", "floor: raw SQLite, no index (sqlite3 CLI)", "floor", ["sqlite3"], floor_prepare,
                lambda c, i: [(["sqlite3", c["file"]], c["script"])],
                lambda c, i: verify.verify_floor_move(ds.raw, c["file"], n, DX, DY)),
        Variant("spatialite", "SpatiaLite SQL (sqlite3 + mod_spatialite)", "peer", ["sqlite3", "spatialite"],
                spatialite_prepare,
                lambda c, i: [(["sqlite3", c["file"]], c["script"])],
                lambda c, i: verify.verify_move(ds.gpkg, c["file"], n, DX, DY)),
        Variant("ogrinfo", "GDAL ogrinfo -dialect SQLite -sql (2 runs)", "peer", ["ogrinfo"], ogr_prepare,
                lambda c, i: [(["ogrinfo", "-q", c["file"], "-dialect", "SQLite", "-sql", f"@{c['lines']}"], None),
                              (["ogrinfo", "-q", c["file"], "-dialect", "SQLite", "-sql", f"@{c['anno']}"], None)],
                lambda c, i: verify.verify_move(ds.gpkg, c["file"], n, DX, DY)),
        Variant("geopandas", "GeoPandas + Shapely 2 + pyogrio (arrow), new file", "peer", ["geopandas"], gpd_prepare,
                lambda c, i: [([VENV_PY, HERE / "gpd_move.py", c["file"], c["out"], DX, DY, n], None)],
                lambda c, i: verify.verify_move(ds.gpkg, c["out"], n, DX, DY)),
    ]


# -- single attribute edit ------------------------------------------------------------------

def edit_targets(ds, count):
    """(fid, new AD_ADDRESS) of the edits of a round, and one more for the warm-up: fids spread
    over the table, each edited once per round."""
    step = max(1, ds.points // (count + 2))
    return [(1 + k * step, 90000 + k) for k in range(count + 1)]


def edit_variants(ds, targets):
    feature_sql = (SQL / "edit_feature.sql").read_text().strip()
    anno_sql = (SQL / "edit_anno.sql").read_text().strip()

    def literal(sql, fid, value):
        return sql.replace(":fid", str(fid)).replace(":value", str(value))

    def gpkg(name):
        return lambda work: {"file": fresh_copy(ds.gpkg, work / name)}

    def target(i):
        return targets[i]                       # i = -1: the warm-up's

    def annotated_check(c, i):
        fid, value = target(i)
        return verify.verify_edit(c["file"], fid, value, annotated=True)

    def plain_check(c, i):
        fid, value = target(i)
        return verify.verify_edit(c["file"], fid, value, annotated=False)

    return [
        Variant("annolink", "annolink set", "annolink", ["annolink"], gpkg("annolink.gpkg"),
                lambda c, i: [([ANNOLINK, "set", c["file"], "address_points", target(i)[0],
                                f"AD_ADDRESS={target(i)[1]}"], None)],
                annotated_check),
        Variant("floor", "floor: sqlite3 CLI UPDATE, plain table, no annotation", "floor", ["sqlite3"],
                lambda work: {"file": fresh_copy(ds.raw, work / "floor.db")},
                lambda c, i: [(["sqlite3", c["file"], literal(feature_sql, *target(i))], None)],
                plain_check),
        Variant("sqlite3-spatialite", "sqlite3 CLI + mod_spatialite, feature + annotation", "peer",
                ["sqlite3", "spatialite"], gpkg("sqlite3.gpkg"),
                lambda c, i: [(["sqlite3", "-bail", c["file"], ".load mod_spatialite",
                                "BEGIN IMMEDIATE; " + literal(feature_sql, *target(i)) + "; "
                                + literal(anno_sql, *target(i)) + "; COMMIT;"], None)],
                annotated_check),
        Variant("ogrinfo-feature", "ogrinfo -sql, feature only (1 run)", "peer", ["ogrinfo"], gpkg("ogr1.gpkg"),
                lambda c, i: [(["ogrinfo", "-q", c["file"], "-dialect", "SQLite", "-sql",
                                literal(feature_sql, *target(i))], None)],
                plain_check),
        Variant("ogrinfo", "ogrinfo -sql, feature + annotation (2 runs)", "peer", ["ogrinfo"], gpkg("ogr2.gpkg"),
                lambda c, i: [(["ogrinfo", "-q", c["file"], "-dialect", "SQLite", "-sql",
                                literal(feature_sql, *target(i))], None),
                              (["ogrinfo", "-q", c["file"], "-dialect", "SQLite", "-sql",
                                literal(anno_sql, *target(i))], None)],
                annotated_check),
        Variant("python", "Python sqlite3 + mod_spatialite, feature + annotation", "peer", ["python-spatialite"],
                gpkg("python.gpkg"),
                lambda c, i: [([SYSTEM_PY, HERE / "py_edit.py", c["file"], *target(i)], None)],
                annotated_check),
    ]


# -- start-up: a command that does next to nothing, as a whole process -----------------------

def startup_variants(ds):
    """`annolink --version` against `sqlite3 -version`: what a command pays before its work."""
    return [
        Variant("annolink", "annolink --version", "annolink", ["annolink"], lambda work: {},
                lambda c, i: [([ANNOLINK, "--version"], None)], lambda c, i: "OK"),
        Variant("floor", "floor: sqlite3 -version", "floor", ["sqlite3"], lambda work: {},
                lambda c, i: [(["sqlite3", "-version"], None)], lambda c, i: "OK"),
    ]


def loader_statistics(argv):
    """The dynamic loader's work for one process (glibc's LD_DEBUG): objects mapped at start and
    by the exit (dlopen included), symbol relocations at start and by the exit, and the cycles
    it took at start."""
    env = dict(os.environ, LD_DEBUG="statistics,files")
    proc = subprocess.run([str(a) for a in argv], env=env, capture_output=True, text=True, errors="replace")
    start_objects, objects, figures = 0, set(), {}
    for line in proc.stderr.splitlines():
        text = line.split(":", 1)[1].strip() if ":" in line else line.strip()
        if text.startswith("file=") and "generating link map" in text:
            objects.add(text.split()[0])
        elif text.startswith("calling init:") and not start_objects:
            start_objects = len(objects)        # the first initializer runs once start-up's mapping is done
        for key, name in (("number of relocations:", "start_relocations"),
                          ("final number of relocations:", "exit_relocations"),
                          ("total startup time in dynamic loader:", "start_cycles")):
            if text.startswith(key):
                figures[name] = int(text[len(key):].split()[0])
    return {"start_objects": start_objects or len(objects), "exit_objects": len(objects), **figures,
            "status": proc.returncode}


def loader_table(ds, work_root):
    """What the loader does for a few commands, annolink's and sqlite3's (docs/design.md,
    "Start-up"; docs/benchmarks.md, "Single attribute edit")."""
    work = work_root / "loader"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    gpkg = fresh_copy(ds.gpkg, work / "loader.gpkg")
    fid, value = edit_targets(ds, 1)[0]
    commands = [
        ("sqlite3 -version", ["sqlite3", "-version"]),
        ("sqlite3 FILE 'SELECT …'", ["sqlite3", gpkg, f"SELECT count(*) FROM address_points WHERE fid = {fid}"]),
        ("annolink --version", [ANNOLINK, "--version"]),
        ("annolink show FILE address_points FID", [ANNOLINK, "show", gpkg, "address_points", fid]),
        ("annolink set FILE address_points FID AD_ADDRESS=…", [ANNOLINK, "set", gpkg, "address_points", fid, f"AD_ADDRESS={value}"]),
        ("annolink render FILE view.png (Cairo)", [ANNOLINK, "render", gpkg, work / "view.png", "--center", "{!r},{!r}".format(*render_center(ds)),
                                                   "--scale", f"1:{RENDER_SCALE}"]),
        ("annolink serve --help", [ANNOLINK, "serve", "--help"]),
    ]
    out = [f"### Start-up: the dynamic loader's work per command ({ds.name})", "",
           "glibc's `LD_DEBUG=statistics,files`: shared objects mapped before `main` and by the exit "
           "(dlopen included), symbol relocations at start and by the exit, the loader's start-up time in cycles.", "",
           "| command | objects at start | by exit | relocations at start | by exit | loader cycles | exit |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    for label, argv in commands:
        f = loader_statistics(argv)
        out.append(f"| `{label}` | {f['start_objects']} | {f['exit_objects']} | {f.get('start_relocations', 0):,} "
                   f"| {f.get('exit_relocations', 0):,} | {f.get('start_cycles', 0):,} | {f['status']} |")
    shutil.rmtree(work, ignore_errors=True)
    return "\n".join(out)


# -- bulk set: a street rename ---------------------------------------------------------------

def set_variants(ds):
    """Rename the street of the first SET_COUNT address points: annolink (journaled, labels
    regenerated by the Arcade expression and the font), the same plain UPDATE in the sqlite3
    CLI on the plain copy (no annotation: the floor), and the same edit with the labels
    recomputed in SpatiaLite SQL."""
    where = f"fid <= {SET_COUNT}"
    values = {"where": where, "street": SET_NAME}

    def gpkg(name):
        return lambda work: {"file": fresh_copy(ds.gpkg, work / name)}

    def spatialite_prepare(work):
        ctx = {"file": fresh_copy(ds.gpkg, work / "spatialite.gpkg")}
        ctx["script"] = spatialite_script(work / "spatialite.sql", "BEGIN IMMEDIATE;\n"
                                          + render("set_feature.sql", **values).strip() + ";\n"
                                          + render("set_anno.sql", **values).strip() + ";\nCOMMIT;\n")
        return ctx

    def floor_prepare(work):
        ctx = {"file": fresh_copy(ds.raw, work / "floor.db"), "script": work / "floor.sql"}
        ctx["script"].write_text("BEGIN IMMEDIATE;\n" + render("set_feature.sql", **values).strip() + ";\nCOMMIT;\n")
        return ctx

    return [
        Variant("annolink", "annolink set --where (journaled, labels regenerated)", "annolink", ["annolink", "annolink-bulk-set"],
                gpkg("annolink.gpkg"),
                lambda c, i: [([ANNOLINK, "set", c["file"], "address_points", "--where", where, f"ST_STR_NAM={SET_NAME}"], None)],
                lambda c, i: verify.verify_bulk_set(ds.gpkg, c["file"], where, SET_NAME, annotated=True, journal_entries=1)),
        Variant("floor", "floor: the same UPDATE in the sqlite3 CLI, plain table, no annotation", "floor", ["sqlite3"],
                floor_prepare,
                lambda c, i: [(["sqlite3", c["file"]], c["script"])],
                lambda c, i: verify.verify_bulk_set(ds.raw, c["file"], where, SET_NAME, annotated=False)),
        Variant("spatialite", "SpatiaLite SQL, labels recomputed (sqlite3 + mod_spatialite)", "peer", ["sqlite3", "spatialite"],
                spatialite_prepare,
                lambda c, i: [(["sqlite3", c["file"]], c["script"])],
                lambda c, i: verify.verify_bulk_set(ds.gpkg, c["file"], where, SET_NAME, annotated=True)),
    ]


# -- consistency check ----------------------------------------------------------------------

def check_sql():
    return render("check.sql", pt=repr(PT), ft=repr(verify.FT), ascent=repr(ASCENT_FT), descent=repr(DESCENT_FT))


def parse_sql_check(text):
    """{(code, table): count} from the SQL check's "code|table|count" lines."""
    counts = {}
    for line in text.splitlines():
        parts = line.split("|")
        if len(parts) == 3:
            counts[(parts[0], parts[1])] = int(parts[2] or 0)
    return counts


def check_variants(ds, shared):
    """The check variants all read one copy per round (`shared["file"]`), made by the task."""

    def sql_prepare(work):
        script = work / "check.sql"
        script.write_text(check_sql())
        return {"file": shared["file"], "script": script, "work": work}

    def sql_check(c, i):
        counts = parse_sql_check((c["work"] / "step0.out").read_text())
        if len(counts) != 20:
            return f"{len(counts)} result lines, expected 20"
        found = {k: v for k, v in counts.items() if v}
        return "OK (clean)" if not found else f"found problems in clean data: {found}"

    def annolink_check(c, i):
        return "OK (clean)"          # exit status 0 (run_steps refuses any other): no problems

    def floor_prepare(work):
        return {"file": shared["file"], "script": SQL / "floor_read.sql"}

    return [
        Variant("annolink", "annolink check", "annolink", ["annolink", "annolink-check"],
                lambda work: {"file": shared["file"]},
                lambda c, i: [([ANNOLINK, "check", c["file"]], None)], annolink_check),
        Variant("floor", "floor: sqlite3 CLI reading every row and R-tree entry once", "floor", ["sqlite3"],
                floor_prepare, lambda c, i: [(["sqlite3", "-readonly", c["file"]], c["script"])],
                lambda c, i: "OK"),
        Variant("spatialite", "the same checks as SpatiaLite SQL (sqlite3 + mod_spatialite)", "peer",
                ["sqlite3", "spatialite"], sql_prepare,
                lambda c, i: [(["sqlite3", "-readonly", c["file"]], c["script"])], sql_check),
    ]


def render_center(ds):
    """The middle of the address points' extent: where the render task's view is centred."""
    db = sqlite3.connect(f"file:{ds.gpkg}?mode=ro", uri=True)
    x0, y0, x1, y1 = db.execute("SELECT min_x, min_y, max_x, max_y FROM gpkg_contents WHERE table_name = 'address_points'").fetchone()
    db.close()
    return (x0 + x1) / 2, (y0 + y1) / 2


def render_variants(ds, shared):
    """One 1:1200 view of the shared copy: `annolink render` (its in-process drawing time from
    --json) against QGIS drawing the same view with the file's stored styles
    (QgsMapRendererSequentialJob; its job time printed by qgis_render.py). The wall clock and
    peak RSS are each whole process's, QGIS's start-up and layer loading included; the in-process
    times are in the "verified" column."""
    cx, cy = render_center(ds)
    w, h = RENDER_SIZE

    def annolink_steps(c, i):
        return [([ANNOLINK, "render", c["file"], c["work"] / "view.png", "--center", f"{cx!r},{cy!r}",
                  "--scale", f"1:{RENDER_SCALE}", "--size", f"{w},{h}", "--dpi", str(RENDER_DPI), "--json"], None)]

    def annolink_check(c, i):
        out = json.loads((c["work"] / "step0.out").read_text())
        if out["labels"] < 10:
            return f"FAILED: only {out['labels']} labels drawn"
        return f"OK (drawing {fmt_time(out['seconds'])}, {out['labels']} labels, {out['features']} features)"

    def qgis_prepare(work):
        # The styles QGIS applies by itself: files made before annolink wrote them get them now.
        subprocess.run([str(ANNOLINK), "style", str(shared["file"])], check=True, stdout=subprocess.DEVNULL)
        return {"file": shared["file"], "work": work}

    def qgis_steps(c, i):
        return [([SYSTEM_PY, HERE / "qgis_render.py", c["file"], repr(cx), repr(cy), str(RENDER_SCALE), str(w), str(h),
                  str(RENDER_DPI), c["work"] / "view.png"], None)]

    def qgis_check(c, i):
        out = json.loads((c["work"] / "step0.out").read_text().strip().splitlines()[-1])
        if out["labels"] < 10:
            return f"FAILED: only {out['labels']} labels placed"
        return f"OK (job {fmt_time(out['seconds'])}, layers loaded in {fmt_time(out['load_seconds'])}, {out['labels']} labels)"

    return [
        Variant("annolink", "annolink render (PNG)", "annolink", ["annolink", "annolink-render"],
                lambda work: {"file": shared["file"], "work": work}, annolink_steps, annolink_check),
        Variant("qgis", "QGIS 3 (python3-qgis) rendering the same view with the stored styles", "peer", ["qgis"],
                qgis_prepare, qgis_steps, qgis_check),
    ]


# ------------------------------------------------------------------------------------------
# Rounds

def run_round(task, ds, variants, tools, rnd, work_root, edits, results):
    work = work_root / f"{task}-{ds.name}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    runnable = [v for v in variants if all(tools[t]["ok"] for t in v.needs)]
    k = rnd % len(runnable) if runnable else 0
    order = runnable[k:] + runnable[:k]
    contexts = {}
    for v in order:
        vwork = work / v.key
        vwork.mkdir()
        contexts[v.key] = (vwork, v.prepare(vwork))
    record = {"task": task, "dataset": ds.name, "round": rnd, "time": now(), "load": os.getloadavg(),
              "order": [v.key for v in order], "variants": {}}
    count = edits if task in ("edit", "startup") else 1
    if task in ("edit", "startup"):             # one untimed warm-up per variant (the edit's on its own fid)
        for v in order:
            vwork, ctx = contexts[v.key]
            try:
                run_steps(v.steps(ctx, -1), vwork)
            except Failed as e:
                record["variants"][v.key] = {"error": f"warm-up: {e}"}
    for i in range(count):
        for v in order:
            entry = record["variants"].setdefault(v.key, {"seconds": [], "rss_kb": [], "verified": None})
            if "error" in entry:
                continue
            vwork, ctx = contexts[v.key]
            try:
                seconds, rss = run_steps(v.steps(ctx, i), vwork)
            except Failed as e:
                entry["error"] = str(e)
                continue
            entry["seconds"].append(seconds)
            entry["rss_kb"].append(rss)
            try:
                verdict = v.check(ctx, i)
            except Exception as e:             # a garbled output must fail its check, not the run
                verdict = f"FAILED: {type(e).__name__}: {e}"
            if entry["verified"] is None or entry["verified"].startswith("OK"):
                entry["verified"] = verdict          # the first failure stays
    for v in order:
        entry = record["variants"].get(v.key, {})
        if entry.get("seconds"):
            entry["median_s"] = statistics.median(entry["seconds"])
            entry["peak_rss_kb"] = max(entry["rss_kb"])
        shown = f"{entry['median_s']:.3f} s, {entry['peak_rss_kb'] / 1024:.0f} MB, {entry['verified']}" \
            if "median_s" in entry else f"FAILED: {entry.get('error')}"
        log(f"  [{task} {ds.name} round {rnd + 1}] {v.key}: {shown}")
    record["load_after"] = os.getloadavg()
    results.write(json.dumps(record) + "\n")
    results.flush()
    shutil.rmtree(work, ignore_errors=True)
    return record


def summarize(task, ds, variants, tools, records):
    """Median over rounds of each variant's figure and of its ratios to the floor and to
    annolink, each ratio taken within a round."""
    rows = []
    for v in variants:
        missing = [t for t in v.needs if not tools[t]["ok"]]
        row = {"key": v.key, "label": v.label, "kind": v.kind}
        if missing:
            row["missing"] = "; ".join(f"{t}: {tools[t]['why'] or 'not installed'}"[:160] for t in missing)
            rows.append(row)
            continue
        secs, rss, to_floor, vs_annolink, verdicts, errors = [], [], [], [], [], []
        for rec in records:
            e = rec["variants"].get(v.key, {})
            if "median_s" not in e:
                errors.append(e.get("error", "did not run"))
                continue
            secs.append(e["median_s"])
            rss.append(e["peak_rss_kb"])
            verdicts.append(e["verified"])
            f = rec["variants"].get("floor", {}).get("median_s")
            a = rec["variants"].get("annolink", {}).get("median_s")
            if f:
                to_floor.append(e["median_s"] / f)
            if a:
                vs_annolink.append(e["median_s"] / a)
        if not secs:
            row["failed"] = errors[0] if errors else "did not run"
            rows.append(row)
            continue
        row.update({"median_s": statistics.median(secs), "min_s": min(secs), "max_s": max(secs), "runs": len(secs),
                    "peak_rss_mb": max(rss) / 1024,
                    "x_floor": statistics.median(to_floor) if to_floor else None,
                    "x_annolink": statistics.median(vs_annolink) if vs_annolink else None,
                    "verified": next((x for x in verdicts if not x.startswith("OK")), verdicts[0]),
                    "errors": errors})
        rows.append(row)
    return rows


def fmt_time(s):
    return f"{s * 1000:.1f} ms" if s < 1 else f"{s:.2f} s"


def table(task, ds, rows, runs, edits):
    what = {"startup": f"Start-up: a command that does nothing but print its version, as a whole process",
            "bulk": f"Bulk move by ({DX:g}, {DY:g}) of {ds.lines:,} parcel lines and their {ds.lines:,} annotation rows",
            "set": f"Bulk set: a street rename (ST_STR_NAM) of {min(SET_COUNT, ds.points):,} of {ds.points:,} address points "
                   f"and their labels",
            "edit": f"Single attribute edit as a whole process (AD_ADDRESS of one of {ds.points:,} address points)",
            "check": f"Consistency check of the whole file ({ds.points:,} points, {ds.lines:,} lines, "
                     f"{ds.points + ds.lines:,} annotation rows)",
            "render": f"A 1:{RENDER_SCALE} view ({RENDER_SIZE[0]} × {RENDER_SIZE[1]} px, {RENDER_DPI} dpi) of the middle of "
                      f"{ds.points:,} address points and {ds.lines:,} parcel lines with their annotation, as a whole process",
            "labels": f"Label placement of {ds.points:,} address points and {ds.lines:,} parcel lines: annolink's against "
                      f"QGIS's label engine (placed, dropped, overlapping), as a whole process"}[task]
    per = f"median of {runs} rounds" if task not in ("edit", "startup") else f"median of {runs} rounds × {edits} runs"
    out = [f"### {what} — {ds.title} ({ds.name})", "",
           f"{per}; ratios taken within each round, then the median.", "",
           "| variant | time (min–max) | × floor | ÷ annolink | peak RSS | verified |",
           "|---|---:|---:|---:|---:|---|"]
    for r in rows:
        if "missing" in r:
            out.append(f"| {r['label']} | missing: {r['missing']} | | | | |")
            continue
        if "failed" in r:
            out.append(f"| {r['label']} | failed: {r['failed'][:200]} | | | | |")
            continue
        xf = f"{r['x_floor']:.2f}" if r["x_floor"] is not None else "–"
        xa = f"{r['x_annolink']:.2f}" if r["x_annolink"] is not None else "–"
        out.append(f"| {r['label']} | {fmt_time(r['median_s'])} ({fmt_time(r['min_s'])}–{fmt_time(r['max_s'])}) "
                   f"| {xf} | {xa} | {r['peak_rss_mb']:.0f} MB | {r['verified']} |")
    return "\n".join(out)


GOALS = {
    # task: [(description, variant, measure, limit, direction)]
    "bulk": [("annolink ≤ 2 × the raw-SQLite floor", "annolink", "x_floor", 2.0, "max"),
             ("GeoPandas/pyogrio (arrow) ≥ 4 × annolink's time", "geopandas", "x_annolink", 4.0, "min"),
             ("SpatiaLite SQL ≥ 8 × annolink's time", "spatialite", "x_annolink", 8.0, "min"),
             ("ogrinfo ≥ 8 × annolink's time", "ogrinfo", "x_annolink", 8.0, "min"),
             ("annolink peak RSS ≤ 128 MB", "annolink", "peak_rss_mb", 128.0, "max")],
    "set": [("annolink ≤ 3 × the plain sqlite3 UPDATE", "annolink", "x_floor", 3.0, "max"),
            ("SpatiaLite SQL with the labels recomputed ≥ 5 × annolink's time", "spatialite", "x_annolink", 5.0, "min")],
    "startup": [("annolink --version ≤ 2 × sqlite3 -version", "annolink", "x_floor", 2.0, "max")],
    "edit": [("annolink ≤ 2 × the sqlite3 CLI floor", "annolink", "x_floor", 2.0, "max")],
    "check": [("SpatiaLite SQL ≥ 5 × annolink's time", "spatialite", "x_annolink", 5.0, "min")],
    "render": [("annolink peak RSS ≤ 256 MB", "annolink", "peak_rss_mb", 256.0, "max")],
    "labels": [],
}


def goals(task, rows):
    by_key = {r["key"]: r for r in rows}
    out = []
    for text, key, measure, limit, direction in GOALS[task]:
        r = by_key.get(key, {})
        value = r.get(measure)
        if value is None:
            base = by_key.get("annolink", {}) if measure == "x_annolink" else {}
            why = r.get("missing") or r.get("failed") or base.get("missing") or base.get("failed") or "no figure"
            out.append(f"- {text}: not measured ({why})"[:300])
            continue
        met = value <= limit if direction == "max" else value >= limit
        unit = " MB" if measure == "peak_rss_mb" else "×"
        out.append(f"- {text}: {value:.2f}{unit} — {'met' if met else 'MISSED'}")
    return "\n".join(out)


def crosscheck(ds, tools, work_root):
    """Plant known problems in a copy and compare what annolink check and the SQL check find
    (not timed): both must see the same problems for the timing comparison to mean anything."""
    if not (tools["annolink-check"]["ok"] and tools["spatialite"]["ok"]):
        return "not run (annolink check or SpatiaLite missing)"
    work = work_root / "crosscheck"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    f = fresh_copy(ds.gpkg, work / "damaged.gpkg")
    # Damage, not outside edits: the change-capture triggers are kept quiet as for annolink's own
    # writes, or annolink would rightly report the rows as edits it has not followed yet.
    plant = """.bail on
.load mod_spatialite
BEGIN;
UPDATE annolink_changes_state SET writing = 1;
UPDATE address_points_anno SET TextString = 'WRONG' WHERE FeatureID = 10;
UPDATE address_points_anno SET AnchorX = AnchorX + 50 WHERE FeatureID = 20;
DELETE FROM parcel_lines_anno WHERE FeatureID = 30;
DELETE FROM address_points WHERE fid = 40;
UPDATE parcel_lines SET geom = AsGPB(ST_Translate(GeomFromGPB(geom), 100, 0, 0)) WHERE fid = 50;
INSERT INTO parcel_lines_anno (geom, FeatureID, AnnotationClassID, TextString, FontName, FontSize, AnchorX, AnchorY, Angle)
     SELECT geom, FeatureID, AnnotationClassID, TextString, FontName, FontSize, AnchorX, AnchorY, Angle
       FROM parcel_lines_anno WHERE FeatureID = 60;
UPDATE rtree_parcel_lines_geom SET minx = minx - 1000 WHERE id = 70;
UPDATE address_points_anno SET geom = AsGPB(ST_Translate(GeomFromGPB(geom), 0, 50, 0)) WHERE FeatureID = 80;
UPDATE annolink_changes_state SET writing = 0;
COMMIT;
"""
    script = work / "plant.sql"
    script.write_text(plant)
    subprocess.run(["sqlite3", str(f)], stdin=open(script, "rb"), check=True, stdout=subprocess.DEVNULL)
    (work / "check.sql").write_text(check_sql())
    sql_out = subprocess.run(["sqlite3", "-readonly", str(f)], stdin=open(work / "check.sql", "rb"),
                             capture_output=True, text=True)
    sql_counts, sql_codes = {}, set()
    for (code, _table), n in parse_sql_check(sql_out.stdout).items():
        sql_codes.add(code)
        if n:
            sql_counts[code] = sql_counts.get(code, 0) + n
    al = subprocess.run([str(ANNOLINK), "check", str(f), "--json", "--all"], capture_output=True, text=True)
    try:
        al_counts = {k: v for k, v in json.loads(al.stdout)["counts"].items() if v}
    except (ValueError, KeyError):
        return f"annolink check --json gave no counts (exit {al.returncode}): {al.stderr.strip()[-200:]}"
    shutil.rmtree(work, ignore_errors=True)
    # Compared on the codes the SQL knows; what only annolink sees (overlaps) is listed apart.
    seen_by_both = {k: v for k, v in al_counts.items() if k in sql_codes}
    only_annolink = dict(sorted((k, v) for k, v in al_counts.items() if k not in sql_codes))
    same = "the same" if seen_by_both == sql_counts else "DIFFERENT"
    seen_by_both, sql_counts = dict(sorted(seen_by_both.items())), dict(sorted(sql_counts.items()))
    extra = f"; beyond the SQL's codes annolink also found {only_annolink}" if only_annolink else ""
    return (f"planted 8 problems (one of each kind the SQL sees): annolink check found {seen_by_both}, "
            f"the SQL check {sql_counts} ({same}){extra}")


def main():
    ap = argparse.ArgumentParser(prog="scripts/bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="only the 100 k parcel data (a few minutes)")
    ap.add_argument("--runs", type=int, default=3, help="rounds (default 3; at least 3 for a figure)")
    ap.add_argument("--edits", type=int, default=10, help="timed edits per variant and round (default 10)")
    ap.add_argument("--tasks", default="startup,bulk,set,edit,check,render,serve,pgbulk,pgserve,labels,overview",
                    help="comma-separated: startup (annolink --version against sqlite3 -version, and the loader's work per command), bulk, set (bulk street rename), edit, check, render, serve (annolink serve against pygeoapi with wrk; edits through applyEdits), "
                         "pgbulk (translate on PostGIS against the same move by hand in psql), pgserve (applyEdits on PostGIS against a GeoPackage, 1 and 16 clients), "
                         "labels (annotate --regenerate against QGIS's label engine on the same layers; not in --quick), "
                         "overview (the editor's full-extent overview through serve against the 5 s query limit, render without a view)")
    ap.add_argument("--datasets", help="comma-separated datasets for every task: p10k, p100k, l1m, p1m")
    ap.add_argument("--rebuild-data", action="store_true", help="make the data again")
    args = ap.parse_args()

    tasks = [t for t in args.tasks.split(",") if t]
    plan = QUICK if args.quick else FULL
    if args.datasets:
        plan = {t: args.datasets.split(",") for t in tasks}
    plan = {t: plan[t] for t in tasks if t in plan}
    if not plan or any(d not in DATASETS for ds in plan.values() for d in ds):
        ap.error("unknown task or dataset")

    BENCH.mkdir(exist_ok=True)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out_dir = BENCH / "results" / stamp
    out_dir.mkdir(parents=True)
    work_root = BENCH / "work"
    shutil.rmtree(work_root, ignore_errors=True)

    tools = find_tools()
    mach = machine()
    log(f"machine: {mach['cpu']}, {mach['cpus']} CPUs, {mach['memory']}, Debian {mach['debian']}, "
        f"load {mach['load_at_start']}")
    for name, t in tools.items():
        log(f"  {name}: {t['version'] if t['ok'] else 'MISSING: ' + (t['why'] or '')[:200]}")
    if not tools["annolink"]["ok"] or not tools["sqlite3"]["ok"]:
        raise SystemExit("error: annolink and sqlite3 are needed; run scripts/bench (it builds and installs them)")

    needed = {d for ds in plan.values() for d in ds}
    for name in DATASETS:
        if name in needed:
            make_dataset(DATASETS[name], args.rebuild_data)
            ds = DATASETS[name]
            log(f"data {name}: {ds.points:,} address points, {ds.lines:,} parcel lines ({ds.gpkg})")

    edits = max(1, args.edits)
    serve_names = plan.pop("serve", [])
    overview_names = plan.pop("overview", [])
    pg_plan = [(task, name) for task in ("pgbulk", "pgserve") for name in plan.pop(task, [])]
    cases = []
    for task, names in plan.items():
        for name in names:
            ds = DATASETS[name]
            shared = {}
            variants = {"startup": lambda: startup_variants(ds),
                        "bulk": lambda: bulk_variants(ds),
                        "set": lambda: set_variants(ds),
                        "edit": lambda: edit_variants(ds, edit_targets(ds, edits)),
                        "check": lambda: check_variants(ds, shared),
                        "render": lambda: render_variants(ds, shared),
                        "labels": lambda: label_bench.variants(ds, ANNOLINK, SYSTEM_PY, fresh_copy, fmt_time, Variant)}[task]()
            cases.append((task, ds, variants, shared))

    records = {(t, d.name): [] for t, d, _, _ in cases}
    with open(out_dir / "results.jsonl", "w") as results:
        results.write(json.dumps({"machine": mach, "tools": tools, "args": vars(args), "dx": DX, "dy": DY}) + "\n")
        for rnd in range(args.runs):
            log(f"round {rnd + 1} of {args.runs}")
            for task, ds, variants, shared in cases:
                if task in ("check", "render"):
                    work_root.mkdir(parents=True, exist_ok=True)
                    shared["file"] = fresh_copy(ds.gpkg, work_root / f"{task}-{ds.name}.gpkg")
                records[(task, ds.name)].append(
                    run_round(task, ds, variants, tools, rnd, work_root, edits, results))
                if task in ("check", "render"):
                    remove_db(shared["file"])

    sections = [f"## Run of {stamp}", "",
                f"Machine: {mach['cpu']}, {mach['cpus']} CPUs, {mach['memory']} RAM, Debian {mach['debian']}, "
                f"Linux {mach['kernel']}; load average at start {', '.join(f'{x:.2f}' for x in mach['load_at_start'])}, "
                f"at end {', '.join(f'{x:.2f}' for x in os.getloadavg())}.", "",
                "Tools: " + "; ".join(f"{k} {t['version']}" for k, t in tools.items() if t["ok"]) + ".", ""]
    summary = {}
    for task, ds, variants, _ in cases:
        rows = summarize(task, ds, variants, tools, records[(task, ds.name)])
        summary[f"{task}-{ds.name}"] = rows
        sections += [table(task, ds, rows, args.runs, edits), ""] + (["Goals:", goals(task, rows), ""] if GOALS[task] else [])
    for name in serve_names:
        try:
            sections += [serve_bench.run(DATASETS[name], ANNOLINK, work_root / f"serve-{name}", rounds=args.runs), ""]
        except Exception as e:                  # the other tasks' results stand
            sections += [f"### serve — {name}", "", f"failed: {type(e).__name__}: {e}"[:400], ""]
    for name in overview_names:
        try:
            sections += [overview_bench.run(name, DATASETS[name].gpkg, ANNOLINK, work_root / f"overview-{name}", rounds=args.runs), ""]
        except Exception as e:                  # the other tasks' results stand
            sections += [f"### overview — {name}", "", f"failed: {type(e).__name__}: {e}"[:400], ""]
    for task, name in pg_plan:
        try:
            if task == "pgbulk":
                sections += [pg_bench.bulk(DATASETS[name], ANNOLINK, work_root / f"pgbulk-{name}", rounds=args.runs), ""]
            else:
                sections += [pg_bench.serve_edits(DATASETS[name], ANNOLINK, work_root / f"pgserve-{name}"), ""]
        except Exception as e:                  # the other tasks' results stand
            sections += [f"### {task} — {name}", "", f"failed: {type(e).__name__}: {e}"[:400], ""]
    if "startup" in plan:
        sections += [loader_table(DATASETS[plan["startup"][0]], work_root), ""]
    if "check" in plan:
        ds = DATASETS[plan["check"][0]]
        note = crosscheck(ds, tools, work_root)
        sections += [f"Check cross-check on {ds.name}: {note}", ""]
    text = "\n".join(sections)
    (out_dir / "table.md").write_text(text + "\n")
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=1))
    shutil.rmtree(work_root, ignore_errors=True)
    print(text)
    log(f"results: {out_dir}")


if __name__ == "__main__":
    main()
