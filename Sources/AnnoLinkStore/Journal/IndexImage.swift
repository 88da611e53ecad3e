/// The before and after state of chosen entries of one spatial index, for an edit that changes
/// an R-tree other than through its feature table's triggers (a repair that rebuilds a broken
/// index).
///
/// Sessions never record the R-tree virtual tables: applying a changeset to a feature table
/// fires the triggers, which keep the index right for every row the changeset touches. An index
/// that was *wrong* before the edit cannot come back that way. So the edit declares the ids
/// whose entries it will set right; their entries (present with a box, or absent) are copied
/// into one image table, `annolink_journal_<entry>_<sequence>_index`, before the change and
/// again at the end of the entry. Undo writes the before state of those ids back into the
/// R-tree after the changeset is applied; redo writes the after state. Every step is one SQL
/// statement; boxes are kept as the R-tree returns them (32-bit floats widened to doubles), so
/// writing them back stores the same floats.
struct IndexImage {
    /// The registry of index images: one row per declared spatial index of an entry.
    static let registry = "annolink_journal_indexes"

    static let registrySQL = """
        CREATE TABLE IF NOT EXISTS annolink_journal_indexes (
          entry_id INTEGER NOT NULL,
          sequence INTEGER NOT NULL,
          table_name TEXT NOT NULL,
          rtree_table TEXT NOT NULL,
          image_table TEXT NOT NULL,
          row_count INTEGER NOT NULL,
          PRIMARY KEY (entry_id, sequence))
        """

    /// Which state of the image an operation means.
    enum Phase: String {
        case before, after
    }

    var entry: Int64
    var sequence: Int
    /// The feature table the index belongs to.
    var table: String
    /// The R-tree virtual table, `rtree_<table>_<column>`.
    var rtree: String
    var imageTable: String
    /// The number of ids declared.
    var rowCount: Int

    private var quotedImage: String { quoteIdentifier(imageTable) }
    private var quotedRTree: String { quoteIdentifier(rtree) }

    /// Creates the image table for `ids` of `table`'s spatial index, copies their entries as
    /// they are now (the before state), and records the image in the registry.
    static func capture(_ table: FeatureTable, ids: some Sequence<Int64>, entry: Int64, sequence: Int, on connection: Connection) throws -> IndexImage {
        var image = IndexImage(
            entry: entry, sequence: sequence, table: table.name, rtree: table.spatialIndexName,
            imageTable: JournalSchema.imageTable(entry: entry, sequence: sequence, phase: "index"), rowCount: 0)
        try connection.execute(registrySQL)
        try JournalSchema.register(registry, on: connection)
        let columns = [Phase.before, .after].map { p in
            ["present", "minx", "maxx", "miny", "maxy"].map { "\(p.rawValue)_\($0)" }.joined(separator: ", ")
        }.joined(separator: ", ")
        try connection.execute("CREATE TABLE \(image.quotedImage) (id INTEGER PRIMARY KEY, \(columns))")
        try JournalSchema.register(image.imageTable, on: connection)
        let insert = try connection.prepareUncached("INSERT OR IGNORE INTO \(image.quotedImage) (id) VALUES (?)")
        for id in ids {
            insert.reset()
            try insert.bind(id, at: 1)
            while try insert.step() {}
        }
        image.rowCount = Int(try connection.scalarInt("SELECT count(*) FROM \(image.quotedImage)") ?? 0)
        try image.copyIndex(into: .before, on: connection)
        try connection.run("""
            INSERT INTO annolink_journal_indexes (entry_id, sequence, table_name, rtree_table, image_table, row_count)
            VALUES (?, ?, ?, ?, ?, ?)
            """, [.integer(entry), .integer(Int64(sequence)), .text(table.name), .text(image.rtree), .text(image.imageTable), .integer(Int64(image.rowCount))])
        return image
    }

