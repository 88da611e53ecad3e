import AnnoLinkAnnotation
import AnnoLinkGeometry
import AnnoLinkTestSupport
import Foundation
import Testing

/// `LabelSolver`: placed labels never conflict, alternatives are used when the rule's position
/// is taken, the improvement never loses to the greedy start, and the answer does not depend on
/// the order of the input.
struct LabelSolverTests {
    let fpp = PlacementFixtures.feetPerPoint
    var clearance: Double { 0.5 * fpp }

    @Test("two points close together: both placed without conflict, one at the rule's position")
    func twoClosePoints() {
        let labels = PlacementFixtures.pointLabels([Point(x: 0, y: 0), Point(x: 30, y: 0)])
        #expect(labels[0][0].outline.intersects(labels[1][0].outline, clearance: clearance), "the rule's positions collide")
        let problem = LabelProblem(labels: labels, clearance: clearance)
        let solution = LabelSolver.solve(problem)
        #expect(solution.placed == [true, true])
        #expect(PlacementFixtures.conflicts(problem, solution).isEmpty)
        #expect(solution.chosen.filter { $0 == 0 }.count == 1)
        #expect(solution.cost > 0 && solution.cost <= 2.0 / 8 + 1e-12, "the second label takes a cheap zone: \(solution.chosen)")
    }

