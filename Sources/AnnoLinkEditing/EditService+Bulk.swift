import AnnoLinkAnnotation
import AnnoLinkGeometry
import AnnoLinkStore

/// Sets fields of every selected feature; their annotation is regenerated (`annolink set
/// --fids|--bbox|--where`).
public struct SetFieldsBulk: EditRequest {
    public var table: String
    public var selection: Selection
    public var values: [FieldAssignment]
    /// As `SetFields.allowEmpty`.
    public var allowEmpty: Bool
    /// Whether the result lists every feature's change (`BulkEditResult.changes`); without it,
    /// only counts, and memory stays flat whatever the selection's size.
    public var reportChanges: Bool
    public var command: String

    public init(table: String, selection: Selection, values: [FieldAssignment], allowEmpty: Bool = false, reportChanges: Bool = false,
                command: String) {
        self.table = table
        self.selection = selection
        self.values = values
        self.allowEmpty = allowEmpty
        self.reportChanges = reportChanges
        self.command = command
    }

    public func run(in service: EditService) throws -> BulkEditResult {
        try run(in: service, progress: { _, _ in })
    }

    /// Runs the edit, telling `progress` how many features of how many are done.
    public func run(in service: EditService, progress: (Int, Int) -> Void) throws -> BulkEditResult {
        try service.followOutsideEdits()
        return try service.setFields(table: table, selection: selection, values: values.pairs, allowEmpty: allowEmpty, reportChanges: reportChanges,
                              command: command, progress: progress)
    }
}

/// Deletes every selected feature and its linked annotation (`annolink delete
/// --fids|--bbox|--where`).
public struct DeleteFeatures: EditRequest {
    public var table: String
    public var selection: Selection
    /// As `SetFieldsBulk.reportChanges`.
    public var reportChanges: Bool
    public var command: String

    public init(table: String, selection: Selection, reportChanges: Bool = false, command: String) {
        self.table = table
        self.selection = selection
        self.reportChanges = reportChanges
        self.command = command
    }

    public func run(in service: EditService) throws -> BulkEditResult {
        try run(in: service, progress: { _, _ in })
    }

    /// Runs the edit, telling `progress` how many features of how many are done.
    public func run(in service: EditService, progress: (Int, Int) -> Void) throws -> BulkEditResult {
        try service.followOutsideEdits()
        return try service.deleteFeatures(table: table, selection: selection, reportChanges: reportChanges, command: command, progress: progress)
    }
}

/// What a bulk `set` or `delete` did (or, as a dry run, would do): `{"edit", "table",
/// "features", "fields": [{"name", "new"}], "annotation": {"created", "updated", "deleted",
/// "reclassified"}, "changes": [edit results as `set` and `delete` give them], "dryRun",
/// "journalEntry"}`. `changes` is listed only when asked for (always with `--dry-run` and
/// `--json`).
public struct BulkEditResult: Sendable, Encodable {
    /// A field and the value every selected feature gets.
    public struct FieldValue: Sendable, Encodable {
        public var name: String
        public var new: SQLValue
    }

    /// Counts of the annotation rows changed.
    public struct AnnotationCounts: Hashable, Sendable, Encodable {
        public var created = 0
        public var updated = 0
        public var deleted = 0
        public var reclassified = 0

        public init(created: Int = 0, updated: Int = 0, deleted: Int = 0, reclassified: Int = 0) {
            self.created = created
            self.updated = updated
            self.deleted = deleted
            self.reclassified = reclassified
        }

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

    public var kind: EditResult.Kind
    public var table: String
    /// The features selected (and set or deleted).
    public var features = 0
    public var fields: [FieldValue] = []
    public var annotation = AnnotationCounts()
    /// Every feature's change, in fid order, when the request asked for them.
    public var changes: [EditResult]?
    /// Whether nothing was written; every change listed says the same.
    public var dryRun = false {
        didSet {
            guard let listed = changes else { return }
            changes = listed.map { change in
                var marked = change
                marked.dryRun = dryRun
                return marked
            }
        }
    }
    public var journalEntry: Int64?

