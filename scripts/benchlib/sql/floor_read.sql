-- The floor of the check: plain SQLite reading every row of the four tables and their R-trees once.
SELECT count(*), sum(length(geom)), sum(AD_ADDRESS), sum(length(ST_STR_NAM)) FROM address_points;
SELECT count(*), sum(length(geom)) FROM parcel_lines;
SELECT count(*), sum(length(geom)), sum(FeatureID), sum(length(TextString)), sum(AnchorX + AnchorY + Angle + Override)
  FROM address_points_anno;
SELECT count(*), sum(length(geom)), sum(FeatureID), sum(length(TextString)), sum(AnchorX + AnchorY + Angle + Override)
  FROM parcel_lines_anno;
SELECT count(*), sum(minx + maxx + miny + maxy) FROM rtree_address_points_geom;
SELECT count(*), sum(minx + maxx + miny + maxy) FROM rtree_parcel_lines_geom;
SELECT count(*), sum(minx + maxx + miny + maxy) FROM rtree_address_points_anno_geom;
SELECT count(*), sum(minx + maxx + miny + maxy) FROM rtree_parcel_lines_anno_geom;
