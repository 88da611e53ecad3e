import AnnoLinkGeometry
import AnnoLinkStore

/// Where a whole-file placement (`AnnotationEngine.planPlacement`) put each label, by annotation
/// table, class and feature; `AnnotationEngine.regenerate` writes the labels so.
public struct PlacementPlan {
    struct Key: Hashable {
        var table: String
        var classID: Int64
        var featureID: Int64

        init(table: String, classID: Int64, featureID: Int64) {
            self.table = table.lowercased()
            self.classID = classID
            self.featureID = featureID
        }
    }

    /// One label's placement.
    public struct Decision {
        var placement: Placement
        var footprint: Polygon
        var placed: Bool
        var basis: PlacementBasis

        /// `row` at this placement, with its `Status` and `PlacedFrom`.
        func applied(to row: AnnotationRow) -> AnnotationRow {
            var row = row
            row.anchor = placement.anchor
            row.angle = placement.angle
            row.footprint = footprint
            row.status = placed ? 0 : 1
            row.placedFrom = basis
            return row
        }
    }

    var decisions: [Key: Decision] = [:]

    /// How many labels the plan places, and how many it leaves unplaced.
    public var placedCount: Int { decisions.values.filter(\.placed).count }
    public var unplacedCount: Int { decisions.count - placedCount }

    func decision(table: String, classID: Int64, featureID: Int64) -> Decision? {
        decisions[Key(table: table, classID: classID, featureID: featureID)]
    }
}

extension AnnotationEngine {
    /// One label a plan places.
    struct PlanItem {
        var key: PlacementPlan.Key
        var srsID: Int64
        var text: String
        var candidates: [LabelCandidate]
        var compiled: CompiledClass
    }

    /// Places every label of the registered classes (or only those of `annotationTable`)
    /// together (docs/placement.md, "Whole-file placement"): each label's text and candidates
    /// from its feature and class, the placed labels of the other annotation tables (and rows set
    /// by hand: `Override` position or angle) as fixed obstacles, duplicates (a class's
    /// `removeDuplicates`) left unplaced, then `LabelSolver` on the lot, one problem per CRS.
    /// Reads only; `regenerate(… plan:)` writes. `progress` gets the number of features read.
    public func planPlacement(annotationTable: String? = nil, progress: (Int) -> Void = { _ in }) throws -> PlacementPlan {
        var items: [PlanItem] = []
        var replaced: Set<String> = []
        var features = 0
        let scope = try registeredClasses(of: annotationTable)
        for origin in origins(of: scope) {
            let table = try store.featureTable(origin)
            let compiled = try classes(labelling: origin).filter { c in
                scope.contains { $0.annotationTable.lowercased() == c.definition.annotationTable.lowercased() && $0.classID == c.definition.classID }
            }
            try forEachFeatureRead(table) { fid, reads in
                features += 1
                if features % 1024 == 0 { progress(features) }
                let feature = try reads.feature(fid, of: table.name)
                guard let geometry = feature.geometry, !geometry.isEmpty else { return }
                for c in compiled where try reads.selects(c, fid) ?? selects(c, fid: fid) {
                    let d = c.definition
                    let annotation = try store.featureTable(d.annotationTable)
                    let existing = reads.rows(of: d.annotationTable, featureID: fid).first { $0.classID == d.classID }
                    if let existing, !existing.override.isDisjoint(with: [.position, .angle]) { continue }
                    var row = try existing ?? freshRow(for: feature, c)
                    if !row.override.contains(.text) { row.text = try text(of: feature, c) }
                    guard !row.text.isEmpty else { continue }
                    if let fid = existing?.fid { replaced.insert("\(d.annotationTable.lowercased())\u{0}\(fid)") }
                    items.append(PlanItem(
                        key: .init(table: d.annotationTable, classID: d.classID, featureID: fid), srsID: annotation.srsID, text: row.text,
                        candidates: try candidates(for: feature, row: row, c), compiled: c))
                }
            }
        }
        progress(features)
        var plan = PlacementPlan()
        for srsID in Set(items.map(\.srsID)).sorted() {
            let group = items.filter { $0.srsID == srsID }
            try solve(group, srsID: srsID, replacing: replaced, into: &plan)
        }
        return plan
    }

