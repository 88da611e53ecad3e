extension RTreeBulkLoader {
    /// Sets every box of the rtree virtual table `rtreeTable` from `entries` without changing
    /// the tree's shape: each leaf cell gets its entry's box (rounded as `load` rounds it) and
    /// each node above the union of its children. Only the `_node` blobs are rewritten; the
    /// `_rowid` and `_parent` tables, which map ids to leaves and nodes to parents, stay as
    /// they are. That is what moving every entry by the same vector needs (a bulk move of a
    /// whole table, or its undo), at a fraction of a `load`: no packing, and a third of the
    /// rows written.
    ///
    /// Refuses, writing nothing, when the tree does not hold exactly the ids of `entries`, or
    /// when the refitted leaves would be looser than before — their summed half-perimeters
    /// more than 1 % above the old ones, as when only some entries moved far — since a tree
    /// packed for other positions would answer window queries slowly. The caller then `load`s.
    ///
    /// - Parameter entries: the boxes, in ascending id order (otherwise the refit is refused).
    /// - Returns: whether the tree was refitted.
    /// - Throws: `RTreeBulkLoadError.unknownTable` or `.unsupportedTable`; `SQLiteError`.
    public static func refit(_ rtreeTable: String, on connection: Connection, entries: [RTreeEntry]) throws -> Bool {
        for i in entries.indices.dropFirst() where entries[i - 1].id >= entries[i].id { return false }
        for e in entries {
            guard e.minX.isFinite, e.maxX.isFinite, e.minY.isFinite, e.maxY.isFinite, e.minX <= e.maxX, e.minY <= e.maxY else { return false }
        }
        let wasDefensive = try connection.isDefensive()
        if wasDefensive { try connection.setDefensive(false) }
        defer { if wasDefensive { try? connection.setDefensive(true) } }

        return try connection.write {
            let table = try RTreeShadowTables(named: rtreeTable, on: connection)
            var nodes: [Int64: [UInt8]] = [:]
            let read = try connection.prepareUncached("SELECT nodeno, data FROM \(table.node)")
            while try read.step() { nodes[read.int64(0)] = read.blob(1) ?? [] }
            var refit = RTreeRefit(nodes: nodes, nodeSize: table.nodeSize, entries: entries)
            guard refit.run(), refit.leafCells == entries.count, refit.newMargin <= refit.oldMargin * 1.01 else { return false }
            let write = try connection.prepareUncached("UPDATE \(table.node) SET data = ?2 WHERE nodeno = ?1")
            for (node, data) in refit.nodes {
                write.reset()
                try write.bind([.integer(node), .blob(data)])
                while try write.step() {}
            }
            return true
        }
    }
}

extension RTreeBulkLoader {
    /// The extent of every entry of the rtree `rtreeTable` — min x, min y, max x, max y, as the
    /// 32-bit floats it stores — read from its root node alone: each cell above the leaves is
    /// the union of its child's cells (the module keeps it so on every insert, update and
    /// delete, and `load` and `refit` build it so), so the root's cells cover exactly what
    /// `SELECT min(minx), … FROM rtreeTable` finds by reading every entry. Nil for an empty
    /// tree; nil too when the root node cannot be read, for the caller to ask SQL instead.
    public static func extent(of rtreeTable: String, on connection: Connection) throws -> (minX: Double, minY: Double, maxX: Double, maxY: Double)? {
        guard let root = try connection.rows("SELECT data FROM \(quoteIdentifier(rtreeTable + "_node")) WHERE nodeno = 1").first?[0].blobValue,
              root.count >= 4 else { return nil }
        let count = Int(UInt16(root[2]) << 8 | UInt16(root[3]))
        guard count > 0, 4 + count * 24 <= root.count else { return nil }
        var union = RTreeRefit.read(root, at: 12)
        for cell in 1..<count { union = RTreeRefit.union(union, RTreeRefit.read(root, at: 4 + cell * 24 + 8)) }
        return (Double(union.0), Double(union.2), Double(union.1), Double(union.3))
    }
}

