"""Checks of the benchmark's outputs, outside annolink: read with Python's sqlite3 and a
GeoPackage-binary decoder of our own (no SpatiaLite, no GDAL, no annolink code).

Each function returns "OK" or a short reason for failure. They read a handful of rows, so
they are cheap even on the million-row files.
"""
import sqlite3
import struct

# 1 pt of text at 1:1200, in US survey feet; US survey feet to international feet.
PT = 0.0254 * 3937 / 72
FT = 1200 / 3937 / 0.3048
FLOAT_STEP = 2.4e-7          # two 32-bit float steps, relative: the R-tree's outward rounding


def decode_gpb(blob):
    """(srs_id, envelope or None, [(x, y), ...] of the exterior ring / line / point) of a
    StandardGeoPackageBinary blob holding a 2-D Point, LineString or Polygon."""
    if blob is None or blob[:2] != b"GP":
        raise ValueError("not a GeoPackage binary blob")
    flags = blob[3]
    order = "<" if flags & 1 else ">"
    srs_id = struct.unpack(order + "i", blob[4:8])[0]
    env_kind = (flags >> 1) & 7
    env_len = {0: 0, 1: 32, 2: 48, 3: 48, 4: 64}[env_kind]
    envelope = struct.unpack(order + "4d", blob[8:40]) if env_kind else None
    wkb = blob[8 + env_len:]
    wo = "<" if wkb[0] == 1 else ">"
    kind = struct.unpack(wo + "I", wkb[1:5])[0]
    if kind == 1:
        return srs_id, envelope, [struct.unpack(wo + "2d", wkb[5:21])]
    if kind == 2:
        n = struct.unpack(wo + "I", wkb[5:9])[0]
        return srs_id, envelope, [struct.unpack(wo + "2d", wkb[9 + 16 * i:25 + 16 * i]) for i in range(n)]
    if kind == 3:
        n = struct.unpack(wo + "I", wkb[9:13])[0]
        return srs_id, envelope, [struct.unpack(wo + "2d", wkb[13 + 16 * i:29 + 16 * i]) for i in range(n)]
    raise ValueError(f"unexpected WKB type {kind}")


def bounds(points):
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return min(xs), max(xs), min(ys), max(ys)


def close(a, b, tol):
    return abs(a - b) <= tol


def rtree_holds(db, table, fid, box):
    """Whether the table's R-tree entry for fid contains box (minx, maxx, miny, maxy) and is at
    most two float steps looser."""
    row = db.execute(f'SELECT minx, maxx, miny, maxy FROM "rtree_{table}_geom" WHERE id = ?', (fid,)).fetchone()
    if row is None:
        return False
    minx, maxx, miny, maxy = row
    if minx > box[0] or maxx < box[1] or miny > box[2] or maxy < box[3]:
        return False
    return all(abs(r - b) <= FLOAT_STEP * abs(b) + 1e-9 for r, b in zip(row, box))


