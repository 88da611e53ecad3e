@testable import AnnoLinkStore
import AnnoLinkTestSupport
import Foundation
import Testing

// The oracle for every check below is SQLite's own rtree module: a reference table `ref` gets
// the same entries through ordinary INSERTs, and its content (the module's float rounding) is
// copied to a plain table `plain`, which is then scanned by brute force with the same WHERE
// clause the R-tree answers.

@Suite struct RTreeBulkLoaderTests {

    @Test("loads and answers window queries like the module", arguments: [0, 1, 51, 52, 10_000, 200_000])
    func loadsSizes(count: Int) throws {
        let db = try ScratchDatabase()
        let entries = Fixture.randomEntries(count: count, seed: UInt64(count) + 1)
        try db.createRTree("rt")
        try RTreeBulkLoader.load(into: "rt", on: db.connection, entries: entries)
        try db.expectMatchesModule("rt", entries: entries, windows: 150)
        try db.expectWellFormedNodes("rt", nodeSize: 1228, capacity: 51, count: count)
    }

    /// The module makes nodes of min(page size − 64, 4 + 24 × 51) bytes, and takes the size of
    /// an existing table's nodes from its root.
    @Test("node size follows the page size the table was created with", arguments: [(512, 448, 18), (1024, 960, 39), (8192, 1228, 51)])
    func nodeSizeFromRoot(pageSize: Int, nodeSize: Int, capacity: Int) throws {
        let db = try ScratchDatabase(pageSize: pageSize)
        try db.createRTree("rt")
        #expect(try db.connection.scalarInt("PRAGMA page_size") == Int64(pageSize))
        #expect(try db.connection.scalarInt("SELECT length(data) FROM rt_node WHERE nodeno = 1") == Int64(nodeSize))
        for count in [capacity, capacity + 1, 5_000] {
            let entries = Fixture.randomEntries(count: count, seed: UInt64(count))
            try RTreeBulkLoader.load(into: "rt", on: db.connection, entries: entries)
            try db.expectMatchesModule("rt", entries: entries, windows: 40)
            try db.expectWellFormedNodes("rt", nodeSize: nodeSize, capacity: capacity, count: count)
        }
    }

    @Test("the module keeps working on a loaded tree: insert, update, delete")
    func moduleWritesAfterLoad() throws {
        let db = try ScratchDatabase()
        let entries = Fixture.randomEntries(count: 10_000, seed: 7)
        try db.createRTree("rt")
        try RTreeBulkLoader.load(into: "rt", on: db.connection, entries: entries)
        try db.createReference(entries)

        var random = SplitMix64(seed: 99)
        let inserted = (0..<2_000).map { i in
            let box = Fixture.randomBox(&random)
            return RTreeEntry(id: 5_000_000 + Int64(i), minX: box.minX, maxX: box.maxX, minY: box.minY, maxY: box.maxY)
        }
        let updated = entries[2_000..<4_000].map { entry in
            let box = Fixture.randomBox(&random)
            return RTreeEntry(id: entry.id, minX: box.minX, maxX: box.maxX, minY: box.minY, maxY: box.maxY)
        }
        let deleted = entries.suffix(2_000).map(\.id)
        try db.connection.write {
            for table in ["rt", "ref"] {
                for e in inserted {
                    try db.connection.run("INSERT INTO \(table) VALUES (?1, ?2, ?3, ?4, ?5)",
                                          [.integer(e.id), .real(e.minX), .real(e.maxX), .real(e.minY), .real(e.maxY)])
                }
                for e in updated {
                    try db.connection.run("UPDATE \(table) SET minx = ?2, maxx = ?3, miny = ?4, maxy = ?5 WHERE id = ?1",
                                          [.integer(e.id), .real(e.minX), .real(e.maxX), .real(e.minY), .real(e.maxY)])
                }
                for id in deleted {
                    try db.connection.run("DELETE FROM \(table) WHERE id = ?1", [.integer(id)])
                }
            }
        }
        try db.copyReferenceToPlain()
        #expect(try db.connection.scalarText("SELECT rtreecheck('rt')") == "ok")
        #expect(try db.connection.scalarInt("SELECT count(*) FROM rt") == 10_000)
        try db.expectSameContent("rt")
        try db.expectSameWindows("rt", windows: 100, seed: 5)
    }

