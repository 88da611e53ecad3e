"""Bulk move with GeoPandas + Shapely 2 + pyogrio (use_arrow): the peer of `annolink translate`.

Run with the benchmark's virtualenv python:
    gpd_move.py SRC.gpkg DST.gpkg DX DY MAXFID

Reads parcel_lines and parcel_lines_anno, moves every line with fid <= MAXFID by (DX, DY),
recomputes the simplified annotation rule of peer-measurements.md §B.0 (text = length to 2
decimals, angle upright, anchor = midpoint offset 2 units to the left), moves the stored
footprint by the same vector, and writes both layers, with their R-trees, to a new
GeoPackage DST (GeoPandas cannot rewrite rows of an existing GeoPackage in place).
"""
import sys

import numpy as np
import pyogrio
import shapely


def main():
    src, dst = sys.argv[1], sys.argv[2]
    dx, dy, maxfid = float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])

    lines = pyogrio.read_dataframe(src, layer="parcel_lines", use_arrow=True, fid_as_index=True)
    anno = pyogrio.read_dataframe(src, layer="parcel_lines_anno", use_arrow=True, fid_as_index=True)

    moving = lines.index.to_numpy() <= maxfid
    geoms = lines.geometry.to_numpy()
    geoms[moving] = shapely.transform(geoms[moving], lambda c: c + (dx, dy))
    lines = lines.set_geometry(geoms, crs=lines.crs)

    # Two-point lines: the coordinates come out as start, end, start, end, ...
    coords = shapely.get_coordinates(geoms[moving]).reshape(-1, 2, 2)
    x1, y1, x2, y2 = coords[:, 0, 0], coords[:, 0, 1], coords[:, 1, 0], coords[:, 1, 1]
    length = np.hypot(x2 - x1, y2 - y1)
    d = np.degrees(np.arctan2(y2 - y1, x2 - x1))
    up = np.where(d > 90, d - 180, np.where(d <= -90, d + 180, d))
    rad = np.radians(up)
    mx, my = (x1 + x2) / 2, (y1 + y2) / 2
    fids = lines.index.to_numpy()[moving]

    linked = anno["FeatureID"].to_numpy()
    pos = np.searchsorted(fids, linked)          # fids are ascending: fid_as_index reads in fid order
    pos = np.clip(pos, 0, len(fids) - 1)
    hit = (len(fids) > 0) & (fids[pos] == linked)
    p = pos[hit]
    anno.loc[hit, "TextString"] = np.char.mod("%.2f", length[p])
    anno.loc[hit, "AnchorX"] = mx[p] - 2 * np.sin(rad[p])
    anno.loc[hit, "AnchorY"] = my[p] + 2 * np.cos(rad[p])
    anno.loc[hit, "Angle"] = np.where(up[p] < 0, up[p] + 360, up[p])
    footprints = anno.geometry.to_numpy()
    footprints[hit] = shapely.transform(footprints[hit], lambda c: c + (dx, dy))
    anno = anno.set_geometry(footprints, crs=anno.crs)

    # The fid index becomes the "fid" column, which GDAL's GeoPackage writer takes as the FID.
    pyogrio.write_dataframe(lines.reset_index(), dst, layer="parcel_lines", driver="GPKG", use_arrow=True)
    pyogrio.write_dataframe(anno.reset_index(), dst, layer="parcel_lines_anno", driver="GPKG", use_arrow=True)


if __name__ == "__main__":
    main()
