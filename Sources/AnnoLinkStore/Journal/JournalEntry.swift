/// One entry of the edit journal: one edit, as `annolink log` lists it.
public struct JournalEntry: Hashable, Sendable {
    /// Whether the entry's changes are in the file.
    public enum State: String, Sendable {
        /// The edit is in effect; `undo` takes the newest such entry.
        case done
        /// The edit was undone; `redo` takes the oldest such entry.
        case undone
    }

    /// How the entry keeps its undo and redo data.
    public enum Kind: String, Sendable {
        /// A session changeset: every changed row with its values before and after.
        case ordinary
        /// Before and after images of the declared columns, or of declared spatial index
        /// entries, in image tables (bulk moves, index repairs), and a changeset of whatever
        /// else the edit changed.
        case bulk
    }

    /// The entry number, increasing, never reused (SQLite `AUTOINCREMENT`).
    public var id: Int64
    /// When the edit was made, ISO 8601 UTC with milliseconds (`2024-05-01T12:00:00.000Z`).
    public var time: String
    /// The command line as the user typed it.
    public var command: String
    /// One line in the user's words, e.g. `set Name of parcels fid 12`.
    public var summary: String
    /// Whether the edit is in effect.
    public var state: State
    /// How the undo and redo data are kept.
    public var kind: Kind
    /// The number of rows the edit inserted, updated or deleted, over all tables.
    public var rowCount: Int
    /// The tables the edit changed, in the order first changed.
    public var tables: [String]
    /// Who made the edit, when known: the user of the token `annolink serve` was given; nil
    /// for edits from the command line and for entries written before the journal kept users.
    public var user: String?

    /// Creates an entry value (the journal makes them; tests and callers may compare them).
    public init(id: Int64, time: String, command: String, summary: String, state: State, kind: Kind, rowCount: Int, tables: [String],
                user: String? = nil) {
        self.id = id
        self.time = time
        self.command = command
        self.summary = summary
        self.state = state
        self.kind = kind
        self.rowCount = rowCount
        self.tables = tables
        self.user = user
    }
}

extension JournalEntry.State: Codable {}
extension JournalEntry.Kind: Codable {}

extension JournalEntry: Codable {
    /// The keys of an entry in `log --json`, `undo --json` and `redo --json`.
    enum CodingKeys: String, CodingKey {
        case id, time, state, kind, summary, command
        case rowCount = "rows"
        case tables, user
    }
}
