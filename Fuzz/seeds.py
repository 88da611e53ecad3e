"""Seeds one fuzz target's corpus from the real data in Fixtures/ (scripts/fuzz runs it once,
when the corpus folder is empty): python3 Fuzz/seeds.py TARGET FOLDER.

- wkb, gpkg: every geometry blob of the fixtures' GeoPackages (up to 200 a table), as GeoPackage
  binary and as ISO WKB (the blob without its header); geojson, esrijson, wkt: a few texts.
- stgeometry, annoelement, itemdef: the ST_Geometry blobs, the annotation `Element` blobs and
  the `GDB_Items` definition documents of every mobile geodatabase in Fixtures/.
- arcade: every label-class expression those definitions and the GeoPackages' annotation class
  registries hold, and hand-written ones covering the supported language (docs/expressions.md).
- where: every class where clause found there, and hand-written conditions, hostile ones first.
- request: requests to every route `annolink serve` answers (Fuzz/request.swift's layout).
"""
import glob, html, json, os, re, sqlite3, sys

target, folder = sys.argv[1], sys.argv[2]
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
fixtures = os.path.join(root, "Fixtures")


def connect(path):
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def gpkg_blobs():
    blobs = []
    for path in sorted(glob.glob(os.path.join(fixtures, "*.gpkg"))):
        db = connect(path)
        for (table, column) in db.execute("SELECT table_name, column_name FROM gpkg_geometry_columns"):
            blobs += [row[0] for row in db.execute(f'SELECT "{column}" FROM "{table}" WHERE "{column}" IS NOT NULL LIMIT 200')]
    return blobs


def header_length(blob):
    return 8 + [0, 32, 48, 48, 64][(blob[3] >> 1) & 7]


def geodatabases():
    return [connect(p) for p in sorted(glob.glob(os.path.join(fixtures, "*.geodatabase")))]


def definitions():
    return [row[0] for db in geodatabases() for row in db.execute("SELECT Definition FROM GDB_Items WHERE Definition IS NOT NULL")]


def label_classes():
    """The CIM label classes of every definition (their JSON sits, escaped, in the XML)."""
    classes = []
    for xml in definitions():
        for value in re.findall(r"<Key>LabelClassCollection</Key><Value[^>]*>(.*?)</Value>", xml, re.S):
            try:
                classes += json.loads(html.unescape(value))
            except ValueError:
                pass
    return classes


def registry(column):
    values = []
    for path in sorted(glob.glob(os.path.join(fixtures, "*.gpkg"))):
        db = connect(path)
        if db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'annolink_annotation_classes'").fetchone()[0]:
            values += [r[0] for r in db.execute(f"SELECT {column} FROM annolink_annotation_classes WHERE {column} IS NOT NULL")]
    return values