    enum CodingKeys: String, CodingKey { case kind = "edit", table, features, fields, annotation, changes, dryRun, journalEntry }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind, forKey: .kind)
        try c.encode(table, forKey: .table)
        try c.encode(features, forKey: .features)
        try c.encode(fields, forKey: .fields)
        try c.encode(annotation, forKey: .annotation)
        try c.encode(changes ?? [], forKey: .changes)
        try c.encode(dryRun, forKey: .dryRun)
        try c.encode(journalEntry, forKey: .journalEntry)
    }
}

extension EditService {
    /// Sets fields of every feature of `table` that `selection` picks, from the text a user
    /// typed (`FIELD=VALUE`, checked as `setFields(table:fid:…)` checks it), and regenerates each
    /// one's annotation: text, placement, and class (a feature whose class where clause now
    /// selects another class moves to it). One transaction and one journal entry; the rows
    /// changed are copied on disk into the entry's images rather than held in memory
    /// (`JournalRecorder.captureImages`, `captureRows`). `progress` is told how many are done.
    ///
    /// - Throws: as `setFields(table:fid:…)`; `EditError.invalidSelection` for a where clause
    ///   that is not one read-only condition; `StoreError.unknownFeature` for a fid in `.fids`
    ///   that does not exist.
    public func setFields(table name: String, selection: Selection, values: [(field: String, text: String)], allowEmpty: Bool = false,
                          reportChanges: Bool = false, command: String, progress: (Int, Int) -> Void = { _, _ in }) throws -> BulkEditResult {
        let table = try store.featureTable(name)
        if !allowEmpty { try refuseEmptyLabelValues(values, of: table) }
        let parsed = try parse(values, for: table)
        guard !parsed.isEmpty else { throw EditError.emptySelection("no FIELD=VALUE to set") }
        let fields = parsed.keys.sorted()
        var result = BulkEditResult(kind: .set, table: table.name)
        result.fields = fields.map { BulkEditResult.FieldValue(name: $0, new: parsed[$0]!) }
        if reportChanges { result.changes = [] }
        try checkFinite(selection)
        let isAnnotationTable = try store.annotationTableNames().contains { $0.lowercased() == table.name.lowercased() }
        guard let package = store as? GeoPackage else {
            // A batch of features at a time: locked together, read (when their values before are
            // listed), written by one `updateFeatures` and read again with their annotation
            // (`AnnotationEngine.reads`); then each one's annotation.
            var before: [Int64: Feature] = [:]
            var reads: RegenerationReads?
            return try oneByOne(table, selection: selection, summary: { "set \(fields.joined(separator: ", ")) of \($0) features of \(table.name)" },
                                command: command, into: result, progress: progress, batch: { fids in
                try store.lockFeatures(table, fids: fids)
                if reportChanges { before = try store.features(table, fids: fids) }
                try store.updateFeatures(table, fids: fids, attributes: parsed)
                if !isAnnotationTable { reads = try annotation.reads(originTable: table.name, fids: fids, features: true) }
            }) { fid, change in
                if reportChanges {
                    guard let before = before[fid] else { throw StoreError.unknownFeature(table: table.name, fid: fid) }
                    change.fields = fields.map { EditResult.FieldChange(name: $0, old: before.attributes[$0] ?? .null, new: parsed[$0]!) }
                }
                if isAnnotationTable {
                    try annotationEditedByHand(table, fid: fid, fields: Set(fields))
                } else {
                    change.annotation = try regenerate(table, fid: fid, previousGeometry: nil, reads: reads, fitting: false)
                }
            } finish: {
                for name in Set(try annotation.classes(labelling: table.name).map(\.definition.annotationTable)) {
                    try store.refreshExtent(of: store.featureTable(name))
                }
            }
        }
        return try refusingInvalidSelection { try package.withSelection(selection, of: table) { count in
            result.features = count
            guard count > 0 else { return result }
            let summary = "set \(fields.joined(separator: ", ")) of \(count) features of \(table.name)"
            result.journalEntry = try package.editJournal().record(command: command, summary: summary) { recorder in
                let selected = "\(quoteIdentifier(table.primaryKey)) IN (SELECT fid FROM temp.annolink_selection)"
                // Annotation rows edited by hand also get Override and a new footprint.
                if isAnnotationTable {
                    try recorder.captureRows(table: table.name, rowsWhere: selected)
                } else {
                    try recorder.captureImages(table: table.name, columns: fields, rowsWhere: selected)
                }
                let annotationTables = try declareAnnotation(of: table, in: package, recorder: recorder)
                if !reportChanges, !isAnnotationTable, try classesSelectAll(table) {
                    try setStreaming(table, in: package, values: parsed, count: count, into: &result, progress: progress)
                    for name in annotationTables { try package.refreshContents(of: package.featureTable(name)) }
                    return
                }
                var done = 0
                try package.forEachSelected { fid in
                    // The values before are read only when the changes are listed (a read of the
                    // whole feature is an eighth of the time per feature).
                    let before = reportChanges ? try package.feature(table, fid: fid) : nil
                    try package.updateFeature(table, fid: fid, attributes: parsed)
                    var change = EditResult(kind: .set, table: table.name, fid: fid)
                    if let before {
                        change.fields = fields.map { EditResult.FieldChange(name: $0, old: before.attributes[$0] ?? .null, new: parsed[$0]!) }
                    }
                    if isAnnotationTable {
                        try annotationEditedByHand(table, fid: fid, fields: Set(fields))
                    } else {
                        change.annotation = try regenerate(table, fid: fid, previousGeometry: nil, fitting: false)
                    }
                    result.annotation.add(change.annotation)
                    result.changes?.append(change)
                    done += 1
                    if done % 1024 == 0 { progress(done, count) }
                }
                for name in annotationTables { try package.refreshContents(of: package.featureTable(name)) }
                progress(count, count)
            }.entry
            return result
        } }
    }

