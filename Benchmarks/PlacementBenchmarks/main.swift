// Times conflict-aware placement on a synthetic map: half point labels, half two-point line
// labels (10–150 ft, any direction), texts of 15–60 pt of 10 pt Tahoma-like type at 1:1200,
// spread over a square of 4,000 ft² per label, so that about a third of the rule's footprints
// collide (the demo data: 42 %).
//
// Run with `swift run -c release PlacementBenchmarks [labels] [incremental-runs]` (defaults:
// 360,000 labels, the size of a whole-file regeneration; 1,000 incremental calls). Reports the
// time to make the candidates, to solve greedily, to solve with the improvement, and the mean
// of incremental calls (12 labels among 400 fixed outlines), all in CPU seconds.
import AnnoLinkAnnotation
import AnnoLinkGeometry
import Foundation

struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let count = arguments.first ?? 360_000
let incrementalRuns = arguments.dropFirst().first ?? 1000
let feetPerPoint = PlacementRules.mapUnitsPerPoint(referenceScale: 1200, metresPerUnit: 1200.0 / 3937)

/// The process's CPU time spent in `body`: the machine is shared, so wall time says more about
/// the neighbours than about the solver (which runs on one thread).
func seconds(_ body: () throws -> Void) rethrows -> Double {
    func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
    let start = now()
    try body()
    return now() - start
}

func labels(_ count: Int, side: Double, _ random: inout SplitMix64) throws -> [[LabelCandidate]] {
    var result: [[LabelCandidate]] = []
    result.reserveCapacity(count)
    for i in 0..<count {
        let p = Point(x: .random(in: 0...side, using: &random), y: .random(in: 0...side, using: &random))
        let width = Double.random(in: 15...60, using: &random)
        let extent = TextExtent(advanceWidth: width, inkStart: 0.2, inkEnd: width - 0.2, ascent: 10.005, descent: 2.065)
        if i % 2 == 0 {
            result.append(PlacementCandidates.point(p, extent: extent, horizontalAlignment: 1, verticalAlignment: 2, offset: 3.35,
                                                    mapUnitsPerPoint: feetPerPoint))
        } else {
            let length = Double.random(in: 10...150, using: &random), angle = Double.random(in: 0..<(2 * .pi), using: &random)
            let line = LineString([p, Point(x: p.x + cos(angle) * length, y: p.y + sin(angle) * length)])
            result.append(try PlacementCandidates.line(line, extent: extent, horizontalAlignment: 1, verticalAlignment: 2, offset: 1.5,
                                                       mapUnitsPerPoint: feetPerPoint))
        }
    }
    return result
}

var random = SplitMix64(state: 42)
var candidates: [[LabelCandidate]] = []
let making = try seconds { candidates = try labels(count, side: (Double(count) * 4000).squareRoot(), &random) }
let candidateCount = candidates.reduce(0) { $0 + $1.count }
print("\(count) labels, \(candidateCount) candidates: made in \(String(format: "%.2f", making)) s")
let problem = LabelProblem(labels: candidates, clearance: 0.5 * feetPerPoint)
var ruleOnly = LabelSolution(chosen: [], placed: [], cost: 0)
let ruleTime = seconds { ruleOnly = LabelSolver.solve(LabelProblem(labels: candidates.map { [$0[0]] }, clearance: problem.clearance), limits: .greedyOnly) }
print("rule positions only: \(ruleOnly.placedCount) placed (\(String(format: "%.2f", ruleTime)) s)")
var greedy = ruleOnly
let greedyTime = seconds { greedy = LabelSolver.solve(problem, limits: .greedyOnly) }
print("greedy: \(greedy.placedCount) placed, cost \(String(format: "%.1f", greedy.cost)) in \(String(format: "%.2f", greedyTime)) s")
var full = ruleOnly
let fullTime = seconds { full = LabelSolver.solve(problem) }
print("greedy + ejection chains: \(full.placedCount) placed, cost \(String(format: "%.1f", full.cost)) in \(String(format: "%.2f", fullTime)) s")
let deeper = LabelSolver.Limits(chainDepth: 6, candidatesPerSearch: 400, rounds: 8)
var deep = ruleOnly
let deepTime = seconds { deep = LabelSolver.solve(problem, limits: deeper) }
print("with deeper chains (depth 6, 400 candidates, 8 rounds): \(deep.placedCount) placed, cost \(String(format: "%.1f", deep.cost)) in \(String(format: "%.2f", deepTime)) s")

// Incremental calls: 12 new labels among the 400 placed labels nearest them, as obstacles.
let area = 1000.0
var small = SplitMix64(state: 7)
let kept = try labels(400, side: area, &small).map { $0[0].outline }
var incrementalPlaced = 0
let incrementalTime = try seconds {
    for _ in 0..<incrementalRuns {
        let solution = LabelSolver.solve(LabelProblem(labels: try labels(12, side: area, &small), obstacles: kept, clearance: problem.clearance))
        incrementalPlaced += solution.placedCount
    }
}
print("incremental: 12 labels among 400 obstacles, \(String(format: "%.3f", incrementalTime / Double(max(incrementalRuns, 1)) * 1000)) ms per call "
      + "(candidates included), \(String(format: "%.1f", Double(incrementalPlaced) / Double(max(incrementalRuns, 1)))) placed on average")
