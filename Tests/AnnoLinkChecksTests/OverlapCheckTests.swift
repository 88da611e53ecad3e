@testable import AnnoLinkChecks
import AnnoLinkEngine
import AnnoLinkGeometry
import AnnoLinkStore
import AnnoLinkTestSupport
import Foundation
import Testing

/// The review pass: overlapping and unplaced annotation, on a sample whose footprints the test
/// lays out by hand, and the grid search against comparing every pair.
@Suite("overlapping and unplaced annotation")
struct OverlapCheckTests {
    static let review: Set<ProblemCode> = [.overlappingAnnotation, .unplacedAnnotation]

    /// A polygon through `points`, closed.
    static func ring(_ points: [(Double, Double)]) -> Polygon {
        Polygon(rings: [LineString((points + [points[0]]).map { Point(x: $0.0, y: $0.1) })])
    }

    static func square(_ x: Double, _ y: Double, _ side: Double = 10) -> Polygon {
        ring([(x, y), (x + side, y), (x + side, y + side), (x, y + side)])
    }

    /// A sample whose every footprint is a small square far from the others, then: parcel
    /// labels 1 and 2 overlapping; address label 1 over parcel label 3; parcel labels 4 and 5
    /// touching along an edge; parcel labels 6 and 7 triangles whose envelopes meet and whose
    /// shapes do not; parcel label 8 unplaced (Status 1) over parcel label 1.
    static func laidOut() throws -> CheckScratch {
        let s = try CheckScratch(parcels: 6)
        for name in ["address_points_anno", "parcel_lines_anno"] {
            let table = try s.table(name)
            for fid in try s.package.connection.rows("SELECT fid FROM \(name)").compactMap({ $0[0].integerValue }) {
                var row = try s.package.annotationRow(table, fid: fid, footprintProblem: { _ in })
                let x = (name == "parcel_lines_anno" ? 0 : 100_000) + 1000 * Double(fid)
                row.footprint = square(x, 50_000)
                switch (name, fid) {
                case ("parcel_lines_anno", 1): row.footprint = square(0, 0)
                case ("parcel_lines_anno", 2): row.footprint = square(5, 5)
                case ("address_points_anno", 1): row.footprint = square(100, 0)
                case ("parcel_lines_anno", 3): row.footprint = square(105, 0)
                case ("parcel_lines_anno", 4): row.footprint = square(200, 0)
                case ("parcel_lines_anno", 5): row.footprint = square(210, 0)
                case ("parcel_lines_anno", 6): row.footprint = ring([(300, 0), (310, 0), (300, 10)])
                case ("parcel_lines_anno", 7): row.footprint = ring([(310, 10), (310, 2.5), (302.5, 10)])
                case ("parcel_lines_anno", 8):
                    row.footprint = square(2, 2)
                    row.status = 1
                default: break
                }
                try s.update(row, in: name)
            }
        }
        return s
    }

