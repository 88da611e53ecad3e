import AnnoLinkEditing
import AnnoLinkGeometry
import AnnoLinkPostGIS
import AnnoLinkStore
import Foundation

/// The strong entity tag of one feature: a hash of every stored value of its row (the geometry
/// blob included), so it is the same on every read and changes with every edit that changes the
/// row.
enum OGCEntityTag {
    /// The tag of row `fid` of `table`, quoted (`"…"`), or nil when there is no such row.
    ///
    /// On a GeoPackage the hash runs over the row's SQLite values; on PostGIS over the row's
    /// text as PostgreSQL writes it (`row::text`: geometry as hex EWKB, doubles in their
    /// shortest exact digits), read inside an edit with the row locked. Either way the tag
    /// changes with any value of the row, but a GeoPackage and its PostGIS copy give different
    /// tags for the same feature.
    static func of(_ table: FeatureTable, fid: Int64, in store: any FeatureStore) throws -> String? {
        let row: [SQLValue]
        if let store = store as? PostGISStore {
            guard let text = try store.rowText(table, fid: fid) else { return nil }
            row = [.text(text)]
        } else if let package = store as? GeoPackage {
            guard let found = try package.connection.rows(
                "SELECT * FROM \(quoteIdentifier(table.name)) WHERE \(quoteIdentifier(table.primaryKey)) = ?", [.integer(fid)]).first else { return nil }
            row = found
        } else {
            return nil
        }
        // Two FNV-1a hashes with different offsets: 128 bits over the type tag and bytes of each value.
        var a: UInt64 = 0xcbf2_9ce4_8422_2325, b: UInt64 = 0x84222325_cbf29ce4
        func add(_ byte: UInt8) {
            a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            b = (b ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 ^ (b >> 29)
        }
        func add<S: Sequence<UInt8>>(_ bytes: S) { for byte in bytes { add(byte) } }
        for value in row {
            switch value {
            case .null: add(0)
            case .integer(let v): add(1); add(withUnsafeBytes(of: v.littleEndian, Array.init))
            case .real(let v): add(2); add(withUnsafeBytes(of: v.bitPattern.littleEndian, Array.init))
            case .text(let v): add(3); add(withUnsafeBytes(of: UInt64(v.utf8.count).littleEndian, Array.init)); add(v.utf8)
            case .blob(let v): add(4); add(withUnsafeBytes(of: UInt64(v.count).littleEndian, Array.init)); add(v)
            }
        }
        return "\"" + String(format: "%016llx%016llx", a, b) + "\""
    }

    /// Whether the `If-Match` header `header` lets an edit of a row whose tag is `current`
    /// (nil: no such row) go ahead: `*` matches any existing row, otherwise one of the listed
    /// strong tags must equal it. Weak tags (`W/"…"`) never match (RFC 9110 §13.1.1).
    static func matches(_ header: String, current: String?) -> Bool {
        guard let current else { return false }
        for candidate in header.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if candidate == "*" || candidate == current { return true }
        }
        return false
    }
}

/// A feature as a request body gives it: the geometry (when the body has one) and property
/// values.
struct OGCFeatureInput {
    /// Present when the body named a geometry; its value nil for `null`.
    var geometry: Geometry??
    var properties: [String: JSONInput]

    /// A GeoJSON Feature (`POST`, `PUT`): `geometry` and `properties` members; an `id` other
    /// than `fid` is refused.
    static func feature(_ body: [UInt8], fid: Int64? = nil) throws -> OGCFeatureInput {
        guard let members = try parse(body).objectMembers else {
            throw OGCException.badRequest("the body must be a GeoJSON Feature object", code: "InvalidRequestBody")
        }
        if let type = members["type"], type != .string("Feature") {
            throw OGCException.badRequest("the body must be a GeoJSON Feature, not \(type.jsonText)", code: "InvalidRequestBody")
        }
        try checkID(members["id"], fid: fid)
        guard let geometry = members["geometry"] else {
            throw OGCException.badRequest("the Feature has no \"geometry\" member", code: "InvalidRequestBody")
        }
        return OGCFeatureInput(geometry: .some(try Self.geometry(geometry)), properties: try properties(members["properties"]))
    }

