UPDATE address_points SET AD_ADDRESS = :value WHERE fid = :fid
