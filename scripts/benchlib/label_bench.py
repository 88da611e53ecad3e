"""The labels task of scripts/bench: annolink's label placement against QGIS's label engine on
the same origin layers (docs/benchmarks.md, "Label placement against QGIS").

annolink: `annolink annotate FILE --regenerate` (with --replace, the conflict-aware placement,
when `annolink annotate --help` offers it) on a fresh copy, timed as a whole process; then,
untimed, label_overlaps.py counts what it placed, what it left unplaced and the overlapping
pairs. QGIS: qgis_labels.py labels the origin layers with the same classes (PAL, cartographic
point placement, lines parallel) over the whole extent in 7 × 7 tiles and reports what it
placed and dropped; the wall clock is the whole process, the job time is in "verified".
"""
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import label_overlaps  # noqa: E402

TILES = 7


def annotate_command(annolink):
    """annolink's side as one command line, FILE standing for the data set: --replace joins it
    once `annolink annotate --help` mentions it."""
    command = [str(annolink), "annotate", "FILE", "--regenerate"]
    try:
        help_text = subprocess.run([str(annolink), "annotate", "--help"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        help_text = ""
    if "--replace" in help_text:
        command.append("--replace")
    return command


def per_table(counts):
    return ", ".join(f"{name}: {t['placed'] - t['labels_in_conflict']:,} of {t['placed'] + t['unplaced']:,} clear"
                     for name, t in counts["tables"].items())


def variants(ds, annolink, system_py, fresh_copy, fmt_time, Variant):
    """The two variants of the labels task on data set `ds` (the helpers come from bench.py)."""
    command = annotate_command(annolink)

    def annolink_prepare(work):
        return {"file": fresh_copy(ds.gpkg, work / "annolink.gpkg"), "work": work}

    def annolink_steps(c, i):
        return [([c["file"] if a == "FILE" else a for a in command], None)]

    def annolink_check(c, i):
        counts = label_overlaps.count(c["file"])
        (c["work"] / "overlaps.json").write_text(json.dumps(counts))
        if counts["placed"] + counts["unplaced"] != ds.points + ds.lines:
            return f"FAILED: {counts['placed'] + counts['unplaced']:,} labels for {ds.points + ds.lines:,} features"
        return (f"OK ({' '.join(command[1:]).replace('FILE', ds.name)}: {counts['placed']:,} placed, {counts['unplaced']:,} unplaced, "
                f"{counts['overlapping_pairs']:,} overlapping pairs; {per_table(counts)})")

    def qgis_prepare(work):
        return {"file": fresh_copy(ds.gpkg, work / "qgis.gpkg"), "work": work}

    def qgis_steps(c, i):
        return [([system_py, HERE / "qgis_labels.py", c["file"], "--tiles", str(TILES)], None)]

    def qgis_check(c, i):
        out = json.loads((c["work"] / "step0.out").read_text().strip().splitlines()[-1])
        if out["features"] != ds.points + ds.lines:
            return f"FAILED: QGIS saw {out['features']:,} features, not {ds.points + ds.lines:,}"
        layers = ", ".join(f"{name}: {t['placed']:,} of {t['features']:,} placed" for name, t in out["layers"].items())
        fonts = {t["font"] for t in out["layers"].values()}
        return f"OK (job {fmt_time(out['seconds'])} in {out['tiles']} tiles, {'/'.join(sorted(fonts))}; {layers})"

    return [
        Variant("annolink", "annolink annotate --regenerate, then label_overlaps.py (untimed)", "annolink", ["annolink"],
                annolink_prepare, annolink_steps, annolink_check),
        Variant("qgis", f"QGIS 3 (python3-qgis) labelling the origin layers, {TILES} × {TILES} tiles at 1:1200", "peer", ["qgis"],
                qgis_prepare, qgis_steps, qgis_check),
    ]
