import AnnoLinkGeometry
import AnnoLinkPostGIS
import AnnoLinkStore
import AnnoLinkTestSupport
import Testing

/// The `annolink` schema and feature tables in a real PostGIS database.
@Suite struct PostGISLayoutTests {
    @Test func installIsIdempotentAndRecordsTheVersion() throws {
        let database = try PostgresTestDatabase()
        defer { try? database.drop() }
        let connection = try PostgreSQLConnection(database.connectionString)
        #expect(try !PostGISLayout.isInstalled(on: connection))
        try connection.inTransaction { try PostGISLayout.install(on: connection) }
        try connection.inTransaction { try PostGISLayout.install(on: connection) }
        #expect(try PostGISLayout.isInstalled(on: connection))
        #expect(try connection.query("SELECT version FROM annolink.layout").rows == [[.int4(1)]])
        let tables = try database.psql("SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE schemaname = 'annolink'")
        #expect(tables.trimmingCharacters(in: .whitespacesAndNewlines) ==
            "annotation_classes,annotation_tables,columns,contents,geometry_columns,journal,layer_styles,layout,request_keys,spatial_ref_sys")
    }

    @Test func crsRowsMapToPostGISSRIDs() throws {
        let database = try PostgresTestDatabase()
        defer { try? database.drop() }
        let connection = try PostgreSQLConnection(database.connectionString)
        try connection.inTransaction {
            try PostGISLayout.install(on: connection)
            // EPSG:2924 is in PostGIS's table: its own srid.
            let epsg = SpatialReferenceSystem(
                srsID: 2924, name: "NAD83(HARN) / Virginia North (ftUS)", organization: "EPSG", organizationCoordsysID: 2924,
                definition: "PROJCS[\"NAD83(HARN) / Virginia North (ftUS)\"]")
            #expect(try PostGISLayout.register(epsg, on: connection) == 2924)
            // The undefined systems: srid 0.
            let undefined = SpatialReferenceSystem(srsID: -1, name: "Undefined Cartesian SRS", organization: "NONE",
                                                   organizationCoordsysID: -1, definition: "undefined")
            #expect(try PostGISLayout.register(undefined, on: connection) == 0)
            // A CRS PostGIS does not know is added to spatial_ref_sys with its definition.
            let local = SpatialReferenceSystem(srsID: 100_001, name: "county grid", organization: "COUNTY", organizationCoordsysID: 7,
                                               definition: "LOCAL_CS[\"county grid\",UNIT[\"metre\",1]]")
            let srid = try PostGISLayout.register(local, on: connection)
            #expect(srid == 7)
            #expect(try connection.query("SELECT auth_name, srtext FROM spatial_ref_sys WHERE srid = $1", [.int4(srid)]).rows ==
                [[.text("COUNTY"), .text(local.definition)]])
            // Registered again (a second copy): the same row, not a new one.
            #expect(try PostGISLayout.register(local, on: connection) == 7)
            // Its code taken by another authority: the next free srid from 900000.
            let other = SpatialReferenceSystem(srsID: 100_002, name: "other", organization: "OTHER", organizationCoordsysID: 7,
                                               definition: "LOCAL_CS[\"other\",UNIT[\"metre\",1]]")
            #expect(try PostGISLayout.register(other, on: connection) == 900_000)
            #expect(try connection.query("SELECT srs_id, srid FROM annolink.spatial_ref_sys ORDER BY srs_id").rows == [
                [.int8(-1), .int4(0)], [.int8(2924), .int4(2924)], [.int8(100_001), .int4(7)], [.int8(100_002), .int4(900_000)],
            ])
        }
    }

    @Test func longIndexNamesStayDistinctWithinPostgreSQLsLimit() {
        let a = PostGISLayout.spatialIndexName(table: String(repeating: "ä", count: 40) + "_north", column: "geom")
        let b = PostGISLayout.spatialIndexName(table: String(repeating: "ä", count: 40) + "_south", column: "geom")
        #expect(a.utf8.count <= 63 && b.utf8.count <= 63)
        #expect(a != b && a.hasSuffix("_gist"))
        #expect(PostGISLayout.spatialIndexName(table: "ParcelLines_1", column: "geom") == "ParcelLines_1_geom_gist")
    }

    @Test func featureTableHasTypedGeometryGiSTIndexAndDeclaredTypes() throws {
        let database = try PostgresTestDatabase()
        defer { try? database.drop() }
        let connection = try PostgreSQLConnection(database.connectionString)
        let table = FeatureTable(
            name: "Parcel Lines", geometryColumn: "geom", primaryKey: "fid", geometryTypeName: "LINESTRING", srsID: 2924, hasZ: false,
            hasM: false, columns: [
                Column(name: "fid", type: "INTEGER", isNotNull: true, isPrimaryKey: true), Column(name: "geom", type: "LINESTRING"),
                Column(name: "Name", type: "TEXT(50)", isNotNull: true, defaultSQL: "'unnamed'"), Column(name: "Length", type: "DOUBLE"),
                Column(name: "Built", type: "DATETIME", defaultSQL: "strftime('%Y-%m-%dT%H:%M:%fZ','now')"),
                Column(name: "Active", type: "BOOLEAN", defaultSQL: "1"),
            ], hasSpatialIndex: true)
        try connection.inTransaction {
            try PostGISLayout.install(on: connection)
            let epsg = SpatialReferenceSystem(srsID: 2924, name: "x", organization: "EPSG", organizationCoordsysID: 2924, definition: "x")
            let srid = try PostGISLayout.register(epsg, on: connection)
            try PostGISLayout.createFeatureTable(table, srid: srid, description: "lines", position: 0, on: connection)
        }
        // PostGIS's own catalogue: the typed geometry column.
        #expect(try database.psql("SELECT type || ' ' || srid FROM geometry_columns WHERE f_table_name = 'Parcel Lines'")
            .trimmingCharacters(in: .whitespacesAndNewlines) == "LINESTRING 2924")
        #expect(try database.psql("SELECT indexdef FROM pg_indexes WHERE tablename = 'Parcel Lines' AND indexdef LIKE '%gist%'")
            .contains("USING gist (geom)"))
        let declared = try connection.query("SELECT declared_type FROM annolink.columns ORDER BY position").rows.compactMap { $0[0].textValue }
        #expect(declared == ["INTEGER", "LINESTRING", "TEXT(50)", "DOUBLE", "DATETIME", "BOOLEAN"])
        // Defaults that mean the same carry over; SQLite's strftime does not.
        try connection.execute("INSERT INTO public.\"Parcel Lines\" (geom) VALUES ('SRID=2924;LINESTRING(0 0,1 1)')")
        #expect(try connection.query("SELECT fid, \"Name\", \"Active\", \"Built\" FROM public.\"Parcel Lines\"").rows ==
            [[.int8(1), .text("unnamed"), .bool(true), .null]])
        // A point into the line column: PostGIS refuses it.
        #expect(throws: PostgreSQLError.self) {
            try connection.execute("INSERT INTO public.\"Parcel Lines\" (geom) VALUES ('SRID=2924;POINT(0 0)')")
        }
    }
}