    /// Copies the current entries of the declared ids into the columns of `phase`: present 1
    /// with the box, or present 0 when the index has no entry for the id.
    func copyIndex(into phase: Phase, on connection: Connection) throws {
        let p = phase.rawValue
        try connection.execute("""
            UPDATE \(quotedImage) SET \(p)_present = 0, \(p)_minx = NULL, \(p)_maxx = NULL, \(p)_miny = NULL, \(p)_maxy = NULL;
            UPDATE \(quotedImage) SET \(p)_present = 1, \(p)_minx = r.minx, \(p)_maxx = r.maxx, \(p)_miny = r.miny, \(p)_maxy = r.maxy
              FROM \(quotedRTree) AS r WHERE r.id = \(quotedImage).id;
            """)
    }

    /// The first declared id whose entry is not as `phase` says (the after state for an undo,
    /// the before state for a redo), or nil when all are.
    func firstDifference(from phase: Phase, on connection: Connection) throws -> Int64? {
        let p = phase.rawValue
        return try connection.scalarInt("""
            SELECT i.id FROM \(quotedImage) AS i LEFT JOIN \(quotedRTree) AS r ON r.id = i.id
            WHERE (r.id IS NULL) != (i.\(p)_present = 0)
               OR (r.id IS NOT NULL AND (r.minx IS NOT i.\(p)_minx OR r.maxx IS NOT i.\(p)_maxx OR r.miny IS NOT i.\(p)_miny OR r.maxy IS NOT i.\(p)_maxy))
            ORDER BY i.id LIMIT 1
            """)
    }

    /// Writes the entries of `phase` back into the R-tree: absent ids are deleted, present
    /// ones inserted or replaced with their box.
    func restore(_ phase: Phase, on connection: Connection) throws {
        let p = phase.rawValue
        try connection.execute("""
            DELETE FROM \(quotedRTree) WHERE id IN (SELECT id FROM \(quotedImage) WHERE \(p)_present = 0);
            INSERT OR REPLACE INTO \(quotedRTree) (id, minx, maxx, miny, maxy)
              SELECT id, \(p)_minx, \(p)_maxx, \(p)_miny, \(p)_maxy FROM \(quotedImage) WHERE \(p)_present = 1;
            """)
    }

    /// The index images of `entry`, in the order they were taken; none when the file has no
    /// index images at all.
    ///
    /// - Throws: `JournalError.corrupt` when an image table is missing.
    static func load(entry: Int64, on connection: Connection) throws -> [IndexImage] {
        guard try exists(on: connection) else { return [] }
        return try connection.rows("""
            SELECT sequence, table_name, rtree_table, image_table, row_count FROM annolink_journal_indexes
            WHERE entry_id = ? ORDER BY sequence
            """, [.integer(entry)]).map { row in
            guard let sequence = row[0].integerValue, let table = row[1].textValue, let rtree = row[2].textValue,
                  let image = row[3].textValue, let count = row[4].integerValue else {
                throw JournalError.corrupt(entry: entry, reason: "a row of annolink_journal_indexes cannot be read")
            }
            guard try connection.hasTable(image) else {
                throw JournalError.corrupt(entry: entry, reason: "its index image table \(image) is missing")
            }
            return IndexImage(entry: entry, sequence: Int(sequence), table: table, rtree: rtree, imageTable: image, rowCount: Int(count))
        }
    }

    /// Whether the file has the index image registry.
    static func exists(on connection: Connection) throws -> Bool {
        try connection.hasTable(registry)
    }

    /// Drops the index images of the entries `condition` selects (an SQL condition on
    /// `entry_id`), with their registry and `gpkg_extensions` rows.
    static func drop(entriesWhere condition: String, on connection: Connection) throws {
        guard try exists(on: connection) else { return }
        let images = try connection.rows("SELECT image_table FROM annolink_journal_indexes WHERE \(condition)").compactMap { $0[0].textValue }
        for name in images {
            try connection.execute("DROP TABLE IF EXISTS \(quoteIdentifier(name))")
            try connection.run("DELETE FROM gpkg_extensions WHERE table_name = ? AND extension_name = ?", [.text(name), .text(AnnotationSchema.extensionName)])
        }
        try connection.execute("DELETE FROM annolink_journal_indexes WHERE \(condition)")
    }
}
