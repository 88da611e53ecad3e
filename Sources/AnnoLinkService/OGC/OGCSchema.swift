import AnnoLinkStore

/// The JSON Schemas (draft 2020-12) of a collection: `/collections/{id}/schema`, the logical
/// schema of its features (OGC API – Features Part 5, "Schemas"), and
/// `/collections/{id}/queryables`, the properties a filter could name (Part 3, "Queryables").
///
/// Types come from the GeoPackage column types (docs/serve.md, "Schemas and queryables"), as
/// the items' GeoJSON writes them: INTEGER kinds `integer`, REAL kinds `number`, TEXT `string`
/// (with `maxLength` for `TEXT(n)`), DATE and DATETIME `string` with `format` `date` and
/// `date-time`, BOOLEAN `integer` 0 or 1 (as stored), BLOB a hexadecimal `string`. The feature
/// id has `x-ogc-role` `id`, the geometry `primary-geometry` with its kind as `format`.
struct OGCSchema {
    /// Which of the documents.
    enum Kind {
        /// Part 5's logical schema: the properties, the id and the geometry side by side.
        case schema
        /// Part 3's queryables: the properties but BLOBs, the id and the geometry.
        case queryables
        /// The same types in the shape of one item as GeoJSON (a `Feature` whose `properties`
        /// hold the columns), linked as `describedBy`: the shape GDAL's OAPIF driver reads its
        /// field types from (GDAL 3.6 reads no other).
        case feature

        var path: String {
            switch self {
            case .schema: "schema"
            case .queryables: "queryables"
            case .feature: "feature-schema"
            }
        }
    }

    static let mediaType = "application/schema+json"
    static let dialect = "https://json-schema.org/draft/2020-12/schema"

    let collection: OGCCollection
    let kind: Kind

    /// Writes the document; `base` is the URL of `/ogc`, for `$id`.
    func write(to json: inout JSONWriter, base: String) {
        let table = collection.table
        json.object {
            $0.member("$schema") { $0.string(Self.dialect) }
            $0.member("$id") { $0.string("\(base)/collections/\(OGCPath.escape(collection.id))/\(kind.path)") }
            $0.member("type") { $0.string("object") }
            $0.member("title") { $0.string(collection.title) }
            switch kind {
            case .schema: $0.member("description") { $0.string("The properties of the features of \(collection.id), their id and geometry.") }
            case .queryables:
                $0.member("description") { $0.string("The properties of \(collection.id) a filter may name; the server does not filter by them yet.") }
            case .feature:
                $0.member("description") { $0.string("One feature of \(collection.id) as GeoJSON.") }
                writeFeature(to: &$0)
                return
            }
            $0.member("properties") { properties in
                properties.object {
                    $0.member(table.primaryKey) { property in
                        property.object {
                            $0.member("title") { $0.string(table.primaryKey) }
                            $0.member("type") { $0.string("integer") }
                            $0.member("x-ogc-role") { $0.string("id") }
                            if kind == .schema { $0.member("readOnly") { $0.bool(true) } }
                        }
                    }
                    $0.member(table.geometryColumn) { property in
                        property.object {
                            $0.member("title") { $0.string(table.geometryColumn) }
                            $0.member("format") { $0.string(Self.geometryFormat(table.geometryTypeName)) }
                            $0.member("x-ogc-role") { $0.string("primary-geometry") }
                        }
                    }
                    for column in table.attributeColumns where kind == .schema || column.affinity != .blob {
                        $0.member(column.name) { Self.write(column, to: &$0) }
                    }
                }
            }
            if kind == .queryables { $0.member("additionalProperties") { $0.bool(false) } }
        }
    }

    /// The members of the `.feature` document: `type`, `id`, `geometry`, and `properties` with
    /// the attribute columns.
    private func writeFeature(to json: inout JSONWriter) {
        let table = collection.table
        json.member("required") { $0.array { for name in ["type", "id", "geometry", "properties"] { $0.string(name) } } }
        json.member("properties") { members in
            members.object {
                $0.member("type") {
                    $0.object {
                        $0.member("type") { $0.string("string") }
                        $0.member("enum") { $0.array { $0.string("Feature") } }
                    }
                }
                $0.member("id") { $0.object { $0.member("type") { $0.string("integer") }; $0.member("x-ogc-role") { $0.string("id") } } }
                $0.member("geometry") {
                    $0.object {
                        $0.member("title") { $0.string(table.geometryColumn) }
                        $0.member("format") { $0.string(Self.geometryFormat(table.geometryTypeName)) }
                        $0.member("x-ogc-role") { $0.string("primary-geometry") }
                    }
                }
                $0.member("properties") { properties in
                    properties.object {
                        $0.member("type") { $0.string("object") }
                        $0.member("properties") { columns in
                            columns.object { for column in table.attributeColumns { $0.member(column.name) { Self.write(column, to: &$0) } } }
                        }
                    }
                }
            }
        }
    }

    /// The schema of one attribute column.
    static func write(_ column: Column, to json: inout JSONWriter) {
        json.object {
            $0.member("title") { $0.string(column.name) }
            switch column.affinity {
            case .integer:
                $0.member("type") { $0.string("integer") }
            case .boolean:
                $0.member("type") { $0.string("integer") }
                $0.member("minimum") { $0.integer(0) }
                $0.member("maximum") { $0.integer(1) }
            case .real:
                $0.member("type") { $0.string("number") }
            case .date:
                $0.member("type") { $0.string("string") }
                $0.member("format") { $0.string("date") }
            case .dateTime:
                $0.member("type") { $0.string("string") }
                $0.member("format") { $0.string("date-time") }
            case .blob:
                $0.member("type") { $0.string("string") }
                $0.member("contentEncoding") { $0.string("base16") }
            case .text, .geometry:
                $0.member("type") { $0.string("string") }
                if let length = column.maximumTextLength { $0.member("maxLength") { $0.integer(Int64(length)) } }
            }
        }
    }

    /// Part 5's `format` of a geometry column of `gpkg_geometry_columns` type `name`.
    static func geometryFormat(_ name: String) -> String {
        switch name.uppercased() {
        case "POINT": "geometry-point"
        case "LINESTRING": "geometry-linestring"
        case "POLYGON": "geometry-polygon"
        case "MULTIPOINT": "geometry-multipoint"
        case "MULTILINESTRING": "geometry-multilinestring"
        case "MULTIPOLYGON": "geometry-multipolygon"
        case "GEOMETRYCOLLECTION": "geometry-geometrycollection"
        default: "geometry-any"
        }
    }
}
