import AnnoLinkEditing
import AnnoLinkStore

/// The journal summary of an `applyEdits` that is one transaction: what it changed, in the words
/// `annolink log` and the map editor's Undo show (docs/journal.md) — "set AD_ADDRESS of
/// Loudoun_Address_Points_1 fid 831", not how many adds, updates and deletes it held.
extension FeatureServerEdits {
    /// What one edit does, as far as the request tells before it runs.
    struct Description: Hashable {
        var kind: Kind
        var table: String
        /// The fields an update changes (those sent with the value the row has already left
        /// out), by name.
        var fields: [String]
        var geometry: Bool
        var objectID: Int64?
    }

    /// How many object ids a summary lists before "and N more"; how many kinds of change.
    static let listedObjectIDs = 5
    static let listedChanges = 3

    /// How many updates of a request have their rows read to leave unchanged fields out of the
    /// summary; past them (a bulk request of thousands) the summary names every field sent.
    static let updatesReadForSummary = 20

    /// `edit` described: for an update the fields whose sent value differs from the stored one
    /// (with `readingRow` false, or when the row cannot be read, every field sent; the edit
    /// itself reports why it cannot be made).
    func describe(_ edit: Edit, layer: FeatureServerLayer, service: EditService, readingRow: Bool) -> Description {
        let table = layer.table
        let id = Self.objectID(of: edit, layer: layer)
        var fields: [String] = []
        var geometry = false
        if edit.kind == .update, let feature = edit.feature {
            let current = readingRow ? id.flatMap { try? service.store.feature(table, fid: $0) } : nil
            if readingRow, let changed = try? assignments(feature, layer: layer, current: current) {
                fields = changed.map(\.field)
            } else if case .object(let attributes)? = feature["attributes"] {
                fields = attributes.map(\.key).filter { $0.lowercased() != table.primaryKey.lowercased() }.sorted()
            }
            if let sent = feature["geometry"], sent != .null { geometry = true }
        }
        return Description(kind: edit.kind, table: table.name, fields: fields, geometry: geometry, objectID: id)
    }

    /// The summary of `edits`: edits of one kind, table and fields together, each with its
    /// object ids ("set AD_ADDRESS of Loudoun_Address_Points_1 fids 831, 832"; "add 2 features
    /// to ParcelLines_1"; "delete ParcelLines_1 fid 12"), "; " between them.
    static func summary(of edits: [Description]) -> String {
        struct Key: Hashable { var kind: Kind; var table: String; var fields: [String]; var geometry: Bool }
        var order: [Key] = []
        var ids: [Key: [Int64]] = [:]
        var counts: [Key: Int] = [:]
        for edit in edits {
            let key = Key(kind: edit.kind, table: edit.table, fields: edit.fields, geometry: edit.geometry)
            if counts[key] == nil { order.append(key) }
            counts[key, default: 0] += 1
            if let id = edit.objectID { ids[key, default: []].append(id) }
        }
        func objects(_ key: Key) -> String {
            let all = ids[key] ?? []
            guard !all.isEmpty else { return key.table }
            let shown = all.prefix(listedObjectIDs).map(String.init).joined(separator: ", ")
            return "\(key.table) fid\(all.count == 1 ? "" : "s") \(shown)" + (all.count > listedObjectIDs ? " and \(all.count - listedObjectIDs) more" : "")
        }
        let parts = order.prefix(listedChanges).map { key -> String in
            switch key.kind {
            case .add:
                let n = counts[key]!
                return "add \(n == 1 ? "a feature" : "\(n) features") to \(key.table)"
            case .delete:
                return "delete \(objects(key))"
            case .update:
                let what = key.fields + (key.geometry ? ["the geometry"] : [])
                return what.isEmpty ? "update \(objects(key)) (no change)" : "set \(what.joined(separator: ", ")) of \(objects(key))"
            }
        }
        let rest = order.dropFirst(listedChanges).reduce(0) { $0 + counts[$1]! }
        return parts.joined(separator: "; ") + (rest > 0 ? "; and \(rest) more edit\(rest == 1 ? "" : "s")" : "")
    }
}
