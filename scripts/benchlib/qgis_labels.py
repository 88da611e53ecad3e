"""QGIS's label engine (PAL) on the origin layers of a GeoPackage, as the peer of annolink's
label placement: the labels QGIS places and the ones it drops.

Run with Debian's /usr/bin/python3 (python3-qgis), headless:
  qgis_labels.py FILE.gpkg [--tiles N] [--dpi DPI] [--scale S]
prints {"placed", "dropped", "features", "seconds", "load_seconds", "tiles", "scale", "dpi",
        "layers": {ORIGIN_TABLE: {"placed", "dropped", "features", "expression", "font",
                                  "size", "placement"}}}.

Each annotation class of annolink_annotation_classes labels its origin table: the class's
expression translated to a QGIS expression, its font and size in points, at its reference scale
(or --scale). Point classes get QGIS's cartographic placement (ordered positions around the
point) at the class's offset; line classes are placed parallel to the line (QGIS's defaults:
above the line, in map orientation) at the class's offset. Every other setting is QGIS's
default, as a user adding labels would have them: the layers' own features are obstacles, no
label may overlap another, and a label that does not fit is dropped.

The whole extent of the layers is drawn at that scale and DPI in N × N tiles (default 7 × 7),
each as one QgsMapRendererSequentialJob whose labeling results are read back; a feature counts
as placed when any tile placed its label, once however many tiles did. "seconds" is the sum of
the jobs' times (drawing the features included, as a user's export would); loading the layers
is "load_seconds".
"""
import argparse
import json
import os
import re
import sqlite3
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
from qgis.core import (QgsApplication, QgsMapRendererSequentialJob, QgsMapSettings,  # noqa: E402
                       QgsPalLayerSettings, QgsProject, QgsRectangle, QgsTextFormat, QgsUnitTypes,
                       QgsVectorLayer, QgsVectorLayerSimpleLabeling)
from qgis.PyQt.QtCore import QSize  # noqa: E402
from qgis.PyQt.QtGui import QFont, QFontDatabase, QFontInfo  # noqa: E402

INCH_M = 0.0254
# Where annolink finds fonts fontconfig does not list (Tahoma: Debian's fonts-wine), as
# docs/text-metrics.md says.
FONT_DIRS = ["/usr/share/wine/fonts"]


class ExpressionError(Exception):
    pass


def feet_per_unit(crs):
    """International feet per map unit of the layer's CRS: Arcade's Length(…, 'feet') is in
    international feet, and QGIS 3.22 calls the US survey foot of EPSG:2924 plain "feet"."""
    proj = crs.toProj()
    if "+units=us-ft" in proj:
        return 1200 / 3937 / 0.3048
    match = re.search(r"\+to_meter=([0-9.eE+-]+)", proj)
    if match:
        return float(match.group(1)) / 0.3048
    return QgsUnitTypes.fromUnitToUnitFactor(crs.mapUnits(), QgsUnitTypes.DistanceFeet)


def translate(expression, feet):
    """The QGIS expression for an annotation class's Arcade label expression (the subset annolink
    classes use: $feature.FIELD, string and number literals, +, Round, Length, Geometry).
    Raises ExpressionError naming what it cannot translate."""
    tokens = re.findall(r'\s*(\$feature\.[A-Za-z_][A-Za-z0-9_]*|"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\''
                        r'|[0-9]+(?:\.[0-9]+)?|[A-Za-z_][A-Za-z0-9_]*|\$feature|[()+,])', expression)
    if "".join(tokens).replace(" ", "") != expression.replace(" ", ""):
        raise ExpressionError(f"cannot read the Arcade expression {expression!r}")
    at = 0

    def peek():
        return tokens[at].strip() if at < len(tokens) else None

    def take(expected=None):
        nonlocal at
        token = peek()
        if token is None or (expected is not None and token != expected):
            raise ExpressionError(f"expected {expected or 'more'} in {expression!r}, found {token!r}")
        at += 1
        return token

    def term():
        token = take()
        if token.startswith("$feature."):
            return ("field", '"' + token[len("$feature."):] + '"')
        if token[0] in "\"'":
            return ("text", "'" + token[1:-1].replace("'", "''") + "'")
        if token[0].isdigit():
            return ("number", token)
        if token == "(":
            inner = chain()
            take(")")
            return inner
        name = token.lower()
        take("(")
        args = [chain()]
        while peek() == ",":
            take(",")
            args.append(chain())
        take(")")
        if name == "geometry" and args == [("feature", "$feature")]:
            return ("geometry", "$geometry")
        if name == "length" and len(args) == 2 and args[0][0] == "geometry" and args[1] == ("text", "'feet'"):
            return ("number", f"(length($geometry) * {feet!r})")
        if name == "round" and len(args) == 2:
            return ("number", f"round({args[0][1]}, {args[1][1]})")
        raise ExpressionError(f"no QGIS translation for {token}(…) in {expression!r}")

    def chain():
        if peek() == "$feature":
            take()
            return ("feature", "$feature")
        parts = [term()]
        while peek() == "+":
            take("+")
            parts.append(term())
        if len(parts) == 1:
            return parts[0]
        # Arcade's + joins text when either side is text; QGIS's concat() writes numbers as text.
        if any(kind in ("text", "field") for kind, _ in parts):
            return ("text", "concat(" + ", ".join(p for _, p in parts) + ")")
        return ("number", "(" + " + ".join(p for _, p in parts) + ")")

    result = chain()
    if at != len(tokens):
        raise ExpressionError(f"unexpected {peek()!r} in {expression!r}")
    return result[1]


