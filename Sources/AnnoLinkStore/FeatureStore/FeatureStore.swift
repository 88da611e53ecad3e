import AnnoLinkGeometry

/// Where features, their linked annotation, the class registry and the edit journal live: the
/// boundary between the edit service, the annotation engine and the checks above, and one kind
/// of database below (docs/design.md, "The store boundary"). A GeoPackage file is one
/// (`GeoPackage`); a PostGIS database is another.
///
/// What each store keeps to itself: SQLite's session extension, R-tree shadow tables and
/// `gpkg_contents` stay in the GeoPackage store; GiST indexes, `SELECT … FOR UPDATE` and
/// `LISTEN/NOTIFY` in the PostGIS store. Everything here speaks in tables, features, values,
/// geometries and annotation rows, never in SQL text, except a where clause the store itself
/// checked (`checkedCondition`).
///
/// Edits: every write happens inside `journal().recordEdit`, which makes it one transaction
/// and one journal entry; a feature read inside one is the row the edit will write (a store with
/// several writers locks it). The bulk move is one store operation (`translate`), so that each
/// store does it set-based. Not `Sendable`: one store per thread.
public protocol FeatureStore: AnyObject {
    /// Where the data is, for messages: a file's path, a database's connection string without
    /// its password.
    var location: String { get }

    // MARK: Layout
    /// The feature tables (annotation tables included), in the store's order.
    func featureTableNames() throws -> [String]
    /// The feature table `name` (case-insensitive) with its columns, geometry column and CRS.
    func featureTable(_ name: String) throws -> FeatureTable
    /// The CRS `srsID` names, nil when the store has none.
    func spatialReferenceSystem(_ srsID: Int64) throws -> SpatialReferenceSystem?
    /// The tables that hold feature-linked annotation.
    func annotationTableNames() throws -> [String]
    /// The class registry, by annotation table and class id.
    func annotationClasses() throws -> [AnnotationClass]
    /// `clause`, checked to be one read-only condition on `table`: the only SQL text that crosses.
    func checkedCondition(_ clause: String, on table: String) throws -> SQLCondition
    /// Whether `condition` (checked on `table`) selects feature `fid`.
    func feature(_ table: FeatureTable, fid: Int64, meets condition: SQLCondition) throws -> Bool
    /// Which of the features `fids` `condition` (checked on `table`) selects: many at once.
    func fids(of table: FeatureTable, among fids: [Int64], meeting condition: SQLCondition) throws -> Set<Int64>

    // MARK: Features
    /// Feature `fid`; inside an edit, the row that edit will write.
    func feature(_ table: FeatureTable, fid: Int64) throws -> Feature
    /// The features `fids` names, by fid, as `feature(_:fid:)` reads each (fids that name no
    /// feature are missing): many at once, where a store with round trips reads them in one.
    func features(_ table: FeatureTable, fids: [Int64]) throws -> [Int64: Feature]
    /// Inside an edit, takes the features `fids` of `table` for this edit before it reads any of
    /// them, in fid order, so that two edits of several features each, named in opposite orders,
    /// wait for each other instead of deadlocking (a store with several writers locks the rows;
    /// a store whose writer holds the whole database, a GeoPackage, has nothing to do). Fids
    /// that name no feature are passed over; the edit reports them when it reads them.
    func lockFeatures(_ table: FeatureTable, fids: [Int64]) throws
    /// Every feature `condition` selects (nil: all) in fid order, with only `fields` read (nil: all).
    func forEachFeature(_ table: FeatureTable, matching condition: SQLCondition?, fields: Set<String>?, _ body: (Feature) throws -> Void) throws
    /// The fids `selection` picks, in fid order. Throws `SQLCondition.Refusal`, `StoreError.unknownFeature`.
    func featureIDs(_ table: FeatureTable, selection: FeatureSelection) throws -> [Int64]
    /// The fids of the rows of `table` whose geometry may meet `box` (table CRS units), in fid
    /// order: a superset of those whose envelope meets it (the store's spatial index decides),
    /// for a search near a location that then measures exact distances.
    func fids(of table: FeatureTable, meeting box: Envelope) throws -> [Int64]
    /// How many rows of `table` `condition` (checked on `table`) selects; nil: every row.
    func rowCount(_ table: FeatureTable, matching condition: SQLCondition?) throws -> Int64
    /// The table's extent as the store records it (a GeoPackage's `gpkg_contents`, PostGIS's
    /// `annolink.contents`), nil when none is recorded.
    func recordedExtent(of table: FeatureTable) throws -> Envelope?
    /// What a picture reads: the rows of `table` with a geometry whose index box (`IndexedRow.box`,
    /// the same in every store) meets `box` (nil: anywhere) and has a size `size` admits, in fid
    /// order, each with what `reading` asks for. Chosen through the spatial index (R-tree, GiST);
    /// a table without one is read whole.
    func forEachIndexedRow(_ table: FeatureTable, meeting box: Envelope?, size: IndexBoxSize, reading: IndexedRowReading,
                           _ body: (IndexedRow) throws -> Void) throws
    /// The fid and index box of every row of `table` whose box meets `box` (nil: anywhere), the
    /// same rows and boxes `forEachIndexedRow(table, meeting: box, size: .any, reading: .box)`
    /// gives but in no set order: what an overview draws from the index alone. A store whose
    /// index it can walk itself (a GeoPackage's R-tree nodes) answers without a query per row.
    func forEachIndexBox(_ table: FeatureTable, meeting box: Envelope?, _ body: (_ fid: Int64, _ box: Envelope) throws -> Void) throws
    /// Inserts a feature (`fid` nil: the store chooses) and returns its fid.
    func insertFeature(_ table: FeatureTable, fid: Int64?, geometry: Geometry?, attributes: [String: SQLValue]) throws -> Int64
    /// Writes `geometry` (nil: kept) and `attributes` of feature `fid`.
    func updateFeature(_ table: FeatureTable, fid: Int64, geometry: Geometry?, attributes: [String: SQLValue]) throws
    /// Deletes feature `fid` (its annotation goes by the edit's regeneration).
    func deleteFeature(_ table: FeatureTable, fid: Int64) throws
    /// Writes `attributes` of every feature `fids` names, inside an edit: a bulk set's
    /// features at once (a store with round trips writes them with one statement).
    func updateFeatures(_ table: FeatureTable, fids: [Int64], attributes: [String: SQLValue]) throws
    /// Deletes every feature `fids` names, inside an edit, and returns them as they were, by
    /// fid: a bulk delete's features at once. Fids that name no feature are passed over.
    func deleteFeatures(_ table: FeatureTable, fids: [Int64]) throws -> [Int64: Feature]
    /// Brings the table's recorded extent up to date after geometry writes (nothing where the
    /// database keeps none).
    func refreshExtent(of table: FeatureTable) throws