    @Test("the same connection sees the loaded tree at once, inside and after the transaction")
    func sameConnectionNoStaleState() throws {
        let db = try ScratchDatabase()
        try db.createRTree("rt")
        let before = Fixture.randomEntries(count: 300, seed: 1)
        let after = Fixture.randomEntries(count: 5_000, seed: 2)
        let window = "SELECT id FROM rt WHERE minx <= ?1 AND maxx >= ?2 AND miny <= ?3 AND maxy >= ?4"
        try db.connection.write {
            // Touch the module first: it opens its blob handle on rt_node and holds it until
            // the transaction ends.
            for entry in before {
                try db.connection.run("INSERT INTO rt VALUES (?1, ?2, ?3, ?4, ?5)",
                                      [.integer(entry.id), .real(entry.minX), .real(entry.maxX), .real(entry.minY), .real(entry.maxY)])
            }
            _ = try db.connection.rows(window, [.real(60_000), .real(40_000), .real(60_000), .real(40_000)])
            #expect(try db.connection.scalarInt("SELECT count(*) FROM rt") == 300)

            try RTreeBulkLoader.load(into: "rt", on: db.connection, entries: after)

            #expect(try db.connection.scalarInt("SELECT count(*) FROM rt") == 5_000)
            #expect(try db.connection.scalarInt("SELECT count(*) FROM rt WHERE id = ?1", [.integer(before[0].id)])
                == (after.contains { $0.id == before[0].id } ? 1 : 0))
            try db.connection.run("INSERT INTO rt VALUES (?1, 1, 2, 3, 4)", [.integer(9_999_999)])
            #expect(try db.connection.scalarText("SELECT rtreecheck('rt')") == "ok")
        }
        try db.connection.run("DELETE FROM rt WHERE id = ?1", [.integer(9_999_999)])
        try db.expectMatchesModule("rt", entries: after, windows: 60)
    }

    @Test("a load runs inside the caller's transaction and rolls back with it")
    func callerTransaction() throws {
        let db = try ScratchDatabase()
        try db.createRTree("rt")
        try db.connection.execute("CREATE TABLE note(text)")
        let first = Fixture.randomEntries(count: 1_000, seed: 3)
        try RTreeBulkLoader.load(into: "rt", on: db.connection, entries: first)
        let snapshot = try db.content("rt")

        struct Abandon: Error {}
        #expect(throws: Abandon.self) {
            try db.connection.write {
                try db.connection.run("INSERT INTO note VALUES ('x')")
                try RTreeBulkLoader.load(into: "rt", on: db.connection, entries: Fixture.randomEntries(count: 2_000, seed: 4))
                #expect(try db.connection.scalarInt("SELECT count(*) FROM rt") == 2_000)
                throw Abandon()
            }
        }
        #expect(try db.connection.scalarInt("SELECT count(*) FROM note") == 0)
        #expect(try db.content("rt") == snapshot)
        #expect(try db.connection.scalarText("SELECT rtreecheck('rt')") == "ok")

        try db.connection.write {
            try db.connection.run("INSERT INTO note VALUES ('y')")
            try RTreeBulkLoader.load(into: "rt", on: db.connection, entries: Fixture.randomEntries(count: 2_000, seed: 4))
        }
        #expect(try db.connection.scalarInt("SELECT count(*) FROM note") == 1)
        #expect(try db.connection.scalarInt("SELECT count(*) FROM rt") == 2_000)
    }

    @Test("bad entries are refused before anything is written")
    func badEntries() throws {
        let db = try ScratchDatabase()
        try db.createRTree("rt")
        let good = Fixture.randomEntries(count: 500, seed: 8)
        try RTreeBulkLoader.load(into: "rt", on: db.connection, entries: good)
        let snapshot = try db.content("rt")

        let base = Fixture.randomEntries(count: 800, seed: 9)
        func changing(_ change: (inout RTreeEntry) -> Void) -> [RTreeEntry] {
            var entries = base
            change(&entries[700])
            return entries
        }
        let id = base[700].id
        let cases: [([RTreeEntry], RTreeBulkLoadError)] = [
            (changing { $0.minY = .nan }, .nonFiniteCoordinate(id: id)),
            (changing { $0.maxX = .infinity }, .nonFiniteCoordinate(id: id)),
            (changing { $0.minX = -.infinity }, .nonFiniteCoordinate(id: id)),
            (changing { $0.minX = $0.maxX + 1 }, .invertedBox(id: id)),
            (changing { $0.id = base[10].id }, .duplicateID(base[10].id)),
        ]
        for (entries, expected) in cases {
            #expect(throws: expected) { try RTreeBulkLoader.load(into: "rt", on: db.connection, entries: entries) }
            #expect(try db.content("rt") == snapshot)
        }
        // Ascending ids take the fast path of the duplicate check.
        let ascending = [RTreeEntry(id: 1, minX: 0, maxX: 1, minY: 0, maxY: 1), RTreeEntry(id: 2, minX: 0, maxX: 1, minY: 0, maxY: 1),
                         RTreeEntry(id: 2, minX: 0, maxX: 1, minY: 0, maxY: 1)]
        #expect(throws: RTreeBulkLoadError.duplicateID(2)) { try RTreeBulkLoader.load(into: "rt", on: db.connection, entries: ascending) }
        #expect(try db.content("rt") == snapshot)
        #expect(try db.connection.scalarText("SELECT rtreecheck('rt')") == "ok")
        #expect(!db.connection.isInTransaction)
    }

    @Test("tables that are not two-dimensional float rtrees are refused")
    func unsupportedTables() throws {
        let db = try ScratchDatabase()
        try db.connection.execute("""
            CREATE TABLE plain_table(id INTEGER PRIMARY KEY, minx, maxx, miny, maxy);
            CREATE VIRTUAL TABLE int_tree USING rtree_i32(id, minx, maxx, miny, maxy);
            CREATE VIRTUAL TABLE cube USING rtree(id, minx, maxx, miny, maxy, minz, maxz);
            CREATE VIRTUAL TABLE with_aux USING rtree(id, minx, maxx, miny, maxy, +label);
            CREATE VIRTUAL TABLE text_index USING fts5(body);
            """)
        let entries = Fixture.randomEntries(count: 10, seed: 1)
        #expect(throws: RTreeBulkLoadError.unknownTable("nowhere")) {
            try RTreeBulkLoader.load(into: "nowhere", on: db.connection, entries: entries)
        }
        for table in ["plain_table", "int_tree", "cube", "with_aux", "text_index"] {
            let error = #expect(throws: RTreeBulkLoadError.self) {
                try RTreeBulkLoader.load(into: table, on: db.connection, entries: entries)
            }
            guard case .unsupportedTable(let name, _) = error else {
                Issue.record("\(table): \(String(describing: error))")
                continue
            }
            #expect(name == table)
        }
        #expect(try db.connection.scalarInt("SELECT count(*) FROM int_tree") == 0)
        #expect(try db.connection.scalarInt("SELECT count(*) FROM with_aux") == 0)
    }

    @Test("a failure half-way through the writes leaves the table as it was")
    func failureWhileWriting() throws {
        let db = try ScratchDatabase()
        try db.createRTree("rt")
        let first = Fixture.randomEntries(count: 3_000, seed: 11)
        try RTreeBulkLoader.load(into: "rt", on: db.connection, entries: first)
        let snapshot = try db.content("rt")

        var second = Fixture.randomEntries(count: 3_000, seed: 12)
        second[2_500].id = 424_242
        // The shadow tables are ordinary tables: a trigger can make the last writes fail
        // after the node and parent tables have been replaced.
        try db.connection.execute("""
            CREATE TRIGGER fail_late BEFORE INSERT ON rt_rowid WHEN NEW.rowid = 424242
            BEGIN SELECT RAISE(ABORT, 'injected failure'); END
            """)
        #expect(throws: SQLiteError.self) { try RTreeBulkLoader.load(into: "rt", on: db.connection, entries: second) }
        #expect(try db.content("rt") == snapshot)
        #expect(try db.connection.scalarText("SELECT rtreecheck('rt')") == "ok")
        #expect(!db.connection.isInTransaction)
    }

    @Test("GeoPackage-style and awkward names, any letter case")
    func names() throws {
        let db = try ScratchDatabase()
        let name = #"rtree_odd "name"; x_geom"#
        try db.createRTree(name)
        let entries = Fixture.randomEntries(count: 600, seed: 13)
        try RTreeBulkLoader.load(into: name.uppercased(), on: db.connection, entries: entries)
        #expect(try db.connection.scalarText("SELECT rtreecheck(?1)", [.text(name)]) == "ok")
        #expect(try db.connection.scalarInt("SELECT count(*) FROM \(quoteIdentifier(name))") == 600)
    }

    @Test("defensive mode is lifted for the load and restored")
    func defensiveMode() throws {
        let db = try ScratchDatabase()
        try db.createRTree("rt")
        try db.connection.setDefensive(true)
        #expect(throws: SQLiteError.self) { try db.connection.execute("DELETE FROM rt_rowid") }
        let entries = Fixture.randomEntries(count: 100, seed: 14)
        try RTreeBulkLoader.load(into: "rt", on: db.connection, entries: entries)
        #expect(try db.connection.isDefensive())
        #expect(try db.connection.scalarInt("SELECT count(*) FROM rt") == 100)
    }

    @Test("float rounding matches the module's where the module's contains the value")
    func rounding() throws {
        let db = try ScratchDatabase()
        try db.createRTree("rt")
        let values: [Double] = [0, 0.1, -0.1, 0.3, 1.5, -1.5, 123_456_789.123, -98_765.4321, 3.4028234e38, -3.4028234e38,
                                16_777_217, -16_777_217, .pi, 2_000_000.000_1, 1e-30, 1e-40, -1e-40, 1e-45]
        for (i, value) in values.enumerated() {
            try db.connection.run("INSERT INTO rt VALUES (?1, ?2, ?2, ?2, ?2)", [.integer(Int64(i)), .real(value)])
            let stored = try db.connection.rows("SELECT minx, maxx FROM rt WHERE id = ?1", [.integer(Int64(i))])[0]
            let moduleDown = Float(stored[0].doubleValue!)
            let moduleUp = Float(stored[1].doubleValue!)
            let down = RTreeRounding.down(value)
            let up = RTreeRounding.up(value)
            #expect(Double(down) <= value && Double(up) >= value, "\(value) is contained")
            // Among subnormals the module's rounding can land inside the value (it stores
            // 9.99995e-41 as the maximum of 1e-40); the loader then goes one float further out.
            #expect(down == (Double(moduleDown) <= value ? moduleDown : moduleDown.nextDown), "minimum of \(value)")
            #expect(up == (Double(moduleUp) >= value ? moduleUp : moduleUp.nextUp), "maximum of \(value)")
        }
        #expect(RTreeRounding.down(0.1).bitPattern == 0x3DCC_CCCB, "the module's loose rounding, one float below the tightest")
        // Beyond the float range the module stores an infinite minimum; the loader keeps the
        // box containing the value.
        #expect(RTreeRounding.down(1e39) == .greatestFiniteMagnitude)
        #expect(RTreeRounding.up(1e39) == .infinity)
        #expect(RTreeRounding.up(-1e39) == -.greatestFiniteMagnitude)
        #expect(RTreeRounding.down(-1e39) == -.infinity)
    }
}

