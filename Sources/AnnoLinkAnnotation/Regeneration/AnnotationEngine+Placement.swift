import AnnoLinkGeometry
import AnnoLinkStore

/// Conflict-aware placement of single labels (docs/placement.md): the class's candidates
/// (`PlacementCandidates`), the placed labels around them as obstacles, the cheapest candidate
/// that meets none (`LabelSolver`).
extension AnnotationEngine {
    /// How far, in points, the rule placement may move before a label counts as placed from
    /// something else: rounding only (a rigid move of feature and label adds and subtracts the
    /// same vector), well under the hundredth of a foot.
    static let basisTolerance = 1e-6

    /// The candidates `compiled` offers for `feature`'s label `row` (its text, font size,
    /// alignments and offsets), the rule placement first.
    func candidates(for feature: Feature, row: AnnotationRow, _ compiled: CompiledClass) throws -> [LabelCandidate] {
        guard let geometry = feature.geometry else {
            throw AnnotationError.placement(
                table: compiled.definition.originTable, fid: feature.fid, message: PlacementError.emptyGeometry.description)
        }
        let extent = try compiled.metrics.extent(of: row.text, pointSize: row.fontSize, kerning: false)
        do {
            return try PlacementCandidates.candidates(
                for: geometry, style: compiled.definition.placement, extent: extent, horizontalAlignment: row.horizontalAlignment,
                verticalAlignment: row.verticalAlignment, xOffset: row.xOffset, yOffset: row.yOffset,
                offset: compiled.definition.placementOffset, mapUnitsPerPoint: compiled.mapUnitsPerPoint, preferences: compiled.preferences)
        } catch {
            throw AnnotationError.placement(table: compiled.definition.originTable, fid: feature.fid, message: error.description)
        }
    }

    /// The gap placed labels of `compiled` keep, in map units.
    func clearance(_ compiled: CompiledClass) -> Double {
        compiled.preferences.clearance * compiled.mapUnitsPerPoint
    }

    /// The outlines of the placed labels (`Status` 0, with a footprint) of every annotation table
    /// in `srsID` whose boxes meet `box`, but row `fid` of `table` (the label being placed) and,
    /// with `feature`, the other labels of that feature of its origin table.
    func obstacles(meeting box: Envelope, srsID: Int64, excluding table: String, fid: Int64?,
                   feature: (fid: Int64, originTable: String)? = nil) throws -> [LabelOutline] {
        var outlines: [LabelOutline] = []
        var siblings: Set<String> = []
        if let feature { siblings = Set(try classes(labelling: feature.originTable).map { $0.definition.annotationTable.lowercased() }) }
        for name in try annotationTables() {
            let other = try store.featureTable(name)
            guard other.srsID == srsID else { continue }
            let same = name.lowercased() == table.lowercased(), sibling = siblings.contains(name.lowercased())
            try store.forEachIndexedRow(other, meeting: box, size: .any, reading: .annotation) { indexed in
                guard let row = indexed.annotation, row.status == 0, let footprint = row.footprint else { return }
                if same, indexed.fid == fid { return }
                if sibling, let feature, row.featureID == feature.fid { return }
                outlines.append(LabelOutline(footprint))
            }
        }
        return outlines
    }

    /// Whether `footprint` of row `fid` of `table` keeps `compiled`'s clearance from every
    /// placed label around it, the other labels of `feature` aside.
    func fits(_ footprint: Polygon, table: FeatureTable, fid: Int64?, feature: Int64, _ compiled: CompiledClass) throws -> Bool {
        let outline = LabelOutline(footprint)
        let gap = clearance(compiled)
        let around = try obstacles(meeting: outline.envelope.expanded(by: gap), srsID: table.srsID, excluding: table.name, fid: fid,
                                   feature: (feature, compiled.definition.originTable))
        return !around.contains { $0.intersects(outline, clearance: gap) }
    }

    /// `row` placed by the rules, conflict-aware: the cheapest of `compiled`'s candidates for
    /// `feature` that keeps the clearance from every placed label around it, with `Status` 0;
    /// when none does, the rule placement with `Status` 1 (unplaced, as ArcGIS stores it). The
    /// row's `PlacedFrom` records the rule placement.
    func placed(_ row: AnnotationRow, for feature: Feature, in table: FeatureTable, _ compiled: CompiledClass) throws -> AnnotationRow {
        let candidates = try candidates(for: feature, row: row, compiled)
        let gap = clearance(compiled)
        var box = candidates[0].outline.envelope
        for candidate in candidates.dropFirst() { box = box.union(candidate.outline.envelope) }
        let around = try obstacles(meeting: box.expanded(by: gap), srsID: table.srsID, excluding: table.name, fid: row.fid)
        let solution = LabelSolver.solve(LabelProblem(labels: [candidates], obstacles: around, clearance: gap))
        return chosen(candidates, index: solution.chosen[0], placed: solution.placed[0], for: row)
    }

    /// The annotation row the class's rules make for `feature`, placed conflict-aware among the
    /// labels around it (`freshRow`, then `placed`); a row with no text is not placed.
    public func newRow(for feature: Feature, _ compiled: CompiledClass) throws -> AnnotationRow {
        let row = try freshRow(for: feature, compiled)
        guard !row.text.isEmpty else { return row }
        return try placed(row, for: feature, in: store.featureTable(compiled.definition.annotationTable), compiled)
    }

    /// `row` at candidate `index` of `candidates` (the rule placement first), `Status` and
    /// `PlacedFrom` set.
    func chosen(_ candidates: [LabelCandidate], index: Int, placed: Bool, for row: AnnotationRow) -> AnnotationRow {
        var row = row
        let choice = candidates[index]
        row.anchor = choice.placement.anchor
        row.angle = choice.placement.angle
        row.footprint = choice.footprint
        row.status = placed ? 0 : 1
        row.placedFrom = PlacementBasis(
            source: .rules, anchor: choice.placement.anchor, angle: choice.placement.angle, ruleAnchor: candidates[0].placement.anchor,
            ruleAngle: candidates[0].placement.angle)
        return row
    }

    /// Whether `row` was placed from `rule`, the rule placement its feature gives now: its
    /// `PlacedFrom` records that rule placement (or, with none recorded, the row sits at it).
    func isPlaced(_ row: AnnotationRow, from rule: Placement, _ compiled: CompiledClass) -> Bool {
        guard let anchor = row.anchor else { return false }
        let distance = Self.basisTolerance * compiled.mapUnitsPerPoint
        // With none recorded, the row counts as placed at the rule placement it sits at.
        let basis = row.placedFrom
            ?? PlacementBasis(source: .rules, anchor: anchor, angle: row.angle, ruleAnchor: anchor, ruleAngle: row.angle)
        return basis.holds(anchor: anchor, angle: row.angle, ruleAnchor: rule.anchor, ruleAngle: rule.angle, distance: distance,
                           degrees: Self.basisTolerance)
    }
}

extension Envelope {
    /// The envelope grown by `d` on every side.
    func expanded(by d: Double) -> Envelope {
        Envelope(minX: minX - d, minY: minY - d, maxX: maxX + d, maxY: maxY + d)
    }
}
