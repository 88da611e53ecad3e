import AnnoLinkGeometry
import AnnoLinkStore

/// Counts of what a whole-table run did.
public struct RegenerationSummary: Hashable, Sendable, Codable {
    public var features = 0
    public var created = 0
    public var updated = 0
    public var deleted = 0
    public var reclassified = 0
    /// Features that got no annotation because they have no geometry.
    public var unplaceable = 0
    /// Labels a whole-file placement left unplaced (`Status` 1): no candidate had room, or a
    /// duplicate of a label kept nearby.
    public var unplaced = 0

    mutating func add(_ changes: [AnnotationChange]) {
        for change in changes {
            switch change.kind {
            case .created: created += 1
            case .updated: updated += 1
            case .deleted: deleted += 1
            case .reclassified: reclassified += 1
            case .unchanged: break
            }
        }
    }
}

extension AnnotationEngine {
    /// Features whose rows `regenerateAll` reads at once (`reads(originTable:fids:features:)`).
    public static let readBatch = 512

    /// Creates the annotation of every feature `compiled`'s class selects, for a class whose
    /// annotation table holds no rows of it yet, placed together against the labels already
    /// there (`planPlacement`). The caller runs it in a transaction and refreshes the table's
    /// extent afterwards (`refreshContents`), once its spatial index exists. `progress` gets the
    /// number of features done.
    public func generate(_ compiled: CompiledClass, progress: (Int) -> Void = { _ in }) throws -> RegenerationSummary {
        let d = compiled.definition
        let origin = try store.featureTable(d.originTable)
        let annotationTable = try store.featureTable(d.annotationTable)
        var summary = RegenerationSummary()
        var rows: [AnnotationRow] = []
        var items: [PlanItem] = []
        try store.forEachFeature(origin, matching: compiled.condition, fields: compiled.expression.referencedFields) { feature in
            summary.features += 1
            // A feature without geometry has nowhere to put its label: it gets none.
            guard let geometry = feature.geometry, !geometry.isEmpty else {
                summary.unplaceable += 1
                return
            }
            let row = try freshRow(for: feature, compiled)
            guard !row.text.isEmpty else { return }
            rows.append(row)
            items.append(PlanItem(
                key: .init(table: d.annotationTable, classID: d.classID, featureID: feature.fid), srsID: annotationTable.srsID, text: row.text,
                candidates: try candidates(for: feature, row: row, compiled), compiled: compiled))
            if summary.features % 4096 == 0 { progress(summary.features) }
        }
        var plan = PlacementPlan()
        try solve(items, srsID: annotationTable.srsID, replacing: [], into: &plan)
        for row in rows {
            let decided = plan.decision(table: d.annotationTable, classID: d.classID, featureID: row.featureID!)?.applied(to: row) ?? row
            _ = try store.insertAnnotation(decided, into: annotationTable)
        }
        summary.created += rows.count
        summary.unplaced = plan.unplacedCount
        progress(summary.features)
        return summary
    }

    /// Regenerates the annotation of every feature of every origin table (or only those that
    /// `annotationTable` labels): text and placement from the classes, created where missing,
    /// reclassified or removed as the where clauses say. Hand-set properties (`Override`) stay.
    /// A label whose inputs are unchanged stays where it is (`regenerated`); with `replace`
    /// every label is placed again, all of them together (`planPlacement`).
    /// `changed`, when given, is told of every row changed (for a dry run's listing).
    public func regenerateAll(annotationTable: String? = nil, replace: Bool = false, progress: (Int) -> Void = { _ in },
                              changed: ((AnnotationChange) -> Void)? = nil) throws -> RegenerationSummary {
        var summary = RegenerationSummary()
        let plan = replace ? try planPlacement(annotationTable: annotationTable) : nil
        for origin in origins(of: try registeredClasses(of: annotationTable)) {
            let table = try store.featureTable(origin)
            try forEachFeatureRead(table) { fid, reads in
                let changes = try regenerate(originTable: table.name, fid: fid, feature: reads.feature(fid, of: table.name), previousGeometry: nil,
                                             isNew: false, reads: reads, plan: plan)
                summary.add(changes)
                if let changed { changes.forEach(changed) }
                summary.features += 1
                if summary.features % 1024 == 0 { progress(summary.features) }
            }
        }
        summary.unplaced = plan?.unplacedCount ?? 0
        // An unchanged file stays unchanged (and makes no journal entry).
        if summary.created + summary.updated + summary.deleted + summary.reclassified > 0 {
            for name in Set(try store.annotationClasses().map(\.annotationTable)) { try store.refreshExtent(of: store.featureTable(name)) }
        }
        progress(summary.features)
        return summary
    }

    /// The registered classes of `annotationTable`, or every one.
    func registeredClasses(of annotationTable: String?) throws -> [AnnotationClass] {
        try store.annotationClasses().filter { annotationTable == nil || $0.annotationTable.lowercased() == annotationTable!.lowercased() }
    }

    /// The origin tables `classes` label, each once, in their order.
    func origins(of classes: [AnnotationClass]) -> [String] {
        var origins: [String] = []
        for c in classes where !origins.contains(where: { $0.lowercased() == c.originTable.lowercased() }) { origins.append(c.originTable) }
        return origins
    }

    /// Calls `body` with every feature of `table` in fid order, and what regeneration reads of
    /// it, read a batch of `readBatch` features at a time (`reads(originTable:fids:features:)`).
    func forEachFeatureRead(_ table: FeatureTable, _ body: (Int64, RegenerationReads) throws -> Void) throws {
        var fids: [Int64] = []
        try store.forEachFeature(table, matching: nil, fields: []) { fids.append($0.fid) }
        for start in stride(from: 0, to: fids.count, by: Self.readBatch) {
            let batch = Array(fids[start..<min(start + Self.readBatch, fids.count)])
            let reads = try reads(originTable: table.name, fids: batch, features: true)
            for fid in batch { try body(fid, reads) }
        }
    }
}
