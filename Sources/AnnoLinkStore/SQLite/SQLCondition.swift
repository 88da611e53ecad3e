import CSQLite

/// A condition in SQL that came from outside the program — a class's where clause stored in a
/// file, `translate --where`, a service's filter — checked to be one read-only expression on
/// one table before annolink pastes it into a statement of its own.
///
/// The only way to get one is `Connection.condition(_:on:)`, so a statement that embeds a
/// condition cannot embed an unchecked one. The check:
/// - the text is one expression: its parentheses balance and never close the one around it,
///   no `;`, no string, quoted name or comment left open (so `fid=1) OR (1=1`, `1) UNION …`
///   and `1 --` are refused as text, before SQLite sees them);
/// - compiled as `SELECT 1 FROM <table> WHERE (<text>)` under an SQLite authorizer that allows
///   only reading `<table>` of the main database and calling the pure functions in
///   `SQLCondition.allowedFunctions`; everything else — another table, a virtual table, a
///   pragma, `fts3_tokenizer`, `load_extension`, a recursive CTE, a write — is refused by name;
/// - no subquery (`SELECT`, `EXISTS`, `IN (SELECT …)`, `VALUES`, `WITH`): the wrapper is the
///   only `SELECT` the authorizer may see, so a condition reads the row it is asked about and no
///   other, and cannot join its table to itself (issue 25).
///
/// So the work of a condition is bounded by its row: it is evaluated once per row, reads only
/// that row's values, and every allowed function's result grows at most linearly with its
/// arguments, so no nesting can multiply a value's size (docs/reliability.md, "Bounded work").
public struct SQLCondition: Hashable, Sendable {
    /// The condition as given.
    public let text: String
    /// The table it was checked against, as the file spells it.
    public let table: String

    /// The condition ready to paste after `WHERE` or into an expression: parenthesised, the
    /// closing parenthesis on a line of its own so that a trailing `--` comment cannot hide it.
    public var sql: String { "(\(text)\n)" }

    /// Core SQLite functions that only compute a value from their arguments: no I/O, no state,
    /// no pointers, and a result at most linear in the size of the arguments, so that nesting
    /// them cannot multiply a value's size.
    ///
    /// Left out on purpose: `zeroblob`, `randomblob` (a size from an argument); `printf` and
    /// `format` (`'%0900000000d'`, `'%.*c'` take a width from the text or a column: one call
    /// allocates what it is told, issue 25); `hex` and `quote` (double their argument, so
    /// `hex(hex(hex(…)))` doubles per level); `replace` (each level can multiply the length by
    /// the replacement's); the aggregates (`count`, `sum`, `group_concat`…), which a condition on
    /// one row without a subquery cannot use.
    public static let allowedFunctions: Set<String> = [
        "abs", "char", "coalesce", "glob", "ifnull", "iif", "instr", "length", "like",
        "likelihood", "likely", "lower", "ltrim", "max", "min", "nullif", "round",
        "rtrim", "sign", "substr", "substring", "trim", "typeof", "unicode", "unlikely", "upper",
        "date", "time", "datetime", "julianday", "strftime", "unixepoch",
        "ceil", "ceiling", "floor", "trunc", "mod", "pow", "power", "sqrt", "exp", "ln", "log", "log10", "log2", "pi",
        "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "degrees", "radians",
    ]

    /// Why a condition was refused, in the user's words.
    public enum Refusal: Error, Hashable, Sendable, CustomStringConvertible {
        /// The text is not one expression (it escapes its parentheses, has a `;`, leaves a
        /// string or comment open).
        case notOneExpression(String)
        /// The condition reads, writes or calls something it may not.
        case notAllowed(String)
        /// SQLite cannot compile it (unknown column, syntax error).
        case doesNotCompile(String)
        /// It passed the checks, but the database that runs it refuses it (PostgreSQL has no such
        /// function, or will not compare those types): the database's reason.
        case doesNotRun(String)

        public var description: String {
            switch self {
            case .notOneExpression(let why): "is not one SQL expression: \(why)"
            case .notAllowed(let why): "may only read its own table and call plain functions, but \(why)"
            case .doesNotCompile(let message): "does not compile: \(message)"
            case .doesNotRun(let reason): "does not run (\(reason))"
            }
        }
    }

    fileprivate init(text: String, table: String) {
        self.text = text
        self.table = table
    }

    /// Why a condition with a subquery is refused.
    static let subqueryReason =
        "it holds a subquery (SELECT, EXISTS, IN (SELECT …), IN table, VALUES or WITH), which may read more than the row it is asked about"