    /// A JSON merge patch (`PATCH`, RFC 7396): either shaped as a Feature (`geometry`,
    /// `properties`) or flat, property names as members and the geometry under the geometry
    /// column's name.
    static func patch(_ body: [UInt8], fid: Int64, geometryColumn: String) throws -> OGCFeatureInput {
        guard var members = try parse(body).objectMembers else {
            throw OGCException.badRequest("the body must be a JSON object (a merge patch)", code: "InvalidRequestBody")
        }
        if members["type"] != nil || members["properties"] != nil || members["geometry"] != nil {
            if let type = members["type"], type != .string("Feature") {
                throw OGCException.badRequest("a patch shaped as a Feature must have \"type\": \"Feature\"", code: "InvalidRequestBody")
            }
            try checkID(members["id"], fid: fid)
            return OGCFeatureInput(geometry: try members["geometry"].map(geometry), properties: try properties(members["properties"]))
        }
        let geometryMember = members.keys.first { $0.lowercased() == geometryColumn.lowercased() }
        let shape = try geometryMember.map { try geometry(members[$0]!) }
        if let geometryMember { members[geometryMember] = nil }
        return OGCFeatureInput(geometry: shape, properties: members)
    }

    /// `body` as one JSON value.
    private static func parse(_ body: [UInt8]) throws(OGCException) -> JSONInput {
        do {
            return try JSONInput(parsing: body)
        } catch {
            throw .badRequest("the body is not valid JSON", code: "InvalidRequestBody")
        }
    }

    private static func checkID(_ id: JSONInput?, fid: Int64?) throws {
        guard let id, id != .null else { return }
        guard let fid else { return }  // a new feature's id is the table's to choose; a given one is ignored
        let given: Int64? = switch id {
        case .integer(let v): v
        case .string(let s): Int64(s)
        default: nil
        }
        guard given == fid else { throw OGCException.badRequest("the body's id \(id.jsonText) is not the feature's id \(fid)", code: "InvalidRequestBody") }
    }

    private static func geometry(_ value: JSONInput) throws -> Geometry? {
        if value == .null { return nil }
        do {
            return try Geometry(geoJSON: value.jsonText)
        } catch {
            throw OGCException.badRequest("the geometry is not a GeoJSON geometry: \(error)", code: "InvalidRequestBody")
        }
    }

    private static func properties(_ value: JSONInput?) throws -> [String: JSONInput] {
        switch value {
        case nil, .null?: return [:]
        case .object(let members)?: return members
        case let other?: throw OGCException.badRequest("\"properties\" must be an object, not \(other.jsonText)", code: "InvalidRequestBody")
        }
    }

    /// The text `annolink set` would take for `value` (`FIELD=VALUE`): `NULL`, numbers as
    /// written, `true`/`false`, strings as they are.
    static func text(_ value: JSONInput, field: String) throws -> String {
        switch value {
        case .null: "NULL"
        case .bool(let v): v ? "true" : "false"
        case .integer(let v): String(v)
        case .number(let v): JSONWriter.numberText(v)
        case .string(let v): v
        case .array, .object: throw OGCException.badRequest("property '\(field)' must be a string, number, boolean or null", code: "InvalidRequestBody")
        }
    }

    /// Whether `value` from a body is what the row already holds.
    static func same(_ value: JSONInput, _ stored: SQLValue) -> Bool {
        switch (value, stored) {
        case (.null, .null): true
        case (.integer(let a), .integer(let b)): a == b
        case (.integer(let a), .real(let b)): Double(a) == b
        case (.number(let a), .real(let b)): a == b
        case (.number(let a), .integer(let b)): a == Double(b)
        case (.bool(let a), .integer(let b)): (a ? 1 : 0) == b
        case (.string(let a), .text(let b)): a == b
        case (.string(let a), .blob(let b)): a.lowercased() == SQLValue.hex(b)
        default: false
        }
    }
}

/// Turns OGC API – Features Part 4 requests into the edit service's typed requests, each
/// request one transaction and one journal entry, its `If-Match` checked inside that
/// transaction.
struct OGCEditor {
    let collection: OGCCollection
    let tools: OGCTools
    /// The journal entry's command text.
    let command: String
    /// Whether a field a label reads may be left empty or NULL (`serve --allow-empty`).
    let allowEmpty: Bool

    var table: FeatureTable { collection.table }