@Suite struct RTreePackingTests {
    @Test("the radix sort orders by the high half and keeps ties in order", arguments: [0, 1, 63, 64, 1_000, 100_000])
    func radixSort(count: Int) {
        var random = SplitMix64(seed: UInt64(count))
        for highBits in [3, 12, 32] {
            let keys = (0..<count).map { i in
                UInt64.random(in: 0..<(UInt64(1) << UInt64(highBits)), using: &random) << 32 | UInt64(i)
            }
            var sorted = keys
            var scratch = [UInt64](repeating: 0, count: count)
            sorted.withUnsafeMutableBufferPointer { keys in
                scratch.withUnsafeMutableBufferPointer { RTreePacking.sortByHighHalf(keys, scratch: $0) }
            }
            // The low halves are ascending, so a stable sort by the high half is a full sort.
            #expect(sorted == keys.sorted(), "\(highBits) significant bits")
            var descending = keys.reversed() as [UInt64]
            descending.withUnsafeMutableBufferPointer { keys in
                scratch.withUnsafeMutableBufferPointer { RTreePacking.sortByHighHalf(keys, scratch: $0) }
            }
            #expect(descending == keys.sorted { $0 >> 32 < $1 >> 32 || ($0 >> 32 == $1 >> 32 && $0 > $1) },
                    "ties keep their input order (\(highBits) significant bits)")
        }
    }

    @Test("float sort keys follow the order of the floats")
    func sortKeys() {
        let values: [Float] = [-.infinity, -.greatestFiniteMagnitude, -1e10, -1, -.leastNormalMagnitude, 0,
                               .leastNormalMagnitude, 1, 1e10, .greatestFiniteMagnitude, .infinity]
        let keys = values.map { RTreeCell(reference: 0, minX: $0, maxX: $0, minY: 0, maxY: 0).xKey }
        #expect(keys == keys.sorted())
        #expect(Set(keys).count == keys.count)
        #expect(RTreeCell(reference: 0, minX: -.infinity, maxX: .infinity, minY: 0, maxY: 0).xKey == keys[5])
    }
}

