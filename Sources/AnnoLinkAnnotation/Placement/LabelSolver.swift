import AnnoLinkGeometry
import Foundation

/// A map-wide placement decision to make: each label's candidates and the fixed outlines
/// around them.
public struct LabelProblem: Sendable {
    /// Per label, its candidates; candidate 0 should be the rule's position (cost 0).
    public var labels: [[LabelCandidate]]
    /// Outlines no placed label may come near: kept and hand-placed labels, other tables' text.
    public var obstacles: [LabelOutline]
    /// The gap placed labels keep from each other and from obstacles, in map units (the class's
    /// `PlacementPreferences.clearance` points × map units per point). See
    /// `LabelOutline.intersects(_:clearance:)`.
    public var clearance: Double

    /// A problem of `labels` among `obstacles`.
    public init(labels: [[LabelCandidate]], obstacles: [LabelOutline] = [], clearance: Double) {
        self.labels = labels
        self.obstacles = obstacles
        self.clearance = clearance
    }
}

/// The solver's answer: a candidate per label and whether the label is placed there.
public struct LabelSolution: Hashable, Sendable {
    /// Per label, the index of its chosen candidate; −1 for a label without candidates. An
    /// unplaced label keeps its lowest-cost candidate (ties: the first), normally the rule's.
    public var chosen: [Int]
    /// Per label, whether it is placed: its chosen candidate conflicts with no obstacle and no
    /// other placed label. Unplaced labels are not drawn (Esri's Status 1) and are no obstacle.
    public var placed: [Bool]
    /// The summed cost of the placed labels' chosen candidates.
    public var cost: Double

    /// A solution with the given choices.
    public init(chosen: [Int], placed: [Bool], cost: Double) {
        self.chosen = chosen
        self.placed = placed
        self.cost = cost
    }

    /// How many labels are placed.
    public var placedCount: Int { placed.reduce(0) { $0 + ($1 ? 1 : 0) } }
}

/// Chooses a candidate for every label of a map so that as many labels as possible are placed
/// without conflict, and among such choices a low summed cost.
///
/// The algorithm (docs/placement.md, "Conflict-aware placement"):
/// 1. Candidates that conflict with an obstacle are dropped; the remaining candidates' conflicts
///    with other labels' candidates form a graph (found through a `LabelIndex`).
/// 2. A greedy start (FALP, as in QGIS's PAL): a priority queue of candidates keyed by how many
///    live candidates of other labels they conflict with, then cost; the first is taken, its
///    label's other candidates and its conflicting candidates leave the queue, and their
///    neighbours' keys drop.
/// 3. Ejection chains: for each unplaced label, then each placed label with a cost, a bounded
///    depth-first search moves it to one of its candidates, ejecting at most one placed label
///    per step, which then looks for a place of its own. A chain is kept only when it strictly
///    improves the placed count, or keeps it and lowers the summed cost. Each search has a fixed
///    budget of candidates, so the work is near-linear in the number of labels.
///
/// Deterministic: labels are processed in an order fixed by their rule candidates' anchors and
/// angles (then their position in the input), and every tie is broken by that order and the
/// candidate index, so the same labels in another order get the same answers.
public enum LabelSolver {
    /// How much search the improvement may spend.
    public struct Limits: Hashable, Sendable {
        /// Labels ejected one after another in one chain, at most.
        public var chainDepth: Int
        /// Candidates one chain search may try, at most.
        public var candidatesPerSearch: Int
        /// Rounds over all labels, at most (a round that improves nothing ends the search).
        public var rounds: Int

        /// The limits; the defaults keep a whole-file run near-linear.
        public init(chainDepth: Int = 4, candidatesPerSearch: Int = 96, rounds: Int = 4) {
            self.chainDepth = chainDepth
            self.candidatesPerSearch = candidatesPerSearch
            self.rounds = rounds
        }

        /// No improvement: the greedy start alone.
        public static let greedyOnly = Limits(chainDepth: 0, candidatesPerSearch: 0, rounds: 0)
    }

    /// The placement of `problem`'s labels; see the type's description.
    public static func solve(_ problem: LabelProblem, limits: Limits = Limits()) -> LabelSolution {
        var graph = ConflictGraph(problem)
        graph.greedy()
        graph.improve(limits)
        return graph.solution()
    }
}

