-- The consistency check of `annolink check`, written as SpatiaLite SQL for the two annotation
-- classes `annolink sample` makes. SQL cannot evaluate Arcade or read font metrics, so the label
-- expressions, the placement offsets and the font's descent and ascent (Tahoma 10 pt) are written
-- in; the footprint test checks the box's corners across the text (descent and ascent lines) and
-- that the anchor lies between its ends, not its width.
-- Run: sqlite3 -readonly FILE.gpkg < check.sql     Output: lines "code|table|count".
-- Units: 1 pt at 1:1200 = {pt} US survey feet; tolerances 1 pt (position, footprint) and 1°.
.bail on
.load mod_spatialite
.output /dev/null
SELECT EnableGpkgAmphibiousMode();
.output stdout

-- Address points: orphans, unknown classes, stale text, stale placement (anchor 3.35 pt north
-- of the point, angle 0), footprints.
WITH a AS MATERIALIZED (
    SELECT a.TextString, a.AnchorX AS ax, a.AnchorY AS ay, a.Angle, a.Override,
           a.AnnotationClassID AS cls, ST_ExteriorRing(a.geom) AS ring, p.fid AS pfid,
           p.AD_ADDRESS || ' ' || p.ST_STR_NAM AS rule_text,
           ST_X(p.geom) AS rx, ST_Y(p.geom) + 3.35 * {pt} AS ry, 0.0 AS rule_angle
      FROM address_points_anno a LEFT JOIN address_points p ON p.fid = a.FeatureID),
f AS MATERIALIZED (
    SELECT *, cos(radians(Angle)) AS c, sin(radians(Angle)) AS s,
           ST_X(ST_PointN(ring, 1)) AS x1, ST_Y(ST_PointN(ring, 1)) AS y1,
           ST_X(ST_PointN(ring, 2)) AS x2, ST_Y(ST_PointN(ring, 2)) AS y2,
           ST_X(ST_PointN(ring, 3)) AS x3, ST_Y(ST_PointN(ring, 3)) AS y3,
           ST_X(ST_PointN(ring, 4)) AS x4, ST_Y(ST_PointN(ring, 4)) AS y4
      FROM a),
-- the corners in the text's frame: u along the baseline from the anchor, v across it
g AS MATERIALIZED (
    SELECT *, (x1 - ax) * c + (y1 - ay) * s AS u1, (x2 - ax) * c + (y2 - ay) * s AS u2,
              (y1 - ay) * c - (x1 - ax) * s AS v1, (y2 - ay) * c - (x2 - ax) * s AS v2,
              (y3 - ay) * c - (x3 - ax) * s AS v3, (y4 - ay) * c - (x4 - ax) * s AS v4
      FROM f),
t AS MATERIALIZED (
    SELECT sum(pfid IS NULL OR rx IS NULL) AS orphan,
           sum(cls <> 0) AS unknown,
           sum(pfid IS NOT NULL AND TextString IS NOT rule_text) AS text,
           sum(rx IS NOT NULL AND (
                   ((Override & 1) = 0 AND (ax - rx) * (ax - rx) + (ay - ry) * (ay - ry) > {pt} * {pt})
                OR ((Override & 2) = 0 AND abs(mod(Angle - rule_angle + 540, 360) - 180) > 1))) AS placement,
           sum(v1 IS NULL OR abs(v1 + {descent}) > {pt} OR abs(v2 + {descent}) > {pt}
               OR abs(v3 - {ascent}) > {pt} OR abs(v4 - {ascent}) > {pt} OR u1 >= 0 OR u2 <= 0) AS footprint
      FROM g)
SELECT 'orphan', 'address_points_anno', orphan FROM t UNION ALL
SELECT 'unknown-class', 'address_points_anno', unknown FROM t UNION ALL
SELECT 'stale-text', 'address_points_anno', text FROM t UNION ALL
SELECT 'stale-placement', 'address_points_anno', placement FROM t UNION ALL
SELECT 'footprint', 'address_points_anno', footprint FROM t;

