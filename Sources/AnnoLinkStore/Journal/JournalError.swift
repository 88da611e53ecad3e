/// Why the journal refused an undo, a redo or a recording, in the user's words.
public enum JournalError: Error, Equatable, Sendable {
    /// Which way the journal was going.
    public enum Action: String, Sendable {
        /// Reverting an entry.
        case undo
        /// Re-applying an undone entry.
        case redo
    }

    /// No entry is in effect: the journal is empty or every entry is undone.
    case nothingToUndo
    /// No entry is undone, or a newer edit discarded the undone ones.
    case nothingToRedo
    /// A row the entry changed was changed again since (by an edit outside the journal, or by
    /// another tool): undoing or redoing would overwrite that change, so nothing was done.
    /// `fid` is the row's integer primary key when the table has one; `reason` says what
    /// changed, e.g. `was changed after edit #5 (Name is 'Oak St' now; edit #5 left 'Elm St')`.
    case conflict(action: Action, entry: Int64, table: String, fid: Int64?, reason: String)
    /// The entry's undo data is missing or unreadable.
    case corrupt(entry: Int64, reason: String)
    /// A bulk entry could not record the change: a table without an integer primary key, an
    /// unknown column, a table declared twice or after it was changed, rows inserted or deleted
    /// in a declared table. Nothing was changed.
    case unsupportedBulkChange(table: String, reason: String)
}

extension JournalError: CustomStringConvertible {
    /// One line for the user, without the `error:` prefix the command line adds.
    public var description: String {
        switch self {
        case .nothingToUndo:
            "nothing to undo: every edit in the journal is undone already, or there is none"
        case .nothingToRedo:
            "nothing to redo: no edit was undone since the last edit"
        case .conflict(let action, _, let table, let fid, let reason):
            if let fid {
                "\(action.rawValue) refused: \(table) fid \(fid) \(reason)"
            } else if table.isEmpty {
                "\(action.rawValue) refused: \(reason)"
            } else {
                "\(action.rawValue) refused: \(table) \(reason)"
            }
        case .corrupt(let entry, let reason):
            "journal entry #\(entry) cannot be used: \(reason)"
        case .unsupportedBulkChange(let table, let reason):
            "cannot record the bulk change of \(table): \(reason); nothing was changed"
        }
    }
}
