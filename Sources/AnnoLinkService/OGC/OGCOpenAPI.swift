import AnnoLinkStore
import Foundation

/// The OpenAPI 3.0 document at `/ogc/api`: every path, parameter, request body, status and
/// content type the routes answer with, one set of item paths per collection with the
/// collection's own property types, so that a client (or schemathesis) can check every answer
/// against it.
struct OGCOpenAPI {
    var collections: [OGCCollection]
    var base: String
    var defaultLimit: Int
    var maximumLimit: Int
    var title: String
    /// Per collection id, a feature id that exists (the smallest), given as the example of
    /// `featureId` so that clients and test generators reach a real feature.
    var exampleFIDs: [String: Int64] = [:]
    /// Whether edits need a token (the server runs with `--tokens`, or read-only): then the
    /// edit operations declare the bearer scheme; without tokens anyone may edit and they
    /// declare none.
    var editingNeedsToken = false

    private var security: [[String: [String]]] { editingNeedsToken ? [["bearer": []]] : [] }

    func bytes() throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: document(), options: [.sortedKeys, .withoutEscapingSlashes]))
    }

    func document() -> [String: Any] {
        var paths: [String: Any] = [
            "/": ["get": read("getLandingPage", "The landing page", json: ref("LandingPage"), type: "application/json")],
            "/conformance": ["get": read("getConformanceDeclaration", "The conformance classes implemented", json: ref("ConfClasses"), type: "application/json")],
            "/api": ["get": read("getAPIDefinition", "This API definition", json: ["type": "object"], type: OGCFeaturesRoutes.openAPIType)],
            "/collections": ["get": read("getCollections", "The collections of features", json: ref("Collections"), type: "application/json")],
        ]
        for (index, c) in collections.enumerated() {
            let path = "/collections/\(c.id)"
            let tag = "c\(index)"
            paths[path] = ["get": read("describeCollection_\(tag)", "The metadata of \(c.id)", json: ref("Collection"), type: "application/json")]
            paths[path + "/schema"] = ["get": read("getSchema_\(tag)", "The JSON Schema of the features of \(c.id)", json: ref("JSONSchema"),
                                                   type: OGCSchema.mediaType)]
            paths[path + "/feature-schema"] = ["get": read("getFeatureSchema_\(tag)", "The JSON Schema of one feature of \(c.id) as GeoJSON",
                                                           json: ref("JSONSchema"), type: OGCSchema.mediaType)]
            paths[path + "/queryables"] = ["get": read("getQueryables_\(tag)", "The queryables of \(c.id), as a JSON Schema", json: ref("JSONSchema"),
                                                       type: OGCSchema.mediaType)]
            paths[path + "/items"] = [
                "get": items(c, tag: tag),
                "post": create(c, tag: tag),
            ]
            paths[path + "/items/{featureId}"] = [
                "get": item(c, tag: tag),
                "put": replace(c, tag: tag),
                "patch": patch(c, tag: tag),
                "delete": delete(c, tag: tag),
            ]
        }
        var schemas = baseSchemas()
        for (index, c) in collections.enumerated() {
            schemas["Feature_c\(index)"] = featureSchema(c)
            schemas["FeatureCollection_c\(index)"] = [
                "type": "object",
                "required": ["type", "features", "links", "numberMatched", "numberReturned", "timeStamp"],
                "properties": [
                    "type": ["type": "string", "enum": ["FeatureCollection"]],
                    "features": ["type": "array", "items": ref("Feature_c\(index)")],
                    "links": ["type": "array", "items": ref("Link")],
                    "timeStamp": ["type": "string", "format": "date-time"],
                    "numberMatched": ["type": "integer", "minimum": 0],
                    "numberReturned": ["type": "integer", "minimum": 0],
                ],
            ]
        }
        return [
            "openapi": "3.0.3",
            "info": [
                "title": "\(title): OGC API – Features",
                "version": "1.0.0",
                "description": "The features and feature-linked annotation of \(title), served by annolink (OGC API – Features Parts 1, 2 and 4, Part 3's queryables and Part 5's schemas).",
            ],
            "servers": [["url": base]],
            "paths": paths,
            "components": [
                "schemas": schemas,
                "securitySchemes": ["bearer": ["type": "http", "scheme": "bearer"]],
            ],
        ]
    }

    // MARK: Operations

    private func read(_ id: String, _ summary: String, json schema: [String: Any], type: String) -> [String: Any] {
        [
            "operationId": id, "summary": summary,
            "parameters": [formatParameter(["json"] + (type == OGCFeaturesRoutes.openAPIType ? ["oas30"] : []))],
            "responses": [
                "200": ["description": summary, "content": [type: ["schema": schema]]],
                "400": badRequest("A query parameter is unknown or its value invalid"),
                "406": exception("The Accept header asks for a format not offered"),
                "503": exception("The query ran longer than the server's time limit"),
            ],
        ]
    }

    private func items(_ c: OGCCollection, tag: String) -> [String: Any] {
        let crsURIs = c.crs.map(\.uri)
        return [
            "operationId": "getFeatures_\(tag)",
            "summary": "The features of \(c.id)",
            "parameters": [
                ["name": "limit", "in": "query", "required": false, "style": "form", "explode": false,
                 "description": "The page size; larger values are lowered to \(maximumLimit).",
                 "schema": ["type": "integer", "minimum": 1, "maximum": maximumLimit, "default": defaultLimit]],
                ["name": "offset", "in": "query", "required": false, "description": "How many matching features to skip.",
                 "schema": ["type": "integer", "minimum": 0, "default": 0]],
                ["name": "bbox", "in": "query", "required": false, "style": "form", "explode": false,
                 "description": "minx,miny,maxx,maxy (or with heights, 6 numbers) in bbox-crs, CRS84 without it.",
                 "schema": ["type": "array", "minItems": 4, "maxItems": 6, "items": ["type": "number"]]],
                ["name": "bbox-crs", "in": "query", "required": false, "schema": ["type": "string", "format": "uri", "enum": crsURIs]],
                ["name": "crs", "in": "query", "required": false, "schema": ["type": "string", "format": "uri", "enum": crsURIs]],
                ["name": "datetime", "in": "query", "required": false, "style": "form", "explode": false,
                 "description": "An RFC 3339 date-time or interval; the data have no time properties, so a valid value selects every feature.",
                 "schema": ["type": "string"]],
                formatParameter(["json", "geojson"]),
            ],
            "responses": [
                "200": [
                    "description": "A page of features of \(c.id), coordinates in crs",
                    "headers": ["Content-Crs": contentCRSHeader(c)],
                    "content": geoJSON(ref("FeatureCollection_\(tag)")),
                ],
                "400": badRequest("A query parameter is unknown or its value invalid"),
                "406": exception("The Accept header asks for a format not offered"),
                "503": exception("The query ran longer than the server's time limit"),
            ],
        ]
    }

    private func item(_ c: OGCCollection, tag: String) -> [String: Any] {
        [
            "operationId": "getFeature_\(tag)",
            "summary": "One feature of \(c.id)",
            "parameters": [featureIDParameter(c), ["name": "crs", "in": "query", "required": false,
                                                "schema": ["type": "string", "format": "uri", "enum": c.crs.map(\.uri)]], formatParameter(["json", "geojson"])],
            "responses": [
                "200": [
                    "description": "The feature; its ETag names this version of it",
                    "headers": ["Content-Crs": contentCRSHeader(c), "ETag": etagHeader],
                    "content": geoJSON(ref("Feature_\(tag)")),
                ],
                "400": badRequest("A query parameter is unknown or its value invalid"),
                "404": exception("There is no such feature"),
                "406": exception("The Accept header asks for a format not offered"),
                "503": exception("The query ran longer than the server's time limit"),
            ],
        ]
    }

    private func create(_ c: OGCCollection, tag: String) -> [String: Any] {
        [
            "operationId": "createFeature_\(tag)",
            "summary": "Adds a feature to \(c.id); its annotation is created with it",
            "security": security,
            "parameters": [contentCRSParameter(c)],
            "requestBody": ["required": true, "content": [
                "application/geo+json": ["schema": ref("FeatureInput")], "application/json": ["schema": ref("FeatureInput")],
            ]],
            "responses": editResponses(created: true, notFound: false, precondition: false),
        ]
    }

    private func replace(_ c: OGCCollection, tag: String) -> [String: Any] {
        [
            "operationId": "replaceFeature_\(tag)",
            "summary": "Replaces a feature of \(c.id); properties not given become null",
            "security": security,
            "parameters": [featureIDParameter(c), ifMatchParameter, contentCRSParameter(c)],
            "requestBody": ["required": true, "content": [
                "application/geo+json": ["schema": ref("FeatureInput")], "application/json": ["schema": ref("FeatureInput")],
            ]],
            "responses": editResponses(created: false, notFound: true, precondition: true),
        ]
    }

    private func patch(_ c: OGCCollection, tag: String) -> [String: Any] {
        [
            "operationId": "updateFeature_\(tag)",
            "summary": "Changes some properties or the geometry of a feature of \(c.id) (a JSON merge patch)",
            "security": security,
            "parameters": [featureIDParameter(c), ifMatchParameter, contentCRSParameter(c)],
            "requestBody": ["required": true, "content": [
                "application/merge-patch+json": ["schema": ["type": "object"]], "application/json": ["schema": ["type": "object"]],
            ]],
            "responses": editResponses(created: false, notFound: true, precondition: true),
        ]
    }

    private func delete(_ c: OGCCollection, tag: String) -> [String: Any] {
        var responses = editResponses(created: false, notFound: true, precondition: true)
        responses["204"] = ["description": "The feature and its annotation are deleted"]
        responses["413"] = nil
        responses["415"] = nil
        return [
            "operationId": "deleteFeature_\(tag)",
            "summary": "Deletes a feature of \(c.id) with its annotation",
            "security": security,
            "parameters": [featureIDParameter(c), ifMatchParameter],
            "responses": responses,
        ]
    }

    private func editResponses(created: Bool, notFound: Bool, precondition: Bool) -> [String: Any] {
        var responses: [String: Any] = [
            "400": badRequest("The body or a parameter is invalid, or the edit service refused the edit"),
            "401": [
                "description": "Editing needs a valid token",
                "headers": ["WWW-Authenticate": ["required": true, "schema": ["type": "string"]]],
                "content": ["application/json": ["schema": ref("Exception")]],
            ],
            "403": exception("The server is read-only, or the token grants reading only"),
            "413": ["description": "The body is larger than the server takes (--max-body)",
                    "content": ["application/problem+json": ["schema": ref("Problem")]]],
            "415": exception("The body's Content-Type is not one this operation takes"),
            "503": exception("The file is busy; try again"),
        ]
        if created {
            responses["201"] = [
                "description": "The feature is added",
                "headers": ["Location": ["required": true, "schema": ["type": "string", "format": "uri"]], "ETag": etagHeader],
            ]
        } else {
            responses["204"] = ["description": "The feature is changed; ETag names its new version", "headers": ["ETag": etagHeader]]
        }
        if notFound { responses["404"] = exception("There is no such feature") }
        if precondition { responses["412"] = exception("If-Match names another version of the feature than the stored one") }
        return responses
    }

    // MARK: Parts

    private func featureIDParameter(_ c: OGCCollection) -> [String: Any] {
        var parameter: [String: Any] = ["name": "featureId", "in": "path", "required": true, "schema": ["type": "integer", "format": "int64"]]
        if let example = exampleFIDs[c.id] { parameter["example"] = example }
        return parameter
    }

    private var ifMatchParameter: [String: Any] {
        ["name": "If-Match", "in": "header", "required": false, "schema": ["type": "string"],
         "description": "The ETag of the version the edit is based on; another stored version gets 412 and nothing changes."]
    }

    private var etagHeader: [String: Any] { ["required": true, "schema": ["type": "string"]] }

    private func contentCRSParameter(_ c: OGCCollection) -> [String: Any] {
        ["name": "Content-Crs", "in": "header", "required": false, "description": "The CRS of the body's coordinates; CRS84 without it.",
         "schema": ["type": "string", "enum": c.crs.map { "<\($0.uri)>" }]]
    }

    private func contentCRSHeader(_ c: OGCCollection) -> [String: Any] {
        ["required": true, "schema": ["type": "string", "enum": c.crs.map { "<\($0.uri)>" }]]
    }

    private func formatParameter(_ values: [String]) -> [String: Any] {
        ["name": "f", "in": "query", "required": false, "schema": ["type": "string", "enum": values]]
    }

    private func geoJSON(_ schema: [String: Any]) -> [String: Any] {
        ["application/geo+json": ["schema": schema]]
    }

    /// A 400: the routes' exception, or the server's problem document when it cannot read the
    /// request at all (a parameter or header that is not UTF-8).
    private func badRequest(_ description: String) -> [String: Any] {
        let either: [String: Any] = ["anyOf": [ref("Exception"), ref("Problem")]]
        return ["description": description, "content": ["application/json": ["schema": either], "application/problem+json": ["schema": either]]]
    }

    private func exception(_ description: String) -> [String: Any] {
        ["description": description, "content": ["application/json": ["schema": ref("Exception")]]]
    }

    private func ref(_ name: String) -> [String: Any] { ["$ref": "#/components/schemas/\(name)"] }

    /// The feature schema of a collection: its properties with their JSON types, all nullable.
    private func featureSchema(_ c: OGCCollection) -> [String: Any] {
        var properties: [String: Any] = [:]
        for column in c.table.attributeColumns {
            let type: String = switch column.affinity {
            case .integer, .boolean: "integer"
            case .real: "number"
            default: "string"
            }
            properties[column.name] = ["type": type, "nullable": true]
        }
        return [
            "type": "object",
            "required": ["type", "id", "geometry", "properties"],
            "properties": [
                "type": ["type": "string", "enum": ["Feature"]],
                "id": ["type": "integer"],
                "geometry": ref("Geometry"),
                "properties": ["type": "object", "required": c.table.attributeColumns.map(\.name), "properties": properties,
                               "additionalProperties": false],
                "links": ["type": "array", "items": ref("Link")],
            ],
        ]
    }

    private func baseSchemas() -> [String: Any] {
        let links: [String: Any] = ["type": "array", "items": ref("Link")]
        return [
            "Exception": ["type": "object", "required": ["code"], "properties": ["code": ["type": "string"], "description": ["type": "string"]]],
            "Problem": ["type": "object", "required": ["status"], "properties": [
                "type": ["type": "string"], "title": ["type": "string"], "status": ["type": "integer"], "detail": ["type": "string"],
            ]],
            "Link": ["type": "object", "required": ["href", "rel"], "properties": [
                "href": ["type": "string"], "rel": ["type": "string"], "type": ["type": "string"], "title": ["type": "string"],
            ]],
            "LandingPage": ["type": "object", "required": ["links"], "properties": [
                "title": ["type": "string"], "description": ["type": "string"], "links": links,
            ]],
            "JSONSchema": ["type": "object", "required": ["$schema", "$id", "type", "properties"], "properties": [
                "$schema": ["type": "string"], "$id": ["type": "string"], "type": ["type": "string", "enum": ["object"]],
                "title": ["type": "string"], "description": ["type": "string"], "properties": ["type": "object"],
                "additionalProperties": ["type": "boolean"],
            ]],
            "ConfClasses": ["type": "object", "required": ["conformsTo"], "properties": ["conformsTo": ["type": "array", "items": ["type": "string"]]]],
            "Collections": ["type": "object", "required": ["links", "collections"], "properties": [
                "links": links, "crs": ["type": "array", "items": ["type": "string"]],
                "collections": ["type": "array", "items": ref("Collection")],
            ]],
            "Collection": ["type": "object", "required": ["id", "links"], "properties": [
                "id": ["type": "string"], "title": ["type": "string"], "description": ["type": "string"], "links": links,
                "itemType": ["type": "string"], "crs": ["type": "array", "items": ["type": "string"]], "storageCrs": ["type": "string"],
                "extent": ["type": "object", "properties": ["spatial": ["type": "object", "properties": [
                    "bbox": ["type": "array", "items": ["type": "array", "minItems": 4, "maxItems": 6, "items": ["type": "number"]]],
                    "crs": ["type": "string"],
                    "storageCrsBbox": ["type": "array", "items": ["type": "array", "minItems": 4, "maxItems": 6, "items": ["type": "number"]]],
                ]]]],
            ]],
            "Geometry": ["type": "object", "nullable": true, "required": ["type", "coordinates"], "properties": [
                "type": ["type": "string", "enum": ["Point", "LineString", "Polygon", "MultiPoint", "MultiLineString", "MultiPolygon"]],
                "coordinates": ["type": "array"],
            ]],
            "FeatureInput": ["type": "object", "required": ["type", "geometry"], "properties": [
                "type": ["type": "string", "enum": ["Feature"]],
                "id": ["oneOf": [["type": "integer"], ["type": "string"]]],
                "geometry": ref("Geometry"),
                "properties": ["type": "object", "nullable": true],
            ]],
        ]
    }
}