    /// Scans `text` as SQL tokens and refuses what could end the expression early, then a
    /// subquery: the keywords `SELECT` and `VALUES`, which SQLite reserves, can only begin one,
    /// and a `WITH` holds one of them (`with` alone may name a column). The authorizer refuses
    /// every other `SELECT` as well, `x IN table` among them; this finds them before SQLite
    /// resolves any name, so that the reason given is the subquery.
    static func checkShape(_ text: String) throws {
        let bytes = Array(text.utf8)
        var depth = 0
        var i = 0
        var subquery = false
        func isWordByte(_ b: UInt8) -> Bool {
            b == UInt8(ascii: "_") || b == UInt8(ascii: "$") || (b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A) || b >= 0x80
        }
        func closing(_ quote: UInt8, from start: Int, what: String) throws -> Int {
            var j = start + 1
            while j < bytes.count {
                if bytes[j] == quote {
                    // A doubled quote is an escaped quote inside the string or name.
                    if quote != UInt8(ascii: "]"), j + 1 < bytes.count, bytes[j + 1] == quote { j += 2; continue }
                    return j
                }
                j += 1
            }
            throw Refusal.notOneExpression("\(what) is not closed")
        }
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "'"): i = try closing(UInt8(ascii: "'"), from: i, what: "a string")
            case UInt8(ascii: "\""): i = try closing(UInt8(ascii: "\""), from: i, what: "a quoted name")
            case UInt8(ascii: "`"): i = try closing(UInt8(ascii: "`"), from: i, what: "a quoted name")
            case UInt8(ascii: "["): i = try closing(UInt8(ascii: "]"), from: i, what: "a quoted name")
            case UInt8(ascii: "-") where i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "-"):
                while i < bytes.count, bytes[i] != UInt8(ascii: "\n") { i += 1 }
            case UInt8(ascii: "/") where i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "*"):
                var j = i + 2
                while j + 1 < bytes.count, !(bytes[j] == UInt8(ascii: "*") && bytes[j + 1] == UInt8(ascii: "/")) { j += 1 }
                guard j + 1 < bytes.count else { throw Refusal.notOneExpression("a comment is not closed") }
                i = j + 1
            case UInt8(ascii: "("): depth += 1
            case UInt8(ascii: ")"):
                depth -= 1
                if depth < 0 { throw Refusal.notOneExpression("a ')' closes a parenthesis it did not open") }
            case UInt8(ascii: ";"): throw Refusal.notOneExpression("';' ends a statement")
            case 0: throw Refusal.notOneExpression("it holds a NUL character")
            case let b where isWordByte(b) && (i == 0 || !isWordByte(bytes[i - 1])):
                var j = i
                while j < bytes.count, isWordByte(bytes[j]) { j += 1 }
                let word = String(decoding: bytes[i..<j], as: UTF8.self).uppercased()
                if word == "SELECT" || word == "VALUES" { subquery = true }
                i = j - 1
            default: break
            }
            i += 1
        }
        if depth > 0 { throw Refusal.notOneExpression("a '(' is not closed") }
        if text.allSatisfy(\.isWhitespace) { throw Refusal.notOneExpression("it is empty") }
        if subquery { throw Refusal.notAllowed(subqueryReason) }
    }
}

extension Connection {
    /// Checks `text` as a read-only condition on `table` (see `SQLCondition`) and returns it
    /// ready to embed.
    ///
    /// - Throws: `SQLCondition.Refusal` saying why it was refused.
    public func condition(_ text: String, on table: String) throws -> SQLCondition {
        try SQLCondition.checkShape(text)
        // Compiled deeper than annolink ever embeds it (`… WHERE fid = ? AND (cond) AND …`,
        // under EXPLAIN): SQLite's parser has a fixed stack, and a condition that only just fits
        // here would otherwise fail in annolink's own statement ("parser stack overflow").
        let open = String(repeating: "(", count: 8), close = String(repeating: ")", count: 8)
        let sql = "SELECT 1 FROM \(quoteIdentifier(table)) WHERE 1 = 1 AND \(open)(\(text)\n)\(close)"
        let policy = ReadPolicy(table: table)
        do {
            _ = try withAuthorizer(policy) { try prepareUncached(sql) }
        } catch let error as SQLiteError {
            if let denied = policy.denied { throw SQLCondition.Refusal.notAllowed(denied) }
            throw SQLCondition.Refusal.doesNotCompile(error.message)
        }
        return SQLCondition(text: text, table: table)
    }