-- Parcel lines: the same with the line rules (text Round(Length(feet), 2) as Arcade writes it;
-- anchor at the midpoint, 1.5 pt to the upper side; angle upright in [0, 90] or (270, 360)).
WITH a AS MATERIALIZED (
    SELECT TextString, ax, ay, Angle, Override, cls, ring, pfid,
           rtrim(rtrim(printf('%.2f', round(len_ft, 2)), '0'), '.') AS rule_text,
           (px1 + px2) / 2 - 1.5 * {pt} * sin(radians(up)) AS rx,
           (py1 + py2) / 2 + 1.5 * {pt} * cos(radians(up)) AS ry,
           CASE WHEN up < 0 THEN up + 360 ELSE up END AS rule_angle
      FROM (SELECT *, CASE WHEN d > 90 THEN d - 180 WHEN d <= -90 THEN d + 180 ELSE d END AS up
              FROM (SELECT *, degrees(atan2(py2 - py1, px2 - px1)) AS d
                      FROM (SELECT a.TextString, a.AnchorX AS ax, a.AnchorY AS ay, a.Angle, a.Override,
                                   a.AnnotationClassID AS cls, ST_ExteriorRing(a.geom) AS ring, p.fid AS pfid,
                                   ST_Length(p.geom) * {ft} AS len_ft,
                                   ST_X(ST_StartPoint(p.geom)) AS px1, ST_Y(ST_StartPoint(p.geom)) AS py1,
                                   ST_X(ST_EndPoint(p.geom)) AS px2, ST_Y(ST_EndPoint(p.geom)) AS py2
                              FROM parcel_lines_anno a LEFT JOIN parcel_lines p ON p.fid = a.FeatureID)))),
f AS MATERIALIZED (
    SELECT *, cos(radians(Angle)) AS c, sin(radians(Angle)) AS s,
           ST_X(ST_PointN(ring, 1)) AS x1, ST_Y(ST_PointN(ring, 1)) AS y1,
           ST_X(ST_PointN(ring, 2)) AS x2, ST_Y(ST_PointN(ring, 2)) AS y2,
           ST_X(ST_PointN(ring, 3)) AS x3, ST_Y(ST_PointN(ring, 3)) AS y3,
           ST_X(ST_PointN(ring, 4)) AS x4, ST_Y(ST_PointN(ring, 4)) AS y4
      FROM a),
-- the corners in the text's frame: u along the baseline from the anchor, v across it
g AS MATERIALIZED (
    SELECT *, (x1 - ax) * c + (y1 - ay) * s AS u1, (x2 - ax) * c + (y2 - ay) * s AS u2,
              (y1 - ay) * c - (x1 - ax) * s AS v1, (y2 - ay) * c - (x2 - ax) * s AS v2,
              (y3 - ay) * c - (x3 - ax) * s AS v3, (y4 - ay) * c - (x4 - ax) * s AS v4
      FROM f),
t AS MATERIALIZED (
    SELECT sum(pfid IS NULL OR rx IS NULL) AS orphan,
           sum(cls <> 0) AS unknown,
           sum(pfid IS NOT NULL AND TextString IS NOT rule_text) AS text,
           sum(rx IS NOT NULL AND (
                   ((Override & 1) = 0 AND (ax - rx) * (ax - rx) + (ay - ry) * (ay - ry) > {pt} * {pt})
                OR ((Override & 2) = 0 AND abs(mod(Angle - rule_angle + 540, 360) - 180) > 1))) AS placement,
           sum(v1 IS NULL OR abs(v1 + {descent}) > {pt} OR abs(v2 + {descent}) > {pt}
               OR abs(v3 - {ascent}) > {pt} OR abs(v4 - {ascent}) > {pt} OR u1 >= 0 OR u2 <= 0) AS footprint
      FROM g)
SELECT 'orphan', 'parcel_lines_anno', orphan FROM t UNION ALL
SELECT 'unknown-class', 'parcel_lines_anno', unknown FROM t UNION ALL
SELECT 'stale-text', 'parcel_lines_anno', text FROM t UNION ALL
SELECT 'stale-placement', 'parcel_lines_anno', placement FROM t UNION ALL
SELECT 'footprint', 'parcel_lines_anno', footprint FROM t;

-- Duplicates: every annotation of one feature and class beyond the first.
SELECT 'duplicate', 'address_points_anno', coalesce(sum(n - 1), 0)
  FROM (SELECT count(*) AS n FROM address_points_anno GROUP BY FeatureID, AnnotationClassID HAVING n > 1);
SELECT 'duplicate', 'parcel_lines_anno', coalesce(sum(n - 1), 0)
  FROM (SELECT count(*) AS n FROM parcel_lines_anno GROUP BY FeatureID, AnnotationClassID HAVING n > 1);

-- Origin features: invalid geometry (GEOS, through SpatiaLite) and missing annotation.
WITH t AS MATERIALIZED (
    SELECT sum(geom IS NOT NULL AND NOT ST_IsValid(geom)) AS invalid,
           sum(geom IS NOT NULL AND NOT EXISTS (SELECT 1 FROM address_points_anno a
                                                 WHERE a.FeatureID = p.fid AND a.AnnotationClassID = 0)) AS missing
      FROM address_points p)
SELECT 'invalid-geometry', 'address_points', invalid FROM t UNION ALL
SELECT 'missing', 'address_points', missing FROM t;
WITH t AS MATERIALIZED (
    SELECT sum(geom IS NOT NULL AND NOT ST_IsValid(geom)) AS invalid,
           sum(geom IS NOT NULL AND NOT EXISTS (SELECT 1 FROM parcel_lines_anno a
                                                 WHERE a.FeatureID = p.fid AND a.AnnotationClassID = 0)) AS missing
      FROM parcel_lines p)