@Suite struct RTreeRefitTests {
    static func moved(_ entries: [RTreeEntry], dx: Double, dy: Double, where selected: (RTreeEntry) -> Bool = { _ in true }) -> [RTreeEntry] {
        entries.map { e in
            guard selected(e) else { return e }
            return RTreeEntry(id: e.id, minX: e.minX + dx, maxX: e.maxX + dx, minY: e.minY + dy, maxY: e.maxY + dy)
        }.sorted { $0.id < $1.id }
    }

    @Test("a refit after moving every entry stores what a load would, keeps the shape, and answers like the module", arguments: [0, 1, 52, 20_000])
    func refitAll(count: Int) throws {
        let db = try ScratchDatabase()
        let entries = Fixture.randomEntries(count: count, seed: 7)
        try db.createRTree("rt")
        try RTreeBulkLoader.load(into: "rt", on: db.connection, entries: entries)
        let shape = try db.connection.rows("SELECT * FROM rt_rowid ORDER BY rowid") + db.connection.rows("SELECT * FROM rt_parent ORDER BY nodeno")
        let moved = Self.moved(entries, dx: 1234.5, dy: -0.1)
        #expect(try RTreeBulkLoader.refit("rt", on: db.connection, entries: moved))
        #expect(try db.connection.rows("SELECT * FROM rt_rowid ORDER BY rowid") + db.connection.rows("SELECT * FROM rt_parent ORDER BY nodeno") == shape)
        try db.expectMatchesModule("rt", entries: moved, windows: 60)
        // Leaf boxes bit for bit as a load of the moved entries stores them.
        try db.createRTree("loaded")
        try RTreeBulkLoader.load(into: "loaded", on: db.connection, entries: moved)
        #expect(try db.content("rt") == db.content("loaded"))
    }