    // MARK: Annotation rows
    /// The annotation rows of `table` linked to feature `featureID`, in fid order.
    func annotationRows(_ table: FeatureTable, featureID: Int64) throws -> [AnnotationRow]
    /// The annotation rows of `table` linked to each of the features `featureIDs`, by feature,
    /// as `annotationRows(_:featureID:)` reads them: many at once (features with none are missing).
    func annotationRows(_ table: FeatureTable, featureIDs: [Int64]) throws -> [Int64: [AnnotationRow]]
    /// Annotation row `fid`; an unreadable footprint goes to `footprintProblem` when given.
    func annotationRow(_ table: FeatureTable, fid: Int64, footprintProblem: ((StoreError) -> Void)?) throws -> AnnotationRow
    func insertAnnotation(_ row: AnnotationRow, into table: FeatureTable) throws -> Int64
    func updateAnnotation(_ row: AnnotationRow, in table: FeatureTable) throws
    func deleteAnnotation(fid: Int64, from table: FeatureTable) throws

    // MARK: Annotation classes
    /// Adds or replaces `definition` in the class registry (its where clause checked on the
    /// origin table) and rewrites its annotation table's QGIS style, where the store keeps
    /// styles (a GeoPackage's `layer_styles`, PostGIS's `annolink.layer_styles`).
    ///
    /// - Throws: `StoreError.unknownTable` when the annotation or origin table does not exist,
    ///   `.invalidWhereClause` for a where clause that is not one read-only condition.
    func saveAnnotationClass(_ definition: AnnotationClass) throws
    /// Registers annotation in table `name` and writes its first rows (`annotate`'s first form),
    /// as one transaction that the journal does not record (it may make a table, which no entry
    /// can take back): makes `name` first when `srsID` is given (a polygon table in that CRS
    /// with the annotation columns, registered as an annotation table; `StoreError.tableExists`
    /// when there is one), runs `body` on it — which saves the class (`saveAnnotationClass`)
    /// and inserts its rows — loading the rows as the store loads many rows best, and records
    /// the table's extent afterwards.
    func registeringAnnotation<T>(in name: String, creatingIn srsID: Int64?, description: String,
                                  _ body: (FeatureTable) throws -> T) throws -> T

