extension Journal {
    // MARK: Undo and redo

    /// Reverts the newest entry that is done, in one transaction, and marks it undone.
    ///
    /// Ordinary entries apply the inverted changeset (the R-tree triggers keep the spatial index
    /// in step); bulk entries check the after-images and write the before-images back, with the
    /// spatial index rebuilt in one pass when many rows move (docs/journal.md).
    ///
    /// - Returns: the entry, now undone.
    /// - Throws: `JournalError.nothingToUndo`; `JournalError.conflict` when a row the entry
    ///   changed was changed since, or a table it changed is gone (nothing is changed then);
    ///   `JournalError.corrupt` when its undo data cannot be read or its checksum does not match.
    public func undo() throws -> JournalEntry {
        try connection.write {
            guard try hasSchema(), let stored = try storedEntry(where: "state = 'done' ORDER BY id DESC LIMIT 1") else {
                throw JournalError.nothingToUndo
            }
            try verify(stored.entry.id)
            try apply(stored, action: .undo)
            try connection.run("UPDATE annolink_journal SET state = 'undone' WHERE id = ?", [.integer(stored.entry.id)])
            var entry = stored.entry
            entry.state = .undone
            return entry
        }
    }

    /// Re-applies the entry undone last (the oldest undone entry), in one transaction, and
    /// marks it done.
    ///
    /// - Returns: the entry, now done.
    /// - Throws: `JournalError.nothingToRedo`; `JournalError.conflict` when a row the entry
    ///   changed was changed after it was undone (nothing is changed then);
    ///   `JournalError.corrupt`.
    public func redo() throws -> JournalEntry {
        try connection.write {
            guard try hasSchema(), let stored = try storedEntry(where: """
                id > coalesce((SELECT id FROM annolink_journal WHERE state = 'done' ORDER BY id DESC LIMIT 1), 0)
                ORDER BY id LIMIT 1
                """), stored.entry.state == .undone else {
                throw JournalError.nothingToRedo
            }
            try verify(stored.entry.id)
            try apply(stored, action: .redo)
            try connection.run("UPDATE annolink_journal SET state = 'done' WHERE id = ?", [.integer(stored.entry.id)])
            var entry = stored.entry
            entry.state = .done
            return entry
        }
    }
}