def font(name):
    """A QFont of the family `name`, loading its file from FONT_DIRS when fontconfig does not
    know it; the family QGIS really uses is reported, so a fallback cannot pass unseen."""
    # Asked before a file is loaded, Qt would remember the fallback for the name.
    if name.lower() not in (family.lower() for family in QFontDatabase().families()):
        for folder in FONT_DIRS:
            candidate = os.path.join(folder, name.lower() + ".ttf")
            if os.path.exists(candidate):
                QFontDatabase.addApplicationFont(candidate)
    chosen = QFont(name)
    if QFontInfo(chosen).family().lower() != name.lower():
        print(f"warning: font {name} not found; QGIS uses {QFontInfo(chosen).family()}", file=sys.stderr)
    return chosen


def classes(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = db.execute("SELECT origin_table, expression, font_name, font_size, reference_scale, placement, "
                      "placement_offset, where_clause FROM annolink_annotation_classes ORDER BY annotation_table, class_id").fetchall()
    db.close()
    if not rows:
        raise SystemExit(f"error: {path} has no annotation classes to label with")
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file")
    ap.add_argument("--tiles", type=int, default=7, help="tiles per side (default 7)")
    ap.add_argument("--dpi", type=float, default=96)
    ap.add_argument("--scale", type=float, help="map scale denominator (default: the classes' reference scale)")
    args = ap.parse_args()

    app = QgsApplication([], True)           # a GUI application (offscreen): its font database can load files
    app.initQgis()
    t0 = time.perf_counter()
    layers, report, scales = [], {}, set()
    for origin, expression, font_name, size, reference_scale, placement, offset, where in classes(args.file):
        if where:
            raise SystemExit(f"error: the class of {origin} has a where clause ({where}); qgis_labels.py labels whole tables")
        if origin in report:
            raise SystemExit(f"error: {origin} has more than one annotation class; qgis_labels.py labels each table once")
        layer = QgsVectorLayer(f"{args.file}|layername={origin}", origin, "ogr")
        if not layer.isValid():
            raise SystemExit(f"error: QGIS cannot open {origin} in {args.file}")
        try:
            qgis_expression = translate(expression, feet_per_unit(layer.crs()))
        except ExpressionError as e:
            raise SystemExit(f"error: {origin}: {e}")
        settings = QgsPalLayerSettings()
        settings.fieldName = qgis_expression
        settings.isExpression = True
        text = QgsTextFormat()
        text.setFont(font(font_name))
        text.setSize(size)
        text.setSizeUnit(QgsUnitTypes.RenderPoints)
        settings.setFormat(text)
        settings.dist = offset
        settings.distUnits = QgsUnitTypes.RenderPoints
        settings.placement = QgsPalLayerSettings.OrderedPositionsAroundPoint if placement == "point" else QgsPalLayerSettings.Line
        layer.setLabeling(QgsVectorLayerSimpleLabeling(settings))
        layer.setLabelsEnabled(True)
        QgsProject.instance().addMapLayer(layer)
        layers.append(layer)
        scales.add(reference_scale)
        report[origin] = {"features": layer.featureCount(), "expression": qgis_expression, "font": QFontInfo(text.font()).family(),
                          "size": size, "placement": "cartographic" if placement == "point" else "parallel"}
    load = time.perf_counter() - t0
    if args.scale is None and len(scales) > 1:
        raise SystemExit(f"error: the classes have different reference scales {sorted(scales)}; give --scale")
    scale = args.scale or scales.pop()

    extent = QgsRectangle(layers[0].extent())
    for layer in layers[1:]:
        extent.combineExtentWith(layer.extent())
    crs = layers[0].crs()
    metres_per_unit = QgsUnitTypes.fromUnitToUnitFactor(crs.mapUnits(), QgsUnitTypes.DistanceMeters)
    if "+units=us-ft" in crs.toProj():
        metres_per_unit = 1200 / 3937
    units_per_pixel = scale * INCH_M / args.dpi / metres_per_unit
    n = args.tiles
    tile_w, tile_h = extent.width() / n, extent.height() / n
    size = QSize(max(1, round(tile_w / units_per_pixel)), max(1, round(tile_h / units_per_pixel)))
    placed = {layer.id(): set() for layer in layers}
    seconds = 0.0
    for row in range(n):
        for column in range(n):
            x0, y0 = extent.xMinimum() + column * tile_w, extent.yMinimum() + row * tile_h
            settings = QgsMapSettings()
            settings.setLayers(layers)
            settings.setDestinationCrs(crs)
            settings.setOutputDpi(args.dpi)
            settings.setOutputSize(size)
            settings.setExtent(QgsRectangle(x0, y0, x0 + size.width() * units_per_pixel, y0 + size.height() * units_per_pixel))
            job = QgsMapRendererSequentialJob(settings)
            t0 = time.perf_counter()
            job.start()
            job.waitForFinished()
            seconds += time.perf_counter() - t0
            results = job.takeLabelingResults()
            for label in (results.allLabels() if results else []):
                if not label.isUnplaced and label.layerID in placed:
                    placed[label.layerID].add(label.featureId)
            print(f"tile {row * n + column + 1} of {n * n}: {seconds:.1f} s so far", file=sys.stderr, flush=True)
    for layer in layers:
        entry = report[layer.name()]
        entry["placed"] = len(placed[layer.id()])
        entry["dropped"] = entry["features"] - entry["placed"]
    out = {"placed": sum(e["placed"] for e in report.values()), "dropped": sum(e["dropped"] for e in report.values()),
           "features": sum(e["features"] for e in report.values()), "seconds": round(seconds, 3),
           "load_seconds": round(load, 3), "tiles": n * n, "tile_px": [size.width(), size.height()], "scale": scale,
           "dpi": args.dpi, "layers": report}
    print(json.dumps(out))
    app.exitQgis()


if __name__ == "__main__":
    main()
