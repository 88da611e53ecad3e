import Foundation

/// The throw-away PostgreSQL + PostGIS cluster the PostGIS tests run against.
///
/// `scripts/test` starts one with `scripts/pg-test-cluster start` before `swift test`, exports
/// its connection string as `ANNOLINK_TEST_POSTGRES`, and stops it afterwards. A test that needs
/// the server and runs without that variable fails (it does not skip) with a message saying how
/// to start one: run the tests through `scripts/test`, or
///
///     eval "$(scripts/pg-test-cluster start)"
///     swift test --filter AnnoLinkPostGISTests
///     scripts/pg-test-cluster stop "$ANNOLINK_TEST_POSTGRES_DIR"
public enum PostgresTestServer {
    /// The environment variable holding the cluster's connection string (to its `postgres`
    /// database, as the superuser `postgres`).
    public static let variable = "ANNOLINK_TEST_POSTGRES"
    /// The template database with PostGIS that `scripts/pg-test-cluster` makes.
    public static let template = "annolink_template"

    /// Why there is no server to test against.
    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String
    }

    /// The cluster's connection string.
    ///
    /// - Throws: `Unavailable` when `ANNOLINK_TEST_POSTGRES` is not set.
    public static func connectionString() throws -> String {
        guard let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty else {
            throw Unavailable(description: """
                \(variable) is not set, so there is no PostgreSQL server to test against: run the tests through scripts/test, \
                or start a throw-away cluster with eval "$(scripts/pg-test-cluster start)" and stop it afterwards with \
                scripts/pg-test-cluster stop "$ANNOLINK_TEST_POSTGRES_DIR"
                """)
        }
        return value
    }

    /// `connectionString` with its database replaced by `database`.
    public static func connectionString(database: String) throws -> String {
        let base = try connectionString()
        guard var components = URLComponents(string: base) else {
            throw Unavailable(description: "\(variable) is not a postgresql:// URI: \(base)")
        }
        components.path = "/" + database
        return components.string!
    }

    /// PostgreSQL's `psql` (Debian's postgresql-client-15, which postgresql-15 brings).
    public static var psql: ExternalTool {
        get throws {
            if FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/15/bin/psql") {
                return ExternalTool(path: "/usr/lib/postgresql/15/bin/psql")
            }
            return try ExternalTool.require("psql", package: "postgresql-client-15")
        }
    }

    /// Runs `sql` with `psql` on `database` (the `postgres` database when nil) and returns
    /// what it printed: unaligned, tuples only, `|` between columns.
    ///
    /// - Throws: `ToolFailure` when psql fails (an SQL error stops it).
    @discardableResult
    public static func psql(_ sql: String, database: String? = nil) throws -> String {
        let target = try database.map { try connectionString(database: $0) } ?? connectionString()
        return try psql.output(["-X", "-q", "-v", "ON_ERROR_STOP=1", "-A", "-t", "-d", target, "-c", sql])
    }
}

/// A database of its own for one test, made from the PostGIS template; dropped by `drop()`.
public struct PostgresTestDatabase: Sendable {
    /// The database name (`annolink_test_` and a random suffix).
    public let name: String
    /// Its connection string (`postgresql://…/name`).
    public let connectionString: String

    /// Creates a new, empty database with PostGIS (`CREATE DATABASE … TEMPLATE annolink_template`).
    ///
    /// - Throws: `PostgresTestServer.Unavailable` when no test server was started, `ToolFailure`
    ///   when the database cannot be made.
    public init() throws {
        let suffix = UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        name = "annolink_test_\(suffix)"
        connectionString = try PostgresTestServer.connectionString(database: name)
        try PostgresTestServer.psql("CREATE DATABASE \(name) TEMPLATE \(PostgresTestServer.template)")
    }

    /// The connection string in GDAL's `PG:` form (for `ogrinfo`, and for testing that form).
    public var gdalConnectionString: String {
        get throws {
            let components = URLComponents(string: connectionString)!
            var parts = ["dbname='\(name)'"]
            if let host = components.host { parts.append("host='\(host)'") }
            if let port = components.port { parts.append("port='\(port)'") }
            if let user = components.user { parts.append("user='\(user)'") }
            return "PG:" + parts.joined(separator: " ")
        }
    }

    /// Runs `sql` with psql on this database; see `PostgresTestServer.psql(_:database:)`.
    @discardableResult
    public func psql(_ sql: String) throws -> String { try PostgresTestServer.psql(sql, database: name) }

    /// Runs `sql` with psql past the change capture, as a program writing to a database
    /// without it would (damage for `check` to find, not an outside edit to follow): the
    /// session says it is annolink's own (`annolink.writing`), which the triggers pass over.
    /// Tests of following edit with plain `psql(_:)` (FollowPostGISTests).
    @discardableResult
    public func psqlBehindCapture(_ sql: String) throws -> String { try psql("SET annolink.writing = 'on';\n" + sql) }

    /// Drops the database, ending any session still connected to it.
    public func drop() throws {
        try PostgresTestServer.psql("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }
}