texts = {
    "geojson": ['{"type":"Point","coordinates":[11880000.5,7020000.25]}',
                '{"type":"LineString","coordinates":[[1,2],[3,4],[5,6]]}',
                '{"type":"Polygon","coordinates":[[[0,0],[10,0],[10,10],[0,0]],[[1,1],[2,1],[2,2],[1,1]]]}',
                '{"type":"MultiLineString","coordinates":[[[1,2],[3,4]],[[5,6],[7,8]]]}',
                '{"type":"GeometryCollection","geometries":[]}'],
    "esrijson": ['{"x":11880000.5,"y":7020000.25,"spatialReference":{"wkid":2924}}',
                 '{"paths":[[[1,2],[3,4]]],"spatialReference":{"wkid":102100,"latestWkid":3857}}',
                 '{"rings":[[[0,0],[0,10],[10,10],[0,0]]]}', '{"points":[[1,2],[3,4]]}'],
    "wkt": ["POINT (11880000.5 7020000.25)", "LINESTRING (1 2, 3 4, 5 6)", "POLYGON ((0 0, 10 0, 10 10, 0 0), (1 1, 2 1, 2 2, 1 1))",
            "MULTIPOINT ((1 2), (3 4))", "MULTILINESTRING ((1 2, 3 4), (5 6, 7 8))", "MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)))", "POINT EMPTY"],
    "arcade": [
        '$feature.AD_ADDRESS + " " + $feature.ST_STR_NAM', "Round(Length(Geometry($feature), 'feet'), 2)",
        "$feature['house_number'] + ' ' + $feature[\"street\"]", "return Upper(Trim($feature.street));",
        "IIf(IsEmpty($feature.ST_TYPE), $feature.ST_STR_NAM, $feature.ST_STR_NAM + ' ' + $feature.ST_TYPE)",
        "Text($feature.Length, '#,##0.00')", "Text($feature.AD_ADDRESS, '000000')", "Round($feature.Length)",
        "Concatenate([$feature.AD_ADDRESS, $feature.ST_STR_NAM], TextFormatting.NewLine)", "Concatenate($feature.name, ', ', $feature.Name)",
        "DefaultValue($feature.ST_TYPE, 'n/a')", "Length($feature, 'meters') / 2 * 3 % 7", "-(+$feature.big) - Infinity",
        "$feature.nan == $feature.nan || !($feature.tiny >= 0) && $feature.inf != PI",
        "Lower('\\u{1F600}\\u00C4\\n\\t\\\\\\'\\\"') + TextFormatting.Tab /* c */ // c",
        "1e3 + .5 + 12 + null + true", "Text(Length(Geometry($feature), 'us-feet'), '0.0')", "$feature.ÄÖ + $feature.blob",
        "Concatenate([1, 2, 3], '-', '#.0')", "Round(-2.5) + Round(1.005, 2) + Round(123.456, -1)",
    ],
    "where": [
        "fid < 10", "name LIKE 'ELM%'", "n BETWEEN 1 AND 30000", "x IS NULL OR x > 1.5", "typeof(b) = 'blob'",
        "upper(substr(name, 1, 3)) = 'ELM' AND length(name) > 3", "fid IN (1, 2, 3)", "CAST(n AS TEXT) = '7'",
        "EXISTS (SELECT 1 FROM t AS x WHERE x.fid = t.fid + 1)", "fid = (SELECT max(fid) FROM t)", "name GLOB 'P*'",
        "coalesce(name, '') <> '' AND iif(n > 5, 1, 0)", "strftime('%Y', '2026-12-01') = '2026'", "printf('%05d', n) = '00007'",
        "abs(x) < 1e10 AND round(x, 1) = 5.4", "hex(b) = '00FF'", "CASE WHEN n > 10 THEN 1 ELSE 0 END = 1",
        "fts3_tokenizer('simple', X'efbeadde00000000') IS NOT NULL", "EXISTS (SELECT 1 FROM ftsv) OR fid<0",
        "fid IN (SELECT h FROM v)", "fid IN (SELECT fid FROM vs)", "(SELECT count(*) FROM secret) > 0",
        "fid=1) OR (1=1", "1 UNION SELECT 1", "fid = 1 -- comment", "fid = 1; DROP TABLE t", "load_extension('x') IS NULL",
        "rowid IN (SELECT rowid FROM sqlite_master)", "EXISTS (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT 1 FROM c)",
        "EXISTS (WITH c(x) AS (SELECT fid FROM t) SELECT 1 FROM c)", "name MATCH 'hello'", "fid IN (SELECT value FROM json_each('[1,2]'))",
        "fid IN (SELECT id FROM rtree_t_geom)", "EXISTS (SELECT 1 FROM pragma_table_info('secret'))", "randomblob(4) IS NOT NULL",
        "zeroblob(10) IS NOT NULL", "sqlite_version() > ''", "changes() = 0", "name -> '$.a' IS NULL", "main.t.fid = 1",
        "EXISTS (SELECT 1 FROM main.secret)", "EXISTS (SELECT 1 FROM temp.sqlite_master)", "name = 'a' COLLATE NOCASE",
        "fid = 1 /* open", "[name] = \"name\" AND `n` = n", "count(*) OVER () > 0", "row_number() OVER (ORDER BY fid) = 1",
        "max(fid, n) > min(fid, n)", "likelihood(fid = 1, 0.5)", "unicode(char(65)) = 65", "date('now') > '2000'",
        # Issue 25: unbounded work from the row's own table and from amplifying functions.
        "(SELECT count(*) FROM t a, t b, t c, t d, t e, t f) > 0", "fid IN t", "(fid, name) IN ((1, 'a'), (2, 'b'))",
        "length(printf('%0900000000d', 1)) > 0", "length(printf('%.*c', 20000000 + n, 'x')) > 0",
        "length(hex(hex(hex(hex(b))))) > 0", "length(replace(replace(name, 'o', name), 'o', name)) > 0",
        "length(quote(quote(quote(name)))) > 0", "length(name || name || name || name) > 8 AND instr(name, 'o') > 0",
    ],
}

seeds = []
if target == "gpkg":
    seeds = gpkg_blobs()
elif target == "wkb":
    seeds = [b[header_length(b):] for b in gpkg_blobs()]
elif target in ("geojson", "esrijson", "wkt"):
    seeds = [t.encode() for t in texts[target]]
