import AnnoLinkAnnotation
import AnnoLinkGeometry
import Testing

/// `DuplicateLabels`: same-text labels close together are one label; the most central is kept.
struct DuplicateLabelsTests {
    @Test("entrances of one address: the one nearest the group's centre is kept, the others marked")
    func entrances() {
        let keys = ["0\u{1F}Mannerheimintie 5", "0\u{1F}Mannerheimintie 5", "0\u{1F}Mannerheimintie 5", "0\u{1F}Mannerheimintie 5", "0\u{1F}Mannerheimintie 7"]
        let points = [Point(x: 0, y: 0), Point(x: 10, y: 0), Point(x: 20, y: 0), Point(x: 500, y: 0), Point(x: 10, y: 1)]
        let marked = DuplicateLabels.duplicates(keys: keys, points: points, distances: [12, 12, 12, 12, 12])
        // 0–1–2 chain within 12 (0 and 2 are 20 apart, linked through 1); 1 is at their centre.
        #expect(marked == [true, false, true, false, false])
    }

    @Test("ties go to the lower index; distance 0 never links; other classes' keys differ")
    func ties() {
        let points = [Point(x: 0, y: 0), Point(x: 4, y: 0)]
        #expect(DuplicateLabels.duplicates(keys: ["a", "a"], points: points, distances: [5, 5]) == [false, true])
        #expect(DuplicateLabels.duplicates(keys: ["a", "a"], points: points, distances: [5, 0]) == [false, false])
        #expect(DuplicateLabels.duplicates(keys: ["a", "a"], points: points, distances: [3, 3]) == [false, false])
        #expect(DuplicateLabels.duplicates(keys: ["1\u{1F}a", "2\u{1F}a"], points: points, distances: [5, 5]) == [false, false])
        #expect(DuplicateLabels.duplicates(keys: ["a", "a", "a"], points: [Point(x: 4, y: 0), Point(x: 0, y: 0), Point(x: 2, y: 0)],
                                           distances: [5, 5, 5]) == [true, true, false])
    }
}
