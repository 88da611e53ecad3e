import AnnoLinkEditing
import AnnoLinkEngine
import AnnoLinkGeometry
import AnnoLinkPostGIS
import AnnoLinkStore
import Foundation

/// Why the FeatureServer refused one edit of an `applyEdits` before the edit service saw it.
enum FeatureEditRefusal: Error, CustomStringConvertible {
    case missingObjectID(String)
    case missingGeometry(String)
    case notAnArray(String)
    case invalidAttribute(field: String, reason: String)
    case annotationAdd(String)

    var description: String {
        switch self {
        case .missingObjectID(let field): "the update names no object id (attribute \(field))"
        case .missingGeometry(let table): "an add to \(table) needs a geometry"
        case .notAnArray(let what): what
        case .invalidAttribute(let field, let reason): "invalid value for \(field): \(reason)"
        case .annotationAdd(let table): "\(table) is an annotation layer: its rows are made by their annotation classes when features are added"
        }
    }

    /// Esri's error code (feature-service-error-codes): 1011 object missing, 1015 geometry
    /// could not be set, 1000 the rest (the edit service's refusals of a geometry update are
    /// 1004, `failure`).
    var code: Int64 {
        switch self {
        case .missingObjectID: 1011
        case .missingGeometry: 1015
        case .notAnArray, .invalidAttribute, .annotationAdd: 1000
        }
    }
}

/// The `applyEdits` operation, on a layer (`adds`, `updates`, `deletes`) and on the service
/// (`edits`): each edit becomes a typed edit request (`AddFeature`, `SetFields`, `MovePoint`,
/// `MoveVertex`, `ReplaceGeometry`, `DeleteFeature`), so every edit regenerates its linked
/// annotation and is journaled. With `rollbackOnFailure=true` (the default, as Esri's) all
/// edits of the request are one transaction and one journal entry; otherwise each edit is.
struct FeatureServerEdits {
    let request: HTTPRequest
    let dataset: Dataset

    enum Kind { case add, update, delete }

    /// One edit of the request.
    struct Edit {
        var layerID: Int
        var kind: Kind
        /// The feature (adds, updates).
        var feature: JSONInput?
        /// The object id (deletes).
        var objectID: Int64?
    }

    /// The outcome of one edit.
    enum Outcome {
        case pending
        case done(objectID: Int64?, globalID: String?)
        case failed(objectID: Int64?, code: Int64, description: String)
    }

    // MARK: Entry points

    func applyLayerEdits(layerID: Int) throws -> JSONText {
        try checkAllowed()
        let p = request.parameters
        let edits = try Self.edits(layerID: layerID, adds: p["adds"], updates: p["updates"], deletes: p["deletes"])
        try checkCount(edits)
        return try answeredOnce { service in
            let outcomes = try run(edits, layerIDs: [layerID], service: service)
            return Self.results(for: layerID, edits: edits, outcomes: outcomes, withID: false)
        }
    }

    func applyServiceEdits() throws -> JSONText {
        try checkAllowed()
        guard let text = request.parameters["edits"], !text.allSatisfy(\.isWhitespace) else {
            throw FeatureServerError.invalidParameter("edits", "missing: give [{\"id\":0,\"adds\":[…],\"updates\":[…],\"deletes\":[…]}]")
        }
        guard case .array(let entries)? = try? JSONInput(parsing: text) else {
            throw FeatureServerError.invalidParameter("edits", "not a JSON array")
        }
        var edits: [Edit] = []
        var layerIDs: [Int] = []
        for entry in entries {
            guard let id = entry["id"]?.integerValue, id >= 0, id < Int64(Int32.max) else {
                throw FeatureServerError.invalidParameter("edits", "every entry needs a layer \"id\"")
            }
            func text(_ key: String) -> String? { entry[key].map { $0.json.rendered() } }
            edits += try Self.edits(layerID: Int(id), adds: text("adds"), updates: text("updates"), deletes: text("deletes"))
            layerIDs.append(Int(id))
            try checkCount(edits)
        }
        return try answeredOnce { service in
            let outcomes = try run(edits, layerIDs: layerIDs, service: service)
            var seen = Set<Int>()
            return .array(layerIDs.filter { seen.insert($0).inserted }.map { id in
                Self.results(for: id, edits: edits, outcomes: outcomes, withID: true)
            })
        }
    }

