"""Bulk move with GeoPandas + Shapely 2 + pyogrio (use_arrow): the peer of `annolink translate`.

Run with the benchmark's virtualenv python:
    gpd_move.py SRC.gpkg DST.gpkg DX DY MAXFID

Reads parcel_lines and parcel_lines_anno, moves every line with fid <= MAXFID by (DX, DY),
carries each linked label rigidly — its anchor and stored footprint moved by the same vector,
text and angle kept, as annolink does (docs/placement.md, "Rigid moves") — and writes both
layers, with their R-trees, to a new GeoPackage DST (GeoPandas cannot rewrite rows of an
existing GeoPackage in place).
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

    fids = lines.index.to_numpy()[moving]
    linked = anno["FeatureID"].to_numpy()
    hit = np.isin(linked, fids)
    anno.loc[hit, "AnchorX"] = anno.loc[hit, "AnchorX"] + dx
    anno.loc[hit, "AnchorY"] = anno.loc[hit, "AnchorY"] + dy
    footprints = anno.geometry.to_numpy()
    footprints[hit] = shapely.transform(footprints[hit], lambda c: c + (dx, dy))
    anno = anno.set_geometry(footprints, crs=anno.crs)

    # The fid index becomes the "fid" column, which GDAL's GeoPackage writer takes as the FID.
    pyogrio.write_dataframe(lines.reset_index(), dst, layer="parcel_lines", driver="GPKG", use_arrow=True)
    pyogrio.write_dataframe(anno.reset_index(), dst, layer="parcel_lines_anno", driver="GPKG", use_arrow=True)


if __name__ == "__main__":
    main()