/// The solver's working state: candidates in canonical order, their conflicts, the assignment.
private struct ConflictGraph {
    /// Canonical label k is the input's label `inputLabel[k]`.
    let inputLabel: [Int]
    /// Canonical label k's candidates are `labelStart[k]..<labelStart[k + 1]`, in input order.
    let labelStart: [Int]
    /// Label k's candidates' global indices by cost (ties: input order) are
    /// `byCost[labelStart[k]..<labelStart[k + 1]]`.
    let byCost: [Int32]
    let candidateLabel: [Int32]
    let cost: [Double]
    /// Whether a candidate conflicts with no obstacle.
    let alive: [Bool]
    /// Candidate c's conflicting candidates (of other labels, alive, ascending) are
    /// `neighbours[neighbourStart[c]..<neighbourStart[c + 1]]`.
    let neighbourStart: [Int]
    let neighbours: [Int32]
    /// Per canonical label, its placed candidate's global index, or −1.
    var assigned: [Int32]

    init(_ problem: LabelProblem) {
        let order = problem.labels.indices.sorted { a, b in
            let ka = problem.labels[a].first?.placement, kb = problem.labels[b].first?.placement
            let ta = (ka?.anchor.x ?? .infinity, ka?.anchor.y ?? .infinity, ka?.angle ?? .infinity)
            let tb = (kb?.anchor.x ?? .infinity, kb?.anchor.y ?? .infinity, kb?.angle ?? .infinity)
            if ta != tb { return ta < tb }
            return a < b
        }
        inputLabel = order
        var labelStart = [0]
        var candidateLabel: [Int32] = [], cost: [Double] = [], outlines: [LabelOutline] = []
        var byCost: [Int32] = []
        for (k, input) in order.enumerated() {
            let candidates = problem.labels[input]
            let first = labelStart[k]
            for c in candidates {
                candidateLabel.append(Int32(k))
                cost.append(c.cost)
                outlines.append(c.outline)
            }
            byCost += candidates.indices.sorted { (candidates[$0].cost, $0) < (candidates[$1].cost, $1) }.map { Int32(first + $0) }
            labelStart.append(first + candidates.count)
        }
        self.labelStart = labelStart
        self.candidateLabel = candidateLabel
        self.cost = cost
        self.byCost = byCost
        let clearance = max(problem.clearance, 0)
        func grown(_ e: Envelope) -> Envelope {
            Envelope(minX: e.minX - clearance, minY: e.minY - clearance, maxX: e.maxX + clearance, maxY: e.maxY + clearance)
        }

        var obstacleIndex = LabelIndex(cellSize: LabelIndex.suggestedCellSize(for: problem.obstacles.map(\.envelope)))
        for (i, o) in problem.obstacles.enumerated() { obstacleIndex.insert(i, envelope: o.envelope) }
        var alive = [Bool](repeating: true, count: outlines.count)
        // Query results go to one reused buffer: a closure capturing the loop's state would box it.
        var found: [Int] = []
        if obstacleIndex.count > 0 {
            for c in outlines.indices {
                found.removeAll(keepingCapacity: true)
                obstacleIndex.query(grown(outlines[c].envelope), into: &found)
                alive[c] = !found.contains { outlines[c].intersects(problem.obstacles[$0], clearance: clearance) }
            }
        }
        self.alive = alive

        // Each conflicting pair once: a candidate meets those indexed before it, then joins them.
        var index = LabelIndex(cellSize: LabelIndex.suggestedCellSize(for: outlines.map(\.envelope)))
        var pairs: [(Int32, Int32)] = []
        var degree = [Int](repeating: 0, count: outlines.count + 1)
        // Through a buffer: reading an outline from it borrows instead of retaining its arrays.
        outlines.withUnsafeBufferPointer { outlines in
            for c in outlines.indices where alive[c] {
                let label = candidateLabel[c]
                found.removeAll(keepingCapacity: true)
                index.query(grown(outlines[c].envelope), into: &found)
                for d in found where candidateLabel[d] != label && outlines[c].intersects(outlines[d], clearance: clearance) {
                    pairs.append((Int32(d), Int32(c)))
                    degree[c] += 1
                    degree[d] += 1
                }
                index.insert(c, envelope: outlines[c].envelope)
            }
        }
        var neighbourStart = [Int](repeating: 0, count: outlines.count + 1)
        for c in outlines.indices { neighbourStart[c + 1] = neighbourStart[c] + degree[c] }
        var fill = neighbourStart
        var neighbours = [Int32](repeating: 0, count: neighbourStart[outlines.count])
        for (c, d) in pairs {
            neighbours[fill[Int(c)]] = d
            fill[Int(c)] += 1
            neighbours[fill[Int(d)]] = c
            fill[Int(d)] += 1
        }
        for c in outlines.indices { neighbours[neighbourStart[c]..<neighbourStart[c + 1]].sort() }
        self.neighbourStart = neighbourStart
        self.neighbours = neighbours
        assigned = [Int32](repeating: -1, count: order.count)
    }

