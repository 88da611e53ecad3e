"""QGIS's side of the render task: draws one view of a GeoPackage's four sample tables with the
styles stored in the file (annolink's layer_styles) and prints the in-process job time.

Run with Debian's /usr/bin/python3 (python3-qgis), headless:
  qgis_render.py FILE.gpkg CX CY SCALE WIDTH HEIGHT DPI OUT.png
prints {"seconds": job time, "labels": labels placed, "load_seconds": layer loading time}.
"""
import json
import os
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
from qgis.core import (QgsApplication, QgsMapRendererSequentialJob, QgsMapSettings,  # noqa: E402
                       QgsProject, QgsRectangle, QgsVectorLayer)
from qgis.PyQt.QtCore import QSize  # noqa: E402

path, cx, cy, scale, width, height, dpi, out = sys.argv[1:9]
cx, cy, scale, width, height, dpi = float(cx), float(cy), float(scale), int(width), int(height), float(dpi)
app = QgsApplication([], False)
app.initQgis()
t0 = time.perf_counter()
layers = []
for table in ("address_points", "parcel_lines", "address_points_anno", "parcel_lines_anno"):
    layer = QgsVectorLayer(f"{path}|layername={table}", table, "ogr")
    if not layer.isValid():
        raise SystemExit(f"ERROR: QGIS cannot open {table}")
    QgsProject.instance().addMapLayer(layer)
    layers.append(layer)
load = time.perf_counter() - t0
# EPSG:2924's unit, the US survey foot; the same view annolink draws (centre, scale, size, dpi).
units_per_pixel = scale * 0.0254 / dpi / (1200 / 3937)
half_w, half_h = width / 2 * units_per_pixel, height / 2 * units_per_pixel
settings = QgsMapSettings()
settings.setLayers(list(reversed(layers)))           # first in the list is drawn on top
settings.setDestinationCrs(layers[0].crs())
settings.setOutputSize(QSize(width, height))
settings.setOutputDpi(dpi)
settings.setExtent(QgsRectangle(cx - half_w, cy - half_h, cx + half_w, cy + half_h))
job = QgsMapRendererSequentialJob(settings)
t0 = time.perf_counter()
job.start()
job.waitForFinished()
seconds = time.perf_counter() - t0
labels = len(job.takeLabelingResults().allLabels())
job.renderedImage().save(out)
print(json.dumps({"seconds": seconds, "labels": labels, "load_seconds": load}))
app.exitQgis()
