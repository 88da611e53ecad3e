import AnnoLinkStore

extension EditService {
    /// Runs `body`, which runs several edit requests, as one transaction recorded as one
    /// journal entry: every request inside joins it (`Journal.record` nests), so either all
    /// of them are kept or, when `body` throws, none is and no entry is written. What an
    /// HTTP `applyEdits` with `rollbackOnFailure=true` needs.
    ///
    /// - Returns: what `body` returned and the journal entry (nil when nothing changed).
    /// - Throws: whatever `body` throws (the store is then as it was), the store's errors.
    public func inOneTransaction<T>(command: String, summary: String, _ body: () throws -> T) throws -> (value: T, journalEntry: Int64?) {
        let recorded = try journal().recordEdit(command: command, summary: summary, body)
        return (recorded.value, recorded.entry)
    }
}
