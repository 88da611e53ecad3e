/// How SQLite's rtree module turns a double coordinate into the 32-bit float it stores.
///
/// The module (`rtreeValueDown`/`rtreeValueUp` in `ext/rtree/rtree.c`) converts to the nearest
/// float and, when that lands on the wrong side, converts again after scaling by 1 ∓ 2⁻²³. That
/// can be one float looser than the tightest bound (0.1 is stored as 0x3DCCCCCB, not …CC), and
/// it is reproduced here exactly so that a bulk-loaded entry is stored bit for bit as an
/// `INSERT` through the module would store it. Where the module's result would not contain
/// the value (magnitudes beyond the float range, subnormals), one more step outward is taken:
/// the stored box then always contains the true box.
package enum RTreeRounding {
    private static let towardZero = 1.0 - 1.0 / 8_388_608.0
    private static let awayFromZero = 1.0 + 1.0 / 8_388_608.0

    /// The float the module stores for a minimum: never above `value`.
    @inline(__always)
    package static func down(_ value: Double) -> Float {
        var f = Float(value)
        if Double(f) > value {
            f = Float(value * (value < 0 ? awayFromZero : towardZero))
            if Double(f) > value { f = f.nextDown }
        }
        return f
    }

    /// The float the module stores for a maximum: never below `value`.
    @inline(__always)
    package static func up(_ value: Double) -> Float {
        var f = Float(value)
        if Double(f) < value {
            f = Float(value * (value < 0 ? towardZero : awayFromZero))
            if Double(f) < value { f = f.nextUp }
        }
        return f
    }
}

/// One cell of an R-tree node before it is encoded: at the leaves `reference` is the index of
/// the entry in the caller's array, above them it is the child's node number.
struct RTreeCell {
    var reference: Int64
    var minX: Float
    var maxX: Float
    var minY: Float
    var maxY: Float

    /// Twice the centre, as sort keys. Only −∞ + ∞ can give NaN (a box spanning beyond the
    /// float range); it sorts as the origin so that the ordering stays total.
    @inline(__always) var doubledCentreX: Double { let s = Double(minX) + Double(maxX); return s.isNaN ? 0 : s }
    @inline(__always) var doubledCentreY: Double { let s = Double(minY) + Double(maxY); return s.isNaN ? 0 : s }
}

