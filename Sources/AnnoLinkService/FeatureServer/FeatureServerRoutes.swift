import AnnoLinkAnnotation
import AnnoLinkStore
import Foundation

/// Esri's GeoServices REST FeatureServer, the subset field apps use, at
/// `/arcgis/rest/services/<name>/FeatureServer` (`<name>` = the file's stem): the service and
/// layer resources, `query`, and `applyEdits` on a layer and on the service (docs/serve.md).
///
/// Each handler parses the request into a typed value, runs it (reads through `Dataset.read`,
/// edits through the typed edit requests of `EditService`) and writes the answer; every
/// refusal is Esri's error JSON, made in one place (`FeatureServerError.json`). As ArcGIS
/// Server does, error documents are sent with HTTP status 200: Esri clients read `error.code`.
public struct FeatureServerRoutes: Routes {
    /// The version of the REST API the answers follow.
    static let currentVersion = 11.1

    public init() {}

    public func respond(to request: HTTPRequest, in dataset: Dataset) -> HTTPResponse? {
        var path = request.path
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        let prefix = "/arcgis/rest"
        guard path == prefix || path.hasPrefix(prefix + "/") else { return nil }
        let parts = path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        let format = request.parameters["f"]?.lowercased() ?? "json"
        let pretty = format == "pjson"
        do {
            try RouteRefusal.check(request.caller, .read)
            return try route(parts, request: request, dataset: dataset, format: format)
        } catch {
            return Self.errorResponse(FeatureServerError(error), pretty: pretty)
        }
    }

    /// The answer for `json` in `format`.
    private func answer(_ json: JSONText, format: String) throws -> HTTPResponse {
        let contentType = format == "geojson" ? "application/geo+json" : "application/json; charset=utf-8"
        return HTTPResponse(status: 200, contentType: contentType, body: Array(json.rendered(pretty: format == "pjson").utf8))
    }

    /// Esri's error document, with HTTP status 200 as ArcGIS Server sends it.
    static func errorResponse(_ error: FeatureServerError, pretty: Bool = false) -> HTTPResponse {
        HTTPResponse(status: 200, contentType: "application/json; charset=utf-8", body: Array(error.json.rendered(pretty: pretty).utf8))
    }

    /// Dispatches on the path after `/arcgis/rest`: a layer's query is answered here, tagged
    /// from its table's last change (`TableEntityTag`), so that an unchanged one is answered 304
    /// unread; every other resource by `resource`.
    private func route(_ parts: [String], request: HTTPRequest, dataset: Dataset, format: String) throws -> HTTPResponse {
        switch try resource(parts, request: request, dataset: dataset, format: format) {
        case .json(let json):
            return try answer(json, format: format)
        case .layerQuery(let id):
            let validator = TableEntityTag(dataset)
            return try dataset.readStore { package in
                let layers = try FeatureServerLayer.all(in: package)
                guard id < layers.count else { throw FeatureServerError.notFound("Layer") }
                let query = try FeatureServerQuery(parameters: request.parameters, layer: layers[id], package: package,
                                                   maxRecordCount: max(1, dataset.maxRecords))
                return try validator.answer(request, dataset: dataset, store: package, tables: [layers[id].table.name]) {
                    try answer(query.run(in: package, geoJSON: format == "geojson", pretty: format == "pjson"), format: format)
                }
            }
        }
    }

    /// What a path after `/arcgis/rest` names: a resource, read already, or a layer's query.
    private enum Resource {
        case json(JSONText)
        case layerQuery(Int)
    }

