WITH ends AS MATERIALIZED (
    SELECT fid,
           ST_X(ST_StartPoint(geom)) AS x1, ST_Y(ST_StartPoint(geom)) AS y1,
           ST_X(ST_EndPoint(geom)) AS x2, ST_Y(ST_EndPoint(geom)) AS y2
      FROM parcel_lines WHERE fid <= {n}),
     dir AS MATERIALIZED (
    SELECT fid, (x1 + x2) / 2 AS mx, (y1 + y2) / 2 AS my,
           sqrt((x2 - x1) * (x2 - x1) + (y2 - y1) * (y2 - y1)) AS len,
           degrees(atan2(y2 - y1, x2 - x1)) AS d
      FROM ends),
     rule AS MATERIALIZED (
    SELECT fid, mx, my, len,
           CASE WHEN d > 90 THEN d - 180 WHEN d <= -90 THEN d + 180 ELSE d END AS up
      FROM dir)
UPDATE parcel_lines_anno
   SET TextString = printf('%.2f', rule.len),
       AnchorX = rule.mx - 2 * sin(radians(rule.up)),
       AnchorY = rule.my + 2 * cos(radians(rule.up)),
       Angle = CASE WHEN rule.up < 0 THEN rule.up + 360 ELSE rule.up END,
       geom = AsGPB(ST_Translate(parcel_lines_anno.geom, {dx}, {dy}, 0))
  FROM rule
 WHERE parcel_lines_anno.FeatureID = rule.fid
