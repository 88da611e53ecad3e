#!/usr/bin/env python3
"""How far annolink's placement put each label from where ArcGIS placed it.

    placement_vs_arcgis.py ARCGIS.gpkg PLACED.gpkg

ARCGIS.gpkg is a fresh `annolink import` of an Esri mobile geodatabase (ArcGIS's own
annotation); PLACED.gpkg the same after `annolink annotate --regenerate --replace`. Rows are
matched by annotation table and fid. Prints a Markdown summary per table and a table of every
label: its text, the distance between the two anchors (map units), the angle difference
(degrees) and its Status. Plain Python and sqlite3 only.
"""
import math
import sqlite3
import sys


def rows(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    tables = [r[0] for r in db.execute("SELECT DISTINCT annotation_table FROM annolink_annotation_classes ORDER BY 1")]
    found = {}
    for table in tables:
        for fid, text, x, y, angle, status in db.execute(
                f'SELECT fid, TextString, AnchorX, AnchorY, Angle, Status FROM "{table}" ORDER BY fid'):
            found[(table, fid)] = (text, x, y, angle, status)
    return found


def turn(a, b):
    d = (a - b) % 360
    return min(d, 360 - d)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    arcgis, placed = rows(sys.argv[1]), rows(sys.argv[2])
    lines = []
    by_table = {}
    for key in sorted(arcgis):
        if key not in placed:
            continue
        text, x0, y0, a0, _ = arcgis[key]
        _, x1, y1, a1, status = placed[key]
        distance = math.hypot(x1 - x0, y1 - y0)
        angle = turn(a1, a0)
        by_table.setdefault(key[0], []).append((distance, angle, status))
        lines.append(f"| {key[0]} | {key[1]} | {text} | {distance:.2f} | {angle:.2f} | {status} |")
    print("| table | labels | same place (< 0.05) | median distance | largest | unplaced |")
    print("|---|---:|---:|---:|---:|---:|")
    for table, values in sorted(by_table.items()):
        distances = sorted(v[0] for v in values)
        same = sum(1 for d in distances if d < 0.05)
        print(f"| {table} | {len(values)} | {same} | {distances[len(distances) // 2]:.2f} | {distances[-1]:.2f} | "
              f"{sum(1 for v in values if v[2] != 0)} |")
    print()
    print("| table | fid | text | distance | angle ° | Status |")
    print("|---|---:|---|---:|---:|---:|")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