/// A complete R-tree for a set of entries, encoded in the rtree module's node format and packed
/// with Sort-Tile-Recursive (Leutenegger, Lopez and Edgington, 1997).
///
/// Node format (SQLite 3.40.1 `ext/rtree/rtree.c`, checked against the library): every node is
/// a blob of exactly `nodeSize` bytes; bytes 0–1 hold the tree depth (big-endian, root only,
/// 0 when the root is a leaf), bytes 2–3 the cell count; then 24-byte cells of an 8-byte
/// big-endian id (entry id at the leaves, child node number above) and minX, maxX, minY, maxY
/// as big-endian IEEE floats. The rest of the blob is zero. The root is node 1.
///
/// Every level is tiled into ⌈n / capacity⌉ nodes whose sizes differ by at most one, so every
/// node but the root holds at least half a node's capacity (the module wants a third).
package struct RTreePacking {
    /// Bytes per node blob.
    package let nodeSize: Int
    /// Cells written per full node.
    package let capacity: Int
    /// All node blobs, node `k` (1-based) at byte offset `(k − 1) × nodeSize`.
    package private(set) var nodes: [UInt8]
    /// `parents[k]` is the parent of node `k` for `k ≥ 2`; slots 0 and 1 are unused.
    package private(set) var parents: [Int64]
    /// `leafOfEntry[i]` is the node number of the leaf that holds `entries[i]`.
    package private(set) var leafOfEntry: [Int32]
    /// Levels above the leaves (0 when the root is the only node).
    package private(set) var depth: Int

    /// The number of nodes, root included.
    package var nodeCount: Int { nodes.count / nodeSize }

    /// The largest node the rtree module accepts has 255 cells at most (it keeps a cell index
    /// in a byte); it never makes nodes of more than 51 cells itself.
    static let maximumCapacity = 255
    static let cellSize = 24

    /// Packs `entries` into nodes of `nodeSize` bytes.
    ///
    /// - Precondition: `nodeSize ≥ 448` (the module's own minimum).
    /// - Throws: `RTreeBulkLoadError.nonFiniteCoordinate` or `.invertedBox` for the first bad
    ///   entry. Ids are not checked here (see `RTreeRowidOrder`).
    /// - Complexity: O(n log n) time; about 24 bytes per entry besides the node blobs.
    package init(entries: [RTreeEntry], nodeSize: Int) throws(RTreeBulkLoadError) {
        precondition(nodeSize >= 448, "rtree nodes are at least 448 bytes")
        self.nodeSize = nodeSize
        self.capacity = min((nodeSize - 4) / Self.cellSize, Self.maximumCapacity)

        var cells = [RTreeCell]()
        cells.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() {
            guard entry.minX.isFinite, entry.maxX.isFinite, entry.minY.isFinite, entry.maxY.isFinite else {
                throw .nonFiniteCoordinate(id: entry.id)
            }
            guard entry.minX <= entry.maxX, entry.minY <= entry.maxY else { throw .invertedBox(id: entry.id) }
            cells.append(RTreeCell(
                reference: Int64(index),
                minX: RTreeRounding.down(entry.minX), maxX: RTreeRounding.up(entry.maxX),
                minY: RTreeRounding.down(entry.minY), maxY: RTreeRounding.up(entry.maxY)))
        }

        let levels = Self.nodesPerLevel(entryCount: cells.count, capacity: capacity)
        let nodeCount = levels.reduce(0, +)
        precondition(nodeCount < Int(Int32.max), "too many nodes")
        nodes = [UInt8](repeating: 0, count: nodeCount * nodeSize)
        parents = [Int64](repeating: 0, count: nodeCount + 1)
        leafOfEntry = [Int32](repeating: 1, count: cells.count)
        depth = levels.count - 1
        precondition(depth <= 40, "the rtree module reads at most 40 levels")

        // Bottom-up: every level but the root is tiled into nodes numbered from 2 on; their
        // bounding boxes become the cells of the level above.
        var nextNode = 2
        var level = 0
        while cells.count > capacity {
            let nodeSizes = cells.withUnsafeMutableBufferPointer { Self.tile($0, nodeCount: levels[level]) }
            var upper = [RTreeCell]()
            upper.reserveCapacity(nodeSizes.count)
            var start = 0
            for size in nodeSizes {
                let range = start..<(start + size)
                let node = nextNode
                nextNode += 1
                upper.append(encode(cells[range], asNode: node, level: level, entries: entries))
                start += size
            }
            cells = upper
            level += 1
        }
        _ = encode(cells[...], asNode: 1, level: level, entries: entries)
    }

    /// Node counts from the leaves up to the root (whose count is 1).
    static func nodesPerLevel(entryCount: Int, capacity: Int) -> [Int] {
        var levels: [Int] = []
        var count = entryCount
        while count > capacity {
            count = (count + capacity - 1) / capacity
            levels.append(count)
        }
        levels.append(1)
        return levels
    }

    /// Orders `cells` for `nodeCount` nodes with Sort-Tile-Recursive: sorted by x, cut into
    /// ⌈√nodeCount⌉ vertical slices of whole nodes, each slice sorted by y. Returns the node
    /// sizes, in order; consecutive runs of `cells` of those sizes are the nodes.
    static func tile(_ cells: UnsafeMutableBufferPointer<RTreeCell>, nodeCount: Int) -> [Int] {
        let base = cells.count / nodeCount
        let larger = cells.count % nodeCount
        let sizes = (0..<nodeCount).map { base + ($0 < larger ? 1 : 0) }
        let sliceCount = Int(Double(nodeCount).squareRoot().rounded(.up))
        let nodesPerSlice = nodeCount / sliceCount
        let widerSlices = nodeCount % sliceCount

        var all = cells
        all.sort { $0.doubledCentreX < $1.doubledCentreX }
        var node = 0
        var start = 0
        for slice in 0..<sliceCount {
            let sliceNodes = nodesPerSlice + (slice < widerSlices ? 1 : 0)
            let count = sizes[node..<(node + sliceNodes)].reduce(0, +)
            var slice = UnsafeMutableBufferPointer(rebasing: cells[start..<(start + count)])
            slice.sort { $0.doubledCentreY < $1.doubledCentreY }
            node += sliceNodes
            start += count
        }
        return sizes
    }

    /// Writes `cells` as node number `node` and records where each cell went. Returns the
    /// node's cell for the level above: its number and the union of its cells' boxes.
    private mutating func encode(_ cells: ArraySlice<RTreeCell>, asNode node: Int, level: Int, entries: [RTreeEntry]) -> RTreeCell {
        precondition(cells.count <= capacity)
        var union = RTreeCell(reference: Int64(node), minX: .infinity, maxX: -.infinity, minY: .infinity, maxY: -.infinity)
        let offset = (node - 1) * nodeSize
        let isLeaf = level == 0
        nodes.withUnsafeMutableBytes { bytes in
            if node == 1 { bytes.storeBytes(of: UInt16(depth).bigEndian, toByteOffset: offset, as: UInt16.self) }
            bytes.storeBytes(of: UInt16(cells.count).bigEndian, toByteOffset: offset + 2, as: UInt16.self)
            var at = offset + 4
            for cell in cells {
                let id: Int64
                if isLeaf {
                    id = entries[Int(cell.reference)].id
                    leafOfEntry[Int(cell.reference)] = Int32(node)
                } else {
                    id = cell.reference
                    parents[Int(cell.reference)] = Int64(node)
                }
                bytes.storeBytes(of: UInt64(bitPattern: id).bigEndian, toByteOffset: at, as: UInt64.self)
                bytes.storeBytes(of: cell.minX.bitPattern.bigEndian, toByteOffset: at + 8, as: UInt32.self)
                bytes.storeBytes(of: cell.maxX.bitPattern.bigEndian, toByteOffset: at + 12, as: UInt32.self)
                bytes.storeBytes(of: cell.minY.bitPattern.bigEndian, toByteOffset: at + 16, as: UInt32.self)
                bytes.storeBytes(of: cell.maxY.bitPattern.bigEndian, toByteOffset: at + 20, as: UInt32.self)
                at += Self.cellSize
                union.minX = min(union.minX, cell.minX)
                union.maxX = max(union.maxX, cell.maxX)
                union.minY = min(union.minY, cell.minY)
                union.maxY = max(union.maxY, cell.maxY)
            }
        }
        return union
    }
}