    @Test("a crowded cluster: some unplaced, no placed pair in conflict, never worse than the greedy start")
    func crowdedCluster() {
        var random = SplitMix64(seed: 11)
        let points = (0..<60).map { _ in Point(x: .random(in: 0...120, using: &random), y: .random(in: 0...120, using: &random)) }
        let problem = LabelProblem(labels: PlacementFixtures.pointLabels(points), clearance: clearance)
        let greedy = LabelSolver.solve(problem, limits: .greedyOnly)
        let solution = LabelSolver.solve(problem)
        #expect(PlacementFixtures.conflicts(problem, greedy).isEmpty)
        #expect(PlacementFixtures.conflicts(problem, solution).isEmpty)
        #expect(solution.placedCount < points.count, "too crowded for all")
        #expect(solution.placedCount > 10)
        #expect(solution.placedCount > greedy.placedCount || (solution.placedCount == greedy.placedCount && solution.cost <= greedy.cost))
        for i in points.indices where !solution.placed[i] { #expect(solution.chosen[i] == 0, "an unplaced label keeps its best candidate") }
        let cost = points.indices.filter { solution.placed[$0] }.reduce(0.0) { $0 + problem.labels[$1][solution.chosen[$1]].cost }
        #expect(abs(cost - solution.cost) < 1e-9)
        print("crowded cluster: 60 labels, greedy placed \(greedy.placedCount) (cost \(greedy.cost)), improved \(solution.placedCount) (cost \(solution.cost))")
    }

    @Test("the same labels in another order, with the obstacles shuffled, get the same answer per label")
    func orderIndependent() {
        var random = SplitMix64(seed: 5)
        let points = (0..<300).map { _ in Point(x: .random(in: 0...600, using: &random), y: .random(in: 0...600, using: &random)) }
        let labels = PlacementFixtures.pointLabels(points)
        let obstacles = (0..<20).map { _ in
            LabelOutline(PlacementFixtures.box(centre: Point(x: .random(in: 0...600, using: &random), y: .random(in: 0...600, using: &random)),
                                               width: 30, height: 10, angle: .random(in: 0..<180, using: &random)))
        }
        let problem = LabelProblem(labels: labels, obstacles: obstacles, clearance: clearance)
        let solution = LabelSolver.solve(problem)
        let order = Array(points.indices).shuffled(using: &random)
        let shuffled = LabelProblem(labels: order.map { labels[$0] }, obstacles: obstacles.shuffled(using: &random), clearance: clearance)
        let other = LabelSolver.solve(shuffled)
        for (position, label) in order.enumerated() {
            #expect(other.chosen[position] == solution.chosen[label])
            #expect(other.placed[position] == solution.placed[label])
        }
        #expect(LabelSolver.solve(problem) == solution, "the same input, the same answer")
        #expect(PlacementFixtures.conflicts(problem, solution).isEmpty)
    }

    @Test("obstacles: a label avoids one on its rule's position and is unplaced when all its candidates are covered")
    func obstacles() {
        let labels = PlacementFixtures.pointLabels([Point(x: 0, y: 0), Point(x: 500, y: 0)])
        let onRule = labels[0][0].outline
        let everything = LabelOutline(PlacementFixtures.box(centre: Point(x: 500, y: 0), width: 400, height: 400, angle: 0))
        let problem = LabelProblem(labels: labels, obstacles: [onRule, everything], clearance: clearance)
        let solution = LabelSolver.solve(problem)
        #expect(solution.placed == [true, false])
        #expect(solution.chosen[0] != 0)
        #expect(!labels[0][solution.chosen[0]].outline.intersects(onRule, clearance: clearance))
        #expect(solution.chosen[1] == 0)
        #expect(PlacementFixtures.conflicts(problem, solution).isEmpty)
    }

    @Test("equal labels: the first in the input wins; a label without candidates is unplaced with −1")
    func unplacedIsNoObstacle() {
        // Three labels at one point, each with the rule's position only: one placed, its two
        // twins not; and a label with no candidate at all.
        let still = PlacementPreferences(aroundPoint: false)
        var labels = PlacementFixtures.pointLabels([Point(x: 0, y: 0), Point(x: 0, y: 0), Point(x: 0, y: 0)], preferences: still)
        labels.append([])
        let problem = LabelProblem(labels: labels, clearance: clearance)
        let solution = LabelSolver.solve(problem)
        #expect(solution.placed == [true, false, false, false], "the first of equal labels wins")
        #expect(solution.chosen == [0, 0, 0, -1])
    }

    @Test("an incremental call: a few labels among hundreds of fixed outlines")
    func incremental() {
        var random = SplitMix64(seed: 3)
        let kept = PlacementFixtures.pointLabels((0..<400).map { _ in Point(x: .random(in: 0...2000, using: &random), y: .random(in: 0...2000, using: &random)) })
        let obstacles = kept.map { $0[0].outline }
        let labels = PlacementFixtures.pointLabels((0..<12).map { _ in Point(x: .random(in: 0...2000, using: &random), y: .random(in: 0...2000, using: &random)) })
        let problem = LabelProblem(labels: labels, obstacles: obstacles, clearance: clearance)
        let solution = LabelSolver.solve(problem)
        #expect(PlacementFixtures.conflicts(problem, solution).isEmpty)
        #expect(solution.placedCount >= 9)
    }

    @Test("20,000 random labels, points and lines: no placed pair conflicts (checked through the index)")
    func synthetic() throws {
        let problem = try Self.syntheticProblem(labels: 20_000, seed: 42)
        let greedy = LabelSolver.solve(problem, limits: .greedyOnly)
        let solution = LabelSolver.solve(problem)
        #expect(PlacementFixtures.conflictsViaIndex(problem, greedy) == 0)
        #expect(PlacementFixtures.conflictsViaIndex(problem, solution) == 0)
        #expect(solution.placedCount > greedy.placedCount || (solution.placedCount == greedy.placedCount && solution.cost <= greedy.cost))
        let ruleOnly = LabelSolver.solve(LabelProblem(labels: problem.labels.map { [$0[0]] }, clearance: problem.clearance), limits: .greedyOnly)
        #expect(solution.placedCount > ruleOnly.placedCount)
        print("synthetic 20,000: rule positions only \(ruleOnly.placedCount) placed; greedy \(greedy.placedCount) (cost \(greedy.cost)); improved \(solution.placedCount) (cost \(solution.cost))")
    }

    /// Half point labels, half two-point lines (lengths 10–150 ft, any direction), texts of
    /// 15–60 pt, spread so that about 40 % of the rule's footprints overlap another.
    static func syntheticProblem(labels count: Int, seed: UInt64) throws -> LabelProblem {
        var random = SplitMix64(seed: seed)
        let fpp = PlacementFixtures.feetPerPoint
        let side = (Double(count) * 4000).squareRoot()
        var labels: [[LabelCandidate]] = []
        labels.reserveCapacity(count)
        for i in 0..<count {
            let p = Point(x: .random(in: 0...side, using: &random), y: .random(in: 0...side, using: &random))
            let extent = PlacementFixtures.extent(width: .random(in: 15...60, using: &random))
            if i % 2 == 0 {
                labels.append(PlacementCandidates.point(p, extent: extent, horizontalAlignment: 1, verticalAlignment: 2, offset: 3.35, mapUnitsPerPoint: fpp))
            } else {
                let length = Double.random(in: 10...150, using: &random), angle = Double.random(in: 0..<(2 * .pi), using: &random)
                let line = LineString([p, Point(x: p.x + cos(angle) * length, y: p.y + sin(angle) * length)])
                labels.append(try PlacementCandidates.line(line, extent: extent, horizontalAlignment: 1, verticalAlignment: 2, offset: 1.5, mapUnitsPerPoint: fpp))
            }
        }
        return LabelProblem(labels: labels, clearance: 0.5 * fpp)
    }
}
