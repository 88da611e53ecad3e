import Foundation
import AnnoLinkStore

/// Transactions, statement time limits and remembered answers on PostGIS: the verbs the
/// service's edits use (`Dataset.write`, `Dataset.writeOnce`) as on a GeoPackage.
extension PostGISStore {
    /// The table of remembered answers of edit requests made with an idempotency key
    /// (docs/postgis.md): `annolink_request_keys` of a GeoPackage.
    static let requestKeysTable = "annolink.request_keys"

    /// Its definition, part of the layout (`PostGISLayout.install`) and made by the first key
    /// remembered in a database installed before it was.
    static let requestKeysDDL = """
        CREATE TABLE IF NOT EXISTS annolink.request_keys (
          key text NOT NULL,
          "user" text NOT NULL,
          fingerprint text NOT NULL,
          answer text NOT NULL,
          made double precision NOT NULL,
          PRIMARY KEY (key, "user"));
        """

    public func inTransaction<T>(_ body: () throws -> T) throws -> T {
        try connection.inTransaction(body)
    }

    /// `statement_timeout` for the connection while `body` runs (the smaller of `seconds` and
    /// an outer limit), set back to what it was after. Statements waiting for another session's
    /// row locks count their waiting time too.
    public func withStatementTimeLimit<T>(seconds: Double, _ body: () throws -> T) throws -> T {
        let milliseconds = max(1, Int((min(seconds, 1e6) * 1000).rounded(.up)))
        let outer = statementTimeout
        let limit = outer.map { min($0, milliseconds) } ?? milliseconds
        try connection.execute("SET statement_timeout = \(limit)")
        statementTimeout = limit
        defer {
            statementTimeout = outer
            // In a transaction that failed, SET fails too; the ROLLBACK that follows undoes a
            // SET made inside it, and one made before it is set again by the next limit.
            _ = try? connection.execute("SET statement_timeout = \(outer ?? 0)")
        }
        return try body()
    }

    public func rememberedAnswer(key: String, user: String?, keptFor seconds: Double) throws -> (fingerprint: String, answer: String)? {
        guard try connection.scalar("SELECT to_regclass('\(Self.requestKeysTable)') IS NOT NULL")?.boolValue == true else { return nil }
        let rows = try connection.query(
            "SELECT fingerprint, answer FROM \(Self.requestKeysTable) WHERE key = $1 AND \"user\" = $2 AND made >= $3",
            [.text(key), .text(user ?? ""), .float8(Date().timeIntervalSince1970 - seconds)]).rows
        guard let row = rows.first, let fingerprint = row[0].textValue, let answer = row[1].textValue else { return nil }
        return (fingerprint, answer)
    }

    public func remember(key: String, user: String?, fingerprint: String, answer: String, keepingFor seconds: Double) throws {
        try connection.inTransaction {
            if try connection.scalar("SELECT to_regclass('\(Self.requestKeysTable)') IS NOT NULL")?.boolValue != true {
                try connection.execute(Self.requestKeysDDL)
            }
            let now = Date().timeIntervalSince1970
            try connection.query("DELETE FROM \(Self.requestKeysTable) WHERE made < $1", [.float8(now - seconds)])
            try connection.query("""
                INSERT INTO \(Self.requestKeysTable) (key, "user", fingerprint, answer, made) VALUES ($1, $2, $3, $4, $5)
                ON CONFLICT (key, "user") DO UPDATE SET fingerprint = EXCLUDED.fingerprint, answer = EXCLUDED.answer, made = EXCLUDED.made
                """, [.text(key), .text(user ?? ""), .text(fingerprint), .text(answer), .float8(now)])
        }
    }
}
