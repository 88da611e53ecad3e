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
                let (layer, sublayer, _) = try Self.layer(id, in: package)
                let query = try FeatureServerQuery(parameters: request.parameters, layer: layer, sublayer: sublayer, package: package,
                                                   maxRecordCount: max(1, dataset.maxRecords))
                return try validator.answer(request, dataset: dataset, store: package, tables: [layer.table.name]) {
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
                let sublayers = FeatureServerLayer.sublayers(of: layers)
                let resources = layers.map { layerResource($0, sublayers: sublayers, mayEdit: mayEdit, maxRecordCount: maxRecordCount) }
                    + sublayers.map { layerResource($0.parent, sublayer: $0, sublayers: sublayers, mayEdit: mayEdit, maxRecordCount: maxRecordCount) }
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
                let (layer, sublayer, sublayers) = try Self.layer(id, in: package)
                return layerResource(layer, sublayer: sublayer, sublayers: sublayers, mayEdit: mayEdit, maxRecordCount: maxRecordCount)
            })
        case 2 where rest[1] == "query":
            return .layerQuery(id)
        case 2 where rest[1] == "applyEdits":
            if let sublayer = try dataset.readStore({ try Self.layer(id, in: $0).sublayer }) {
                throw FeatureServerError.unsupported(
                    "applyEdits on an annotation sublayer: its rows are edited through their annotation layer, \(sublayer.parent.id)")
            }
            return .json(try FeatureServerEdits(request: request, dataset: dataset).applyLayerEdits(layerID: id))
        default:
            throw FeatureServerError.notFound("Resource")
        }
    }

    /// Layer `id` of `package`: a layer, or an annotation sublayer with its parent layer; and
    /// every sublayer of the service.
    ///
    /// - Throws: `FeatureServerError.notFound` when there is no layer `id`.
    static func layer(_ id: Int, in package: any FeatureStore)
        throws -> (layer: FeatureServerLayer, sublayer: FeatureServerSublayer?, sublayers: [FeatureServerSublayer]) {
        let layers = try FeatureServerLayer.all(in: package)
        let sublayers = FeatureServerLayer.sublayers(of: layers)
        if id < layers.count { return (layers[id], nil, sublayers) }
        guard let sublayer = sublayers.first(where: { $0.id == id }) else { throw FeatureServerError.notFound("Layer") }
        return (sublayer.parent, sublayer, sublayers)
    }

    /// What a caller may do: `Query`, and the editing capabilities when the service and the
    /// caller allow edits.
    static func capabilities(mayEdit: Bool) -> String {
        mayEdit ? "Create,Delete,Query,Update,Editing" : "Query"
    }

    /// The service resource: layers by id, the service's spatial reference and extent.
    private func serviceResource(_ layers: [FeatureServerLayer], dataset: Dataset, mayEdit: Bool, maxRecordCount: Int) throws -> JSONText {
        let sublayers = FeatureServerLayer.sublayers(of: layers)
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
                         ("parentLayerId", .integer(-1)), ("defaultVisibility", .bool(true)),
                         ("subLayerIds", layer.isAnnotation ? .array(sublayers.filter { $0.parent.id == layer.id }.map { .integer(Int64($0.id)) }) : .null),
                         ("minScale", .integer(0)), ("maxScale", .integer(0)),
                         ("type", .string(layer.isAnnotation ? "Annotation Layer" : "Feature Layer")),
                         ("geometryType", layer.geometryType.map { .string($0) } ?? .null)])
            } + sublayers.map { sublayer in
                .object([("id", .integer(Int64(sublayer.id))), ("name", .string(sublayer.annotationClass.name)),
                         ("parentLayerId", .integer(Int64(sublayer.parent.id))), ("defaultVisibility", .bool(true)), ("subLayerIds", .null),
                         ("minScale", .integer(0)), ("maxScale", .integer(0)),
                         ("type", .string("Annotation SubLayer")),
                         ("geometryType", sublayer.parent.geometryType.map { .string($0) } ?? .null)])
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

    /// A layer resource: of `layer`, or with `sublayer` of that annotation class of `layer`.
    ///
    /// An annotation layer is described as Esri describes one: `"type": "Annotation Layer"`
    /// with its classes as `subLayers` (each an `Annotation SubLayer` whose `parentLayer` it
    /// is), `AnnotationClassID` as the `typeIdField` with a type per class, and `drawingInfo`
    /// drawing the text and not the footprints (`FeatureServerDrawingInfo`).
    /// `sublayers` are the service's, of which `layer`'s own are listed.
    func layerResource(_ layer: FeatureServerLayer, sublayer: FeatureServerSublayer? = nil, sublayers: [FeatureServerSublayer],
                       mayEdit: Bool, maxRecordCount: Int) -> JSONText {
        let reference = layer.srs.map(EsriSpatialReference.init)
        let extent: JSONText = layer.extent.flatMap { e in reference.map { FeatureServerQuery.envelopeJSON(e, $0) } } ?? .null
        // Annotation rows are made by their classes: a client may change them (set) and delete
        // them, not add them; a sublayer's rows are edited through its parent layer.
        let capabilities = mayEdit && sublayer == nil
            ? (layer.isAnnotation ? "Delete,Query,Update,Editing" : Self.capabilities(mayEdit: true)) : "Query"
        let classes = sublayer.map { [$0.annotationClass] } ?? layer.classes.sorted { $0.classID < $1.classID }
        let type = sublayer != nil ? "Annotation SubLayer" : layer.isAnnotation ? "Annotation Layer" : "Feature Layer"
        var members: [(String, JSONText)] = [
            ("currentVersion", .number(Self.currentVersion)),
            ("id", .integer(Int64(sublayer?.id ?? layer.id))),
            ("name", .string(sublayer?.annotationClass.name ?? layer.table.name)),
            ("type", .string(type)),
            ("description", .string(layer.description)),
            ("geometryType", layer.geometryType.map { .string($0) } ?? .null),
            ("sourceSpatialReference", reference?.json ?? .null),
            ("spatialReference", reference?.json ?? .null),
            ("extent", extent),
            ("hasZ", .bool(false)), ("hasM", .bool(false)),
            ("objectIdField", .string(layer.table.primaryKey)),
            ("globalIdField", .string(layer.globalIDColumn?.name ?? "")),
            ("displayField", .string(layer.fieldColumns.first { $0.affinity == .text && !$0.isPrimaryKey }?.name ?? layer.table.primaryKey)),
            ("typeIdField", .string(layer.isAnnotation ? "AnnotationClassID" : "")),
            ("fields", .array(layer.fields(editable: mayEdit && sublayer == nil))),
            ("types", .array(layer.isAnnotation ? classes.map { c in
                .object([("id", .integer(c.classID)), ("name", .string(c.name)), ("domains", .object([])), ("templates", .array([]))])
            } : [])),
            ("templates", .array([])),
            ("parentLayer", sublayer.map { .object([("id", .integer(Int64($0.parent.id))), ("name", .string($0.parent.table.name))]) } ?? .null),
            ("subLayers", .array(layer.isAnnotation && sublayer == nil
                ? sublayers.filter { $0.parent.id == layer.id }.map {
                    .object([("id", .integer(Int64($0.id))), ("name", .string($0.annotationClass.name))])
                } : [])),
            ("minScale", .integer(0)), ("maxScale", .integer(0)),
            ("drawingInfo", layer.isAnnotation ? FeatureServerDrawingInfo.annotation(classes)
                : FeatureServerDrawingInfo.features(geometryTypeName: layer.table.geometryTypeName)),
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
            members.append(("annotationClasses", .array(classes.map { c in
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
        }
        return .object(members)
    }
}
