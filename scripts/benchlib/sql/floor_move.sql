-- The floor of the bulk move: plain SQLite, no spatial index, no triggers, no geometry code.
-- Rewrites as many geometry blobs (random bytes of the same length) and annotation rows
-- (footprint blob and anchor: what a rigid move of the labels writes) as the move does, in one
-- transaction; the annotation table is scanned (NOT INDEXED): cheaper than its FeatureID index
-- when every row is selected.
BEGIN IMMEDIATE;
UPDATE parcel_lines SET geom = randomblob(length(geom)) WHERE fid <= {n};
UPDATE parcel_lines_anno NOT INDEXED
   SET geom = randomblob(length(geom)), AnchorX = AnchorX + {dx}, AnchorY = AnchorY + {dy}
 WHERE FeatureID <= {n};
COMMIT;