    /// Solves one CRS's labels of a plan against the placed labels of the store that it does not
    /// replace (`replaced`: "table\0fid", lowercased table).
    func solve(_ items: [PlanItem], srsID: Int64, replacing replaced: Set<String>, into plan: inout PlacementPlan) throws {
        var obstacles: [LabelOutline] = []
        for name in try annotationTables() {
            let table = try store.featureTable(name)
            guard table.srsID == srsID else { continue }
            let key = name.lowercased()
            try store.forEachIndexedRow(table, meeting: nil, size: .any, reading: .annotation) { indexed in
                guard let row = indexed.annotation, row.status == 0, let footprint = row.footprint,
                      !replaced.contains("\(key)\u{0}\(indexed.fid)") else { return }
                obstacles.append(LabelOutline(footprint))
            }
        }
        // Duplicates first: they are not placed, and do not stand in anyone's way.
        let duplicate = DuplicateLabels.duplicates(
            keys: items.map { "\($0.key.table)\u{1F}\($0.key.classID)\u{1F}\($0.text)" },
            points: items.map { $0.candidates[0].placement.anchor },
            distances: items.map { item in item.compiled.preferences.removeDuplicates.map { $0 * item.compiled.mapUnitsPerPoint } ?? 0 })
        let kept = items.indices.filter { !duplicate[$0] }
        // One clearance for the problem: the largest any class asks for.
        let gap = kept.map { clearance(items[$0].compiled) }.max() ?? 0
        let free = Self.settledAtRule(kept.map { items[$0].candidates }, obstacles: obstacles, clearance: gap)
        let solved = kept.indices.filter { !free[$0] }.map { kept[$0] }
        let solution = LabelSolver.solve(LabelProblem(labels: solved.map { items[$0].candidates }, obstacles: obstacles, clearance: gap))
        func decide(_ item: PlanItem, _ index: Int, _ placed: Bool) {
            let choice = item.candidates[index], rule = item.candidates[0].placement
            plan.decisions[item.key] = PlacementPlan.Decision(
                placement: choice.placement, footprint: choice.footprint, placed: placed,
                basis: PlacementBasis(
                    source: .rules, anchor: choice.placement.anchor, angle: choice.placement.angle, ruleAnchor: rule.anchor, ruleAngle: rule.angle))
        }
        for (k, i) in kept.enumerated() where free[k] { decide(items[i], 0, true) }
        for (k, i) in solved.enumerated() { decide(items[i], solution.chosen[k], solution.placed[k]) }
        for i in items.indices where duplicate[i] { decide(items[i], 0, false) }
    }

    /// Which labels are settled at their rule placement before any search: those whose rule
    /// placement (candidate 0, cost 0) keeps `clearance` from every obstacle and from every
    /// candidate of every other label. Placing them there costs nothing and hinders no one, so
    /// the solver need not see them (PAL's reduction); on a map with room, most labels.
    static func settledAtRule(_ labels: [[LabelCandidate]], obstacles: [LabelOutline], clearance: Double) -> [Bool] {
        func grown(_ e: Envelope) -> Envelope { e.expanded(by: clearance) }
        var reach: [Envelope] = labels.map { candidates in
            candidates.dropFirst().reduce(candidates.first?.outline.envelope ?? Envelope(minX: 0, minY: 0, maxX: 0, maxY: 0)) { $0.union($1.outline.envelope) }
        }
        for i in reach.indices { reach[i] = grown(reach[i]) }
        var around = LabelIndex(cellSize: LabelIndex.suggestedCellSize(for: reach))
        for (i, e) in reach.enumerated() { around.insert(i, envelope: e) }
        var blocking = LabelIndex(cellSize: LabelIndex.suggestedCellSize(for: obstacles.map(\.envelope)))
        for (i, o) in obstacles.enumerated() { blocking.insert(i, envelope: grown(o.envelope)) }
        var neighbours: [Int] = []
        return labels.indices.map { i in
            guard let rule = labels[i].first?.outline else { return false }
            var clear = true
            blocking.query(rule.envelope) { o in
                if clear, obstacles[o].intersects(rule, clearance: clearance) { clear = false }
            }
            guard clear else { return false }
            neighbours.removeAll(keepingCapacity: true)
            around.query(grown(rule.envelope)) { j in if j != i { neighbours.append(j) } }
            for j in neighbours {
                for candidate in labels[j] where candidate.outline.intersects(rule, clearance: clearance) { return false }
            }
            return true
        }
    }
}
