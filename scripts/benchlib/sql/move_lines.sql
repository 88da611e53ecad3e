UPDATE parcel_lines SET geom = AsGPB(ST_Translate(geom, {dx}, {dy}, 0)) WHERE fid <= {n}
