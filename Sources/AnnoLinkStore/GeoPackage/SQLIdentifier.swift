import Foundation

/// Quotes `name` as an SQL identifier ("name", with embedded quotes doubled), so that table and
/// column names from users and files can never change the meaning of a statement.
public func quoteIdentifier(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

/// Quotes `text` as an SQL string literal ('text', with embedded quotes doubled). Only for DDL,
/// where parameters cannot be bound (trigger bodies).
func quoteLiteral(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
}