/// The work of `RTreeBulkLoader.refit` on the node blobs in memory. Node layout (rtree.c): a
/// 2-byte depth (root only), a 2-byte cell count, then cells of an 8-byte id and four 4-byte
/// floats (min x, max x, min y, max y), all big-endian.
struct RTreeRefit {
    var nodes: [Int64: [UInt8]]
    let nodeSize: Int
    let entries: [RTreeEntry]
    private(set) var leafCells = 0
    /// Summed half-perimeters of the leaves' boxes, before and after.
    private(set) var oldMargin = 0.0
    private(set) var newMargin = 0.0

    init(nodes: [Int64: [UInt8]], nodeSize: Int, entries: [RTreeEntry]) {
        self.nodes = nodes
        self.nodeSize = nodeSize
        self.entries = entries
    }

    /// Refits from the root; false when the tree is not one this can refit (a missing node,
    /// a leaf id without an entry, a node of the wrong size, a cycle deeper than the module allows).
    mutating func run() -> Bool {
        guard let root = nodes[1], root.count == nodeSize else { return false }
        let depth = Int(UInt16(root[0]) << 8 | UInt16(root[1]))
        guard depth <= 40 else { return false }
        return box(of: 1, level: depth) != nil
    }

    /// Refits node `number` at `level` (0 for leaves) and returns the union of its cells.
    private mutating func box(of number: Int64, level: Int) -> (Float, Float, Float, Float)? {
        guard var data = nodes[number], data.count == nodeSize else { return nil }
        let count = Int(UInt16(data[2]) << 8 | UInt16(data[3]))
        guard 4 + count * 24 <= nodeSize else { return nil }
        var union: (Float, Float, Float, Float) = (.infinity, -.infinity, .infinity, -.infinity)
        var old = union
        for cell in 0..<count {
            let at = 4 + cell * 24
            let id = Int64(bitPattern: data.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: at, as: UInt64.self)) })
            let box: (Float, Float, Float, Float)
            if level == 0 {
                guard let index = entryIndex(of: id) else { return nil }
                let e = entries[index]
                box = (RTreeRounding.down(e.minX), RTreeRounding.up(e.maxX), RTreeRounding.down(e.minY), RTreeRounding.up(e.maxY))
                old = Self.union(old, Self.read(data, at: at + 8))
                leafCells += 1
            } else {
                guard let child = self.box(of: id, level: level - 1) else { return nil }
                box = child
            }
            Self.write(box, into: &data, at: at + 8)
            union = Self.union(union, box)
        }
        if level == 0, count > 0 {
            oldMargin += Double(old.1 - old.0) + Double(old.3 - old.2)
            newMargin += Double(union.1 - union.0) + Double(union.3 - union.2)
        }
        nodes[number] = data
        return union
    }

    private func entryIndex(of id: Int64) -> Int? {
        // Fids are usually dense: then the id says where its entry is.
        if let first = entries.first?.id, id >= first, id - first < Int64(entries.count), entries[Int(id - first)].id == id {
            return Int(id - first)
        }
        var low = 0, high = entries.count - 1
        while low <= high {
            let middle = (low + high) / 2
            if entries[middle].id == id { return middle }
            if entries[middle].id < id { low = middle + 1 } else { high = middle - 1 }
        }
        return nil
    }

    static func union(_ a: (Float, Float, Float, Float), _ b: (Float, Float, Float, Float)) -> (Float, Float, Float, Float) {
        (min(a.0, b.0), max(a.1, b.1), min(a.2, b.2), max(a.3, b.3))
    }

    static func read(_ data: [UInt8], at offset: Int) -> (Float, Float, Float, Float) {
        data.withUnsafeBytes { bytes in
            func float(_ i: Int) -> Float { Float(bitPattern: UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset + 4 * i, as: UInt32.self))) }
            return (float(0), float(1), float(2), float(3))
        }
    }

    private static func write(_ box: (Float, Float, Float, Float), into data: inout [UInt8], at offset: Int) {
        data.withUnsafeMutableBytes { bytes in
            for (i, value) in [box.0, box.1, box.2, box.3].enumerated() {
                bytes.storeBytes(of: value.bitPattern.bigEndian, toByteOffset: offset + 4 * i, as: UInt32.self)
            }
        }
    }
}
