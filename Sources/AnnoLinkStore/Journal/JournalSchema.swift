/// The tables of the edit journal, registered in `gpkg_extensions` under annolink's extension
/// like the annotation registry (docs/format.md, docs/journal.md).
enum JournalSchema {
    static let table = "annolink_journal"
    static let imagesTable = "annolink_journal_images"
    /// Every table of the journal, image tables included, starts with this; the session never
    /// records them.
    static let prefix = "annolink_journal"
    static let extensionDefinition = "https://github.com/annolink/annolink/blob/main/docs/format.md#edit-journal"

    /// The entries, oldest first. Undone entries always follow every done one: undo takes the
    /// newest done entry, redo the oldest undone one, and a new entry discards the undone ones.
    static let entries = """
        CREATE TABLE annolink_journal (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          time TEXT NOT NULL,
          command TEXT NOT NULL,
          summary TEXT NOT NULL,
          state TEXT NOT NULL CHECK (state IN ('done', 'undone')),
          kind TEXT NOT NULL CHECK (kind IN ('ordinary', 'bulk')),
          row_count INTEGER NOT NULL,
          tables TEXT NOT NULL,
          changeset BLOB,
          user TEXT)
        """

    /// Whether `annolink_journal` has the `user` column (journals made before `annolink serve`
    /// have not; the first entry with a user adds it).
    static func hasUserColumn(on connection: Connection) throws -> Bool {
        try connection.scalarInt("SELECT count(*) FROM pragma_table_info('annolink_journal') WHERE name = 'user'") == 1
    }

    /// Adds the `user` column to a journal made before it existed. Runs inside the caller's
    /// transaction; earlier entries have no user (NULL).
    static func addUserColumn(on connection: Connection) throws {
        guard try !hasUserColumn(on: connection) else { return }
        try connection.execute("ALTER TABLE annolink_journal ADD COLUMN user TEXT")
    }

    /// The before and after images of a bulk entry: one row per table it changed.
    static let images = """
        CREATE TABLE annolink_journal_images (
          entry_id INTEGER NOT NULL,
          sequence INTEGER NOT NULL,
          table_name TEXT NOT NULL,
          before_table TEXT NOT NULL,
          after_table TEXT NOT NULL,
          row_count INTEGER NOT NULL,
          PRIMARY KEY (entry_id, sequence))
        """

    static let movesTable = "annolink_journal_moves"

    /// The move images of bulk entries (`MoveImage`): one row per table whose rows an entry
    /// moved by a vector. Made with the journal, or by the first move of a journal made before.
    static let moves = """
        CREATE TABLE annolink_journal_moves (
          entry_id INTEGER NOT NULL,
          sequence INTEGER NOT NULL,
          table_name TEXT NOT NULL,
          columns TEXT NOT NULL,
          dx REAL NOT NULL,
          dy REAL NOT NULL,
          row_count INTEGER NOT NULL,
          keys BLOB NOT NULL,
          before_digests BLOB NOT NULL,
          after_digests BLOB NOT NULL,
          exceptions_before TEXT NOT NULL,
          exceptions_after TEXT NOT NULL,
          exception_count INTEGER NOT NULL,
          PRIMARY KEY (entry_id, sequence))
        """

    static let checksumsTable = "annolink_journal_checksums"

    /// The checksum of each entry written since checksums were kept (`Journal.seal`), checked
    /// before the entry is undone or redone. Made with the journal, or by the first entry of a
    /// journal made before.
    static let checksums = """
        CREATE TABLE annolink_journal_checksums (
          entry_id INTEGER PRIMARY KEY,
          checksum INTEGER NOT NULL)
        """

    /// Whether `annolink_journal_checksums` exists.
    static func hasChecksums(on connection: Connection) throws -> Bool {
        try connection.hasTable(checksumsTable)
    }

    /// Creates `annolink_journal_checksums` when it is missing.
    static func createChecksums(on connection: Connection) throws {
        guard try !hasChecksums(on: connection) else { return }
        try connection.execute(checksums)
        try register(checksumsTable, on: connection)
    }

    /// Whether `annolink_journal_moves` exists.
    static func hasMoves(on connection: Connection) throws -> Bool {
        try connection.hasTable(movesTable)
    }

    /// Creates `annolink_journal_moves` when it is missing.
    static func createMoves(on connection: Connection) throws {
        guard try !hasMoves(on: connection) else { return }
        try connection.execute(moves)
        try register(movesTable, on: connection)
    }

    /// The name of an image table of entry `entry`: `annolink_journal_<entry>_<sequence>_before`
    /// or `_after`.
    static func imageTable(entry: Int64, sequence: Int, phase: String) -> String {
        "\(prefix)_\(entry)_\(sequence)_\(phase)"
    }

    /// Whether the journal tables exist.
    static func exists(on connection: Connection) throws -> Bool {
        try connection.hasTable(table)
    }

    /// Creates both tables and registers them. Runs inside the caller's transaction.
    static func create(on connection: Connection) throws {
        try connection.execute(entries)
        try connection.execute(images)
        try connection.execute(moves)
        try connection.execute(checksums)
        for name in [table, imagesTable, movesTable, checksumsTable] { try register(name, on: connection) }
    }

    /// Adds `name` to `gpkg_extensions` as a table of annolink's extension.
    static func register(_ name: String, on connection: Connection) throws {
        try connection.run("""
            INSERT OR IGNORE INTO gpkg_extensions (table_name, column_name, extension_name, definition, scope)
            VALUES (?, NULL, ?, ?, 'write-only')
            """, [.text(name), .text(AnnotationSchema.extensionName), .text(extensionDefinition)])
    }

    /// Whether the session records changes of `table`: not the journal's own tables, and not
    /// the shadow tables of the R-trees (`rtree_<t>_<c>_node`, `_parent`, `_rowid`), which the
    /// R-tree triggers keep in step when a changeset is applied to the feature tables.
    static func isRecorded(_ table: String) -> Bool {
        let name = table.lowercased()
        if name.hasPrefix(prefix) { return false }
        if name.hasPrefix("rtree_"), name.hasSuffix("_node") || name.hasSuffix("_parent") || name.hasSuffix("_rowid") { return false }
        return true
    }
}
