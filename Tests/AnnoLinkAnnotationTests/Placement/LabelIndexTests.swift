import AnnoLinkAnnotation
import AnnoLinkGeometry
import AnnoLinkTestSupport
import Testing

/// `LabelIndex`: queries agree with a scan of all envelopes, through inserts, removes and
/// envelopes far larger than a cell.
struct LabelIndexTests {
    @Test("random envelopes: queries report exactly the intersecting ids, each once")
    func againstScan() {
        var random = SplitMix64(seed: 17)
        var index = LabelIndex(cellSize: 10, maximumCellsPerEntry: 16)
        var envelopes: [Int: Envelope] = [:]
        func randomEnvelope(maxSide: Double) -> Envelope {
            let x = Double.random(in: -200...200, using: &random), y = Double.random(in: -200...200, using: &random)
            return Envelope(minX: x, minY: y, maxX: x + .random(in: 0...maxSide, using: &random), maxY: y + .random(in: 0...maxSide, using: &random))
        }
        for id in 0..<1500 {
            let e = randomEnvelope(maxSide: id % 50 == 0 ? 150 : 25)
            index.insert(id, envelope: e)
            envelopes[id] = e
        }
        for id in stride(from: 0, to: 1500, by: 3) {
            index.remove(id)
            envelopes[id] = nil
        }
        index.insert(7, envelope: Envelope(minX: 0, minY: 0, maxX: 1, maxY: 1))
        envelopes[7] = Envelope(minX: 0, minY: 0, maxX: 1, maxY: 1)
        #expect(index.count == envelopes.count)
        for _ in 0..<300 {
            let q = randomEnvelope(maxSide: 60)
            var seen: [Int] = []
            index.query(q) { seen.append($0) }
            #expect(seen.count == Set(seen).count, "each id once")
            #expect(seen.sorted() == envelopes.filter { $0.value.intersects(q) }.map(\.key).sorted())
            #expect(index.ids(intersecting: q) == seen.sorted())
        }
        // A query larger than the whole grid.
        #expect(index.ids(intersecting: Envelope(minX: -1e6, minY: -1e6, maxX: 1e6, maxY: 1e6)) == envelopes.keys.sorted())
    }

    @Test("an empty outline's envelope is not indexed; the suggested cell size is the median longer side")
    func details() {
        var index = LabelIndex(cellSize: 1)
        index.insert(0, envelope: LabelOutline(hullOf: []).envelope)
        #expect(index.count == 0)
        let sizes = [Envelope(minX: 0, minY: 0, maxX: 1, maxY: 3), Envelope(minX: 0, minY: 0, maxX: 5, maxY: 1), Envelope(minX: 0, minY: 0, maxX: 9, maxY: 2)]
        #expect(LabelIndex.suggestedCellSize(for: sizes) == 5)
    }
}
