-- The floor of the bulk move: plain SQLite, no spatial index, no triggers, no geometry code.
-- Rewrites as many geometry blobs (random bytes of the same length) and annotation rows
-- (footprint blob, text, anchor, angle) as the move does, in one transaction; the annotation
-- table is scanned (NOT INDEXED): cheaper than its FeatureID index when every row is selected.
BEGIN IMMEDIATE;
UPDATE parcel_lines SET geom = randomblob(length(geom)) WHERE fid <= {n};
UPDATE parcel_lines_anno NOT INDEXED
   SET geom = randomblob(length(geom)), TextString = TextString || '',
       AnchorX = AnchorX + {dx}, AnchorY = AnchorY + {dy}, Angle = Angle + 0.0
 WHERE FeatureID <= {n};
COMMIT;
