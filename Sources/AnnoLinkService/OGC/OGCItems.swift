import AnnoLinkGeometry
import AnnoLinkStore
import Foundation

/// What `GET /collections/{id}/items` asks for, checked.
struct OGCItemsQuery {
    var limit: Int
    var offset: Int
    /// The bbox as given, in `bboxCRS`'s axis order.
    var bbox: [Double]?
    var bboxCRS: OGCCRS
    var crs: OGCCRS

    /// The query of `parameters` for `collection`.
    ///
    /// - Throws: `OGCException` 400 for a value that is not a number, a limit below 1, a
    ///   negative offset, a bbox of other than 4 or 6 numbers or with its lower corner above its
    ///   upper one, a CRS the collection does not offer, a malformed `datetime`.
    init(_ parameters: [String: String], collection: OGCCollection, defaultLimit: Int, maximumLimit: Int) throws(OGCException) {
        limit = defaultLimit
        if let text = parameters["limit"] {
            guard let value = Int(text), value >= 1 else { throw .badRequest("limit must be a whole number of at least 1, not '\(text)'") }
            limit = min(value, maximumLimit)
        }
        offset = 0
        if let text = parameters["offset"] {
            guard let value = Int(text), value >= 0 else { throw .badRequest("offset must be a whole number of at least 0, not '\(text)'") }
            offset = value
        }
        crs = try parameters["crs"].map { text throws(OGCException) in try OGCCRS.named(text, among: collection.crs, parameter: "crs") } ?? .crs84
        bboxCRS = try parameters["bbox-crs"].map { text throws(OGCException) in try OGCCRS.named(text, among: collection.crs, parameter: "bbox-crs") } ?? .crs84
        if let text = parameters["bbox"] {
            let numbers = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard numbers.count == 4 || numbers.count == 6, numbers.allSatisfy({ $0 != nil && $0!.isFinite }) else {
                throw .badRequest("bbox must be 4 or 6 comma-separated numbers, not '\(text)'")
            }
            let values = numbers.map { $0! }
            // With 6 numbers the third and sixth are heights, which 2D data ignores.
            let box = values.count == 6 ? [values[0], values[1], values[3], values[4]] : values
            guard box[0] <= box[2], box[1] <= box[3] else {
                throw .badRequest("bbox '\(text)' has its lower corner above or right of its upper corner (boxes across the antimeridian are not supported)")
            }
            bbox = box
        }
        if let text = parameters["datetime"] { try Self.checkDatetime(text) }
    }

    /// The bbox as a polygon in the storage CRS of `collection`, x, y order (its edges
    /// follow the box where the two CRSs differ: `OGCTools.transformBox`).
    func storageBox(_ collection: OGCCollection, tools: OGCTools) throws -> Polygon? {
        guard let bbox else { return nil }
        let given = bboxCRS.latitudeFirst
            ? Envelope(minX: bbox[1], minY: bbox[0], maxX: bbox[3], maxY: bbox[2])
            : Envelope(minX: bbox[0], minY: bbox[1], maxX: bbox[2], maxY: bbox[3])
        // The box's corners, swapped back to x, y above, are transformed as x, y.
        var source = bboxCRS
        source.latitudeFirst = false
        var target = collection.storage
        target.latitudeFirst = false
        return try tools.transformBox(given, from: source, to: target)
    }

    /// `datetime` must be an RFC 3339 date-time or an interval of them (`..` open ends); the
    /// data have no time properties, so a valid one selects every feature.
    static func checkDatetime(_ text: String) throws(OGCException) {
        let instant = #"\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2}))?"#
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let valid = parts.count <= 2 && parts.allSatisfy { part in
            (parts.count == 2 && (part == ".." || part.isEmpty)) || part.range(of: "^\(instant)$", options: .regularExpression) != nil
        } && !(parts.count == 2 && parts.allSatisfy { $0 == ".." || $0.isEmpty })
        guard valid else { throw .badRequest("datetime must be an RFC 3339 date-time or an interval of two, not '\(text)'") }
    }
}

/// Reads the features of a collection as GeoJSON.
struct OGCFeatureWriter {
    let collection: OGCCollection
    let tools: OGCTools
    let crs: OGCCRS

    /// Writes `feature` as a GeoJSON Feature, its geometry in `crs`.
    ///
    /// - Throws: `StoreError.corruptGeometry` naming the row when its stored geometry cannot be
    ///   written in `crs` (a coordinate no place has, such as 1.6e308): the data's fault, which
    ///   the routes answer with 500, not the request's.
    func write(_ feature: Feature, to json: inout JSONWriter, links: ((inout JSONWriter) -> Void)? = nil) throws {
        let geometry = try feature.geometry.flatMap { g -> String? in
            guard !g.isEmpty, g.isFinite else { return nil }
            do {
                return try tools.transform(g, from: collection.storage.stored, to: crs).geoJSON()
            } catch {
                throw StoreError.corruptGeometry(table: collection.table.name, fid: feature.fid, reason: "it has no place in \(crs.uri): \(error)")
            }
        }
        json.object {
            $0.member("type") { $0.string("Feature") }
            $0.member("id") { $0.integer(feature.fid) }
            $0.member("geometry") { if let geometry { $0.raw(geometry) } else { $0.null() } }
            $0.member("properties") { props in
                props.object {
                    for column in collection.table.attributeColumns {
                        let value = feature.attributes[column.name] ?? .null
                        $0.member(column.name) { $0.value(value) }
                    }
                }
            }
            if let links { $0.member("links") { links(&$0) } }
        }
    }
}

/// One page of a collection's items and how many matched.
struct OGCItemsPage {
    var features: [Feature]
    var numberMatched: Int

    /// The features of `collection` that `query` selects, the page of them it asks for, read
    /// by `FeatureQuery`: the bbox through the R-tree (where the table has one), then exactly
    /// with GEOS.
    static func read(_ query: OGCItemsQuery, collection: OGCCollection, package: any FeatureStore, tools: OGCTools) throws -> OGCItemsPage {
        var read = FeatureQuery(table: collection.table)
        read.offset = query.offset
        read.limit = query.limit
        if let box = try query.storageBox(collection, tools: tools) {
            read.envelope = Geometry.polygon(box).envelope
            read.spatialTest = .intersects(.polygon(box))
        }
        // One snapshot for the page and the count: a GeoPackage read transaction here; on PostGIS
        // `Dataset.readStore`'s REPEATABLE READ transaction.
        let (rows, matched) = try (package as? GeoPackage).map { gpkg in try gpkg.connection.read { try read.pageAndCount(in: gpkg) } }
            ?? read.pageAndCount(in: package)
        let features = rows.map { row in
            Feature(fid: row.fid, geometry: row.geometry,
                    attributes: Dictionary(row.values.map { ($0.column, $0.value) }, uniquingKeysWith: { first, _ in first }))
        }
        return OGCItemsPage(features: features, numberMatched: matched)
    }
}
