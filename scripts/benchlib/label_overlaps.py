"""Counts the labels of a GeoPackage that overlap one another: every annotation table named in
annolink_annotation_classes, placed labels (Status 0) against each other, within a table and
across tables. Touching counts as overlapping.

  label_overlaps.py FILE.gpkg
prints {"placed", "unplaced", "overlapping_pairs", "labels_in_conflict", "seconds",
        "tables": {TABLE: {"placed", "unplaced", "labels_in_conflict"}},
        "pairs": {"TABLE_A / TABLE_B": pairs}}.

Needs only Python's sqlite3 (any python3). The footprints are read from the GeoPackage geometry
blobs (GeoPackage 1.3 §2.1.3: a header, then WKB) and tested pairwise with the separating-axis
test on their convex hulls — exact for annolink's footprints, which are rotated rectangles.
Candidate pairs come from a uniform grid over the footprints' envelopes.
"""
import json
import math
import sqlite3
import struct
import sys
import time

# The grid's cell, in map units: about one label's height at 1:1200 in feet, so that a label
# covers a few cells and a cell holds a few labels.
CELL = 32.0
# Projections closer than this (map units) count as touching: the footprints' coordinates are
# doubles computed from the same anchors, so exact contact can come out a hair apart.
TOUCH = 1e-9


def polygon_points(blob):
    """The vertices of a GeoPackage geometry blob's polygon(s), all rings, as (x, y) tuples;
    [] for an empty geometry. Raises ValueError for anything that is not a (multi)polygon."""
    if blob is None:
        return []
    if blob[:2] != b"GP":
        raise ValueError("not a GeoPackage geometry blob (no 'GP' magic)")
    flags = blob[3]
    if flags & 0x10:
        return []
    envelope = {0: 0, 1: 32, 2: 48, 3: 48, 4: 64}.get((flags >> 1) & 0x07)
    if envelope is None:
        raise ValueError(f"bad envelope indicator in flags {flags:#x}")
    points = []
    read_wkb(blob, 8 + envelope, points)
    return points


