/// Builds a whole SQLite R-tree at once by writing its shadow tables, instead of inserting the
/// entries one by one through the rtree module.
///
/// Inserting a million boxes through the module takes about 20 s on the project's machines (the
/// R*-tree's forced reinsertion and node splits); packing them with Sort-Tile-Recursive and
/// writing the `_node`, `_parent` and `_rowid` tables directly takes a small fraction of that
/// (docs/spatial-index.md has the figures). The result is an ordinary rtree: the module reads,
/// inserts, updates and deletes in it afterwards as in one it built itself, and `rtreecheck()`
/// reports "ok".
public enum RTreeBulkLoader {
    /// Replaces the whole content of the rtree virtual table `rtreeTable` with `entries`.
    ///
    /// The table must be a two-dimensional `rtree` (32-bit float coordinates, no auxiliary
    /// columns), such as a GeoPackage spatial index `rtree_<t>_<column>`, in the main database.
    /// Boxes are stored rounded outward to 32-bit floats exactly as the module rounds them on
    /// `INSERT`. The work runs in `connection.write`: in the caller's transaction (as a
    /// savepoint) when one is open, in its own otherwise; on any error the table is unchanged.
    /// Defensive mode, which forbids writing shadow tables, is switched off for the load and
    /// back on afterwards.
    ///
    /// No statement reading `rtreeTable` may be stepping on `connection` during the load (its
    /// rows would change under it). Statements prepared before the load see the new content.
    ///
    /// - Throws: `RTreeBulkLoadError` for an unknown or unsupported table, a non-finite
    ///   coordinate, a minimum above its maximum or a repeated id (checked before anything is
    ///   written); `SQLiteError` when SQLite fails.
    /// - Complexity: O(n) time and about 70 bytes of memory per entry besides `entries`, plus
    ///   a sort of the ids (O(n log n)) when they are not in ascending order already.
    public static func load(into rtreeTable: String, on connection: Connection, entries: [RTreeEntry]) throws {
        let rowidOrder = try RTreeRowidOrder(entries)
        let wasDefensive = try connection.isDefensive()
        if wasDefensive { try connection.setDefensive(false) }
        defer { if wasDefensive { try? connection.setDefensive(true) } }

        try connection.write {
            let table = try RTreeShadowTables(named: rtreeTable, on: connection)
            let packing = try RTreePacking(entries: entries, nodeSize: table.nodeSize)
            try write(packing, rowidOrder: rowidOrder, entries: entries, into: table, on: connection)
        }
    }

    private static func write(
        _ packing: RTreePacking, rowidOrder: RTreeRowidOrder, entries: [RTreeEntry], into table: RTreeShadowTables,
        on connection: Connection
    ) throws {
        // Without a WHERE clause SQLite truncates each table instead of deleting row by row.
        try connection.execute("DELETE FROM \(table.node); DELETE FROM \(table.parent); DELETE FROM \(table.rowid)")

        let insertNode = try connection.prepareUncached("INSERT INTO \(table.node)(nodeno, data) VALUES (?1, ?2)")
        try packing.nodes.withUnsafeBytes { bytes in
            for node in 1...packing.nodeCount {
                let blob = UnsafeRawBufferPointer(rebasing: bytes[((node - 1) * packing.nodeSize)..<(node * packing.nodeSize)])
                try insertNode.bind(Int64(node), at: 1)
                try insertNode.bind(blob: blob, at: 2)
                _ = try insertNode.step()
                insertNode.reset()
            }
        }

        if packing.nodeCount > 1 {
            try insertPairs(into: table.parent, columns: "nodeno, parentnode", count: packing.nodeCount - 1, on: connection) {
                (Int64($0 + 2), packing.parents[$0 + 2])
            }
        }

        switch rowidOrder {
        case .arrayOrder:
            try insertPairs(into: table.rowid, columns: "rowid, nodeno", count: entries.count, on: connection) {
                (entries[$0].id, Int64(packing.leafOfEntry[$0]))
            }
        case .sorted(let order):
            try insertPairs(into: table.rowid, columns: "rowid, nodeno", count: entries.count, on: connection) {
                let index = Int(order[$0])
                return (entries[index].id, Int64(packing.leafOfEntry[index]))
            }
        }
    }

    /// Rows per INSERT statement when writing `_parent` and `_rowid`: one statement per row
    /// spends most of its time starting the statement.
    static let rowsPerInsert = 100

