import Foundation

/// The change capture of a GeoPackage: triggers of plain SQL on every linked table (an origin
/// table a class labels, an annotation table) that record each insert, update and delete made
/// by another program — QGIS, GDAL, the `sqlite3` shell, Python — in `annolink_changes`, so that
/// annolink can follow it (docs/follow.md; the tables in docs/format.md, "Change capture").
///
/// The triggers call only SQLite's built-in functions (`quote`, `strftime`), so they fire in any
/// client and under `SQLITE_TRUSTED_SCHEMA=0`. annolink's own transactions set the one row of
/// `annolink_changes_state` to `writing = 1` while they write (`Connection.ownWrites`), and the
/// triggers pass over them; no other connection ever sees that value committed.
enum ChangeCapture {
    /// The names of the capture's tables and triggers begin with it; the journal's session
    /// records none of them.
    static let prefix = "annolink_changes"
    static let changes = "annolink_changes"
    static let tables = "annolink_changes_tables"
    static let state = "annolink_changes_state"

    static let schema = """
        CREATE TABLE IF NOT EXISTS annolink_changes (
          id INTEGER PRIMARY KEY,
          table_name TEXT NOT NULL,
          fid INTEGER NOT NULL,
          operation TEXT NOT NULL CHECK (operation IN ('insert', 'update', 'delete')),
          before TEXT,
          time TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS annolink_changes_tables (
          table_name TEXT PRIMARY KEY NOT NULL,
          columns TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS annolink_changes_state (writing INTEGER NOT NULL);
        INSERT INTO annolink_changes_state (writing) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM annolink_changes_state);
        """

    /// The suffixes of the triggers of a table, one per operation recorded.
    static let triggerSuffixes = ["insert", "update", "delete"]

    /// The name of the trigger that records `operation` on `table`.
    static func triggerName(_ table: String, _ operation: String) -> String {
        "\(prefix)_\(table)_\(operation)"
    }

    /// The three triggers of `table` (primary key `key`, other columns `columns`): each records
    /// the row's key, the operation, the row before it (every column of `columns` as SQLite's
    /// `quote()` writes it, comma-separated, which reads back exactly) and the time. A new row
    /// from another program without a GlobalID (the column `globalID`) gets one.
    static func triggers(table: String, key: String, columns: [String], globalID: String?) -> [String] {
        let name = quoteString(table)
        let before = columns.isEmpty ? "''" : columns.map { "quote(OLD.\(quoteIdentifier($0)))" }.joined(separator: " || ',' || ")
        let when = "WHEN (SELECT writing FROM \(state)) IS NOT 1"
        let insert = "INSERT INTO \(changes) (table_name, fid, operation, before, time)"
        let now = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
        let k = quoteIdentifier(key)
        // A new row without a GlobalID gets one, after its insert is recorded, so that the
        // update that fills it in comes second and the row counts as inserted.
        let fill = globalID.map { column in
            let id = quoteIdentifier(column)
            return "UPDATE \(quoteIdentifier(table)) SET \(id) = \(newGlobalID) WHERE \(k) = NEW.\(k) AND \(id) IS NULL;"
        } ?? ""
        return [
            """
            CREATE TRIGGER \(quoteIdentifier(triggerName(table, "insert"))) AFTER INSERT ON \(quoteIdentifier(table)) \(when)
            BEGIN
              \(insert) VALUES (\(name), NEW.\(k), 'insert', NULL, \(now));
              \(fill)
            END
            """,
            // A key that changes: the old row is gone, a new one is there.
            """
            CREATE TRIGGER \(quoteIdentifier(triggerName(table, "update"))) AFTER UPDATE ON \(quoteIdentifier(table)) \(when)
            BEGIN
              \(insert) VALUES (\(name), OLD.\(k), 'update', \(before), \(now));
              \(insert) SELECT \(name), NEW.\(k), 'insert', NULL, \(now) WHERE NEW.\(k) IS NOT OLD.\(k);
            END
            """,
            """
            CREATE TRIGGER \(quoteIdentifier(triggerName(table, "delete"))) AFTER DELETE ON \(quoteIdentifier(table)) \(when)
            BEGIN \(insert) VALUES (\(name), OLD.\(k), 'delete', \(before), \(now)); END
            """,
        ]
    }

