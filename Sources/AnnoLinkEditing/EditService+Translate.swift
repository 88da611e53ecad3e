import AnnoLinkAnnotation
import AnnoLinkGeometry
import AnnoLinkStore

/// Which features a bulk edit takes (the store's `FeatureSelection`).
public typealias Selection = FeatureSelection

/// What a bulk move did, or with a dry run would do: `translate --json`,
/// `{"table", "dx", "dy", "features", "annotationRows", "dryRun", "journalEntry"}`.
public struct TranslateResult: Sendable, Encodable {
    public var table: String
    public var dx: Double
    public var dy: Double
    /// The features moved (with a dry run: selected).
    public var features = 0
    /// The annotation rows moved with them (with a dry run: that would move).
    public var annotationRows = 0
    public var dryRun: Bool
    /// The journal entry (for undo), when something was moved.
    public var journalEntry: Int64?

    enum CodingKeys: String, CodingKey { case table, dx, dy, features, annotationRows, dryRun, journalEntry }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(table, forKey: .table)
        try c.encode(dx, forKey: .dx)
        try c.encode(dy, forKey: .dy)
        try c.encode(features, forKey: .features)
        try c.encode(annotationRows, forKey: .annotationRows)
        try c.encode(dryRun, forKey: .dryRun)
        try c.encode(journalEntry, forKey: .journalEntry)
    }
}

extension EditService {
    /// Moves every selected feature of `table` by `dx`, `dy` (CRS units) with all its
    /// annotation, as one transaction and one journal entry: one store operation
    /// (`FeatureStore.translate`), so that each store moves the rows set-based — on a
    /// GeoPackage one `UPDATE` per run of fids per table, streamed, memory flat whatever the
    /// selection's size (docs/design.md, "Bulk moves"). `progress` is told how many are done. A
    /// dry run reports the counts and writes nothing.
    ///
    /// The annotation is carried rigidly (docs/placement.md, "Rigid moves"): its anchor and
    /// footprint move by exactly the vector, computed as the features' coordinates are
    /// (`x + dx`), and nothing else changes — text, angle, offsets, status, `Override`. No
    /// placement rule runs: a translation changes neither the attributes nor any length a label
    /// expression reads, and the rules give the moved feature the moved placement. Rows are
    /// neither created nor deleted.
    ///
    /// - Throws: `StoreError.unknownTable`, `.unknownFeature` (a fid in `.fids` that does not
    ///   exist), `.corruptGeometry` (a footprint that is not a geometry of the store's),
    ///   `EditError.invalidSelection` for a where clause that is not one read-only condition,
    ///   `EditError.nonFiniteCoordinate`.
    public func translate(table name: String, selection: Selection, dx: Double, dy: Double, dryRun: Bool, command: String,
                          progress: (Int, Int) -> Void = { _, _ in }) throws -> TranslateResult {
        guard dx.isFinite, dy.isFinite else { throw EditError.nonFiniteCoordinate("\(dx), \(dy)") }
        // A move by nothing would only add a journal entry that undoes nothing.
        guard dx != 0 || dy != 0 else { throw EditError.emptySelection("a translation by 0, 0 moves nothing") }
        let table = try store.featureTable(name)
        try checkFinite(selection)
        let annotationTables = Dictionary(grouping: try annotation.classes(labelling: table.name)) { $0.definition.annotationTable }
            .mapValues { $0.map(\.definition.classID) }
        let counts = try refusingInvalidSelection {
            try store.translate(
                table, selection: selection, annotation: annotationTables, dx: dx, dy: dy, dryRun: dryRun, command: command,
                summary: { "translate \($0) features of \(table.name) by \(dx), \(dy)" }, progress: progress)
        }
        var result = TranslateResult(table: table.name, dx: dx, dy: dy, dryRun: dryRun)
        result.features = counts.features
        result.annotationRows = counts.annotationRows
        result.journalEntry = counts.journalEntry
        return result
    }

    /// Refuses a box with a coordinate that is not finite.
    ///
    /// - Throws: `EditError.nonFiniteCoordinate`.
    func checkFinite(_ selection: Selection) throws {
        if case .boundingBox(let box) = selection, ![box.minX, box.minY, box.maxX, box.maxY].allSatisfy(\.isFinite) {
            throw EditError.nonFiniteCoordinate("\(box.minX), \(box.minY), \(box.maxX), \(box.maxY)")
        }
    }

    /// Runs `body`, which selects features, and says a refused where clause in the edit
    /// service's words.
    ///
    /// - Throws: `EditError.invalidSelection` for `SQLCondition.Refusal`; whatever else `body` throws.
    func refusingInvalidSelection<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let refusal as SQLCondition.Refusal {
            throw EditError.invalidSelection("the where clause \(refusal)")
        }
    }
}
