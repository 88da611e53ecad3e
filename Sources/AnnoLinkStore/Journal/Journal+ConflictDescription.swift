extension Journal {
    // MARK: Describing conflicts

    /// "after edit #5" or "after edit #5 was undone".
    static func since(_ entry: Int64, _ action: JournalError.Action) -> String {
        action == .undo ? "after edit #\(entry)" : "after edit #\(entry) was undone"
    }

    func conflictError(_ conflict: ChangesetConflict, entry: Int64, action: JournalError.Action) throws -> JournalError {
        let when = Self.since(entry, action)
        var fid: Int64?
        var prefix = ""
        if conflict.primaryKey.count == 1, case .integer(let value) = conflict.primaryKey[0] {
            fid = value
        } else if !conflict.primaryKey.isEmpty {
            prefix = "row (\(conflict.primaryKey.map(Self.describe).joined(separator: ", "))) "
        }
        let reason: String
        switch conflict.kind {
        case .data:
            let columns = try connection.rows("SELECT name FROM pragma_table_info(?) ORDER BY cid", [.text(conflict.table)]).compactMap { $0[0].textValue }
            reason = "was changed \(when)\(detail(conflict.difference, columns: columns, entry: entry, action: action))"
        case .notFound:
            reason = "was deleted \(when)"
        case .conflict:
            reason = action == .undo ? "exists again: it was added \(when), which deleted it" : "was added again \(when)"
        case .constraint:
            reason = "cannot be written back: it would break a NOT NULL, UNIQUE or CHECK constraint of the table as it is now"
        case .foreignKey(let violations):
            reason = "it would leave \(violations) foreign key reference\(violations == 1 ? "" : "s") broken"
        }
        return .conflict(action: action, entry: entry, table: conflict.table, fid: fid, reason: prefix + reason)
    }

    /// " (Name is 'Oak St' now; edit #5 left 'Elm St')", or "" without a known difference.
    func detail(_ difference: ChangesetConflict.Difference?, columns: [String], entry: Int64, action: JournalError.Action) -> String {
        guard let difference, difference.column < columns.count else { return "" }
        let column = columns[difference.column]
        let left = action == .undo ? "edit #\(entry) left" : "its undo left"
        if case .blob = difference.found {
            return " (its \(column) is not the one \(left))"
        }
        if case .blob = difference.expected {
            return " (its \(column) is not the one \(left))"
        }
        return " (\(column) is \(Self.describe(difference.found)) now; \(left) \(Self.describe(difference.expected)))"
    }

    static func describe(_ value: SQLValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let v): String(v)
        case .real(let v): String(v)
        case .text(let s): "'" + (s.count > 40 ? s.prefix(40) + "…" : s) + "'"
        case .blob(let b): "\(b.count) bytes"
        }
    }
}