SELECT 'invalid-geometry', 'parcel_lines', invalid FROM t UNION ALL
SELECT 'missing', 'parcel_lines', missing FROM t;

-- Spatial indexes: every row's box in its R-tree (32-bit floats rounded outward, so allowed to
-- be looser by two float steps, 2.4e-7 relative) and no entry without its row.
SELECT 'index', 'address_points', (
    SELECT count(*) FROM (SELECT t.fid, ST_MinX(t.geom) AS mnx, ST_MaxX(t.geom) AS mxx,
                                 ST_MinY(t.geom) AS mny, ST_MaxY(t.geom) AS mxy, r.*
                            FROM "address_points" t LEFT JOIN "rtree_address_points_geom" r ON r.id = t.fid
                           WHERE t.geom IS NOT NULL AND NOT ST_IsEmpty(t.geom))
     WHERE id IS NULL OR minx > mnx OR maxx < mxx OR miny > mny OR maxy < mxy
        OR mnx - minx > 2.4e-7 * abs(mnx) OR maxx - mxx > 2.4e-7 * abs(mxx)
        OR mny - miny > 2.4e-7 * abs(mny) OR maxy - mxy > 2.4e-7 * abs(mxy))
  + (SELECT count(*) FROM "rtree_address_points_geom" r WHERE NOT EXISTS (SELECT 1 FROM "address_points" t WHERE t.fid = r.id));
SELECT 'index', 'parcel_lines', (
    SELECT count(*) FROM (SELECT t.fid, ST_MinX(t.geom) AS mnx, ST_MaxX(t.geom) AS mxx,
                                 ST_MinY(t.geom) AS mny, ST_MaxY(t.geom) AS mxy, r.*
                            FROM "parcel_lines" t LEFT JOIN "rtree_parcel_lines_geom" r ON r.id = t.fid
                           WHERE t.geom IS NOT NULL AND NOT ST_IsEmpty(t.geom))
     WHERE id IS NULL OR minx > mnx OR maxx < mxx OR miny > mny OR maxy < mxy
        OR mnx - minx > 2.4e-7 * abs(mnx) OR maxx - mxx > 2.4e-7 * abs(mxx)
        OR mny - miny > 2.4e-7 * abs(mny) OR maxy - mxy > 2.4e-7 * abs(mxy))
  + (SELECT count(*) FROM "rtree_parcel_lines_geom" r WHERE NOT EXISTS (SELECT 1 FROM "parcel_lines" t WHERE t.fid = r.id));
SELECT 'index', 'address_points_anno', (
    SELECT count(*) FROM (SELECT t.fid, ST_MinX(t.geom) AS mnx, ST_MaxX(t.geom) AS mxx,
                                 ST_MinY(t.geom) AS mny, ST_MaxY(t.geom) AS mxy, r.*
                            FROM "address_points_anno" t LEFT JOIN "rtree_address_points_anno_geom" r ON r.id = t.fid
                           WHERE t.geom IS NOT NULL AND NOT ST_IsEmpty(t.geom))
     WHERE id IS NULL OR minx > mnx OR maxx < mxx OR miny > mny OR maxy < mxy
        OR mnx - minx > 2.4e-7 * abs(mnx) OR maxx - mxx > 2.4e-7 * abs(mxx)
        OR mny - miny > 2.4e-7 * abs(mny) OR maxy - mxy > 2.4e-7 * abs(mxy))
  + (SELECT count(*) FROM "rtree_address_points_anno_geom" r WHERE NOT EXISTS (SELECT 1 FROM "address_points_anno" t WHERE t.fid = r.id));
SELECT 'index', 'parcel_lines_anno', (
    SELECT count(*) FROM (SELECT t.fid, ST_MinX(t.geom) AS mnx, ST_MaxX(t.geom) AS mxx,
                                 ST_MinY(t.geom) AS mny, ST_MaxY(t.geom) AS mxy, r.*
                            FROM "parcel_lines_anno" t LEFT JOIN "rtree_parcel_lines_anno_geom" r ON r.id = t.fid
                           WHERE t.geom IS NOT NULL AND NOT ST_IsEmpty(t.geom))
     WHERE id IS NULL OR minx > mnx OR maxx < mxx OR miny > mny OR maxy < mxy
        OR mnx - minx > 2.4e-7 * abs(mnx) OR maxx - mxx > 2.4e-7 * abs(mxx)
        OR mny - miny > 2.4e-7 * abs(mny) OR maxy - mxy > 2.4e-7 * abs(mxy))
  + (SELECT count(*) FROM "rtree_parcel_lines_anno_geom" r WHERE NOT EXISTS (SELECT 1 FROM "parcel_lines_anno" t WHERE t.fid = r.id));