    /// Runs `body`, a regeneration of whole annotation tables (`annotate --regenerate`), as one
    /// transaction recorded as one journal entry (`journal().recordEdit`), so that `undo` takes
    /// it back exactly; returns the entry, nil when nothing changed. On PostGIS the rows are
    /// locked as an edit locks them, so that editors working meanwhile wait instead of being
    /// overwritten. On a GeoPackage the entry's changeset is held in memory until the end
    /// (about 0.7 kB a row changed; `--replace` after an import rewrites every label).
    func recordRegeneration<T>(command: String, summary: String, _ body: () throws -> T) throws -> (value: T, entry: Int64?)

    // MARK: Edits
    /// The journal every edit is recorded in; the same object for the store's lifetime while
    /// anyone holds it.
    func journal() throws -> any EditJournal
    /// Runs `body` and rolls back everything it wrote: a dry run.
    func withoutCommitting<T>(_ body: () throws -> T) throws -> T
    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws;
    /// inside another transaction it joins that one (a savepoint on PostGIS).
    func inTransaction<T>(_ body: () throws -> T) throws -> T
    /// Runs `body` with each statement it makes the store run limited to `seconds`, lock waits
    /// included; past it the statement fails (SQLite's interrupt, PostgreSQL's SQLSTATE
    /// 57014) and the transaction it belongs to rolls back.
    func withStatementTimeLimit<T>(seconds: Double, _ body: () throws -> T) throws -> T

    // MARK: Remembered answers (idempotency keys)
    /// The answer remembered for `key` of `user` (nil: anonymous) and the fingerprint of the
    /// request it answered, or nil when the key is not remembered or older than `seconds`.
    func rememberedAnswer(key: String, user: String?, keptFor seconds: Double) throws -> (fingerprint: String, answer: String)?
    /// Remembers `answer` for `key` of `user`, and forgets the keys older than `seconds`, in the
    /// caller's transaction (or one of its own); makes the table when it is missing.
    func remember(key: String, user: String?, fingerprint: String, answer: String, keepingFor seconds: Double) throws
    /// The bulk move, one operation and one journal entry: the selected features of `table`
    /// and their rows of the classes `annotation` names (table → class ids) move by `dx`, `dy`
    /// (annotation rigidly: footprint and anchor). A dry run only counts.
    func translate(_ table: FeatureTable, selection: FeatureSelection, annotation: [String: [Int64]], dx: Double, dy: Double,
                   dryRun: Bool, command: String, summary: (Int) -> String, progress: (Int, Int) -> Void) throws -> BulkMoveCounts

    // MARK: Outside edits (docs/follow.md)

    /// The tables whose edits by other programs (QGIS, GDAL, `sqlite3`, psql) the store records
    /// for annolink to follow: its change capture. Empty: none.
    func changeCaptureTables() throws -> [String]
    /// Records outside edits of exactly `tables` from now on (the capture of other tables is
    /// removed; an empty list removes it all, with what it had recorded). One transaction.
    func installChangeCapture(on tables: [String]) throws
    /// The outside edits recorded and not yet followed, by table, fids in order; reads only.
    func pendingOutsideEdits() throws -> [String: [Int64]]
    /// Inside an entry being recorded (`EditJournal.recordEdit`): takes the outside edits
    /// recorded, one per row changed however often, and records them in the entry, so that
    /// undoing it reverts them too. The recorded edits are gone afterwards.
    func takeOutsideEdits() throws -> [OutsideEdit]
}

/// A row that another program inserted, updated or deleted (`FeatureStore.takeOutsideEdits`):
/// the row as it was before the first of its outside edits and as it is now.
public struct OutsideEdit: Sendable {
    public var table: String
    public var fid: Int64
    /// Nil: the row did not exist (it was inserted).
    public var before: Feature?
    /// Nil: the row does not exist now (it was deleted).
    public var after: Feature?
    /// Why the row could not be read as a feature (a geometry another program wrote that is no
    /// GeoPackage geometry), when it could not: `before` and `after` then lack their geometry.
    public var unreadable: String?

    public init(table: String, fid: Int64, before: Feature?, after: Feature?, unreadable: String? = nil) {
        self.table = table
        self.fid = fid
        self.before = before
        self.after = after
        self.unreadable = unreadable
    }

    /// The attribute columns whose values differ between before and after.
    public var changedFields: Set<String> {
        let names = Set((before?.attributes.keys).map(Array.init) ?? []).union((after?.attributes.keys).map(Array.init) ?? [])
        return names.filter { before?.attributes[$0] != after?.attributes[$0] }
    }
}

extension FeatureStore {
    /// A store without change capture: outside edits are not seen.
    public func changeCaptureTables() throws -> [String] { [] }
    public func installChangeCapture(on tables: [String]) throws {
        guard !tables.isEmpty else { return }
        throw StoreError.notSupported("this store cannot record outside edits yet (docs/follow.md)")
    }
    public func pendingOutsideEdits() throws -> [String: [Int64]] { [:] }
    public func takeOutsideEdits() throws -> [OutsideEdit] { [] }