    /// Adds `input` as a new feature and returns its fid and entity tag.
    func create(_ input: OGCFeatureInput, inputCRS: OGCCRS, service: EditService) throws -> (fid: Int64, etag: String) {
        guard case .some(.some(let given)) = input.geometry else {
            throw OGCException.badRequest("a new feature needs a geometry", code: "InvalidRequestBody")
        }
        let geometry = try tools.transform(given, from: inputCRS, to: collection.storage.stored)
        let values = try input.properties.keys.sorted().map { key in
            FieldAssignment(field: key, text: try OGCFeatureInput.text(input.properties[key]!, field: key))
        }
        return try service.journal().recordEdit(command: command, summary: "add a feature to \(table.name)") {
            let result = try service.run(AddFeature(table: table.name, geometry: geometry, values: values, allowEmpty: allowEmpty, command: command))
            guard let etag = try OGCEntityTag.of(table, fid: result.fid, in: service.store) else { throw StoreError.unknownFeature(table: table.name, fid: result.fid) }
            return (result.fid, etag)
        }.value
    }

    /// Replaces (`replacing` true: properties not given become NULL) or patches feature `fid`
    /// and returns its new entity tag. With `ifMatch`, a row whose tag differs is left as it is
    /// and the answer is 412.
    func update(fid: Int64, _ input: OGCFeatureInput, replacing: Bool, inputCRS: OGCCRS, ifMatch: String?, service: EditService) throws -> String {
        // In the body's CRS, x east: the edit service holds it against the stored geometry there
        // (`UpdateGeometry`), so a feature read in a CRS and written back changes nothing.
        let newGeometry: Geometry?? = input.geometry.map { given in
            given.map { shape in inputCRS.latitudeFirst ? shape.mapPoints { Point(x: $0.y, y: $0.x) } : shape }
        }
        let geometryCRS = inputCRS.proj == collection.storage.proj ? nil : inputCRS.proj
        return try service.journal().recordEdit(command: command, summary: "\(replacing ? "replace" : "update") \(table.name) fid \(fid)") {
            try checkPrecondition(fid: fid, ifMatch: ifMatch, package: service.store)
            let current = try service.store.feature(table, fid: fid)
            var values: [FieldAssignment] = []
            for (key, value) in input.properties.sorted(by: { $0.key < $1.key }) {
                guard let column = table.column(key) else {
                    throw OGCException.badRequest("\(table.name) has no property '\(key)'", code: "InvalidRequestBody")
                }
                if column.isPrimaryKey {
                    guard OGCFeatureInput.same(value, .integer(fid)) else {
                        throw OGCException.badRequest("\(column.name) is the feature id, which cannot change", code: "InvalidRequestBody")
                    }
                    continue
                }
                if !OGCFeatureInput.same(value, current.attributes[column.name] ?? .null) {
                    values.append(FieldAssignment(field: column.name, text: try OGCFeatureInput.text(value, field: column.name)))
                }
            }
            if replacing {
                let given = Set(input.properties.keys.map { $0.lowercased() })
                for column in table.attributeColumns where !given.contains(column.name.lowercased()) && !(current.attributes[column.name] ?? .null).isNull {
                    values.append(FieldAssignment(field: column.name, text: "NULL"))
                }
            }
            if case .some(let shape) = newGeometry {
                guard let shape else { throw OGCException.badRequest("a feature's geometry cannot be removed", code: "InvalidRequestBody") }
                _ = try service.run(UpdateGeometry(table: table.name, fid: fid, geometry: shape, crs: geometryCRS, lineChange: .reshape, command: command))
            }
            if !values.isEmpty { _ = try service.run(SetFields(table: table.name, fid: fid, values: values, allowEmpty: allowEmpty, command: command)) }
            guard let etag = try OGCEntityTag.of(table, fid: fid, in: service.store) else { throw StoreError.unknownFeature(table: table.name, fid: fid) }
            return etag
        }.value
    }

    /// Deletes feature `fid` (and its annotation), after the `If-Match` check.
    func delete(fid: Int64, ifMatch: String?, service: EditService) throws {
        try service.journal().recordEdit(command: command, summary: "delete \(table.name) fid \(fid)") {
            try checkPrecondition(fid: fid, ifMatch: ifMatch, package: service.store)
            _ = try service.run(DeleteFeature(table: table.name, fid: fid, command: command))
        }
    }

    private func checkPrecondition(fid: Int64, ifMatch: String?, package: any FeatureStore) throws {
        guard let ifMatch else { return }
        let current = try OGCEntityTag.of(table, fid: fid, in: package)
        guard OGCEntityTag.matches(ifMatch, current: current) else {
            throw OGCException.preconditionFailed(current == nil
                ? "\(table.name) has no feature \(fid)"
                : "feature \(fid) of \(table.name) has changed since the copy with that ETag was read (now \(current!)); read it again")
        }
    }
}
