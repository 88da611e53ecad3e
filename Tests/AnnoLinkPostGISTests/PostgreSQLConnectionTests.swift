import AnnoLinkGeometry
import AnnoLinkPostGIS
import AnnoLinkTestSupport
import Foundation
import Testing

/// The connection layer against a real PostgreSQL 15 + PostGIS server (scripts/pg-test-cluster;
/// see `PostgresTestServer`): each test has its own database.
@Suite struct PostgreSQLConnectionTests {
    /// Runs `body` with a connection to a fresh database, dropped afterwards.
    func withDatabase(_ body: (PostgreSQLConnection, PostgresTestDatabase) throws -> Void) throws {
        let database = try PostgresTestDatabase()
        defer { try? database.drop() }
        try body(try PostgreSQLConnection(database.connectionString), database)
    }

    @Test func connectsWithURIAndGDALForm() throws {
        try withDatabase { connection, database in
            #expect(connection.serverVersion >= 150000)
            let gdal = try PostgreSQLConnection(try database.gdalConnectionString)
            #expect(try gdal.scalar("SELECT current_database()") == .text(database.name))
            #expect(try gdal.scalar("SELECT PostGIS_Lib_Version() IS NOT NULL") == .bool(true))
        }
    }

    @Test func unreachableServerAndMissingDatabaseAreTold() throws {
        let missing = try PostgresTestServer.connectionString(database: "annolink_no_such_database")
        let error = try #require(throws: PostgreSQLError.self) { try PostgreSQLConnection(missing) }
        #expect(error.kind == .noSuchDatabase)
        #expect(error.message.contains("annolink_no_such_database"))
        // Port 1 on loopback: nothing listens there.
        let refused = try #require(throws: PostgreSQLError.self) {
            try PostgreSQLConnection("postgresql://nobody:hunter2@127.0.0.1:1/x?connect_timeout=2")
        }
        #expect(refused.kind == .unavailable)
        #expect(!refused.message.contains("hunter2"))
    }

    @Test func binaryParametersAndResultsKeepEveryBit() throws {
        try withDatabase { connection, _ in
            let values: [PostgreSQLValue] = [
                .int8(Int64.min), .int8(Int64.max), .float8(-0.0), .float8(.infinity), .float8(0.1 + 0.2),
                .float8(Double.leastNonzeroMagnitude), .text("Nový Svět ✓ 'quoted' \\ back"), .bytea([0, 1, 0xFF, 0, 0x5C]),
                .bool(true), .int4(-7), .int2(12), .null,
            ]
            let placeholders = (1...values.count).map { "$\($0)" }.joined(separator: ", ")
            let result = try connection.query("SELECT \(placeholders)", values)
            #expect(result.rows.count == 1)
            for (got, sent) in zip(result.rows[0], values) {
                if case .float8(let a) = got, case .float8(let b) = sent {
                    #expect(a.bitPattern == b.bitPattern)
                } else if sent == .null {
                    #expect(got == .null)
                } else {
                    #expect(got == sent)
                }
            }
            // The same statement again: it is prepared once, and runs with new values.
            #expect(try connection.query("SELECT $1::bigint + 1", [.int8(41)]).scalar == .int8(42))
            #expect(try connection.query("SELECT $1::bigint + 1", [.int8(1)]).scalar == .int8(2))
        }
    }

    /// Every distinct text is prepared once; a server that is sent ever new texts (a client's
    /// where clauses) keeps at most `preparedLimit` of them per connection.
    @Test func preparedStatementsAreBounded() throws {
        try withDatabase { connection, _ in
            for n in 0..<(PostgreSQLConnection.preparedLimit + 44) {
                #expect(try connection.query("SELECT $1::bigint + \(n)", [.int8(1)]).scalar == .int8(Int64(n + 1)))
            }
            let kept = try connection.queryOnce("SELECT count(*) FROM pg_prepared_statements").scalar?.integerValue ?? -1
            #expect(kept > 0 && kept <= Int64(PostgreSQLConnection.preparedLimit), "\(kept) prepared statements kept")
            #expect(try connection.query("SELECT $1::bigint + 1", [.int8(41)]).scalar == .int8(42))
        }
    }

    @Test func errorsCarryTheSQLState() throws {
        try withDatabase { connection, _ in
            try connection.execute("CREATE TABLE t (id bigint PRIMARY KEY, name text NOT NULL)")
            try connection.query("INSERT INTO t VALUES ($1, $2)", [.int8(1), .text("a")])
            let duplicate = try #require(throws: PostgreSQLError.self) {
                try connection.query("INSERT INTO t VALUES ($1, $2)", [.int8(1), .text("b")])
            }
            #expect(duplicate.sqlState == "23505")
            #expect(duplicate.kind == .invalidData)
            #expect(duplicate.detail?.contains("(id)=(1)") == true)
            let syntax = try #require(throws: PostgreSQLError.self) { try connection.execute("SELEKT 1") }
            #expect(syntax.sqlState == "42601")
            let exists = try #require(throws: PostgreSQLError.self) { try connection.execute("CREATE TABLE t (x int)") }
            #expect(exists.kind == .exists)
            // The connection is still usable after errors outside a transaction.
            #expect(try connection.scalar("SELECT count(*) FROM t") == .int8(1))
        }
    }

    @Test func transactionsCommitOrRollBackWhole() throws {
        struct Planted: Error {}
        try withDatabase { connection, _ in
            try connection.execute("CREATE TABLE t (id bigint PRIMARY KEY)")
            try connection.inTransaction { try connection.query("INSERT INTO t VALUES ($1)", [.int8(1)]) }
            #expect(throws: Planted.self) {
                try connection.inTransaction {
                    try connection.query("INSERT INTO t VALUES ($1)", [.int8(2)])
                    throw Planted()
                }
            }
            #expect(!connection.isInTransaction)
            #expect(try connection.scalar("SELECT array_agg(id ORDER BY id)::text FROM t") == .text("{1}"))
            // A nested call rolls back to its savepoint; the outer transaction goes on.
            try connection.inTransaction {
                try connection.query("INSERT INTO t VALUES ($1)", [.int8(3)])
                #expect(throws: Planted.self) {
                    try connection.inTransaction {
                        try connection.query("INSERT INTO t VALUES ($1)", [.int8(4)])
                        throw Planted()
                    }
                }
            }
            #expect(try connection.scalar("SELECT array_agg(id ORDER BY id)::text FROM t") == .text("{1,3}"))
            // A failed statement whose error the body swallows: COMMIT becomes ROLLBACK, and says so.
            let swallowed = try #require(throws: PostgreSQLError.self) {
                try connection.inTransaction {
                    try connection.query("INSERT INTO t VALUES ($1)", [.int8(5)])
                    _ = try? connection.query("INSERT INTO t VALUES ($1)", [.int8(1)])
                }
            }
            #expect(swallowed.sqlState == "25P02")
            #expect(try connection.scalar("SELECT array_agg(id ORDER BY id)::text FROM t") == .text("{1,3}"))
        }
    }

    @Test func binaryCopyStreamsRowsInAndOut() throws {
        try withDatabase { connection, _ in
            try connection.execute("CREATE TABLE t (id bigint, x double precision, name text, data bytea, flag boolean, g geometry(Point, 2924))")
            let count = 20_000
            func row(_ i: Int) -> [PostgreSQLValue] {
                [.int8(Int64(i)), i % 7 == 0 ? .null : .float8(Double(i) / 3), .text("row \(i) ✓"), .bytea([UInt8(i & 0xFF), 0, 1]),
                 .bool(i % 2 == 0),
                 .binary(oid: 0, bytes: EWKB.encode(.point(Point(x: Double(i), y: -Double(i) / 8)), srid: 2924)),
                ]
            }
            let stored = try connection.copyIn("COPY t (id, x, name, data, flag, g) FROM STDIN (FORMAT binary)") { copy in
                for i in 0..<count { try copy.write(row(i)) }
            }
            #expect(stored == count)
            // PostGIS itself reads the geometries: the outside check of the EWKB written.
            #expect(try connection.scalar("SELECT ST_AsText(g) FROM t WHERE id = 9") == .text("POINT(9 -1.125)"))
            #expect(try connection.scalar("SELECT count(*) FROM t WHERE ST_SRID(g) = 2924") == .int8(Int64(count)))
            var seen = 0
            let read = try connection.copyOut(query: "SELECT id, x, name, data, flag, g FROM t ORDER BY id") { values in
                let expected = row(seen)
                #expect(Array(values[0..<5]) == Array(expected[0..<5]))
                let (geometry, srid) = try EWKB.decode(try #require(values[5].bytesValue))
                #expect(srid == 2924)
                #expect(geometry == .point(Point(x: Double(seen), y: -Double(seen) / 8)))
                seen += 1
            }
            #expect(read == count && seen == count)
        }
    }

    @Test func abandonedOrRefusedCopyStoresNothing() throws {
        struct Planted: Error {}
        try withDatabase { connection, _ in
            try connection.execute("CREATE TABLE t (id bigint NOT NULL)")
            #expect(throws: Planted.self) {
                try connection.copyIn("COPY t (id) FROM STDIN (FORMAT binary)") { copy in
                    for i in 0..<100_000 { try copy.write([.int8(Int64(i))]) }
                    throw Planted()
                }
            }
            // A NULL into NOT NULL: the server refuses the row and the whole COPY.
            let refused = try #require(throws: PostgreSQLError.self) {
                try connection.copyIn("COPY t (id) FROM STDIN (FORMAT binary)") { copy in
                    try copy.write([.int8(1)])
                    try copy.write([.null])
                }
            }
            #expect(refused.sqlState == "23502")
            // A value of the wrong binary form (int4 into bigint): the server says "insufficient
            // data left in message", a protocol violation, not a lost connection.
            let malformed = try #require(throws: PostgreSQLError.self) {
                try connection.copyIn("COPY t (id) FROM STDIN (FORMAT binary)") { copy in try copy.write([.int4(1)]) }
            }
            #expect(malformed.sqlState == "08P01")
            #expect(malformed.kind == .invalidData)
            #expect(try connection.scalar("SELECT count(*) FROM t") == .int8(0))
        }
    }

    @Test func notificationsArriveOnCommitOnly() throws {
        struct Planted: Error {}
        try withDatabase { listener, database in
            let sender = try PostgreSQLConnection(database.connectionString)
            try listener.listen("annolink edits")
            #expect(try listener.waitForNotifications(timeout: 0).isEmpty)
            #expect(throws: Planted.self) {
                try sender.inTransaction {
                    try sender.notify("annolink edits", payload: "rolled back")
                    throw Planted()
                }
            }
            try sender.inTransaction { try sender.notify("annolink edits", payload: "fid 7 ✓") }
            let received = try listener.waitForNotifications(timeout: 10)
            #expect(received.map(\.payload) == ["fid 7 ✓"])
            #expect(received.first?.channel == "annolink edits")
            #expect(received.first?.processID == Int32(try #require(sender.scalar("SELECT pg_backend_pid()")?.integerValue)))
            // Nothing more, and a wait for nothing returns at its timeout.
            let start = Date()
            #expect(try listener.waitForNotifications(timeout: 0.3).isEmpty)
            #expect(Date().timeIntervalSince(start) >= 0.25)
        }
    }

    @Test func ewkbParametersAreReadByPostGIS() throws {
        try withDatabase { connection, _ in
            let ring = LineString([Point(x: 0, y: 0), Point(x: 10, y: 0), Point(x: 10, y: 5), Point(x: 0, y: 0)])
            let polygon = Geometry.polygon(Polygon(rings: [ring]))
            let ewkb = EWKB.encode(polygon, srid: 4326)
            let text = try connection.query("SELECT ST_AsEWKT($1::geometry)", [.binary(oid: 0, bytes: ewkb)]).scalar
            #expect(text == .text("SRID=4326;POLYGON((0 0,10 0,10 5,0 0))"))
            let back = try connection.query("SELECT ST_GeomFromEWKT('SRID=2924;MULTILINESTRING((1 2,3 4),(5 6,7 8))')").scalar
            let decoded = try EWKB.decode(try #require(back?.bytesValue))
            #expect(decoded.srid == 2924)
            #expect(decoded.geometry == .multiLineString(MultiLineString([
                LineString([Point(x: 1, y: 2), Point(x: 3, y: 4)]), LineString([Point(x: 5, y: 6), Point(x: 7, y: 8)]),
            ])))
            // Z is refused, as everywhere in annolink.
            let z = try connection.query("SELECT ST_GeomFromEWKT('SRID=2924;POINT(1 2 3)')").scalar
            #expect(throws: GeometryCodecError.self) { try EWKB.decode(try #require(z?.bytesValue)) }
        }
    }
}
