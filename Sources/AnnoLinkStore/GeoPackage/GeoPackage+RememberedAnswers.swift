import Foundation

/// The answers of edit requests made with an idempotency key, kept in the file
/// (`annolink_request_keys`, docs/format.md) so that a request sent again — after a lost
/// answer, by a client or by a restarted server's client — gets the first answer instead of
/// being applied twice (docs/serve.md, "Idempotency keys").
///
/// A key is remembered in the same transaction as the edits it answers, so either both are in
/// the file or neither. Keys are the client's; a key is remembered per user, so that one user's
/// key never answers another's request.
extension GeoPackage {
    /// The table of remembered answers.
    public static let requestKeysTable = "annolink_request_keys"

    /// The answer remembered for `key` of `user` (nil: anonymous) and the fingerprint of the
    /// request it answered, or nil when the key is not remembered or older than `seconds`.
    public func rememberedAnswer(key: String, user: String?, keptFor seconds: Double) throws -> (fingerprint: String, answer: String)? {
        guard try connection.hasTable(Self.requestKeysTable) else { return nil }
        let rows = try connection.rows(
            "SELECT fingerprint, answer FROM \(Self.requestKeysTable) WHERE key = ? AND user = ? AND made >= ?",
            [.text(key), .text(user ?? ""), .real(Date().timeIntervalSince1970 - seconds)])
        guard let row = rows.first, case .text(let fingerprint) = row[0], case .text(let answer) = row[1] else { return nil }
        return (fingerprint, answer)
    }

    /// Remembers `answer` for `key` of `user`, and forgets the keys older than `seconds`. Runs
    /// in the caller's write transaction (or one of its own); makes the table when it is missing.
    public func remember(key: String, user: String?, fingerprint: String, answer: String, keepingFor seconds: Double) throws {
        try connection.write {
            try connection.execute("""
                CREATE TABLE IF NOT EXISTS \(Self.requestKeysTable) (
                    key TEXT NOT NULL, user TEXT NOT NULL, fingerprint TEXT NOT NULL, answer TEXT NOT NULL, made REAL NOT NULL,
                    PRIMARY KEY (key, user))
                """)
            let now = Date().timeIntervalSince1970
            _ = try connection.run("DELETE FROM \(Self.requestKeysTable) WHERE made < ?", [.real(now - seconds)])
            _ = try connection.run("INSERT OR REPLACE INTO \(Self.requestKeysTable) (key, user, fingerprint, answer, made) VALUES (?, ?, ?, ?, ?)",
                                   [.text(key), .text(user ?? ""), .text(fingerprint), .text(answer), .real(now)])
        }
    }
}
