import AnnoLinkGeometry

/// Labels that say the same thing in the same place, of which one is enough (Maplex's "remove
/// duplicates"; Helsinki's addresses have a point per entrance, all with the same label).
public enum DuplicateLabels {
    /// Which labels are duplicates to be left unplaced.
    ///
    /// Labels with the same `keys` entry (the caller's class and text, e.g. `"3\u{1F}12 Main St"`)
    /// are grouped when a chain of them, each within `distances` of the next, links them
    /// (`distances[i]`: label i's class's `removeDuplicates` in map units; a pair is linked
    /// within the smaller of its two distances; 0 or less never links). Of each group the label
    /// nearest the group's centroid is kept (ties: the lower index); the others are marked.
    /// Deterministic; about O(n log n) for groups of a few labels.
    ///
    /// - Returns: per label, true when it is a duplicate to leave unplaced.
    public static func duplicates(keys: [String], points: [Point], distances: [Double]) -> [Bool] {
        precondition(keys.count == points.count && keys.count == distances.count,
                     "DuplicateLabels needs one key, point and distance per label")
        var result = [Bool](repeating: false, count: keys.count)
        let candidates = keys.indices.filter { distances[$0] > 0 && points[$0].isFinite }
        // Same-key runs in a deterministic order: by key, then index.
        let sorted = candidates.sorted { (keys[$0], $0) < (keys[$1], $1) }
        var runStart = 0
        while runStart < sorted.count {
            var runEnd = runStart + 1
            while runEnd < sorted.count && keys[sorted[runEnd]] == keys[sorted[runStart]] { runEnd += 1 }
            if runEnd - runStart > 1 { markGroups(Array(sorted[runStart..<runEnd]), points, distances, &result) }
            runStart = runEnd
        }
        return result
    }

    /// Groups the same-key labels `members` (ascending) by single linkage and marks all but
    /// each group's most central label.
    private static func markGroups(_ members: [Int], _ points: [Point], _ distances: [Double], _ result: inout [Bool]) {
        var parent = Array(members.indices)
        func root(_ i: Int) -> Int {
            var i = i
            while parent[i] != i {
                parent[i] = parent[parent[i]]
                i = parent[i]
            }
            return i
        }
        let reach = members.map { distances[$0] }.max() ?? 0
        var index = LabelIndex(cellSize: reach)
        for (i, m) in members.enumerated() { index.insert(i, envelope: Envelope(points[m])) }
        for (i, m) in members.enumerated() {
            let p = points[m], r = distances[m]
            index.query(Envelope(minX: p.x - r, minY: p.y - r, maxX: p.x + r, maxY: p.y + r)) { j in
                guard j > i else { return }
                let n = members[j]
                guard p.distance(to: points[n]) <= min(r, distances[n]) else { return }
                let a = root(i), b = root(j)
                if a != b { parent[max(a, b)] = min(a, b) }
            }
        }
        var groups: [Int: [Int]] = [:]
        for i in members.indices { groups[root(i), default: []].append(i) }
        for group in groups.values where group.count > 1 {
            var cx = 0.0, cy = 0.0
            for i in group {
                cx += points[members[i]].x
                cy += points[members[i]].y
            }
            let centre = Point(x: cx / Double(group.count), y: cy / Double(group.count))
            // `group` is ascending, so the first of equally near labels has the lower index.
            var kept = group[0]
            for i in group.dropFirst() where points[members[i]].distance(to: centre) < points[members[kept]].distance(to: centre) {
                kept = i
            }
            for i in group where i != kept { result[members[i]] = true }
        }
    }
}
