import AnnoLinkGeometry
import Foundation

/// A spatial index of envelopes by id, for conflict queries: a uniform grid of square cells.
///
/// Ids are small non-negative integers chosen by the caller (array positions); storage grows
/// with the largest id. Labels are of similar size, so a grid with cells about a label's size
/// finds an envelope's neighbours in a few cells; envelopes spanning more than
/// `maximumCellsPerEntry` cells are kept in a list of their own that every query scans.
///
/// Deterministic: a query reports ids in an order that depends only on the sequence of inserts
/// and removes, never on hashing.
public struct LabelIndex: Sendable {
    /// The side of a cell, in map units.
    public let cellSize: Double
    /// Envelopes covering more cells than this go to the oversized list.
    public let maximumCellsPerEntry: Int

    private struct Cell: Hashable {
        var x: Int
        var y: Int
    }

    /// An id's envelope and its first cell (so that queries need not divide again).
    private struct Entry {
        var envelope: Envelope
        var x0: Int
        var y0: Int
    }

    /// Per id: its entry, nil when absent.
    private var entries: [Entry?] = []
    private var cells: [Cell: [Int32]] = [:]
    private var oversized: [Int] = []
    /// How many ids are in the index.
    public private(set) var count = 0

    /// An empty index with cells of `cellSize` map units (made at least the smallest positive
    /// number if not positive or finite).
    public init(cellSize: Double, maximumCellsPerEntry: Int = 64) {
        self.cellSize = cellSize.isFinite && cellSize > 0 ? cellSize : .leastNormalMagnitude
        self.maximumCellsPerEntry = max(1, maximumCellsPerEntry)
    }

    /// A cell size for envelopes like `envelopes`: the median of their longer sides, so that a
    /// typical label lies in two to four cells and a cell holds few others (measured on the
    /// synthetic maps of `PlacementBenchmarks`: twice the median scans 2–3 times as many
    /// entries per query). 1 when there is nothing to measure.
    public static func suggestedCellSize(for envelopes: some Sequence<Envelope>) -> Double {
        var sides = envelopes.compactMap { e -> Double? in
            let side = max(e.width, e.height)
            return side.isFinite && side > 0 ? side : nil
        }
        guard !sides.isEmpty else { return 1 }
        sides.sort()
        return sides[sides.count / 2]
    }

    private func range(_ e: Envelope) -> (x0: Int, y0: Int, x1: Int, y1: Int) {
        func cell(_ v: Double) -> Int {
            let c = (v / cellSize).rounded(.down)
            return c >= Double(Int.max / 4) ? Int.max / 4 : (c <= Double(Int.min / 4) ? Int.min / 4 : Int(c))
        }
        return (cell(e.minX), cell(e.minY), cell(e.maxX), cell(e.maxY))
    }

    /// How many cells the range covers; nil beyond `Int.max`.
    private func cellCount(_ r: (x0: Int, y0: Int, x1: Int, y1: Int)) -> Int? {
        let w = r.x1.subtractingReportingOverflow(r.x0), h = r.y1.subtractingReportingOverflow(r.y0)
        if w.overflow || h.overflow { return nil }
        let area = (w.partialValue + 1).multipliedReportingOverflow(by: h.partialValue + 1)
        return area.overflow ? nil : area.partialValue
    }

    private func isOversized(_ r: (x0: Int, y0: Int, x1: Int, y1: Int)) -> Bool {
        cellCount(r).map { $0 > maximumCellsPerEntry } ?? true
    }

    /// Adds `id` with `envelope`, replacing what `id` had. Envelopes with a NaN or an inverted
    /// side (an empty outline's) are not indexed: they intersect nothing.
    public mutating func insert(_ id: Int, envelope: Envelope) {
        precondition(id >= 0, "LabelIndex ids are array positions, not \(id)")
        remove(id)
        guard envelope.minX <= envelope.maxX, envelope.minY <= envelope.maxY else { return }
        precondition(id <= Int(Int32.max), "LabelIndex ids fit in 32 bits, not \(id)")
        if id >= entries.count { entries.append(contentsOf: repeatElement(nil, count: id + 1 - entries.count)) }
        let r = range(envelope)
        entries[id] = Entry(envelope: envelope, x0: r.x0, y0: r.y0)
        count += 1
        if isOversized(r) {
            oversized.append(id)
            return
        }
        for y in r.y0...r.y1 {
            for x in r.x0...r.x1 { cells[Cell(x: x, y: y), default: []].append(Int32(id)) }
        }
    }

    /// Removes `id`; nothing happens when it is absent.
    public mutating func remove(_ id: Int) {
        guard id >= 0, id < entries.count, let entry = entries[id] else { return }
        entries[id] = nil
        count -= 1
        let r = range(entry.envelope)
        if isOversized(r) {
            oversized.remove(at: oversized.firstIndex(of: id)!)
            return
        }
        for y in r.y0...r.y1 {
            for x in r.x0...r.x1 {
                let key = Cell(x: x, y: y)
                guard var list = cells.removeValue(forKey: key) else { continue }
                list.remove(at: list.firstIndex(of: Int32(id))!)
                if !list.isEmpty { cells[key] = list }
            }
        }
    }

    /// The envelope stored for `id`, or nil.
    public func envelope(of id: Int) -> Envelope? {
        id >= 0 && id < entries.count ? entries[id]?.envelope : nil
    }

    /// Calls `body` once with each id whose envelope intersects `envelope` (touching counts).
    /// Allocates nothing.
    public func query(_ envelope: Envelope, _ body: (Int) -> Void) {
        for id in oversized where entries[id]!.envelope.intersects(envelope) { body(id) }
        guard envelope.minX <= envelope.maxX, envelope.minY <= envelope.maxY else { return }
        let q = range(envelope)
        // A query as large as the whole index: walk the entries instead of the empty cells.
        if cellCount(q).map({ $0 > cells.count }) ?? true {
            for (id, entry) in entries.enumerated() {
                guard let entry, entry.envelope.intersects(envelope) else { continue }
                if !isOversized(range(entry.envelope)) { body(id) }
            }
            return
        }
        for y in q.y0...q.y1 {
            for x in q.x0...q.x1 {
                guard let list = cells[Cell(x: x, y: y)] else { continue }
                for id in list {
                    let entry = entries[Int(id)]!
                    // An entry spanning several cells is reported from the first cell it shares
                    // with the query only.
                    guard x == max(entry.x0, q.x0), y == max(entry.y0, q.y0), entry.envelope.intersects(envelope) else { continue }
                    body(Int(id))
                }
            }
        }
    }

    /// Appends to `found` the ids `query(_:_:)` reports, in its order; a caller that reuses
    /// `found` (emptied, capacity kept) queries without allocating.
    public func query(_ envelope: Envelope, into found: inout [Int]) {
        query(envelope) { found.append($0) }
    }

    /// The ids whose envelopes intersect `envelope`, ascending.
    public func ids(intersecting envelope: Envelope) -> [Int] {
        var result: [Int] = []
        query(envelope, into: &result)
        return result.sorted()
    }
}