    @Test("the extent read from the root node is what reading every entry gives, after loads, refits and the module's own writes")
    func extentFromRoot() throws {
        let db = try ScratchDatabase()
        try db.createRTree("rt")
        func expectSameExtent(_ when: String) throws {
            let sql = try db.connection.rows("SELECT min(minx), min(miny), max(maxx), max(maxy) FROM rt")[0]
            let root = try RTreeBulkLoader.extent(of: "rt", on: db.connection)
            #expect(root.map { [SQLValue.real($0.minX), .real($0.minY), .real($0.maxX), .real($0.maxY)] } ?? [.null, .null, .null, .null] == sql, "\(when)")
        }
        try expectSameExtent("empty")
        let entries = Fixture.randomEntries(count: 3_000, seed: 11)
        try RTreeBulkLoader.load(into: "rt", on: db.connection, entries: entries)
        try expectSameExtent("loaded")
        #expect(try RTreeBulkLoader.refit("rt", on: db.connection, entries: RTreeRefitTests.moved(entries, dx: -77.25, dy: 1e5)))
        try expectSameExtent("refitted")
        // The module's own writes, including deletes of the outermost boxes and node merges.
        var random = SplitMix64(seed: 5)
        for _ in 0..<400 {
            let box = Fixture.randomBox(&random)
            try db.connection.run("INSERT INTO rt VALUES (NULL, ?, ?, ?, ?)", [.real(box.minX * 1.5), .real(box.maxX * 1.5), .real(box.minY), .real(box.maxY)])
        }
        try expectSameExtent("inserted")
        for corner in ["minx", "miny"] {
            try db.connection.execute("DELETE FROM rt WHERE id IN (SELECT id FROM rt ORDER BY \(corner) LIMIT 50)")
        }
        for corner in ["maxx", "maxy"] {
            try db.connection.execute("DELETE FROM rt WHERE id IN (SELECT id FROM rt ORDER BY \(corner) DESC LIMIT 50)")
        }
        try expectSameExtent("deleted")
        try db.connection.execute("UPDATE rt SET minx = minx - 1e6 WHERE id = (SELECT min(id) FROM rt)")
        try expectSameExtent("updated")
        try db.connection.execute("DELETE FROM rt WHERE id % 7 <> 0")
        try expectSameExtent("mostly deleted")
        try db.connection.execute("DELETE FROM rt")
        try expectSameExtent("emptied")
    }

