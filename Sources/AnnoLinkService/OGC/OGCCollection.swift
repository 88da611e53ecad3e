import AnnoLinkGeometry
import AnnoLinkPostGIS
import AnnoLinkStore
import Foundation

/// One collection of the OGC API: a feature table or an annotation table of the file, with what
/// its metadata says (CRSs, extent).
///
/// Tables whose CRS is not an EPSG one (the undefined systems -1 and 0, other authorities) are
/// not published: without a CRS their coordinates cannot be given in CRS84.
struct OGCCollection {
    var table: FeatureTable
    var title: String
    var description: String
    var isAnnotation: Bool
    /// The table's own CRS (`storageCrs`).
    var storage: OGCCRS
    /// The extent in the storage CRS, from `gpkg_contents`; nil for an empty table.
    var extent: Envelope?

    /// The CRSs items can be asked for in, and `bbox-crs` can name: CRS84 first, then the
    /// storage CRS.
    var crs: [OGCCRS] { storage == .crs84 ? [.crs84] : [.crs84, storage] }

    var id: String { table.name }

    /// Every collection of `package`, in `gpkg_contents` order.
    static func all(in package: any FeatureStore, tools: OGCTools) throws -> [OGCCollection] {
        let annotation = Set(try package.annotationTableNames().map { $0.lowercased() })
        return try package.featureTableNames().compactMap { try make($0, annotation: annotation, in: package, tools: tools) }
    }

    /// The collection whose id is `id` (exactly as listed).
    static func named(_ id: String, in package: any FeatureStore, tools: OGCTools) throws -> OGCCollection {
        guard try package.featureTableNames().contains(id),
              let found = try make(id, annotation: Set(try package.annotationTableNames().map { $0.lowercased() }), in: package, tools: tools) else {
            throw OGCException.notFound("no collection '\(id)'")
        }
        return found
    }

    /// The collection of feature table `name`; nil when its CRS is not an EPSG one.
    private static func make(_ name: String, annotation: Set<String>, in package: any FeatureStore, tools: OGCTools) throws -> OGCCollection? {
        let table = try package.featureTable(name)
        guard let storage = try OGCCRS.storage(of: table, in: package, tools: tools) else { return nil }
        let row: [SQLValue]
        if let package = package as? GeoPackage {
            row = try package.connection.rows(
                "SELECT identifier, description, min_x, min_y, max_x, max_y FROM gpkg_contents WHERE table_name = ?", [.text(table.name)]).first ?? []
        } else if let store = package as? PostGISStore {
            let contents = try store.recordedContents(of: table.name)
            let e = contents.extent
            row = [SQLValue(contents.identifier), .text(contents.description)] +
                [e?.minX, e?.minY, e?.maxX, e?.maxY].map { $0.map(SQLValue.real) ?? .null }
        } else {
            row = []
        }
        var extent: Envelope?
        if row.count == 6, let minX = row[2].doubleValue, let minY = row[3].doubleValue, let maxX = row[4].doubleValue, let maxY = row[5].doubleValue,
           minX <= maxX, minY <= maxY {
            extent = Envelope(minX: minX, minY: minY, maxX: maxX, maxY: maxY)
        }
        let title = row.first?.textValue.flatMap { $0.isEmpty ? nil : $0 } ?? table.name
        let description = row.count > 1 ? row[1].textValue ?? "" : ""
        return OGCCollection(table: table, title: title, description: description, isAnnotation: annotation.contains(table.name.lowercased()),
                             storage: storage, extent: extent)
    }

    /// The collection's metadata object (`/collections/{id}` and an element of `/collections`).
    func write(to json: inout JSONWriter, base: String, tools: OGCTools) throws {
        let itemsURL = "\(base)/collections/\(OGCPath.escape(id))/items"
        let crs84Extent = try extent.map { try tools.transform($0, from: storage.stored, to: .crs84) }
        json.object {
            $0.member("id") { $0.string(id) }
            $0.member("title") { $0.string(title) }
            $0.member("description") { $0.string(description.isEmpty ? (isAnnotation ? "annotation of \(table.name)" : "features of \(table.name)") : description) }
            $0.member("itemType") { $0.string("feature") }
            if let crs84Extent, let extent {
                $0.member("extent") {
                    $0.object {
                        $0.member("spatial") {
                            $0.object {
                                $0.member("bbox") { $0.array { $0.array { box in for v in [crs84Extent.minX, crs84Extent.minY, crs84Extent.maxX, crs84Extent.maxY] { box.number(v) } } } }
                                $0.member("crs") { $0.string(OGCCRS.crs84.uri) }
                                $0.member("storageCrsBbox") { $0.array { $0.array { box in for v in storage.ordered(extent) { box.number(v) } } } }
                            }
                        }
                    }
                }
            }
            $0.member("crs") { $0.array { list in for c in crs { list.string(c.uri) } } }
            $0.member("storageCrs") { $0.string(storage.uri) }
            $0.member("links") {
                $0.array {
                    OGCLink.write(to: &$0, href: "\(base)/collections/\(OGCPath.escape(id))", rel: "self", type: "application/json", title: title)
                    OGCLink.write(to: &$0, href: itemsURL, rel: "items", type: "application/geo+json", title: "the features of \(title)")
                    let collectionURL = "\(base)/collections/\(OGCPath.escape(id))"
                    OGCLink.write(to: &$0, href: "\(collectionURL)/schema", rel: "http://www.opengis.net/def/rel/ogc/1.0/schema",
                                  type: OGCSchema.mediaType, title: "the schema of the features of \(title)")
                    // GDAL's OAPIF driver reads the field types from a `describedBy` schema of the GeoJSON items.
                    OGCLink.write(to: &$0, href: "\(collectionURL)/feature-schema", rel: "describedBy", type: OGCSchema.mediaType,
                                  title: "the schema of one feature of \(title) as GeoJSON")
                    OGCLink.write(to: &$0, href: "\(collectionURL)/queryables", rel: "http://www.opengis.net/def/rel/ogc/1.0/queryables",
                                  type: OGCSchema.mediaType, title: "the queryables of \(title)")
                }
            }
        }
    }
}

extension OGCCRS {
    /// The box's corners in this CRS's axis order: minX, minY, maxX, maxY, or with latitude
    /// first minY, minX, maxY, maxX.
    func ordered(_ box: Envelope) -> [Double] {
        latitudeFirst ? [box.minY, box.minX, box.maxY, box.maxX] : [box.minX, box.minY, box.maxX, box.maxY]
    }
}

/// A link object, `{"href", "rel", "type", "title"}`.
enum OGCLink {
    static func write(to json: inout JSONWriter, href: String, rel: String, type: String, title: String? = nil) {
        json.object {
            $0.member("href") { $0.string(href) }
            $0.member("rel") { $0.string(rel) }
            $0.member("type") { $0.string(type) }
            if let title { $0.member("title") { $0.string(title) } }
        }
    }
}

/// Path and query text of links.
enum OGCPath {
    /// `text` percent-encoded for a path segment or a query value: everything but RFC 3986's
    /// unreserved characters.
    static func escape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.isASCII, allowed.contains(scalar) {
                out.unicodeScalars.append(scalar)
            } else {
                for byte in String(scalar).utf8 { out += String(format: "%%%02X", byte) }
            }
        }
        return out
    }

    /// A query string, `?a=1&b=2`, from pairs in order; empty for no pairs.
    static func query(_ pairs: [(String, String)]) -> String {
        pairs.isEmpty ? "" : "?" + pairs.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }
}