def read_wkb(blob, at, points):
    """Appends the vertices of the WKB (multi)polygon at offset `at`; returns the offset after it."""
    order = "<" if blob[at] == 1 else ">"
    kind, = struct.unpack_from(order + "I", blob, at + 1)
    at += 5
    dims = 2
    if kind & 0x80000000 or kind & 0x40000000:        # EWKB Z / M flags
        dims += bool(kind & 0x80000000) + bool(kind & 0x40000000)
        kind &= 0x0FFFFFFF
    elif kind >= 1000:                                # ISO WKB: 1000 Z, 2000 M, 3000 ZM
        dims += {1: 1, 2: 1, 3: 2}[kind // 1000]
        kind %= 1000
    if kind == 3:
        rings, = struct.unpack_from(order + "I", blob, at)
        at += 4
        for _ in range(rings):
            n, = struct.unpack_from(order + "I", blob, at)
            at += 4
            for i in range(n):
                x, y = struct.unpack_from(order + "dd", blob, at + i * 8 * dims)
                points.append((x, y))
            at += n * 8 * dims
        return at
    if kind == 6:
        parts, = struct.unpack_from(order + "I", blob, at)
        at += 4
        for _ in range(parts):
            at = read_wkb(blob, at, points)
        return at
    raise ValueError(f"footprint is WKB type {kind}, not a polygon")


def convex_hull(points):
    """Andrew's monotone chain; counter-clockwise, without repeating the first vertex."""
    pts = sorted(set(p for p in points if math.isfinite(p[0]) and math.isfinite(p[1])))
    if len(pts) <= 2:
        return pts

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def axes(hull):
    """The edge normals of a convex polygon (a segment's: its normal and its direction)."""
    out = []
    n = len(hull)
    for i in range(n if n > 2 else 1):
        (x0, y0), (x1, y1) = hull[i], hull[(i + 1) % n]
        dx, dy = x1 - x0, y1 - y0
        length = math.hypot(dx, dy)
        if length > 0:
            out.append((-dy / length, dx / length))
            if n == 2:
                out.append((dx / length, dy / length))
    return out


def separated(a, b):
    """Whether two convex hulls are apart, with a gap: touching is not separated."""
    for ax, ay in a["axes"] + b["axes"]:
        pa = [x * ax + y * ay for x, y in a["hull"]]
        pb = [x * ax + y * ay for x, y in b["hull"]]
        if min(pa) - max(pb) > TOUCH or min(pb) - max(pa) > TOUCH:
            return True
    return False


def read_labels(db):
    """Every annotation table's labels: placed ones with their hulls, and the unplaced count."""
    tables = [r[0] for r in db.execute("SELECT DISTINCT annotation_table FROM annolink_annotation_classes ORDER BY 1")]
    labels, counts = [], {}
    for table in tables:
        geom = db.execute("SELECT column_name FROM gpkg_geometry_columns WHERE table_name = ?", (table,)).fetchone()
        if geom is None:
            raise SystemExit(f"error: annotation table {table} is not in gpkg_geometry_columns")
        placed = unplaced = 0
        for fid, blob, status in db.execute(f'SELECT fid, "{geom[0]}", Status FROM "{table}"'):
            if status == 1:
                unplaced += 1
                continue
            hull = convex_hull(polygon_points(blob))
            if not hull:
                unplaced += 1                 # nothing drawn: an empty footprint places nothing
                continue
            placed += 1
            xs, ys = [p[0] for p in hull], [p[1] for p in hull]
            labels.append({"table": table, "fid": fid, "hull": hull, "axes": axes(hull),
                           "box": (min(xs), min(ys), max(xs), max(ys))})
        counts[table] = {"placed": placed, "unplaced": unplaced, "labels_in_conflict": 0}
    return labels, counts


def overlapping_pairs(labels):
    """The index pairs (i < j) of labels whose footprints overlap or touch."""
    grid = {}
    for i, label in enumerate(labels):
        x0, y0, x1, y1 = label["box"]
        for cx in range(math.floor(x0 / CELL), math.floor(x1 / CELL) + 1):
            for cy in range(math.floor(y0 / CELL), math.floor(y1 / CELL) + 1):
                grid.setdefault((cx, cy), []).append(i)
    pairs = []
    for (cx, cy), members in grid.items():
        for k, i in enumerate(members):
            a = labels[i]
            for j in members[k + 1:]:
                b = labels[j]
                ax0, ay0, ax1, ay1 = a["box"]
                bx0, by0, bx1, by1 = b["box"]
                if bx0 > ax1 + TOUCH or ax0 > bx1 + TOUCH or by0 > ay1 + TOUCH or ay0 > by1 + TOUCH:
                    continue
                # Each pair once: in the cell holding the lower-left corner of the boxes' overlap.
                if (math.floor(max(ax0, bx0) / CELL), math.floor(max(ay0, by0) / CELL)) != (cx, cy):
                    continue
                if not separated(a, b):
                    pairs.append((i, j))
    return pairs


def count(path):
    started = time.perf_counter()
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    labels, tables = read_labels(db)
    db.close()
    pairs = overlapping_pairs(labels)
    by_tables, conflicted = {}, set()
    for i, j in pairs:
        names = " / ".join(sorted((labels[i]["table"], labels[j]["table"])))
        by_tables[names] = by_tables.get(names, 0) + 1
        conflicted.update((i, j))
    for i in conflicted:
        tables[labels[i]["table"]]["labels_in_conflict"] += 1
    return {"placed": sum(t["placed"] for t in tables.values()),
            "unplaced": sum(t["unplaced"] for t in tables.values()),
            "overlapping_pairs": len(pairs), "labels_in_conflict": len(conflicted),
            "seconds": round(time.perf_counter() - started, 3),
            "tables": tables, "pairs": dict(sorted(by_tables.items()))}


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        raise SystemExit(__doc__.split("\n\n")[0] + "\n\nusage: label_overlaps.py FILE.gpkg")
    print(json.dumps(count(sys.argv[1])))