    /// The values of a before image: SQL literals as `quote()` writes them (`NULL`, integers,
    /// reals, `'text'` with quotes doubled, `X'hex'`), separated by commas. Parsed here rather
    /// than run as SQL: the text comes from the file, and a file's text is never run.
    ///
    /// - Throws: `StoreError.invalidData` when the text is not such a list of `count` values.
    static func values(_ text: String, count: Int) throws -> [SQLValue] {
        let bytes = Array(text.utf8)
        var values: [SQLValue] = []
        var i = 0
        func fail() -> StoreError { StoreError.invalidData("annolink_changes holds a before image annolink cannot read: \(text.prefix(80))") }
        while i < bytes.count || (values.isEmpty && count > 0) {
            guard i < bytes.count else { throw fail() }
            let start = i
            switch bytes[i] {
            case UInt8(ascii: "'"):
                var literal: [UInt8] = []
                i += 1
                while true {
                    guard i < bytes.count else { throw fail() }
                    if bytes[i] == UInt8(ascii: "'") {
                        if i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "'") { literal.append(bytes[i]); i += 2; continue }
                        i += 1
                        break
                    }
                    literal.append(bytes[i])
                    i += 1
                }
                values.append(.text(String(decoding: literal, as: UTF8.self)))
            case UInt8(ascii: "X"), UInt8(ascii: "x"):
                guard i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "'") else { throw fail() }
                i += 2
                var blob: [UInt8] = []
                while i < bytes.count, bytes[i] != UInt8(ascii: "'") {
                    guard i + 1 < bytes.count, let high = hexDigit(bytes[i]), let low = hexDigit(bytes[i + 1]) else { throw fail() }
                    blob.append(high << 4 | low)
                    i += 2
                }
                guard i < bytes.count else { throw fail() }
                i += 1
                values.append(.blob(blob))
            default:
                while i < bytes.count, bytes[i] != UInt8(ascii: ",") { i += 1 }
                let word = String(decoding: bytes[start..<i], as: UTF8.self)
                if word == "NULL" {
                    values.append(.null)
                } else if let integer = Int64(word) {
                    values.append(.integer(integer))
                } else if let real = Double(word) {
                    values.append(.real(real))
                } else {
                    throw fail()
                }
            }
            if i < bytes.count {
                guard bytes[i] == UInt8(ascii: ",") else { throw fail() }
                i += 1
                guard i < bytes.count else { throw fail() }
            }
        }
        guard values.count == count else { throw fail() }
        return values
    }

    /// A new GUID in Esri's form, `{XXXXXXXX-XXXX-4XXX-YXXX-XXXXXXXXXXXX}` (a version-4 UUID in
    /// upper case, in braces), in SQLite's built-in SQL: the default of a GlobalID column, so
    /// that a row another program adds gets one (`GeoPackage.installChangeCapture`). Filled in
    /// by a trigger, not given as the column's default: GDAL writes a default it cannot read
    /// as a value into the column as text, and NULL where no default is declared.
    static let newGlobalID = """
        printf('{%s-%s-4%s-%s%s-%s}', hex(randomblob(4)), hex(randomblob(2)), substr(hex(randomblob(2)), 2), \
        substr('89AB', 1 + abs(random() % 4), 1), substr(hex(randomblob(2)), 2), hex(randomblob(6)))
        """

    /// `create` (a `CREATE TABLE` statement as `sqlite_master` holds it) with the `NOT NULL`
    /// constraint of `column` taken out; nil when the column's definition cannot be found.
    /// Quoted names and texts, comments and nested parentheses are read as SQLite reads them,
    /// so only the column's own definition changes.
    static func withoutNotNull(_ column: String, in create: String) -> String? {
        let text = Array(create.unicodeScalars)
        var depth = 0
        var definitionStart: Int?
        var i = 0
        func definitionNames(_ start: Int, _ end: Int) -> Bool {
            let definition = String(String.UnicodeScalarView(text[start..<end])).trimmingLeadingSpace
            guard let first = definition.unicodeScalars.first else { return false }
            let name: String
            switch first {
            case "\"", "`", "[":
                let close: Unicode.Scalar = first == "[" ? "]" : first
                var word = ""
                var scalars = Array(definition.unicodeScalars.dropFirst())[...]
                while let c = scalars.popFirst() {
                    if c == close {
                        if close != "]", scalars.first == close { word.unicodeScalars.append(c); scalars.removeFirst(); continue }
                        break
                    }
                    word.unicodeScalars.append(c)
                }
                name = word
            default:
                let word = definition.unicodeScalars.prefix { $0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0) }
                name = String(String.UnicodeScalarView(word))
            }
            return name.lowercased() == column.lowercased()
        }
        while i < text.count {
            let c = text[i]
            switch c {
            case "'", "\"", "`", "[":
                let close: Unicode.Scalar = c == "[" ? "]" : c
                i += 1
                while i < text.count {
                    if text[i] == close {
                        if close != "]", i + 1 < text.count, text[i + 1] == close { i += 2; continue }
                        break
                    }
                    i += 1
                }
            case "-" where i + 1 < text.count && text[i + 1] == "-":
                while i < text.count, text[i] != "\n" { i += 1 }
            case "/" where i + 1 < text.count && text[i + 1] == "*":
                i += 2
                while i + 1 < text.count, !(text[i] == "*" && text[i + 1] == "/") { i += 1 }
                i += 1
            case "(":
                depth += 1
                if depth == 1 { definitionStart = i + 1 }
            case ")", ",":
                if c == ")" { depth -= 1 }
                if (c == "," && depth == 1) || (c == ")" && depth == 0), let start = definitionStart {
                    if definitionNames(start, i) {
                        let head = String(String.UnicodeScalarView(text[..<start]))
                        let definition = String(String.UnicodeScalarView(text[start..<i]))
                        let tail = String(String.UnicodeScalarView(text[i...]))
                        let loosened = definition.replacingOccurrences(
                            of: #"(?i)\s+NOT\s+NULL(\s+ON\s+CONFLICT\s+[A-Z]+)?\b"#, with: "", options: .regularExpression)
                        return head + loosened + tail
                    }
                    definitionStart = c == "," ? i + 1 : nil
                }
            default:
                break
            }
            i += 1
        }
        return nil
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension String {
    fileprivate var trimmingLeadingSpace: String {
        String(String.UnicodeScalarView(unicodeScalars.drop { $0.properties.isWhitespace }))
    }
}
