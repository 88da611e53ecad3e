UPDATE parcel_lines_anno
   SET geom = AsGPB(ST_Translate(geom, {dx}, {dy}, 0)),
       AnchorX = AnchorX + {dx},
       AnchorY = AnchorY + {dy}
 WHERE FeatureID <= {n}
