import AnnoLinkStore

extension EditService {
    /// Runs `body`, which runs several edit requests, as one transaction recorded as one
    /// journal entry: every request inside joins it (`Journal.record` nests), so either all
    /// of them are kept or, when `body` throws, none is and no entry is written. What an
    /// HTTP `applyEdits` with `rollbackOnFailure=true` needs.
    ///
    /// - Returns: what `body` returned and the journal entry (nil when nothing changed).
    /// - Throws: whatever `body` throws (the store is then as it was), the store's errors.
    public func inOneTransaction<T>(command: String, summary: String, _ body: () throws -> T) throws -> (value: T, journalEntry: Int64?) {
        let recorded = try journal().recordEdit(command: command, summary: summary, body)
        return (recorded.value, recorded.entry)
    }

    /// Inside `inOneTransaction`, takes every feature a batch will edit before it edits any, in
    /// one order whatever order the batch names them in — by table name, then fid — so that two
    /// batches editing the same features in opposite orders wait for each other rather than
    /// deadlock (on PostGIS the rows are locked `FOR UPDATE`; a GeoPackage edit already holds the
    /// whole file). Names of unknown tables and fids of missing features are passed over: the
    /// edit that names them reports them.
    public func lockFeatures(_ features: [(table: String, fid: Int64)]) throws {
        let byTable = Dictionary(grouping: features) { $0.table.lowercased() }
        for name in byTable.keys.sorted() {
            guard let table = try? store.featureTable(name) else { continue }
            try store.lockFeatures(table, fids: byTable[name]!.map(\.fid))
        }
    }
}