    /// Inserts `count` rows of two integers, `row(0)` to `row(count − 1)`, in that order.
    private static func insertPairs(into table: String, columns: String, count: Int, on connection: Connection, row: (Int) -> (Int64, Int64)) throws {
        func insertStatement(rows: Int) throws -> Statement {
            let values = (0..<rows).map { "(?\(2 * $0 + 1), ?\(2 * $0 + 2))" }.joined(separator: ", ")
            return try connection.prepareUncached("INSERT INTO \(table)(\(columns)) VALUES \(values)")
        }
        var next = 0
        if count >= rowsPerInsert {
            let batch = try insertStatement(rows: rowsPerInsert)
            while count - next >= rowsPerInsert {
                for i in 0..<rowsPerInsert {
                    let (a, b) = row(next + i)
                    try batch.bind(a, at: 2 * i + 1)
                    try batch.bind(b, at: 2 * i + 2)
                }
                _ = try batch.step()
                batch.reset()
                next += rowsPerInsert
            }
        }
        if next < count {
            let rest = try insertStatement(rows: count - next)
            for i in 0..<(count - next) {
                let (a, b) = row(next + i)
                try rest.bind(a, at: 2 * i + 1)
                try rest.bind(b, at: 2 * i + 2)
            }
            _ = try rest.step()
        }
    }
}

/// The names and node size of an rtree's shadow tables, checked against the module's layout.
struct RTreeShadowTables {
    /// The quoted names of `<name>_node`, `<name>_parent` and `<name>_rowid`.
    let node: String
    let parent: String
    let rowid: String
    /// The size of every node blob: the module takes it from the root node's length when it
    /// connects to an existing table (`getNodeSize` in rtree.c), so it is read the same way.
    let nodeSize: Int

    init(named requested: String, on connection: Connection) throws {
        let rows = try connection.rows(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name = ?1 COLLATE NOCASE",
            [.text(requested)])
        guard let row = rows.first, let name = row[0].textValue else { throw RTreeBulkLoadError.unknownTable(requested) }
        func unsupported(_ reason: String) -> RTreeBulkLoadError { .unsupportedTable(name, reason: reason) }

        guard let sql = row[1].textValue, let module = Self.moduleName(in: sql) else {
            throw unsupported("it is not a virtual table")
        }
        guard module == "rtree" else { throw unsupported("its module is \(module), not rtree") }
        let columns = try connection.scalarInt("SELECT count(*) FROM pragma_table_info(?1)", [.text(name)]) ?? 0
        guard columns == 5 else {
            throw unsupported("it has \(columns) columns; only two-dimensional rtrees without auxiliary columns are supported")
        }
        // The module names its shadow tables after the table as declared, which is the name
        // sqlite_master holds.
        for (suffix, expected) in [("_node", 2), ("_parent", 2), ("_rowid", 2)] {
            let count = try connection.scalarInt("SELECT count(*) FROM pragma_table_info(?1)", [.text(name + suffix)]) ?? 0
            guard count == expected else {
                throw unsupported(
                    count == 0
                        ? "its shadow table \(name + suffix) is missing"
                        : "its shadow table \(name + suffix) has \(count) columns, not \(expected)")
            }
        }
        node = quoteIdentifier(name + "_node")
        parent = quoteIdentifier(name + "_parent")
        rowid = quoteIdentifier(name + "_rowid")
        guard let size = try connection.scalarInt("SELECT length(data) FROM \(node) WHERE nodeno = 1") else {
            throw unsupported("its root node is missing")
        }
        guard size >= 448, size <= 65_536 else { throw unsupported("its root node is \(size) bytes long") }
        nodeSize = Int(size)
    }

    /// The module name of a `CREATE VIRTUAL TABLE … USING module(…)` statement, lowercased, or
    /// nil for another statement.
    static func moduleName(in sql: String) -> String? {
        let words = sql.split(whereSeparator: { $0.isWhitespace || $0 == "(" })
        guard words.count >= 2, words[0].lowercased() == "create", words[1].lowercased() == "virtual",
              let using = words.firstIndex(where: { $0.lowercased() == "using" }), using + 1 < words.count
        else { return nil }
        let quotes: Set<Character> = ["\"", "'", "`", "[", "]"]
        return String(words[using + 1].filter { !quotes.contains($0) }).lowercased()
    }
}