    /// The resource at the path after `/arcgis/rest`; a layer's query only once its path and
    /// format are checked.
    private func resource(_ parts: [String], request: HTTPRequest, dataset: Dataset, format: String) throws -> Resource {
        guard ["json", "pjson", "geojson"].contains(format) else {
            throw FeatureServerError.invalidParameter("f", "'\(format)' is not json, pjson or geojson")
        }
        if format == "geojson", !(parts.count == 5 && parts.last == "query") {
            throw FeatureServerError.invalidParameter("f", "geojson is answered by query only")
        }
        switch parts.first {
        case "info"? where parts.count == 1:
            return .json(.object([("currentVersion", .number(Self.currentVersion)), ("fullVersion", .string("11.1.0")),
                                  ("authInfo", .object([("isTokenBasedSecurity", .bool(false))]))]))
        case "services"?:
            break
        default:
            throw FeatureServerError.notFound("Resource")
        }
        if parts.count == 1 {
            let service: JSONText = .object([("name", .string(dataset.name)), ("type", .string("FeatureServer"))])
            return .json(.object([("currentVersion", .number(Self.currentVersion)), ("folders", .array([])), ("services", .array([service]))]))
        }
        guard parts.count >= 3, parts[1] == dataset.name, parts[2] == "FeatureServer" else {
            throw FeatureServerError.notFound("Service")
        }
        let rest = Array(parts.dropFirst(3))
        let mayEdit = !dataset.readOnly && request.caller.mayEdit
        // `annolink serve --max-records`: the most features one query answer holds.
        let maxRecordCount = max(1, dataset.maxRecords)
        switch rest.count {
        case 0:
            return .json(try dataset.readStore {
                try serviceResource(FeatureServerLayer.all(in: $0), dataset: dataset, mayEdit: mayEdit, maxRecordCount: maxRecordCount)
            })
        case 1 where rest[0] == "layers":
            return .json(try dataset.readStore { package in
                let layers = try FeatureServerLayer.all(in: package)
                let resources = layers.map { layerResource($0, mayEdit: mayEdit, maxRecordCount: maxRecordCount) }
                return .object([("layers", .array(resources)), ("tables", .array([]))])
            })
        case 1 where rest[0] == "applyEdits":
            return .json(try FeatureServerEdits(request: request, dataset: dataset).applyServiceEdits())
        default:
            break
        }
        guard let id = Int(rest[0]), id >= 0 else { throw FeatureServerError.notFound("Layer") }
        switch rest.count {
        case 1:
            return .json(try dataset.readStore { package in
                let layers = try FeatureServerLayer.all(in: package)
                guard id < layers.count else { throw FeatureServerError.notFound("Layer") }
                return layerResource(layers[id], mayEdit: mayEdit, maxRecordCount: maxRecordCount)
            })
        case 2 where rest[1] == "query":
            return .layerQuery(id)
        case 2 where rest[1] == "applyEdits":
            return .json(try FeatureServerEdits(request: request, dataset: dataset).applyLayerEdits(layerID: id))
        default:
            throw FeatureServerError.notFound("Resource")
        }
    }

    /// What a caller may do: `Query`, and the editing capabilities when the service and the
    /// caller allow edits.
    static func capabilities(mayEdit: Bool) -> String {
        mayEdit ? "Create,Delete,Query,Update,Editing" : "Query"
    }

    /// The service resource: layers by id, the service's spatial reference and extent.
    private func serviceResource(_ layers: [FeatureServerLayer], dataset: Dataset, mayEdit: Bool, maxRecordCount: Int) throws -> JSONText {
        let reference = layers.first?.srs.map(EsriSpatialReference.init)
        var extent: JSONText = .null
        if let reference {
            let envelopes = layers.filter { $0.srs?.srsID == layers.first?.srs?.srsID }.compactMap(\.extent)
            if let first = envelopes.first {
                extent = FeatureServerQuery.envelopeJSON(envelopes.dropFirst().reduce(first) { $0.union($1) }, reference)
            }
        }
        return .object([
            ("currentVersion", .number(Self.currentVersion)),
            ("serviceDescription", .string("annolink serving \(dataset.name)")),
            ("hasVersionedData", .bool(false)),
            ("supportsDisconnectedEditing", .bool(false)),
            ("supportedQueryFormats", .string("JSON, geoJSON")),
            ("maxRecordCount", .integer(Int64(maxRecordCount))),
            ("capabilities", .string(Self.capabilities(mayEdit: mayEdit))),
            ("description", .string("")),
            ("copyrightText", .string("")),
            ("spatialReference", reference?.json ?? .null),
            ("initialExtent", extent),
            ("fullExtent", extent),
            ("allowGeometryUpdates", .bool(true)),
            ("units", .string(Self.units(layers.first?.srs))),
            ("syncEnabled", .bool(false)),
            ("supportsApplyEditsWithGlobalIds", .bool(false)),
            ("layers", .array(layers.map { layer in
                .object([("id", .integer(Int64(layer.id))), ("name", .string(layer.table.name)),
                         ("parentLayerId", .integer(-1)), ("defaultVisibility", .bool(true)), ("subLayerIds", .null),
                         ("minScale", .integer(0)), ("maxScale", .integer(0)),
                         ("type", .string(layer.isAnnotation ? "Annotation Layer" : "Feature Layer")),
                         ("geometryType", layer.geometryType.map { .string($0) } ?? .null)])
            })),
            ("tables", .array([])),
        ])
    }

    /// Esri's name of the CRS's unit (`esriFeet`, `esriMeters`, `esriDecimalDegrees`).
    static func units(_ srs: SpatialReferenceSystem?) -> String {
        guard let srs else { return "esriUnknownUnits" }
        guard let metres = srs.metresPerUnitFromDefinition else {
            return srs.definition.hasPrefix("GEOGCS") ? "esriDecimalDegrees" : "esriUnknownUnits"
        }
        if abs(metres - 1) < 1e-9 { return "esriMeters" }
        if abs(metres - 0.3048) < 1e-6 || abs(metres - 1200.0 / 3937.0) < 1e-6 { return "esriFeet" }
        return "esriUnknownUnits"
    }