    @Test("pairs in one table and across two, touching included, once each on the lower row; unplaced rows apart")
    func laidOutPairs() throws {
        let s = try Self.laidOut()
        let problems = try s.problems(codes: Self.review)
        let overlaps = problems.filter { $0.code == .overlappingAnnotation }
        #expect(overlaps.map { "\($0.annotationTable!) \($0.annotationFid!) / \($0.overlapped!.annotationTable) \($0.overlapped!.annotationFid)" } == [
            "address_points_anno 1 / parcel_lines_anno 3",
            "parcel_lines_anno 1 / parcel_lines_anno 2",
            "parcel_lines_anno 4 / parcel_lines_anno 5",
        ])
        let first = try #require(overlaps.first)
        let parcel3 = try s.package.annotationRow(try s.table("parcel_lines_anno"), fid: 3, footprintProblem: { _ in })
        #expect(first.overlapped?.text == parcel3.text)
        #expect(first.message.contains("overlaps parcel_lines_anno fid 3 '\(parcel3.text)'"), "\(first.message)")
        #expect(first.originTable == "address_points" && first.classID != nil && first.originFid != nil)

        let unplaced = problems.filter { $0.code == .unplacedAnnotation }
        #expect(unplaced.map { "\($0.annotationTable!) \($0.annotationFid!)" } == ["parcel_lines_anno 8"])
        #expect(unplaced.first?.originTable == "parcel_lines" && unplaced.first?.originFid != nil)
        #expect(unplaced.first?.message.contains("Status 1") == true)
        #expect(ProblemCode.overlappingAnnotation.isRepairable && ProblemCode.unplacedAnnotation.isRepairable)
    }

    @Test("--table: the pairs with a row of that table, across tables too, reported on its row")
    func tableScope() throws {
        let s = try Self.laidOut()
        let problems = try s.problems(table: "parcel_lines_anno", codes: [.overlappingAnnotation])
        #expect(problems.map { "\($0.annotationTable!) \($0.annotationFid!) / \($0.overlapped!.annotationFid)" } == [
            "parcel_lines_anno 1 / 2", "parcel_lines_anno 3 / 1", "parcel_lines_anno 4 / 5",
        ])
        let address = try s.problems(table: "address_points_anno", codes: ProblemCode.checkedByDefault)
        #expect(address.filter { $0.code == .overlappingAnnotation }.map(\.annotationFid) == [1])
        #expect(!address.contains { $0.code == .unplacedAnnotation }, "the unplaced row is in the other table")
    }

    @Test("codes limit the check: only the codes asked for are reported, and a fix repairs only those")
    func onlyCodes() throws {
        let s = try Self.laidOut()
        let all = try s.problems(codes: ProblemCode.checkedByDefault)
        #expect(all.contains { $0.code == .footprint }, "the hand-laid footprints do not match their text")
        #expect(Set(try s.problems(codes: [.unplacedAnnotation]).map(\.code)) == [.unplacedAnnotation])
        #expect(try s.problems(codes: [.index]).isEmpty)

        let footprints = try s.problems(codes: [.footprint]).count
        let repaired = try ConsistencyChecker(package: s.package).run(CheckFix(codes: [.footprint], command: "test"))
        #expect(repaired.repair?.repaired == [.footprint: footprints] && repaired.repair?.left == [:])
        #expect(try s.problems(codes: [.footprint]).isEmpty)
        #expect(try s.problems(codes: [.unplacedAnnotation]).count == 1, "the footprint fix leaves the unplaced row as it was")

        // The review fix places the rows again: the overlaps go, the unplaced row finds room.
        let review = try s.problems(codes: Self.review).count
        let fixed = try s.checker(codes: [.unplacedAnnotation, .overlappingAnnotation])
            .run(CheckFix(codes: [.unplacedAnnotation, .overlappingAnnotation], command: "test"))
        #expect(fixed.repair?.repaired.values.reduce(0, +) == review)
        #expect(fixed.repair?.left == [:])
        #expect(fixed.repair?.journalEntry != nil)
        #expect(try s.problems(codes: Self.review).isEmpty)
    }

    @Test("the grid finds exactly the pairs that comparing every pair finds, a very large label among them")
    func gridMatchesEveryPair() throws {
        var labels = ConsistencyChecker.PlacedLabels()
        labels.tables = []
        var generator = SplitMix64(seed: 7)
        for i in 0..<400 {
            let x = generator.next(below: 600), y = generator.next(below: 600)
            let w = 2 + generator.next(below: 30), h = 2 + generator.next(below: 8)
            // A rotated rectangle, as a label's footprint is at an angle.
            let a = generator.next(below: 3.14)
            let c = cos(a), s = sin(a)
            let corners = [(0.0, 0.0), (w, 0), (w, h), (0, h)].map { (x + $0.0 * c - $0.1 * s, y + $0.0 * s + $0.1 * c) }
            var footprint = Geometry.polygon(Self.ring(corners))
            if i == 17 { footprint = .polygon(Self.square(-50, -50, 800)) }
            let row = ConsistencyChecker.ReviewedRow(fid: Int64(i + 1), text: "\(i)", status: 0, classID: 0, featureID: nil)
            labels.append(table: 0, row: row, footprint: footprint, envelope: footprint.envelope!)
        }
        let engine = try GeometryEngine()
        var expected: [ConsistencyChecker.OverlappingPair] = []
        for a in 0..<labels.count {
            for b in (a + 1)..<labels.count where try engine.intersects(labels.footprint[a], labels.footprint[b]) {
                expected.append(.init(first: a, second: b))
            }
        }
        let found = try ConsistencyChecker.overlappingPairs(labels)
        #expect(found.count > 399, "the large label alone meets every other one")
        #expect(found == expected)
    }
}

extension CheckScratch {
    /// Every problem a check for `codes` reports, in order.
    func problems(table: String? = nil, codes: Set<ProblemCode>) throws -> [Problem] {
        var found: [Problem] = []
        _ = try checker(codes: codes).check(table: table) { found.append($0) }
        return found
    }
}


extension SplitMix64 {
    /// A number in `0 ..< limit`.
    mutating func next(below limit: Double) -> Double { Double(next() >> 11) / Double(1 << 53) * limit }
}