    /// Deletes every feature of `table` that `selection` picks, with its linked annotation, as
    /// one transaction and one journal entry whose images hold the deleted rows on disk.
    ///
    /// - Throws: as `setFields(table:selection:…)`.
    public func deleteFeatures(table name: String, selection: Selection, reportChanges: Bool = false, command: String,
                               progress: (Int, Int) -> Void = { _, _ in }) throws -> BulkEditResult {
        let table = try store.featureTable(name)
        var result = BulkEditResult(kind: .delete, table: table.name)
        if reportChanges { result.changes = [] }
        try checkFinite(selection)
        guard let package = store as? GeoPackage else {
            // A batch of features at a time, locked and deleted by one `deleteFeatures`; then
            // each one's annotation.
            var deleted: [Int64: Feature] = [:]
            var reads: RegenerationReads?
            return try oneByOne(table, selection: selection, summary: { "delete \($0) features of \(table.name)" }, command: command,
                                into: result, progress: progress, batch: { fids in
                try store.lockFeatures(table, fids: fids)
                deleted = try store.deleteFeatures(table, fids: fids)
                reads = try annotation.reads(originTable: table.name, fids: fids, features: false)
            }) { fid, change in
                guard let before = deleted[fid] else { throw StoreError.unknownFeature(table: table.name, fid: fid) }
                change = EditResult(kind: .delete, table: table.name, fid: fid, oldGeometry: before.geometry)
                change.annotation = try regenerate(table, fid: fid, previousGeometry: before.geometry, deleted: true, reads: reads)
            } finish: {
                try geometryChanged(table)
            }
        }
        return try refusingInvalidSelection { try package.withSelection(selection, of: table) { count in
            result.features = count
            guard count > 0 else { return result }
            result.journalEntry = try package.editJournal().record(command: command, summary: "delete \(count) features of \(table.name)") { recorder in
                try recorder.captureRows(table: table.name, rowsWhere: "\(quoteIdentifier(table.primaryKey)) IN (SELECT fid FROM temp.annolink_selection)")
                _ = try declareAnnotation(of: table, in: package, recorder: recorder)
                var done = 0
                try package.forEachSelected { fid in
                    let before = try package.feature(table, fid: fid)
                    try package.deleteFeature(table, fid: fid)
                    var change = EditResult(kind: .delete, table: table.name, fid: fid, oldGeometry: before.geometry)
                    change.annotation = try regenerate(table, fid: fid, previousGeometry: before.geometry, deleted: true)
                    result.annotation.add(change.annotation)
                    result.changes?.append(change)
                    done += 1
                    if done % 1024 == 0 { progress(done, count) }
                }
                try geometryChanged(table)
                progress(count, count)
            }.entry
            return result
        } }
    }