def sample_fids(n):
    return sorted({1, 2, max(1, n // 3), max(1, n // 2), max(1, n - 1), n})


def verify_move(template, moved, n, dx, dy, index_in=None):
    """A bulk move of parcel_lines fids 1..n by (dx, dy): rows present, geometry moved, blob
    and envelope right, R-tree entries hold the new boxes, and each linked label carried
    rigidly — anchor and footprint moved by (dx, dy), text and angle as they were — with its
    R-tree entry holding the moved footprint (docs/placement.md, "Rigid moves").
    `index_in` names the file holding the R-tree when it is not `moved`."""
    src = sqlite3.connect(f"file:{template}?mode=ro", uri=True)
    out = sqlite3.connect(f"file:{moved}?mode=ro", uri=True)
    try:
        for table in ("parcel_lines", "parcel_lines_anno"):
            a = src.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
            b = out.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
            if a != b:
                return f"{table}: {b} rows, expected {a}"
            r = out.execute(f'SELECT count(*) FROM "rtree_{table}_geom"').fetchone()[0]
            if r != a:
                return f"{table}: {r} R-tree entries for {a} rows"
        for fid in sample_fids(n):
            srs0, _, before = decode_gpb(src.execute("SELECT geom FROM parcel_lines WHERE fid = ?", (fid,)).fetchone()[0])
            srs1, env, after = decode_gpb(out.execute("SELECT geom FROM parcel_lines WHERE fid = ?", (fid,)).fetchone()[0])
            if srs1 != srs0 or len(after) != len(before):
                return f"parcel_lines fid {fid}: srs {srs1} / {len(after)} points, expected {srs0} / {len(before)}"
            for (x0, y0), (x1, y1) in zip(before, after):
                if not (close(x1, x0 + dx, 1e-6) and close(y1, y0 + dy, 1e-6)):
                    return f"parcel_lines fid {fid}: ({x1}, {y1}) is not ({x0}, {y0}) + ({dx}, {dy})"
            box = bounds(after)
            if env is not None and not all(close(e, b, 1e-9) for e, b in zip(env, box)):
                return f"parcel_lines fid {fid}: header envelope {env} is not the geometry's {box}"
            if not rtree_holds(out, "parcel_lines", fid, box):
                return f"parcel_lines fid {fid}: R-tree entry does not hold the moved box {box}"

            a0 = src.execute("SELECT fid, geom, TextString, AnchorX, AnchorY, Angle FROM parcel_lines_anno "
                             "WHERE FeatureID = ?", (fid,)).fetchone()
            a1 = out.execute("SELECT fid, geom, TextString, AnchorX, AnchorY, Angle FROM parcel_lines_anno "
                             "WHERE FeatureID = ?", (fid,)).fetchone()
            if a0 is None or a1 is None:
                return f"parcel_lines fid {fid}: annotation row missing"
            if a1[2] != a0[2]:
                return f"parcel_lines_anno of fid {fid}: text {a1[2]!r}, was {a0[2]!r}"
            if not (close(a1[3], a0[3] + dx, 1e-6) and close(a1[4], a0[4] + dy, 1e-6)):
                return f"parcel_lines_anno of fid {fid}: anchor ({a1[3]}, {a1[4]}) is not ({a0[3]}, {a0[4]}) + ({dx}, {dy})"
            if not close(a1[5], a0[5], 1e-12):
                return f"parcel_lines_anno of fid {fid}: angle {a1[5]}, was {a0[5]}"
            _, _, ring0 = decode_gpb(a0[1])
            _, env1, ring1 = decode_gpb(a1[1])
            if len(ring0) != len(ring1) or not all(close(p1[0], p0[0] + dx, 1e-6) and close(p1[1], p0[1] + dy, 1e-6)
                                                   for p0, p1 in zip(ring0, ring1)):
                return f"parcel_lines_anno fid {a1[0]}: footprint is not the old one moved by ({dx}, {dy})"
            if not rtree_holds(out, "parcel_lines_anno", a1[0], bounds(ring1)):
                return f"parcel_lines_anno fid {a1[0]}: R-tree entry does not hold the moved footprint"
        return "OK"
    finally:
        src.close()
        out.close()


def verify_floor_move(template, moved, n, dx, dy):
    """The raw-SQLite floor: every line blob rewritten (random bytes of the same length), every
    annotation row's anchor moved."""
    src = sqlite3.connect(f"file:{template}?mode=ro", uri=True)
    out = sqlite3.connect(f"file:{moved}?mode=ro", uri=True)
    try:
        for fid in sample_fids(n):
            g0 = src.execute("SELECT geom FROM parcel_lines WHERE fid = ?", (fid,)).fetchone()[0]
            g1 = out.execute("SELECT geom FROM parcel_lines WHERE fid = ?", (fid,)).fetchone()[0]
            if g0 == g1 or len(g0) != len(g1):
                return f"parcel_lines fid {fid}: blob not rewritten"
            a0 = src.execute("SELECT AnchorX, AnchorY FROM parcel_lines_anno WHERE FeatureID = ?", (fid,)).fetchone()
            a1 = out.execute("SELECT AnchorX, AnchorY FROM parcel_lines_anno WHERE FeatureID = ?", (fid,)).fetchone()
            if not (close(a1[0], a0[0] + dx, 1e-6) and close(a1[1], a0[1] + dy, 1e-6)):
                return f"parcel_lines_anno of fid {fid}: anchor not moved"
        return "OK (random blobs)"
    finally:
        src.close()
        out.close()


def verify_bulk_set(template, path, where, name, annotated, journal_entries=None):
    """A bulk street rename: every address point `where` selects (in the template) has
    ST_STR_NAM `name` and no other changed; when `annotated`, sampled labels of renamed points
    read "AD_ADDRESS name" and their R-tree entries hold their footprints, and labels of
    points not renamed are untouched; `journal_entries`, when given, is how many entries
    annolink_journal must hold (one for the whole rename)."""
    src = sqlite3.connect(f"file:{template}?mode=ro", uri=True)
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        chosen = [r[0] for r in src.execute(f"SELECT fid FROM address_points WHERE {where} ORDER BY fid")]
        total = src.execute("SELECT count(*) FROM address_points").fetchone()[0]
        renamed = db.execute("SELECT count(*) FROM address_points WHERE ST_STR_NAM = ?", (name,)).fetchone()[0]
        if renamed != len(chosen):
            return f"{renamed} address points named {name!r}, expected {len(chosen)}"
        if db.execute("SELECT count(*) FROM address_points").fetchone()[0] != total:
            return "address_points: row count changed"
        if not annotated:
            return "OK (no annotation)"
        picks = sorted({chosen[0], chosen[len(chosen) // 3], chosen[len(chosen) // 2], chosen[-1]}) if chosen else []
        for fid in picks:
            number = db.execute("SELECT AD_ADDRESS FROM address_points WHERE fid = ?", (fid,)).fetchone()[0]
            a = db.execute("SELECT fid, TextString, geom FROM address_points_anno WHERE FeatureID = ?", (fid,)).fetchone()
            expected = f"{number} {name}"
            if a is None or a[1] != expected:
                return f"address_points_anno of fid {fid}: text {a and a[1]!r}, expected {expected!r}"
            _, _, ring = decode_gpb(a[2])
            if not rtree_holds(db, "address_points_anno", a[0], bounds(ring)):
                return f"address_points_anno fid {a[0]}: R-tree entry does not hold the footprint"
        other = src.execute(f"SELECT fid FROM address_points WHERE NOT ({where}) ORDER BY fid LIMIT 1").fetchone()
        if other is not None:
            t0 = src.execute("SELECT TextString, geom FROM address_points_anno WHERE FeatureID = ?", other).fetchone()
            t1 = db.execute("SELECT TextString, geom FROM address_points_anno WHERE FeatureID = ?", other).fetchone()
            if t0 != t1:
                return f"address_points_anno of fid {other[0]}, not renamed, changed"
        if journal_entries is not None:
            n = db.execute("SELECT count(*) FROM annolink_journal").fetchone()[0]
            if n != journal_entries:
                return f"{n} journal entries, expected {journal_entries}"
        return "OK"
    finally:
        src.close()
        db.close()


def verify_edit(path, fid, value, annotated, footprint_index=True):
    """One attribute edit: AD_ADDRESS of address_points fid is `value`; when `annotated`, its
    annotation text is regenerated and the annotation R-tree holds its footprint."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        row = db.execute("SELECT AD_ADDRESS, ST_STR_NAM FROM address_points WHERE fid = ?", (fid,)).fetchone()
        if row is None or row[0] != value:
            return f"address_points fid {fid}: AD_ADDRESS {row and row[0]}, expected {value}"
        if not annotated:
            return "OK (no annotation)"
        a = db.execute("SELECT fid, TextString, geom FROM address_points_anno WHERE FeatureID = ?", (fid,)).fetchone()
        expected = f"{value} {row[1]}"
        if a is None or a[1] != expected:
            return f"address_points_anno of fid {fid}: text {a and a[1]!r}, expected {expected!r}"
        if footprint_index:
            _, _, ring = decode_gpb(a[2])
            if not rtree_holds(db, "address_points_anno", a[0], bounds(ring)):
                return f"address_points_anno fid {a[0]}: R-tree entry does not hold the footprint"
        return "OK"
    finally:
        db.close()