/// The order in which `_rowid` rows are written: ascending id, so that SQLite appends to the
/// table's b-tree instead of inserting all over it.
package enum RTreeRowidOrder {
    /// The entries' ids are strictly ascending already: write them in array order.
    case arrayOrder
    /// Indices into the entries, by ascending id.
    case sorted([Int32])

    /// Checks that the ids are unique and finds the order.
    ///
    /// - Throws: `RTreeBulkLoadError.duplicateID` for the smallest repeated id.
    /// - Complexity: O(n) when the ids are ascending already, O(n log n) otherwise.
    package init(_ entries: [RTreeEntry]) throws(RTreeBulkLoadError) {
        precondition(entries.count < Int(Int32.max), "too many entries")
        var ascending = true
        for i in entries.indices.dropFirst() where entries[i - 1].id >= entries[i].id {
            ascending = false
            break
        }
        if ascending {
            self = .arrayOrder
            return
        }
        var keyed = entries.enumerated().map { (id: $0.element.id, index: Int32($0.offset)) }
        keyed.sort { $0.id < $1.id }
        for i in keyed.indices.dropFirst() where keyed[i - 1].id == keyed[i].id {
            throw .duplicateID(keyed[i].id)
        }
        self = .sorted(keyed.map(\.index))
    }
}
