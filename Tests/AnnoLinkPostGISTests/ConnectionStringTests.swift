import AnnoLinkPostGIS
import Testing

/// Connection strings in the three forms users write, without a server.
@Suite struct ConnectionStringTests {
    @Test func uriIsPassedThrough() throws {
        let c = try ConnectionString("postgresql://editor:secret@db.example:5433/county?sslmode=disable")
        #expect(c.conninfo == "postgresql://editor:secret@db.example:5433/county?sslmode=disable")
        #expect(c.redacted == "postgresql://editor:***@db.example:5433/county?sslmode=disable")
        #expect(!c.redacted.contains("secret"))
    }

    @Test func gdalFormBecomesKeyValuePairsWithoutGDALOptions() throws {
        let c = try ConnectionString("PG:dbname='county data' host=db.example port=5432 user=editor password=s3'cr\\'et active_schema=parcels tables=a,b")
        #expect(c.conninfo == "dbname='county data' host='db.example' port='5432' user='editor' password='s3\\'cr\\'et'")
        #expect(c.gdalOptions == ["active_schema": "parcels", "tables": "a,b"])
        #expect(!c.redacted.contains("s3"))
    }

    @Test func gdalFormWithURI() throws {
        let c = try ConnectionString("PG:postgresql://localhost/county")
        #expect(c.conninfo == "postgresql://localhost/county")
    }

    @Test func malformedKeyValueIsRefused() {
        #expect(throws: PostgreSQLError.self) { try ConnectionString("PG:dbname") }
        #expect(throws: PostgreSQLError.self) { try ConnectionString("PG:dbname='open") }
    }

    @Test func recognisesDatabaseNames() {
        #expect(ConnectionString.isPostgreSQL("postgresql://x/y"))
        #expect(ConnectionString.isPostgreSQL("postgres://x/y"))
        #expect(ConnectionString.isPostgreSQL("PG:dbname=x"))
        #expect(!ConnectionString.isPostgreSQL("loudoun.gpkg"))
        #expect(!ConnectionString.isPostgreSQL("PG.gpkg"))
    }
}
