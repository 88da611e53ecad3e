/// The SQL of the GeoPackage 1.3 core tables and of the R-tree spatial index extension.
///
/// annolink writes GeoPackage 1.3 (`user_version` 10300, R-tree triggers `_insert`,
/// `_update1`–`_update4`, `_delete`) because Debian 12's GDAL 3.6 validator rejects 1.4's
/// trigger set; it reads 1.0–1.4 files.
enum GeoPackageSchema {
    /// 'GPKG' as a big-endian 32-bit integer, the `application_id` of every GeoPackage.
    static let applicationID: Int32 = 0x4750_4B47
    /// GeoPackage 1.3.0 as `user_version`.
    static let userVersion = 10300

    static let coreTables = """
        CREATE TABLE gpkg_spatial_ref_sys (
          srs_name TEXT NOT NULL,
          srs_id INTEGER NOT NULL PRIMARY KEY,
          organization TEXT NOT NULL,
          organization_coordsys_id INTEGER NOT NULL,
          definition TEXT NOT NULL,
          description TEXT);
        CREATE TABLE gpkg_contents (
          table_name TEXT NOT NULL PRIMARY KEY,
          data_type TEXT NOT NULL,
          identifier TEXT UNIQUE,
          description TEXT DEFAULT '',
          last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
          min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE,
          srs_id INTEGER,
          CONSTRAINT fk_gc_r_srs_id FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys(srs_id));
        CREATE TABLE gpkg_geometry_columns (
          table_name TEXT NOT NULL,
          column_name TEXT NOT NULL,
          geometry_type_name TEXT NOT NULL,
          srs_id INTEGER NOT NULL,
          z TINYINT NOT NULL,
          m TINYINT NOT NULL,
          CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name),
          CONSTRAINT uk_gc_table_name UNIQUE (table_name),
          CONSTRAINT fk_gc_tn FOREIGN KEY (table_name) REFERENCES gpkg_contents(table_name),
          CONSTRAINT fk_gc_srs FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys (srs_id));
        CREATE TABLE gpkg_extensions (
          table_name TEXT,
          column_name TEXT,
          extension_name TEXT NOT NULL,
          definition TEXT NOT NULL,
          scope TEXT NOT NULL,
          CONSTRAINT ge_tce UNIQUE (table_name, column_name, extension_name));
        INSERT INTO gpkg_spatial_ref_sys VALUES
          ('Undefined Cartesian SRS', -1, 'NONE', -1, 'undefined', 'undefined Cartesian coordinate reference system'),
          ('Undefined geographic SRS', 0, 'NONE', 0, 'undefined', 'undefined geographic coordinate reference system'),
          ('WGS 84 geodetic', 4326, 'EPSG', 4326, \
        'GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],\
        AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],\
        UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AXIS["Latitude",NORTH],AXIS["Longitude",EAST],\
        AUTHORITY["EPSG","4326"]]', 'longitude/latitude coordinates in decimal degrees on the WGS 84 spheroid');
        """

    /// The name of the R-tree virtual table for `table`.`column`.
    static func rtreeName(table: String, column: String) -> String { "rtree_\(table)_\(column)" }

    /// The R-tree virtual table and its six GeoPackage 1.3 triggers, as in the spec's
    /// extension_rtree annex.
    static func rtree(table: String, column: String, primaryKey: String = "fid") -> [String] {
        let t = quoteIdentifier(table), c = quoteIdentifier(column), pk = quoteIdentifier(primaryKey)
        let rname = rtreeName(table: table, column: column)
        let r = quoteIdentifier(rname)
        func trigger(_ suffix: String) -> String { quoteIdentifier("\(rname)_\(suffix)") }
        let values = "VALUES (NEW.\(pk), ST_MinX(NEW.\(c)), ST_MaxX(NEW.\(c)), ST_MinY(NEW.\(c)), ST_MaxY(NEW.\(c)))"
        return [
            "CREATE VIRTUAL TABLE \(r) USING rtree(id, minx, maxx, miny, maxy)",
            """
            CREATE TRIGGER \(trigger("insert")) AFTER INSERT ON \(t)
              WHEN (NEW.\(c) NOT NULL AND NOT ST_IsEmpty(NEW.\(c)))
            BEGIN INSERT OR REPLACE INTO \(r) \(values); END
            """,
            """
            CREATE TRIGGER \(trigger("update1")) AFTER UPDATE OF \(c) ON \(t)
              WHEN OLD.\(pk) = NEW.\(pk) AND (NEW.\(c) NOTNULL AND NOT ST_IsEmpty(NEW.\(c)))
            BEGIN INSERT OR REPLACE INTO \(r) \(values); END
            """,
            """
            CREATE TRIGGER \(trigger("update2")) AFTER UPDATE OF \(c) ON \(t)
              WHEN OLD.\(pk) = NEW.\(pk) AND (NEW.\(c) ISNULL OR ST_IsEmpty(NEW.\(c)))
            BEGIN DELETE FROM \(r) WHERE id = OLD.\(pk); END
            """,
            """
            CREATE TRIGGER \(trigger("update3")) AFTER UPDATE ON \(t)
              WHEN OLD.\(pk) != NEW.\(pk) AND (NEW.\(c) NOTNULL AND NOT ST_IsEmpty(NEW.\(c)))
            BEGIN DELETE FROM \(r) WHERE id = OLD.\(pk); INSERT OR REPLACE INTO \(r) \(values); END
            """,
            """
            CREATE TRIGGER \(trigger("update4")) AFTER UPDATE ON \(t)
              WHEN OLD.\(pk) != NEW.\(pk) AND (NEW.\(c) ISNULL OR ST_IsEmpty(NEW.\(c)))
            BEGIN DELETE FROM \(r) WHERE id IN (OLD.\(pk), NEW.\(pk)); END
            """,
            """
            CREATE TRIGGER \(trigger("delete")) AFTER DELETE ON \(t)
              WHEN OLD.\(c) NOT NULL
            BEGIN DELETE FROM \(r) WHERE id = OLD.\(pk); END
            """,
        ]
    }

    /// The names of every R-tree trigger suffix of GeoPackage 1.2/1.3 and 1.4, so that they can be
    /// dropped and recreated whichever version made the file.
    static let rtreeTriggerSuffixes = ["insert", "update1", "update2", "update3", "update4", "update5", "update6", "update7", "delete"]
}