    @Test("a refit is refused, changing nothing, when the ids differ or only some entries moved far")
    func refitRefused() throws {
        let db = try ScratchDatabase()
        let entries = Fixture.randomEntries(count: 5_000, seed: 9)
        try db.createRTree("rt")
        try RTreeBulkLoader.load(into: "rt", on: db.connection, entries: entries)
        let before = try db.connection.rows("SELECT * FROM rt_node ORDER BY nodeno")
        let sorted = entries.sorted { $0.id < $1.id }
        #expect(try !RTreeBulkLoader.refit("rt", on: db.connection, entries: Array(sorted.dropLast())), "an id missing")
        #expect(try !RTreeBulkLoader.refit("rt", on: db.connection, entries: sorted + [RTreeEntry(id: Int64.max, minX: 0, maxX: 1, minY: 0, maxY: 1)]),
                "an id too many")
        #expect(try !RTreeBulkLoader.refit("rt", on: db.connection, entries: Self.moved(entries, dx: 200_000, dy: 0) { $0.id % 2 == 0 }), "half moved far")
        #expect(try !RTreeBulkLoader.refit("rt", on: db.connection, entries: entries), "not in id order")
        #expect(try db.connection.rows("SELECT * FROM rt_node ORDER BY nodeno") == before)
        // A few entries moved a little keep the tree as tight: that is refitted.
        #expect(try RTreeBulkLoader.refit("rt", on: db.connection, entries: Self.moved(entries, dx: 3, dy: 3) { $0.id % 50 == 0 }))
        #expect(try db.connection.scalarText("SELECT rtreecheck('rt')") == "ok")
    }
}

// MARK: - Fixtures

enum Fixture {
    /// A box like a parcel boundary segment's: 0–500 units across in a 100,000-unit square
    /// around the origin; one in ten is a point.
    static func randomBox(_ random: inout SplitMix64) -> (minX: Double, maxX: Double, minY: Double, maxY: Double) {
        let x = Double.random(in: -50_000..<50_000, using: &random)
        let y = Double.random(in: -50_000..<50_000, using: &random)
        let isPoint = Int.random(in: 0..<10, using: &random) == 0
        let w = isPoint ? 0 : Double.random(in: 0..<500, using: &random)
        let h = isPoint ? 0 : Double.random(in: 0..<500, using: &random)
        return (x, x + w, y, y + h)
    }

    /// `count` entries with random boxes and unique ids in random order (some negative).
    static func randomEntries(count: Int, seed: UInt64) -> [RTreeEntry] {
        var random = SplitMix64(seed: seed)
        var ids = (0..<count).map { Int64($0) * 3 - Int64(count) }
        ids.shuffle(using: &random)
        return ids.map { id in
            let box = randomBox(&random)
            return RTreeEntry(id: id, minX: box.minX, maxX: box.maxX, minY: box.minY, maxY: box.maxY)
        }
    }
}

/// A database file in its own temporary directory, removed when the value goes away.
final class ScratchDatabase {
    private let scratch: ScratchDirectory
    let connection: Connection

    init(pageSize: Int? = nil) throws {
        scratch = try ScratchDirectory(prefix: "rtree")
        let path = scratch.path("test.sqlite")
        if let pageSize {
            // The page size must be set before the first table exists, and before WAL.
            let setup = try Connection(path: path, mode: .create)
            try setup.execute("PRAGMA journal_mode = DELETE; PRAGMA page_size = \(pageSize); VACUUM")
        }
        connection = try Connection(path: path, mode: .create)
    }

    func createRTree(_ name: String) throws {
        try connection.execute("CREATE VIRTUAL TABLE \(quoteIdentifier(name)) USING rtree(id, minx, maxx, miny, maxy)")
    }

    /// Builds `ref` through the module and copies its stored boxes to `plain`.
    func createReference(_ entries: [RTreeEntry]) throws {
        try createRTree("ref")
        try connection.write {
            let insert = try connection.prepare("INSERT INTO ref VALUES (?1, ?2, ?3, ?4, ?5)")
            for entry in entries {
                insert.reset()
                try insert.bind([.integer(entry.id), .real(entry.minX), .real(entry.maxX), .real(entry.minY), .real(entry.maxY)])
                _ = try insert.step()
            }
        }
        try copyReferenceToPlain()
    }

