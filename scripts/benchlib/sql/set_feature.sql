UPDATE address_points SET ST_STR_NAM = '{street}' WHERE {where}