    /// Runs `body` (which prepares statements) with `policy` as the connection's authorizer.
    /// Wraps `sqlite3_set_authorizer`; the callback finds the policy through its user data.
    private func withAuthorizer<T>(_ policy: ReadPolicy, _ body: () throws -> T) throws -> T {
        let context = Unmanaged.passRetained(policy)
        defer {
            sqlite3_set_authorizer(handle, nil, nil)
            context.release()
        }
        let rc = sqlite3_set_authorizer(handle, { userData, action, first, second, database, _ in
            guard let userData else { return SQLITE_DENY }
            let policy = Unmanaged<ReadPolicy>.fromOpaque(userData).takeUnretainedValue()
            return policy.decide(action: action, first: first.map { String(cString: $0) }, second: second.map { String(cString: $0) },
                                 database: database.map { String(cString: $0) })
        }, context.toOpaque())
        guard rc == SQLITE_OK else { throw lastError(code: rc) }
        return try body()
    }
}

/// What a condition's statement may do while it compiles, and the first thing it was refused.
private final class ReadPolicy {
    let table: String
    private(set) var denied: String?
    /// How many `SELECT`s the authorizer was asked about: the wrapper's is the first.
    private var selects = 0

    init(table: String) { self.table = table.lowercased() }

    func decide(action: Int32, first: String?, second: String?, database: String?) -> Int32 {
        switch action {
        case SQLITE_SELECT:
            // Every SELECT the statement compiles is authorized once, the wrapper's first; any
            // other is a subquery, a `VALUES` list or a common table expression inside the
            // condition, which could read other rows (a join of the table with itself).
            selects += 1
            if selects == 1 { return SQLITE_OK }
            return deny(SQLCondition.subqueryReason)
        case SQLITE_READ:
            // SQLite names no database for the table-level read of a subquery's table.
            if database == nil || database == "main", first?.lowercased() == table { return SQLITE_OK }
            return deny("it reads table '\(first ?? "?")'")
        case SQLITE_FUNCTION:
            if let name = second?.lowercased(), SQLCondition.allowedFunctions.contains(name) { return SQLITE_OK }
            return deny("it calls \(second ?? "a function")(), which is not one of the allowed pure functions")
        case SQLITE_RECURSIVE:
            return deny("it uses a recursive common table expression")
        case SQLITE_PRAGMA:
            return deny("it runs a pragma (or reads a virtual table, which does)")
        case SQLITE_ATTACH, SQLITE_DETACH:
            return deny("it attaches a database")
        default:
            return deny("it does more than read (authorizer action \(action))")
        }
    }

    private func deny(_ reason: String) -> Int32 {
        if denied == nil { denied = reason }
        return SQLITE_DENY
    }
}

@available(*, unavailable)
extension ReadPolicy: Sendable {}

extension SQLCondition {
    /// `text` checked as a read-only condition on `table` by the same rules, for a database
    /// other than SQLite that evaluates it (PostgreSQL): SQLite compiles it against an
    /// in-memory twin of the table (its column names only) under the same authorizer, so that
    /// it may only read the table's columns and call `allowedFunctions`. The text returned has
    /// every name of a column written as the table spells it, double-quoted (`[name]`, `` `name` ``
    /// and bare names alike): SQLite matches names without regard to case, PostgreSQL folds an
    /// unquoted name to lower case. A function the other database lacks fails there, when run.
    ///
    /// - Throws: `SQLCondition.Refusal`, as `Connection.condition(_:on:)`.
    public static func checked(_ text: String, on table: FeatureTable) throws -> SQLCondition {
        try checkPostgreSQLReading(text)
        let twin = try Connection(path: ":memory:", mode: .create, journalMode: nil)
        try twin.execute("CREATE TABLE \(quoteIdentifier(table.name)) (\(table.columns.map { quoteIdentifier($0.name) }.joined(separator: ", ")))")
        _ = try twin.condition(text, on: table.name)
        return SQLCondition(text: quotingColumnNames(text, of: table), table: table.name)
    }

