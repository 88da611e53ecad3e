/// Quotes `name` as an SQL identifier ("name", with embedded quotes doubled), so that table and
/// column names from users and files can never change the meaning of a statement.
public func quoteIdentifier(_ name: String) -> String {
    quote(name, with: "\"")
}

/// Quotes `text` as an SQL string literal ('text', with embedded quotes doubled), for the
/// statements annolink writes into a file's schema (trigger bodies), where no value can be bound.
public func quoteString(_ text: String) -> String {
    quote(text, with: "'")
}

/// `text` between two `mark`s, each `mark` inside doubled. Written without Foundation: it runs
/// for every statement an edit builds, and `replacingOccurrences` was a sixth of a bulk move.
private func quote(_ text: String, with mark: Character) -> String {
    var result = String(mark)
    result.reserveCapacity(text.utf8.count + 2)
    for character in text {
        result.append(character)
        if character == mark { result.append(mark) }
    }
    result.append(mark)
    return result
}