    /// Where candidate c's neighbours are in `neighbours` (a range, not a slice: slices retain).
    private func neighbourRange(_ c: Int) -> Range<Int> { neighbourStart[c]..<neighbourStart[c + 1] }

    /// FALP: candidates by how many live candidates they conflict with, then cost, then index.
    mutating func greedy() {
        var conflicts = [Int](repeating: 0, count: cost.count)
        for c in cost.indices where alive[c] { conflicts[c] = neighbourStart[c + 1] - neighbourStart[c] }
        var queue = CandidateQueue(conflicts: conflicts, cost: cost)
        queue.build(cost.indices.filter { alive[$0] })
        while let c = queue.popMin() {
            let label = Int(candidateLabel[c])
            assigned[label] = Int32(c)
            for d in labelStart[label]..<labelStart[label + 1] where queue.contains(d) { drop(d, &queue) }
            for j in neighbourRange(c) where queue.contains(Int(neighbours[j])) { drop(Int(neighbours[j]), &queue) }
        }
    }

    /// Takes `d` out of the greedy queue: its neighbours in the queue lose a conflict.
    private func drop(_ d: Int, _ queue: inout CandidateQueue) {
        queue.remove(d)
        for j in neighbourRange(d) where queue.contains(Int(neighbours[j])) { queue.decrementConflicts(Int(neighbours[j])) }
    }

    /// Ejection-chain rounds within `limits`.
    mutating func improve(_ limits: LabelSolver.Limits) {
        guard limits.chainDepth > 0, limits.candidatesPerSearch > 0 else { return }
        for _ in 0..<limits.rounds {
            var improved = false
            for label in assigned.indices where assigned[label] < 0 {
                if search(start: label, limits) { improved = true }
            }
            for label in assigned.indices where assigned[label] >= 0 && cost[Int(assigned[label])] > 0 {
                if search(start: label, limits) { improved = true }
            }
            if !improved { break }
        }
    }

    /// One chain search from `start`; applies the chain and returns true when it improves.
    private mutating func search(start: Int, _ limits: LabelSolver.Limits) -> Bool {
        let old = assigned[start]
        var budget = limits.candidatesPerSearch
        var chain: [Int] = [start]
        assigned[start] = -1
        // Relative to the assignment before the search: a placed start is counted as ejected.
        let placed = old >= 0 ? -1 : 0
        let costSoFar = old >= 0 ? -cost[Int(old)] : 0
        if extend(start, excluding: old, placed: placed, cost: costSoFar, depth: 1, &chain, &budget, limits) { return true }
        assigned[start] = old
        return false
    }