elif target == "stgeometry":
    for db in geodatabases():
        for (table, column) in db.execute("SELECT f_table_name, f_geometry_column FROM st_geometry_columns"):
            seeds += [r[0] for r in db.execute(f'SELECT "{column}" FROM "{table}" WHERE "{column}" IS NOT NULL LIMIT 100')]
elif target == "annoelement":
    for db in geodatabases():
        for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'").fetchall():
            if "Element" not in [c[1] for c in db.execute(f'PRAGMA table_info("{table}")')]:
                continue
            seeds += [r[0] for r in db.execute(f'SELECT Element FROM "{table}" WHERE Element IS NOT NULL LIMIT 200')]
elif target == "itemdef":
    seeds = [d.encode() for d in definitions()]
elif target == "arcade":
    seeds = [c["expression"].encode() for c in label_classes() if "expression" in c] + [e.encode() for e in registry("expression")]
    seeds += [t.encode() for t in texts["arcade"]]
elif target == "where":
    seeds = [c["whereClause"].encode() for c in label_classes() if c.get("whereClause")] + [w.encode() for w in registry("where_clause")]
    seeds += [t.encode() for t in texts["where"]]
elif target == "request":
    fs = "/arcgis/rest/services/loudoun/FeatureServer"
    point = '{"x":11880000,"y":7020000,"spatialReference":{"wkid":2924}}'
    requests = [
        "GET /arcgis/rest/info\nf=pjson", "GET /arcgis/rest/services", f"GET {fs}\nf=json", f"GET {fs}/layers", f"GET {fs}/0",
        f"GET {fs}/0/query\nwhere=AD_ADDRESS > 20000 AND ST_STR_NAM LIKE 'E%'\noutFields=AD_ADDRESS,ST_STR_NAM\nreturnGeometry=true\norderByFields=AD_ADDRESS DESC\nresultRecordCount=5\nresultOffset=2",
        f"GET {fs}/0/query\nwhere=1=1\nreturnCountOnly=true", f"GET {fs}/1/query\nobjectIds=1,2,3\nreturnIdsOnly=true",
        f"GET {fs}/0/query\ngeometry=11879000,7019000,11882000,7022000\ngeometryType=esriGeometryEnvelope\nspatialRel=esriSpatialRelIntersects\ninSR=2924\noutSR=4326\nf=geojson",
        f"GET {fs}/1/query\ngeometry={point}\ngeometryType=esriGeometryPoint\ndistance=50\nunits=esriSRUnit_Foot\nreturnExtentOnly=true\nreturnCountOnly=true",
        f"GET {fs}/0/query\nwhere=fts3_tokenizer('simple', X'efbeadde00000000') IS NOT NULL",
        f"GET {fs}/0/query\nwhere=1=1\noutFields=ST_STR_NAM,ST_STR_TYP\nreturnDistinctValues=true\norderByFields=ST_STR_NAM DESC\nresultRecordCount=3",
        f"GET {fs}/0/query\noutStatistics=[{{\"statisticType\":\"count\",\"onStatisticField\":\"fid\",\"outStatisticFieldName\":\"n\"}},"
        f"{{\"statisticType\":\"stddev\",\"onStatisticField\":\"AD_ADDRESS\"}},{{\"statisticType\":\"max\",\"onStatisticField\":\"created_date\"}}]"
        f"\ngroupByFieldsForStatistics=ST_STR_NAM\norderByFields=n DESC\nf=geojson",
        f"POST {fs}/0/applyEdits\nupdates=[{{\"attributes\":{{\"OBJECTID\":2831,\"AD_ADDRESS\":45765}}}}]\nf=json\n\ncontent-type: application/x-www-form-urlencoded",
        f"POST {fs}/0/applyEdits\nadds=[{{\"attributes\":{{\"AD_ADDRESS\":1,\"ST_STR_NAM\":\"NEW\"}},\"geometry\":{point}}}]\nrollbackOnFailure=true",
        f"POST {fs}/1/applyEdits\ndeletes=[5]\n\nauthorization: Bearer editor",
        f"POST {fs}/applyEdits\nedits=[{{\"id\":0,\"updates\":[{{\"attributes\":{{\"OBJECTID\":2831}},\"geometry\":{point}}}]}}]\n\nauthorization: Bearer reader",
        "GET /ogc", "GET /ogc/conformance", "GET /ogc/api\nf=json", "GET /ogc/collections", "GET /ogc/collections/Loudoun_Address_Points_1",
        "GET /ogc/collections/Loudoun_Address_Points_1/items\nlimit=3\noffset=1\nbbox=-77.5,39,-77.3,39.1\ncrs=http://www.opengis.net/def/crs/EPSG/0/2924",
        "GET /ogc/collections/ParcelLines_1/items\nbbox=11879000,7019000,11882000,7022000\nbbox-crs=http://www.opengis.net/def/crs/EPSG/0/2924\ndatetime=2020-01-01T00:00:00Z/..",
        "GET /ogc/collections/ParcelLines_1/items/3\n\naccept: application/geo+json",
        "POST /ogc/collections/Loudoun_Address_Points_1/items\n\ncontent-type: application/geo+json\ncontent-crs: <http://www.opengis.net/def/crs/EPSG/0/2924>\n\n"
        '{"type":"Feature","properties":{"AD_ADDRESS":7,"ST_STR_NAM":"ELM"},"geometry":{"type":"Point","coordinates":[11880000,7020000]}}',
        "PUT /ogc/collections/Loudoun_Address_Points_1/items/2831\n\ncontent-type: application/geo+json\nif-match: \"x\"\n\n"
        '{"type":"Feature","id":2831,"properties":{"AD_ADDRESS":8},"geometry":{"type":"Point","coordinates":[-77.4,39.0]}}',
        "PATCH /ogc/collections/Loudoun_Address_Points_1/items/2831\n\ncontent-type: application/merge-patch+json\n\n"
        '{"properties":{"ST_STR_NAM":"OAK"}}',
        "DELETE /ogc/collections/ParcelLines_1/items/4", "OPTIONS /ogc/collections/ParcelLines_1/items", "HEAD /ogc/collections",
        "GET /", "GET /editor.js",
    ]
    # CRS text from a client (issue 25, docs/serve.md "CRS text"): file references, PROJ
    # strings, nesting past the bound, and legitimate WKT and PROJJSON. The 70,000-deep text of
    # the finding is 5 MB, past libFuzzer's input size; 40 levels already pass the bound of 32.
    nested = '{"type":"ProjectedCRS","name":"n","base_crs":' * 40 + '{"type":"GeographicCRS","name":"g"}' + '}' * 40
    wgs84 = 'GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]]'
    projjson = '{"type":"GeographicCRS","name":"WGS 84","datum":{"type":"GeodeticReferenceFrame","name":"World Geodetic System 1984",' \
        '"ellipsoid":{"name":"WGS 84","semi_major_axis":6378137,"inverse_flattening":298.257223563}},' \
        '"coordinate_system":{"subtype":"ellipsoidal","axis":[{"name":"Longitude","abbreviation":"lon","direction":"east","unit":"degree"},' \
        '{"name":"Latitude","abbreviation":"lat","direction":"north","unit":"degree"}]},"id":{"authority":"EPSG","code":4326}}'
    def wkt_parameter(text):
        return json.dumps({"wkt": text})
    crs_texts = [
        "+init=/etc/passwd:root", "+init=/dev/zero:x", "init=epsg:4326", "+proj=longlat +datum=WGS84 +no_defs",
        "+proj=longlat +ellps=GRS80 +nadgrids=/etc/passwd", "+proj=merc +nadgrids=@null +wktext",
        wgs84, wgs84[:-1] + ',EXTENSION["PROJ4","+proj=longlat +init=/etc/passwd:root"]]',
        'BOUNDCRS[SOURCECRS[GEOGCRS["x"]],TARGETCRS[GEOGCRS["y"]],ABRIDGEDTRANSFORMATION["t",METHOD["NTv2"],PARAMETERFILE["f","/dev/zero"]]]',
        projjson, nested, "PROJCS[" * 40 + "]" * 40, '{"name":"\\"]]]]]]]]","x":' + nested + "}", "ESRI:102747", "urn:ogc:def:crs:EPSG::2924",
    ]
    for text in crs_texts:
        requests.append(f"POST {fs}/0/query\nwhere=1=1\noutSR={wkt_parameter(text)}\nresultRecordCount=2\n\ncontent-type: application/x-www-form-urlencoded")
    requests += [
        f"GET {fs}/0/query\ngeometry=11879000,7019000,11882000,7022000\ninSR={wkt_parameter('+init=/etc/passwd:root')}",
        f"GET {fs}/1/query\ngeometry={{\"x\":-77.4,\"y\":39,\"spatialReference\":{wkt_parameter(wgs84)}}}\ngeometryType=esriGeometryPoint\ndistance=50",
        "GET /coordinates\nx=11880000\ny=7020000",
    ]
    seeds = [r.encode() for r in requests]
else:
    sys.exit(f"no seeds for {target}")
for i, seed in enumerate(seeds):
    with open(os.path.join(folder, f"seed-{i:04d}"), "wb") as f:
        f.write(seed)
print(f"seeded {len(seeds)} inputs", file=sys.stderr)