    /// The fields a label expression reads, sorted (null when it does not parse): a client needs
    /// them to refuse an empty value before the edit service does (`refuseEmptyLabelValues`).
    static func labelFields(_ expression: String) -> JSONText {
        guard let parsed = try? LabelExpression(expression) else { return .null }
        return .array(parsed.referencedFields.sorted().map { .string($0) })
    }

    /// A layer resource.
    func layerResource(_ layer: FeatureServerLayer, mayEdit: Bool, maxRecordCount: Int) -> JSONText {
        let reference = layer.srs.map(EsriSpatialReference.init)
        let extent: JSONText = layer.extent.flatMap { e in reference.map { FeatureServerQuery.envelopeJSON(e, $0) } } ?? .null
        // Annotation rows are made by their classes: a client may change them (set) and delete
        // them, not add them.
        let capabilities = mayEdit ? (layer.isAnnotation ? "Delete,Query,Update,Editing" : Self.capabilities(mayEdit: true)) : "Query"
        var members: [(String, JSONText)] = [
            ("currentVersion", .number(Self.currentVersion)),
            ("id", .integer(Int64(layer.id))),
            ("name", .string(layer.table.name)),
            ("type", .string(layer.isAnnotation ? "Annotation Layer" : "Feature Layer")),
            ("description", .string(layer.description)),
            ("geometryType", layer.geometryType.map { .string($0) } ?? .null),
            ("sourceSpatialReference", reference?.json ?? .null),
            ("spatialReference", reference?.json ?? .null),
            ("extent", extent),
            ("hasZ", .bool(false)), ("hasM", .bool(false)),
            ("objectIdField", .string(layer.table.primaryKey)),
            ("globalIdField", .string(layer.globalIDColumn?.name ?? "")),
            ("displayField", .string(layer.fieldColumns.first { $0.affinity == .text && !$0.isPrimaryKey }?.name ?? layer.table.primaryKey)),
            ("typeIdField", .string("")),
            ("fields", .array(layer.fields(editable: mayEdit))),
            ("types", .array([])), ("templates", .array([])),
            ("capabilities", .string(capabilities)),
            ("maxRecordCount", .integer(Int64(maxRecordCount))),
            ("standardMaxRecordCount", .integer(Int64(maxRecordCount))),
            ("supportedQueryFormats", .string("JSON, geoJSON")),
            ("supportsAdvancedQueries", .bool(true)),
            ("supportsStatistics", .bool(true)),
            ("supportsPagination", .bool(true)),
            ("supportsRollbackOnFailureParameter", .bool(true)),
            ("supportsApplyEditsWithGlobalIds", .bool(false)),
            ("allowGeometryUpdates", .bool(!layer.isAnnotation)),
            ("useStandardizedQueries", .bool(false)),
            ("supportsCoordinatesQuantization", .bool(false)),
            ("advancedQueryCapabilities", .object([
                ("supportsPagination", .bool(true)), ("supportsOrderBy", .bool(true)), ("supportsDistinct", .bool(true)),
                ("supportsQueryWithDistance", .bool(true)), ("supportsReturningQueryExtent", .bool(true)),
                ("supportsStatistics", .bool(true)), ("supportsPaginationOnAggregatedQueries", .bool(true)),
                ("supportsQueryWithResultType", .bool(false)), ("supportsSqlExpression", .bool(false)),
            ])),
            ("relationships", .array([])),
        ]
        if layer.isAnnotation {
            members.append(("annotationClasses", .array(layer.classes.map { c in
                .object([
                    ("id", .integer(c.classID)), ("name", .string(c.name)), ("originTable", .string(c.originTable)),
                    ("labelExpression", .string(c.expression)), ("labelFields", Self.labelFields(c.expression)),
                    ("where", c.selectingClause.map { .string($0) } ?? .null),
                    ("referenceScale", .number(c.referenceScale)),
                    ("font", .object([("family", .string(c.fontName)), ("size", .number(c.fontSize))])),
                    ("horizontalAlignment", .integer(Int64(c.horizontalAlignment))),
                    ("verticalAlignment", .integer(Int64(c.verticalAlignment))),
                    ("placement", .string(c.placement.rawValue)),
                    ("autoCreate", .bool(c.autoCreate)), ("updateOnShapeChange", .bool(c.updateOnShapeChange)),
                ])
            })))
            members.append(("drawingInfo", .object([("labelingInfo", .array([.object([
                ("labelExpressionInfo", .object([("expression", .string("$feature.TextString"))])),
                ("labelAngleInfo", .object([("angleExpressionInfo", .object([("expression", .string("$feature[\"Angle\"]"))])),
                                            ("rotationType", .string("arithmetic"))])),
            ])]))])))
        }
        return .object(members)
    }
}
