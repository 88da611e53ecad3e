-- The bulk street rename's labels, recomputed in SpatiaLite SQL: the text from the address
-- expression, and the footprint rebuilt as the old box with its width scaled by the new text's
-- length (edit_anno.sql's rule, for every renamed point at once).
UPDATE address_points_anno
   SET TextString = p.t,
       geom = AsGPB(BuildMbr(AnchorX - (ST_MaxX(geom) - ST_MinX(geom)) * length(p.t) / length(TextString) / 2, ST_MinY(geom),
                             AnchorX + (ST_MaxX(geom) - ST_MinX(geom)) * length(p.t) / length(TextString) / 2, ST_MaxY(geom),
                             2924))
  FROM (SELECT fid, AD_ADDRESS || ' ' || ST_STR_NAM AS t FROM address_points WHERE {where}) AS p
 WHERE FeatureID = p.fid AND AnnotationClassID = 0