    /// Refuses a request of more edits than `--max-edits-per-request`, before any is made.
    private func checkCount(_ edits: [Edit]) throws {
        guard edits.count > dataset.maxEditsPerRequest else { return }
        throw FeatureServerError.invalidParameter("applyEdits", "more than \(dataset.maxEditsPerRequest) edits (adds, updates and deletes together) " +
            "in one request, the server's limit (--max-edits-per-request); nothing was changed: send them in smaller requests")
    }

    // MARK: Idempotency keys

    /// The request's idempotency key: the `Idempotency-Key` header (a structured-field string,
    /// quoted or not) or the `idempotencyKey` parameter; nil when neither is given.
    ///
    /// - Throws: `FeatureServerError.invalidParameter` for an empty key, one over 255
    ///   characters or one with characters outside printable ASCII.
    var idempotencyKey: String? {
        get throws {
            guard var key = request.headers["idempotency-key"] ?? request.parameters["idempotencyKey"] else { return nil }
            key = key.trimmingCharacters(in: .whitespaces)
            if key.count >= 2, key.hasPrefix("\""), key.hasSuffix("\"") { key = String(key.dropFirst().dropLast()) }
            guard !key.isEmpty, key.utf8.count <= 255, key.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
                throw FeatureServerError.invalidParameter("Idempotency-Key", "a key is 1 to 255 printable ASCII characters")
            }
            return key
        }
    }

    /// What sums up the request for its key: the operation's path and the parameters that say
    /// what it edits, hashed as an answer's `ETag` is (`ContentNegotiation.fingerprint`).
    var fingerprint: String {
        let names = ["adds", "updates", "deletes", "edits", "rollbackOnFailure", "useGlobalIds"]
        var text = request.path
        for name in names { text += "\u{0}\(name)=\(request.parameters[name] ?? "")" }
        return ContentNegotiation.fingerprint(Array(text.utf8))
    }

    /// The answer `body` gives with the edit service, in one `Dataset.write`. With an
    /// idempotency key, a key that answered before gets that answer and nothing is run again
    /// (`Dataset.writeOnce`).
    private func answeredOnce(_ body: (EditService) throws -> JSONText) throws -> JSONText {
        guard let key = try idempotencyKey else {
            return try dataset.write(user: request.caller.userName, body)
        }
        do {
            return .raw(try dataset.writeOnce(key: key, fingerprint: fingerprint, user: request.caller.userName) { try body($0).rendered() })
        } catch ServiceError.idempotencyKeyReused {
            throw FeatureServerError.invalidParameter("Idempotency-Key", "\(ServiceError.idempotencyKeyReused)")
        }
    }

    /// Refuses edits a read-only service or a caller without an edit token may not make.
    private func checkAllowed() throws {
        guard request.method == "POST" else { throw FeatureServerError.methodNotAllowed("applyEdits takes POST") }
        try RouteRefusal.check(request.caller, .edit("editing"), readOnlyServer: dataset.readOnly)
    }

    // MARK: Parsing

    static func edits(layerID: Int, adds: String?, updates: String?, deletes: String?) throws -> [Edit] {
        func features(_ text: String?, _ name: String) throws -> [JSONInput] {
            guard let text, !text.allSatisfy(\.isWhitespace) else { return [] }
            guard case .array(let items)? = try? JSONInput(parsing: text) else {
                throw FeatureServerError.invalidParameter(name, "not a JSON array of features")
            }
            for item in items {
                guard case .object = item else { throw FeatureServerError.invalidParameter(name, "every feature must be an object") }
            }
            return items
        }
        var edits = try features(adds, "adds").map { Edit(layerID: layerID, kind: .add, feature: $0) }
        edits += try features(updates, "updates").map { Edit(layerID: layerID, kind: .update, feature: $0) }
        if var text = deletes?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
            if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
            for item in text.split(separator: ",") {
                var word = item.trimmingCharacters(in: .whitespaces)
                if word.hasPrefix("\""), word.hasSuffix("\""), word.count >= 2 { word = String(word.dropFirst().dropLast()) }
                guard let id = Int64(word) else { throw FeatureServerError.invalidParameter("deletes", "'\(item)' is not an object id") }
                edits.append(Edit(layerID: layerID, kind: .delete, objectID: id))
            }
        }
        return edits
    }

    private var rollbackOnFailure: Bool {
        get throws {
            switch request.parameters["rollbackOnFailure"]?.lowercased() {
            case nil, "", "true": return true
            case "false": return false
            case let other?: throw FeatureServerError.invalidParameter("rollbackOnFailure", "'\(other)' is not true or false")
            }
        }
    }

    /// The journal's command text (the user is recorded by `Dataset.write(user:)`).
    private var command: String { "serve applyEdits" }

    // MARK: Running

    /// Runs `edits` through the edit service (inside `Dataset.write`) and returns each one's
    /// outcome, in order. Between edits the request's time is checked (`Dataset.checkEditTime`):
    /// past it, with `rollbackOnFailure` nothing is kept and the whole request fails; without,
    /// the edits made stay and the rest report that they were not run.
    private func run(_ edits: [Edit], layerIDs: [Int], service: EditService) throws -> [Outcome] {
        if (request.parameters["useGlobalIds"]?.lowercased() ?? "false") == "true" {
            throw FeatureServerError.unsupported("useGlobalIds=true: edits are keyed on object ids (supportsApplyEditsWithGlobalIds is false)")
        }
        let rollback = try rollbackOnFailure
        let layers = try FeatureServerLayer.all(in: service.store)
        for id in layerIDs where id >= layers.count { throw FeatureServerError.notFound("Layer") }
        var outcomes = [Outcome](repeating: .pending, count: edits.count)
        guard !edits.isEmpty else { return outcomes }
        if !rollback {
            for (i, edit) in edits.enumerated() {
                do {
                    try dataset.checkEditTime()
                    outcomes[i] = try apply(edit, layer: layers[edit.layerID], service: service)
                } catch {
                    guard let late = timeUp(error) else {
                        outcomes[i] = Self.failure(error, objectID: Self.objectID(of: edit, layer: layers[edit.layerID]))
                        continue
                    }
                    // The edits made stay; this one rolled back, and the rest are not run.
                    for j in i..<edits.count {
                        outcomes[j] = .failed(objectID: Self.objectID(of: edits[j], layer: layers[edits[j].layerID]), code: 1000,
                                              description: "not run: \(late)")
                    }
                    return outcomes
                }
            }
            return outcomes
        }
        struct RolledBack: Error {}
        let summary = "applyEdits: " + Self.summary(of: edits.enumerated().map { i, edit in
            describe(edit, layer: layers[edit.layerID], service: service, readingRow: i < Self.updatesReadForSummary)
        })
        do {
            _ = try service.inOneTransaction(command: command, summary: summary) {
                // The features the batch updates or deletes, taken in one order first, so
                // that two batches naming them in opposite orders do not deadlock.
                try service.lockFeatures(edits.compactMap { edit in
                    guard edit.kind != .add, let fid = Self.objectID(of: edit, layer: layers[edit.layerID]) else { return nil }
                    return (layers[edit.layerID].table.name, fid)
                })
                for (i, edit) in edits.enumerated() {
                    try dataset.checkEditTime()
                    do {
                        outcomes[i] = try apply(edit, layer: layers[edit.layerID], service: service)
                    } catch {
                        // The time limit stops the whole request, not this edit.
                        if let late = timeUp(error) { throw late }
                        outcomes[i] = Self.failure(error, objectID: Self.objectID(of: edit, layer: layers[edit.layerID]))
                        throw RolledBack()
                    }
                }
            }
        } catch is RolledBack {
            // Nothing was kept: every other edit reports Esri's "Operation rolled back."
            for (i, edit) in edits.enumerated() {
                if case .failed = outcomes[i] { continue }
                outcomes[i] = .failed(objectID: Self.objectID(of: edit, layer: layers[edit.layerID]), code: 1003, description: "Operation rolled back.")
            }
        } catch let error where RouteRefusal(error).kind == .conflict {
            // A deadlock or serialization failure outside any one edit (taking the batch's rows,
            // the commit): nothing was written, and every edit says so with the conflict's
            // words, as one edit's conflict is reported, not as the request's 500.
            let detail = RouteRefusal(error).detail
            for (i, edit) in edits.enumerated() {
                outcomes[i] = .failed(objectID: Self.objectID(of: edit, layer: layers[edit.layerID]), code: 1000, description: detail)
            }
        }
        return outcomes
    }

    /// The request's time limit or the server's stop when `error` is one of them (or SQLite's
    /// interrupt, which the time limit's progress handler causes, or PostgreSQL's cancelled
    /// statement, which its `statement_timeout` causes); nil for an edit's own failure.
    private func timeUp(_ error: any Error) -> ServiceError? {
        func lateness() -> ServiceError? {
            do { try dataset.checkEditTime() } catch let late as ServiceError { return late } catch {}
            return nil
        }
        switch error {
        case ServiceError.editTimeLimitExceeded, ServiceError.stopping: return error as? ServiceError
        case let e as SQLiteError where e.resultCode == .interrupt: return lateness()
        case let e as PostgreSQLError where e.sqlState == "57014": return lateness()
        default: return nil
        }
    }

    /// The object id an edit names, for its result.
    static func objectID(of edit: Edit, layer: FeatureServerLayer) -> Int64? {
        if let id = edit.objectID { return id }
        guard edit.kind == .update, case .object(let attributes)? = edit.feature?["attributes"] else { return nil }
        return attributes.first { $0.key.lowercased() == layer.table.primaryKey.lowercased() }?.value.integerValue
    }

    /// Runs one edit.
    private func apply(_ edit: Edit, layer: FeatureServerLayer, service: EditService) throws -> Outcome {
        let table = layer.table
        switch edit.kind {
        case .delete:
            let result = try service.run(DeleteFeature(table: table.name, fid: edit.objectID!, command: command))
            return .done(objectID: result.fid, globalID: nil)
        case .add:
            if layer.isAnnotation { throw FeatureEditRefusal.annotationAdd(table.name) }
            guard let feature = edit.feature, let geometryJSON = feature["geometry"], geometryJSON != .null else {
                throw FeatureEditRefusal.missingGeometry(table.name)
            }
            let geometry = try Self.geometry(geometryJSON, layer: layer)
            let values = try assignments(feature, layer: layer, current: nil)
            // The edit service gives a new feature its GlobalID when none is given, as ArcGIS does.
            let result = try service.run(AddFeature(table: table.name, geometry: geometry, values: values, allowEmpty: dataset.allowsEmptyLabelValues, command: command))
            let globalID = layer.globalIDColumn.flatMap { column in
                result.fields.first { $0.name.lowercased() == column.name.lowercased() }?.new.textValue
            }
            return .done(objectID: result.fid, globalID: globalID)
        case .update:
            guard let feature = edit.feature, let fid = Self.objectID(of: edit, layer: layer) else {
                throw FeatureEditRefusal.missingObjectID(table.primaryKey)
            }
            let current = try service.store.feature(table, fid: fid)
            let values = try assignments(feature, layer: layer, current: current)
            var geometryEdit: ((EditService) throws -> Void)?
            let command = self.command
            if let geometryJSON = feature["geometry"], geometryJSON != .null {
                let (geometry, crs) = try Self.sentGeometry(geometryJSON, layer: layer)
                geometryEdit = { service in
                    _ = try service.run(UpdateGeometry(table: table.name, fid: fid, geometry: geometry, crs: crs, lineChange: .refuse, command: command))
                }
            }
            let both = !values.isEmpty && geometryEdit != nil
            let body = {
                if !values.isEmpty { _ = try service.run(SetFields(table: table.name, fid: fid, values: values, allowEmpty: dataset.allowsEmptyLabelValues, command: command)) }
                try geometryEdit?(service)
            }
            // Fields and geometry of one update stand or fall together.
            if both {
                _ = try service.inOneTransaction(command: command, summary: "update \(table.name) fid \(fid)", body)
            } else {
                try body()
            }
            return .done(objectID: fid, globalID: nil)
        }
    }

    // MARK: Feature values

    /// The `FIELD=VALUE` texts of a feature's attributes: the object id left out, and for an
    /// update the fields whose value does not change left out too (so that an annotation row
    /// is marked as set by hand only for what the person changed).
    func assignments(_ feature: JSONInput, layer: FeatureServerLayer, current: Feature?) throws -> [FieldAssignment] {
        guard let attributes = feature["attributes"], attributes != .null else { return [] }
        guard case .object(let members) = attributes else { throw FeatureEditRefusal.notAnArray("\"attributes\" must be an object") }
        var result: [FieldAssignment] = []
        for (name, value) in members.sorted(by: { $0.key < $1.key }) {
            guard let column = layer.table.column(name) else {
                throw StoreError.unknownColumn(table: layer.table.name, column: name)
            }
            if column.isPrimaryKey { continue }
            let text = try Self.text(of: value, for: column)
            if let current, Self.same(current.attributes[column.name] ?? .null, text) { continue }
            result.append(FieldAssignment(field: column.name, text: text))
        }
        return result
    }

    /// The text `FieldValue` reads for a JSON attribute value: `NULL` for null, numbers and
    /// booleans as written, dates (epoch milliseconds) as the column stores them.
    static func text(of value: JSONInput, for column: Column) throws -> String {
        switch value {
        case .null: return "NULL"
        case .bool(let b): return b ? "true" : "false"
        case .string(let s): return s
        case .integer(let i):
            if column.affinity == .date || column.affinity == .dateTime { return EsriDate.text(milliseconds: i, dateOnly: column.affinity == .date) }
            return String(i)
        case .number(let d):
            if column.affinity == .date || column.affinity == .dateTime, d.isFinite {
                return EsriDate.text(milliseconds: Int64(d.rounded()), dateOnly: column.affinity == .date)
            }
            if column.affinity == .integer || column.affinity == .boolean, d == d.rounded(), abs(d) < 9e15 { return String(Int64(d)) }
            return "\(d)"
        case .array, .object:
            let shown = value.json.rendered().prefix(40)
            throw FeatureEditRefusal.invalidAttribute(field: column.name, reason: "a field holds a number, text or null, not \(shown)")
        }
    }

    /// Whether `text` sets the value the row has already.
    static func same(_ value: SQLValue, _ text: String) -> Bool {
        switch value {
        case .null: return text == "NULL"
        case .integer(let i): return Int64(text) == i || (text == "true" && i == 1) || (text == "false" && i == 0)
        case .real(let d): return Double(text) == d
        case .text(let s): return s == text
        case .blob: return false
        }
    }

    // MARK: Geometry

    /// The geometry of an edit in the layer's CRS (an Esri JSON geometry; its
    /// `spatialReference`, when another, is transformed through PROJ).
    static func geometry(_ json: JSONInput, layer: FeatureServerLayer) throws -> Geometry {
        let parsed = try EsriJSONGeometry(esriJSON: json.json.rendered())
        guard let wkid = parsed.latestWkid ?? parsed.wkid, let layerSR = layer.srs.map(EsriSpatialReference.init) else { return parsed.geometry }
        let given = EsriSpatialReference(wkid: Int64(wkid))
        if given.isSame(as: layerSR) { return parsed.geometry }
        return try TransformerPool.shared.with { try $0.transform(parsed.geometry, from: given.projName, to: layerSR.projName) }
    }

    /// The geometry of an update as sent (an Esri JSON geometry) and the CRS it is in: nil when
    /// it names no `spatialReference` or the layer's own. The edit service holds it against the
    /// stored one in that CRS (`UpdateGeometry`), so a geometry read with `outSR` and sent back
    /// with its `spatialReference` changes nothing.
    static func sentGeometry(_ json: JSONInput, layer: FeatureServerLayer) throws -> (geometry: Geometry, crs: String?) {
        let parsed = try EsriJSONGeometry(esriJSON: json.json.rendered())
        guard let wkid = parsed.latestWkid ?? parsed.wkid, let layerSR = layer.srs.map(EsriSpatialReference.init) else { return (parsed.geometry, nil) }
        let given = EsriSpatialReference(wkid: Int64(wkid))
        return (parsed.geometry, given.isSame(as: layerSR) ? nil : given.projName)
    }

    // MARK: Results

    /// Esri's code and description of a failed edit: the edit codes where Esri has one, else
    /// 1000 with the description every interface gives (`RouteRefusal`).
    static func failure(_ error: any Error, objectID: Int64?) -> Outcome {
        let (code, description): (Int64, String)
        switch error {
        case let refusal as FeatureEditRefusal: (code, description) = (refusal.code, refusal.description)
        case let e as EditError:
            switch e {
            case .notSingleSegment, .notAPointTable, .notALineTable, .firstVertexChanged, .notOneSegment, .annotationGeometry: code = 1004
            case .fieldNotEditable: code = 1023
            case .invalidValue(_, _, _, let reason) where reason.contains("NOT NULL"): code = 1001
            case .nonFiniteCoordinate, .coordinateOutOfRange: code = 1015
            default: code = 1000
            }
            description = e.description
        case let e as StoreError:
            switch e {
            case .unknownFeature: code = 1011
            case .wrongGeometryKind: code = 1015
            default: code = 1000
            }
            description = e.description
        case let e as GeometryValidationError: (code, description) = (1015, e.description)
        case let e as SQLiteError:
            switch e.extendedResultCode.rawValue {
            case 1299: code = 1001 // SQLITE_CONSTRAINT_NOTNULL
            case 2067, 1555: code = 1022 // SQLITE_CONSTRAINT_UNIQUE, _PRIMARYKEY
            default: code = 1000
            }
            description = e.message
        default: (code, description) = (1000, RouteRefusal(error).detail)
        }
        return .failed(objectID: objectID, code: code, description: description)
    }

    /// `{"addResults":[…],"updateResults":[…],"deleteResults":[…]}` of one layer (with its
    /// `"id"` first for the service-level answer).
    static func results(for layerID: Int, edits: [Edit], outcomes: [Outcome], withID: Bool) -> JSONText {
        func list(_ kind: Kind) -> JSONText {
            .array(zip(edits, outcomes).filter { $0.0.layerID == layerID && $0.0.kind == kind }.map { edit, outcome in
                switch outcome {
                case .done(let objectID, let globalID):
                    var members: [(String, JSONText)] = [("objectId", objectID.map { .integer($0) } ?? .null)]
                    if let globalID { members.append(("globalId", .string(globalID))) }
                    members.append(("success", .bool(true)))
                    return .object(members)
                case .failed(let objectID, let code, let description):
                    return .object([("objectId", objectID.map { .integer($0) } ?? .integer(-1)), ("success", .bool(false)),
                                    ("error", .object([("code", .integer(code)), ("description", .string(description))]))])
                case .pending:
                    return .object([("objectId", .null), ("success", .bool(false)),
                                    ("error", .object([("code", .integer(1000)), ("description", .string("not run"))]))])
                }
            })
        }
        var members: [(String, JSONText)] = withID ? [("id", .integer(Int64(layerID)))] : []
        members += [("addResults", list(.add)), ("updateResults", list(.update)), ("deleteResults", list(.delete))]
        return .object(members)
    }
}