    /// Whether every class labelling `table` selects every feature (no where clause): a change
    /// of fields then moves no label to another class, and `setStreaming` may regenerate the
    /// labels in place.
    func classesSelectAll(_ table: FeatureTable) throws -> Bool {
        try annotation.classes(labelling: table.name).allSatisfy { $0.condition == nil }
    }

    /// The body of a bulk set when no class has a where clause and no change is listed: the
    /// selected features are set with one `UPDATE`, and each annotation table's rows of them are
    /// regenerated with one `UPDATE` that runs the rules row by row in SQLite
    /// (`GeoPackage.updateAnnotationPlacements`, as `translate` does), instead of reading and
    /// writing each feature and label from Swift. What that cannot do — delete a label whose text
    /// became empty or whose feature has no geometry, create a missing one — is left to
    /// `regenerate`, feature by feature, for just those features. The result is the same as the
    /// feature-by-feature path's (tested).
    func setStreaming(_ table: FeatureTable, in package: GeoPackage, values: [String: SQLValue], count: Int, into result: inout BulkEditResult,
                      progress: (Int, Int) -> Void) throws {
        let fields = values.keys.sorted()
        try package.connection.run("""
            UPDATE \(quoteIdentifier(table.name)) SET \(fields.map { "\(quoteIdentifier($0)) = ?" }.joined(separator: ", "))
            WHERE \(quoteIdentifier(table.primaryKey)) IN (SELECT fid FROM temp.annolink_selection)
            """, fields.map { values[$0]! })
        progress(count / 2, count)
        var leftOver = Set<Int64>()
        let byTable = Dictionary(grouping: try annotation.classes(labelling: table.name)) { $0.definition.annotationTable }
        for (name, classes) in byTable.sorted(by: { $0.key < $1.key }) {
            let annotationTable = try package.featureTable(name)
            var read: [String] = []
            for c in classes {
                for field in c.expression.referencedFields {
                    if let column = table.column(field), !read.contains(column.name) { read.append(column.name) }
                }
            }
            let classIDs = classes.map { String($0.definition.classID) }.joined(separator: ", ")
            let condition = "FeatureID IN (SELECT fid FROM temp.annolink_selection) AND AnnotationClassID IN (\(classIDs))"
            let rows = try package.connection.scalarInt("SELECT count(*) FROM \(quoteIdentifier(name))") ?? 0
            try package.withSpatialIndexSuspended(table: name, writing: count, of: rows) {
                try package.updateAnnotationPlacements(
                    in: annotationTable, rowsWhere: condition, originTable: table, originColumns: [table.geometryColumn] + read, move: nil,
                    progress: { progress(count / 2 + $0 / 2, count) }
                ) { row, origin in
                    guard let fid = row.featureID, let compiled = classes.first(where: { $0.definition.classID == row.classID }) else { return nil }
                    guard !origin.isNull(0) else {
                        leftOver.insert(fid)
                        return nil
                    }
                    let geometry: Geometry
                    do {
                        geometry = try origin.withBlob(0) { try GeoPackageGeometry(blob: $0).geometry }
                    } catch {
                        throw StoreError.corruptGeometry(table: table.name, fid: fid, reason: "\(error)")
                    }
                    var attributes: [String: SQLValue] = [:]
                    for (i, field) in read.enumerated() { attributes[field] = origin.value(1 + i) }
                    let updated = try annotation.regenerated(row, for: Feature(fid: fid, geometry: geometry, attributes: attributes),
                                                             previousGeometry: nil, compiled, fitting: false)
                    if geometry.isEmpty || updated.text.isEmpty {
                        leftOver.insert(fid)
                        return nil
                    }
                    // The row is read without its footprint, which follows from the rest.
                    var compared = updated
                    compared.footprint = row.footprint
                    guard compared != row else { return nil }
                    result.annotation.updated += 1
                    return updated
                }
            }
            // Features a class selects that have no label of it (its text was empty before).
            for c in classes {
                let missing = try package.connection.rows("""
                    SELECT fid FROM temp.annolink_selection s WHERE NOT EXISTS
                      (SELECT 1 FROM \(quoteIdentifier(name)) a WHERE a.FeatureID = s.fid AND a.AnnotationClassID = ?)
                    """, [.integer(c.definition.classID)])
                for row in missing { if let fid = row[0].integerValue { leftOver.insert(fid) } }
            }
        }
        for fid in leftOver.sorted() { result.annotation.add(try regenerate(table, fid: fid, previousGeometry: nil, fitting: false)) }
        progress(count, count)
    }

