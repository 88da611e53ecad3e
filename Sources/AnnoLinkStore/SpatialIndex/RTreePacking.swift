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

    /// The centre on each axis as a sort key: an unsigned integer in the order of the floats.
    /// Only −∞ + ∞ can give NaN (a box spanning beyond the float range); it sorts as the
    /// origin so that the ordering stays total.
    @inline(__always) var xKey: UInt32 { Self.orderKey(minX * 0.5 + maxX * 0.5) }
    @inline(__always) var yKey: UInt32 { Self.orderKey(minY * 0.5 + maxY * 0.5) }

    @inline(__always) private static func orderKey(_ value: Float) -> UInt32 {
        let bits = value.isNaN || value == 0 ? 0 : value.bitPattern
        return bits & 0x8000_0000 != 0 ? ~bits : bits | 0x8000_0000
    }
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

    /// The module's search keeps a cell index in a byte (`RtreeSearchPoint.iCell`), so no node
    /// gets more than 255 cells; the module itself never makes nodes of more than 51.
    static let maximumCapacity = 255
    static let cellSize = 24

    /// Packs `entries` into nodes of `nodeSize` bytes.
    ///
    /// - Precondition: `nodeSize ≥ 448` (the module's own minimum).
    /// - Throws: `RTreeBulkLoadError.nonFiniteCoordinate` or `.invertedBox` for the first bad
    ///   entry. Ids are not checked here (see `RTreeRowidOrder`).
    /// - Complexity: O(n) time (the sorts are radix sorts); 24 bytes per entry for the cells
    ///   and 16 more while a level is tiled, besides the node blobs (about 25 bytes per entry).
    package init(entries: [RTreeEntry], nodeSize: Int) throws(RTreeBulkLoadError) {
        precondition(nodeSize >= 448, "rtree nodes are at least 448 bytes")
        precondition(entries.count < Int(UInt32.max), "cell indices are kept in 32 bits")
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
            let (order, nodeSizes) = Self.tile(cells, nodeCount: levels[level])
            var upper = [RTreeCell]()
            upper.reserveCapacity(nodeSizes.count)
            var start = 0
            for size in nodeSizes {
                let node = nextNode
                nextNode += 1
                upper.append(encode(order[start..<(start + size)], of: cells, asNode: node, level: level, entries: entries))
                start += size
            }
            cells = upper
            level += 1
        }
        _ = encode(cells.indices.map { UInt64($0) }[...], of: cells, asNode: 1, level: level, entries: entries)
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
    /// ⌈√nodeCount⌉ vertical slices of whole nodes, each slice sorted by y. Returns the order
    /// (the low 32 bits of each element index `cells`) and the node sizes: consecutive runs of
    /// the order of those sizes are the nodes.
    static func tile(_ cells: [RTreeCell], nodeCount: Int) -> (order: [UInt64], sizes: [Int]) {
        let base = cells.count / nodeCount
        let larger = cells.count % nodeCount
        let sizes = (0..<nodeCount).map { base + ($0 < larger ? 1 : 0) }
        let sliceCount = Int(Double(nodeCount).squareRoot().rounded(.up))
        let nodesPerSlice = nodeCount / sliceCount
        let widerSlices = nodeCount % sliceCount

        var order = cells.indices.map { UInt64(cells[$0].xKey) << 32 | UInt64($0) }
        var scratch = [UInt64](repeating: 0, count: order.count)
        order.withUnsafeMutableBufferPointer { order in
            scratch.withUnsafeMutableBufferPointer { scratch in
                sortByHighHalf(order, scratch: scratch)
                var node = 0
                var start = 0
                for slice in 0..<sliceCount {
                    let sliceNodes = nodesPerSlice + (slice < widerSlices ? 1 : 0)
                    let count = sizes[node..<(node + sliceNodes)].reduce(0, +)
                    let range = start..<(start + count)
                    for i in range {
                        let index = Int(truncatingIfNeeded: order[i] & 0xFFFF_FFFF)
                        order[i] = UInt64(cells[index].yKey) << 32 | UInt64(index)
                    }
                    sortByHighHalf(.init(rebasing: order[range]), scratch: .init(rebasing: scratch[range]))
                    node += sliceNodes
                    start += count
                }
            }
        }
        return (order, sizes)
    }

    /// Sorts `keys` by their high 32 bits, stably: a least-significant-digit radix sort, a
    /// byte at a time, skipping bytes that all keys share.
    static func sortByHighHalf(_ keys: UnsafeMutableBufferPointer<UInt64>, scratch: UnsafeMutableBufferPointer<UInt64>) {
        precondition(scratch.count == keys.count)
        if keys.count < 64 {
            // Insertion sort: fewer steps than four passes over 256 counters.
            for i in keys.indices.dropFirst() {
                let key = keys[i]
                var j = i
                while j > 0, keys[j - 1] >> 32 > key >> 32 {
                    keys[j] = keys[j - 1]
                    j -= 1
                }
                keys[j] = key
            }
            return
        }
        var source = keys
        var target = scratch
        var counts = [Int](repeating: 0, count: 256)
        for shift in stride(from: 32, to: 64, by: 8) {
            for i in counts.indices { counts[i] = 0 }
            for key in source { counts[Int(truncatingIfNeeded: key >> UInt64(shift)) & 0xFF] += 1 }
            if counts.contains(source.count) { continue }
            var total = 0
            for i in counts.indices {
                let count = counts[i]
                counts[i] = total
                total += count
            }
            for key in source {
                let digit = Int(truncatingIfNeeded: key >> UInt64(shift)) & 0xFF
                target[counts[digit]] = key
                counts[digit] += 1
            }
            swap(&source, &target)
        }
        if source.baseAddress != keys.baseAddress {
            _ = keys.update(fromContentsOf: source)
        }
    }

    /// Writes the cells that `order` picks from `cells` (low 32 bits of each element) as node
    /// number `node` and records where each cell went. Returns the node's cell for the level
    /// above: its number and the union of its cells' boxes.
    private mutating func encode(_ order: ArraySlice<UInt64>, of cells: [RTreeCell], asNode node: Int, level: Int, entries: [RTreeEntry]) -> RTreeCell {
        precondition(order.count <= capacity)
        var union = RTreeCell(reference: Int64(node), minX: .infinity, maxX: -.infinity, minY: .infinity, maxY: -.infinity)
        let offset = (node - 1) * nodeSize
        let isLeaf = level == 0
        nodes.withUnsafeMutableBytes { bytes in
            if node == 1 { bytes.storeBytes(of: UInt16(depth).bigEndian, toByteOffset: offset, as: UInt16.self) }
            bytes.storeBytes(of: UInt16(order.count).bigEndian, toByteOffset: offset + 2, as: UInt16.self)
            var at = offset + 4
            for key in order {
                let cell = cells[Int(truncatingIfNeeded: key & 0xFFFF_FFFF)]
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
