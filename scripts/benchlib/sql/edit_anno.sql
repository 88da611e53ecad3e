UPDATE address_points_anno
   SET TextString = p.t,
       geom = AsGPB(BuildMbr(AnchorX - (ST_MaxX(geom) - ST_MinX(geom)) * length(p.t) / length(TextString) / 2, ST_MinY(geom),
                             AnchorX + (ST_MaxX(geom) - ST_MinX(geom)) * length(p.t) / length(TextString) / 2, ST_MaxY(geom),
                             2924))
  FROM (SELECT AD_ADDRESS || ' ' || ST_STR_NAM AS t FROM address_points WHERE fid = :fid) AS p
 WHERE FeatureID = :fid AND AnnotationClassID = 0