    /// Every table a class labels and every annotation table, in the registry's order: the
    /// tables the change capture watches.
    public func linkedTableNames() throws -> [String] {
        var names: [String] = []
        for name in try annotationClasses().map(\.originTable) + annotationTableNames() where !names.contains(name) { names.append(name) }
        return names
    }

    /// Records outside edits of every linked table (`linkedTableNames`), where the store can:
    /// what every command that makes or labels a file does at its end.
    public func captureOutsideEditsOfLinkedTables() throws {
        guard !(try changeCaptureTables().isEmpty && linkedTableNames().isEmpty) else { return }
        do {
            try installChangeCapture(on: linkedTableNames())
        } catch StoreError.notSupported {
            return
        }
    }

    /// Through `forEachIndexedRow`, in fid order.
    public func forEachIndexBox(_ table: FeatureTable, meeting box: Envelope?, _ body: (_ fid: Int64, _ box: Envelope) throws -> Void) throws {
        try forEachIndexedRow(table, meeting: box, size: .any, reading: .box) { try body($0.fid, $0.box) }
    }

    /// One `feature(_:fid:meets:)` per fid, for a store whose reads cost no round trip.
    public func fids(of table: FeatureTable, among fids: [Int64], meeting condition: SQLCondition) throws -> Set<Int64> {
        Set(try fids.filter { try feature(table, fid: $0, meets: condition) })
    }

    /// One `feature(_:fid:)` per fid, for a store whose reads cost no round trip.
    public func features(_ table: FeatureTable, fids: [Int64]) throws -> [Int64: Feature] {
        var found: [Int64: Feature] = [:]
        for fid in fids {
            do {
                found[fid] = try feature(table, fid: fid)
            } catch StoreError.unknownFeature {
                continue
            }
        }
        return found
    }

    /// One `annotationRows(_:featureID:)` per feature, for a store whose reads cost no round trip.
    public func annotationRows(_ table: FeatureTable, featureIDs: [Int64]) throws -> [Int64: [AnnotationRow]] {
        var found: [Int64: [AnnotationRow]] = [:]
        for featureID in featureIDs {
            let rows = try annotationRows(table, featureID: featureID)
            if !rows.isEmpty { found[featureID] = rows }
        }
        return found
    }

    /// One `updateFeature` per fid, for a store without a set-based way.
    public func updateFeatures(_ table: FeatureTable, fids: [Int64], attributes: [String: SQLValue]) throws {
        for fid in fids { try updateFeature(table, fid: fid, geometry: nil, attributes: attributes) }
    }

    /// One `feature` and `deleteFeature` per fid, for a store without a set-based way.
    public func deleteFeatures(_ table: FeatureTable, fids: [Int64]) throws -> [Int64: Feature] {
        let deleted = try features(table, fids: fids)
        for fid in Set(fids).sorted() where deleted[fid] != nil { try deleteFeature(table, fid: fid) }
        return deleted
    }
}

/// A store's edit journal: each edit one transaction and one entry; undo and redo refuse, with
/// `JournalError.conflict`, when a row the entry changed was changed again since.
public protocol EditJournal: AnyObject {
    /// The user new entries record (`serve` sets it per request); nil records none.
    var user: String? { get set }
    /// Runs `body` as one transaction recorded as one entry (nested calls join the outer one).
    /// Returns the entry's id: nil when nothing changed or the call joined an outer one.
    func recordEdit<T>(command: String, summary: String, _ body: () throws -> T) throws -> (value: T, entry: Int64?)
    /// The newest `limit` entries (nil: all), newest first.
    func entries(limit: Int?) throws -> [JournalEntry]
    /// Reverts the newest done entry.
    func undo() throws -> JournalEntry
    /// Re-applies the entry undone last.
    func redo() throws -> JournalEntry
}

/// Which features a bulk edit takes.
public enum FeatureSelection: Sendable {
    /// These fids (unknown ones are an error).
    case fids([Int64])
    /// Every feature whose envelope lies inside the box (table CRS units).
    case boundingBox(Envelope)
    /// Every feature an SQL condition on the table selects (read-only, one condition).
    case condition(String)
}

/// What a bulk move moved (with a dry run: would move).
public struct BulkMoveCounts: Hashable, Sendable {
    public var features = 0
    public var annotationRows = 0
    /// The journal entry; nil for a dry run or when nothing was selected.
    public var journalEntry: Int64?

    public init(features: Int = 0, annotationRows: Int = 0, journalEntry: Int64? = nil) {
        self.features = features
        self.annotationRows = annotationRows
        self.journalEntry = journalEntry
    }
}