    /// Features per `batch` of a bulk edit on a store without a set-based path.
    static let batchSize = 512

    /// A bulk edit on a store without a set-based path: the selected features in fid order, a
    /// batch of them (`batchSize`) at a time through `batch` (what the store can do for several
    /// at once), then one by one through `edit` (which fills in the change it made), in one
    /// transaction and one journal entry; `finish` runs last inside it.
    func oneByOne(_ table: FeatureTable, selection: Selection, summary: (Int) -> String, command: String, into start: BulkEditResult,
                  progress: (Int, Int) -> Void, batch: ([Int64]) throws -> Void = { _ in }, _ edit: (Int64, inout EditResult) throws -> Void,
                  finish: () throws -> Void) throws -> BulkEditResult {
        var result = start
        let fids = try refusingInvalidSelection { try store.featureIDs(table, selection: selection) }
        result.features = fids.count
        guard !fids.isEmpty else { return result }
        result.journalEntry = try journal().recordEdit(command: command, summary: summary(fids.count)) {
            for (done, fid) in fids.enumerated() {
                if done % Self.batchSize == 0 { try batch(Array(fids[done..<min(done + Self.batchSize, fids.count)])) }
                var change = EditResult(kind: result.kind, table: table.name, fid: fid)
                try edit(fid, &change)
                result.annotation.add(change.annotation)
                result.changes?.append(change)
                if (done + 1) % 1024 == 0 { progress(done + 1, fids.count) }
            }
            try finish()
            progress(fids.count, fids.count)
        }.entry
        return result
    }

    /// Declares to `recorder` the annotation rows of the selected features of `table` in every
    /// annotation table its classes write: whole rows, since regeneration may create rows
    /// (a class now selects a feature) and delete them. Returns the annotation tables' names.
    func declareAnnotation(of table: FeatureTable, in package: GeoPackage, recorder: JournalRecorder) throws -> [String] {
        let classes = try annotation.classes(labelling: table.name)
        let byTable = Dictionary(grouping: classes) { $0.definition.annotationTable }
        for (name, tableClasses) in byTable.sorted(by: { $0.key < $1.key }) {
            try recorder.captureRows(table: name, rowsWhere: "FeatureID IN (SELECT fid FROM temp.annolink_selection) AND AnnotationClassID IN " +
                "(\(tableClasses.map { String($0.definition.classID) }.joined(separator: ", ")))")
        }
        return byTable.keys.sorted()
    }
}