    /// Gives `label` (unassigned, last of `chain`) a candidate, ejecting at most one placed
    /// label, which the chain then continues with. `placed` and `cost` are the changes so far.
    private mutating func extend(
        _ label: Int, excluding excluded: Int32, placed: Int, cost costSoFar: Double, depth: Int,
        _ chain: inout [Int], _ budget: inout Int, _ limits: LabelSolver.Limits
    ) -> Bool {
        func improves(_ placed: Int, _ cost: Double) -> Bool { placed > 0 || (placed == 0 && cost < -1e-12) }
        for position in labelStart[label]..<labelStart[label + 1] {
            let c32 = byCost[position]
            guard c32 != excluded && alive[Int(c32)] else { continue }
            guard budget > 0 else { return false }
            budget -= 1
            let c = Int(c32)
            var blocker = -1, blockers = 0
            for j in neighbourRange(c) {
                let n = neighbours[j]
                let other = Int(candidateLabel[Int(n)])
                if assigned[other] == n {
                    blocker = other
                    blockers += 1
                    if blockers > 1 { break }
                }
            }
            let withC = costSoFar + cost[c]
            if blockers == 0 {
                if improves(placed + 1, withC) {
                    assigned[label] = c32
                    return true
                }
                continue
            }
            guard blockers == 1, depth < limits.chainDepth, !chain.contains(blocker) else { continue }
            let ejected = assigned[blocker]
            let afterEjection = withC - cost[Int(ejected)]
            assigned[label] = c32
            assigned[blocker] = -1
            chain.append(blocker)
            if extend(blocker, excluding: ejected, placed: placed, cost: afterEjection, depth: depth + 1, &chain, &budget, limits) {
                return true
            }
            // Leaving the ejected label unplaced may still be better (a cheaper label in its stead).
            if improves(placed, afterEjection) { return true }
            chain.removeLast()
            assigned[blocker] = ejected
            assigned[label] = -1
        }
        return false
    }

    func solution() -> LabelSolution {
        var chosen = [Int](repeating: -1, count: inputLabel.count)
        var placed = [Bool](repeating: false, count: inputLabel.count)
        var total = 0.0
        for (k, input) in inputLabel.enumerated() {
            if assigned[k] >= 0 {
                chosen[input] = Int(assigned[k]) - labelStart[k]
                placed[input] = true
                total += cost[Int(assigned[k])]
            } else if labelStart[k] < labelStart[k + 1] {
                chosen[input] = Int(byCost[labelStart[k]]) - labelStart[k]
            }
        }
        return LabelSolution(chosen: chosen, placed: placed, cost: total)
    }
}

/// The greedy start's priority queue: a binary min-heap of candidate indices keyed by
/// (conflicts, cost, index), which can remove any member and lower a member's conflicts.
private struct CandidateQueue {
    private var heap: [Int32] = []
    /// Per candidate, its position in `heap`, or −1.
    private var position: [Int32]
    private var conflicts: [Int]
    private let cost: [Double]

    init(conflicts: [Int], cost: [Double]) {
        position = [Int32](repeating: -1, count: cost.count)
        self.conflicts = conflicts
        self.cost = cost
    }

    private func less(_ a: Int, _ b: Int) -> Bool {
        if conflicts[a] != conflicts[b] { return conflicts[a] < conflicts[b] }
        if cost[a] != cost[b] { return cost[a] < cost[b] }
        return a < b
    }

    mutating func decrementConflicts(_ c: Int) {
        conflicts[c] -= 1
        let i = Int(position[c])
        if i >= 0 { siftUp(i) }
    }

    func contains(_ c: Int) -> Bool { position[c] >= 0 }

    mutating func build(_ members: [Int]) {
        heap = members.map { Int32($0) }
        for (i, c) in heap.enumerated() { position[Int(c)] = Int32(i) }
        if heap.count > 1 {
            for i in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(i) }
        }
    }

    mutating func popMin() -> Int? {
        guard let top = heap.first else { return nil }
        remove(Int(top))
        return Int(top)
    }

    mutating func remove(_ c: Int) {
        let i = Int(position[c])
        guard i >= 0 else { return }
        position[c] = -1
        let last = heap.removeLast()
        guard i < heap.count else { return }
        heap[i] = last
        position[Int(last)] = Int32(i)
        siftUp(i)
        siftDown(Int(position[Int(last)]))
    }

    private mutating func swapAt(_ i: Int, _ j: Int) {
        heap.swapAt(i, j)
        position[Int(heap[i])] = Int32(i)
        position[Int(heap[j])] = Int32(j)
    }

    private mutating func siftUp(_ start: Int) {
        var i = start
        while i > 0 {
            let parent = (i - 1) / 2
            guard less(Int(heap[i]), Int(heap[parent])) else { return }
            swapAt(i, parent)
            i = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var i = start
        while true {
            let l = 2 * i + 1, r = l + 1
            var smallest = i
            if l < heap.count && less(Int(heap[l]), Int(heap[smallest])) { smallest = l }
            if r < heap.count && less(Int(heap[r]), Int(heap[smallest])) { smallest = r }
            if smallest == i { return }
            swapAt(i, smallest)
            i = smallest
        }
    }
}