    /// Refuses what PostgreSQL reads differently from SQLite, so that the text SQLite checked is
    /// the text PostgreSQL runs: a string with escapes (`E'…'`, `U&'…'`) or a backslash in a
    /// string (an escape where `standard_conforming_strings` is off), `$` (a parameter of the
    /// statement, or a dollar-quoted string), and a comment inside a comment (PostgreSQL nests
    /// them, SQLite does not). Each could end a string or a comment where SQLite saw none.
    static func checkPostgreSQLReading(_ text: String) throws {
        let b = Array(text.utf8)
        func byte(_ c: Character) -> UInt8 { c.asciiValue! }
        var i = 0
        while i < b.count {
            switch b[i] {
            case byte("'"):
                if i > 0, [byte("E"), byte("e"), byte("&")].contains(b[i - 1]) {
                    throw Refusal.notOneExpression("an E'…' or U&'…' string, which PostgreSQL reads with escapes")
                }
                var j = i + 1
                while j < b.count {
                    if b[j] == byte("\\") { throw Refusal.notOneExpression("a backslash in a string, which PostgreSQL may read as an escape") }
                    if b[j] == byte("'") {
                        if j + 1 < b.count, b[j + 1] == byte("'") { j += 2; continue }
                        break
                    }
                    j += 1
                }
                i = j
            case byte("\""):
                var j = i + 1
                while j < b.count, !(b[j] == byte("\"") && !(j + 1 < b.count && b[j + 1] == byte("\""))) {
                    j += b[j] == byte("\"") ? 2 : 1
                }
                i = j
            case byte("-") where i + 1 < b.count && b[i + 1] == byte("-"):
                while i < b.count, b[i] != byte("\n") { i += 1 }
            case byte("/") where i + 1 < b.count && b[i + 1] == byte("*"):
                var j = i + 2
                while j + 1 < b.count, !(b[j] == byte("*") && b[j + 1] == byte("/")) {
                    if b[j] == byte("/") && b[j + 1] == byte("*") {
                        throw Refusal.notOneExpression("a comment inside a comment, which PostgreSQL nests and SQLite does not")
                    }
                    j += 1
                }
                i = j + 1
            case byte("$"):
                throw Refusal.notOneExpression("'$', which PostgreSQL reads as a parameter or a dollar-quoted string")
            default: break
            }
            i += 1
        }
    }

    /// `text` with each name of a column of `table` (bare, `"…"`, `[…]` or `` `…` ``) written as
    /// `quoteIdentifier` of the column's own spelling; strings, comments and other names as
    /// they are. `text` has passed `checkShape`.
    static func quotingColumnNames(_ text: String, of table: FeatureTable) -> String {
        let chars = Array(text)
        var out = ""
        var i = 0
        func isNameStart(_ c: Character) -> Bool { c == "_" || (c.isASCII && c.isLetter) }
        func isNamePart(_ c: Character) -> Bool { isNameStart(c) || (c.isASCII && c.isNumber) || c == "$" }
        func name(_ raw: String, original: String) -> String {
            table.column(raw).map { quoteIdentifier($0.name) } ?? original
        }
        while i < chars.count {
            let c = chars[i]
            switch c {
            case "'":
                var j = i + 1
                while j < chars.count { if chars[j] == "'" { if j + 1 < chars.count, chars[j + 1] == "'" { j += 2; continue }; break }; j += 1 }
                out += String(chars[i...min(j, chars.count - 1)])
                i = j + 1
            case "\"", "`", "[":
                let close: Character = c == "[" ? "]" : c
                var j = i + 1
                var raw = ""
                while j < chars.count {
                    if chars[j] == close {
                        if close != "]", j + 1 < chars.count, chars[j + 1] == close { raw.append(close); j += 2; continue }
                        break
                    }
                    raw.append(chars[j])
                    j += 1
                }
                out += name(raw, original: String(chars[i...min(j, chars.count - 1)]))
                i = j + 1
            case "-" where i + 1 < chars.count && chars[i + 1] == "-":
                var j = i
                while j < chars.count, chars[j] != "\n" { j += 1 }
                out += String(chars[i..<j])
                i = j
            case "/" where i + 1 < chars.count && chars[i + 1] == "*":
                var j = i + 2
                while j + 1 < chars.count, !(chars[j] == "*" && chars[j + 1] == "/") { j += 1 }
                out += String(chars[i...min(j + 1, chars.count - 1)])
                i = j + 2
            default:
                if isNameStart(c), i == 0 || !isNamePart(chars[i - 1]) {
                    var j = i
                    while j < chars.count, isNamePart(chars[j]) { j += 1 }
                    let word = String(chars[i..<j])
                    out += name(word, original: word)
                    i = j
                } else {
                    out.append(c)
                    i += 1
                }
            }
        }
        return out
    }
}