    func copyReferenceToPlain() throws {
        try connection.execute("""
            DROP TABLE IF EXISTS plain;
            CREATE TABLE plain(id INTEGER PRIMARY KEY, minx REAL, maxx REAL, miny REAL, maxy REAL);
            INSERT INTO plain SELECT id, minx, maxx, miny, maxy FROM ref;
            """)
    }

    /// Every row of `table`, by id.
    func content(_ table: String) throws -> [[SQLValue]] {
        try connection.rows("SELECT id, minx, maxx, miny, maxy FROM \(quoteIdentifier(table)) ORDER BY id")
    }

    func expectMatchesModule(_ table: String, entries: [RTreeEntry], windows: Int) throws {
        #expect(try connection.scalarText("PRAGMA integrity_check") == "ok")
        #expect(try connection.scalarText("SELECT rtreecheck(?1)", [.text(table)]) == "ok")
        #expect(try connection.scalarInt("SELECT count(*) FROM \(quoteIdentifier(table))") == Int64(entries.count))
        try connection.execute("DROP TABLE IF EXISTS ref")
        try createReference(entries)
        try expectSameContent(table)
        try expectSameWindows(table, windows: windows, seed: UInt64(entries.count))
    }

    /// The boxes stored in `table` are exactly those the module stored in `plain`.
    func expectSameContent(_ table: String) throws {
        let loaded = try content(table)
        let reference = try content("plain")
        #expect(loaded.count == reference.count)
        #expect(loaded == reference)
    }

    /// Window queries through the R-tree find exactly what a scan of `plain` finds.
    func expectSameWindows(_ table: String, windows: Int, seed: UInt64) throws {
        var random = SplitMix64(seed: seed &+ 1000)
        let condition = "minx <= ?1 AND maxx >= ?2 AND miny <= ?3 AND maxy >= ?4"
        let viaTree = "SELECT id FROM \(quoteIdentifier(table)) WHERE \(condition)"
        let viaScan = "SELECT id FROM plain NOT INDEXED WHERE \(condition)"
        var hits = 0
        for _ in 0..<windows {
            let size = [1.0, 100, 2_000, 20_000].randomElement(using: &random)!
            let x = Double.random(in: -52_000..<52_000, using: &random)
            let y = Double.random(in: -52_000..<52_000, using: &random)
            // A query box (x, y)–(x+size, y+size) overlaps an entry when the entry's minimum
            // is at most the query's maximum and its maximum at least the query's minimum.
            let bindings: [SQLValue] = [.real(x + size), .real(x), .real(y + size), .real(y)]
            let expected = Set(try connection.rows(viaScan, bindings).map { $0[0] })
            let found = try connection.rows(viaTree, bindings).map { $0[0] }
            #expect(found.count == Set(found).count, "no id twice")
            #expect(Set(found) == expected)
            hits += expected.count
        }
        let total = try connection.scalarInt("SELECT count(*) FROM plain") ?? 0
        if total > 1_000 { #expect(hits > 0, "the windows found something") }
    }

    /// Every node blob has the root's length, every cell count is within what the module
    /// accepts and wants (a third of capacity, except at the root), and the leaves hold every
    /// entry once.
    func expectWellFormedNodes(_ table: String, nodeSize: Int, capacity: Int, count: Int) throws {
        let nodes = try connection.rows("SELECT nodeno, data FROM \(quoteIdentifier(table + "_node"))")
        var leafCells = 0
        let leaves = Set(try connection.rows("SELECT DISTINCT nodeno FROM \(quoteIdentifier(table + "_rowid"))").map { $0[0] })
        for node in nodes {
            guard let data = node[1].blobValue else { Issue.record("node without data"); continue }
            #expect(data.count == nodeSize)
            let cells = Int(data[2]) << 8 | Int(data[3])
            #expect(cells <= capacity)
            if node[0] != .integer(1) {
                #expect(data[0] == 0 && data[1] == 0)
                #expect(cells >= capacity / 3)
            }
            if leaves.contains(node[0]) { leafCells += cells }
        }
        #expect(leafCells == count)
    }
}
