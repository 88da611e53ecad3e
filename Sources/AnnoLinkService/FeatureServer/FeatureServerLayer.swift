import AnnoLinkGeometry
import AnnoLinkPostGIS
import AnnoLinkStore
import Foundation

/// One layer of the FeatureServer: a feature table of the file, or an annotation table
/// published as an annotation layer (whose classes are its sublayers, `FeatureServerSublayer`).
///
/// Layer ids are positions: the feature tables that are not annotation tables first, then the
/// annotation tables, each in `gpkg_contents` order, then the sublayers. They stay the same as
/// long as no table or class is added or removed, which a served file's edits never do.
struct FeatureServerLayer {
    var id: Int
    var table: FeatureTable
    var isAnnotation: Bool
    /// For an annotation layer, its classes; for a feature layer, the classes labelling it.
    var classes: [AnnotationClass]
    var srs: SpatialReferenceSystem?
    /// The extent recorded in `gpkg_contents`, in the table's CRS.
    var extent: Envelope?
    var description: String

    /// The column Esri clients treat as the GlobalID (`FeatureTable.globalIDColumn`).
    var globalIDColumn: Column? { table.globalIDColumn }

    /// Every layer of `package` (a GeoPackage or a PostGIS store), by id.
    static func all(in package: any FeatureStore) throws -> [FeatureServerLayer] {
        let annotationNames = try package.annotationTableNames()
        let annotationSet = Set(annotationNames.map { $0.lowercased() })
        let featureNames = try package.featureTableNames()
        let ordered = featureNames.filter { !annotationSet.contains($0.lowercased()) } + featureNames.filter { annotationSet.contains($0.lowercased()) }
        let classes = try package.annotationClasses()
        var layers: [FeatureServerLayer] = []
        for (id, name) in ordered.enumerated() {
            let table = try package.featureTable(name)
            let isAnnotation = annotationSet.contains(name.lowercased())
            let (extent, description) = try recordedContents(of: table.name, in: package)
            layers.append(FeatureServerLayer(
                id: id, table: table, isAnnotation: isAnnotation,
                classes: classes.filter { (isAnnotation ? $0.annotationTable : $0.originTable).lowercased() == name.lowercased() },
                srs: try package.spatialReferenceSystem(table.srsID), extent: extent,
                description: description))
        }
        return layers
    }

    /// The sublayers of the annotation layers among `layers` (all the store's layers, by id): one
    /// per annotation class, in layer order and then by class id, numbered on from the last
    /// layer's id so that adding them moved no layer's id.
    static func sublayers(of layers: [FeatureServerLayer]) -> [FeatureServerSublayer] {
        var sublayers: [FeatureServerSublayer] = []
        for layer in layers where layer.isAnnotation {
            for c in layer.classes.sorted(by: { $0.classID < $1.classID }) {
                sublayers.append(FeatureServerSublayer(id: layers.count + sublayers.count, parent: layer, annotationClass: c))
            }
        }
        return sublayers
    }

    /// The extent and description the store records for `table` (`gpkg_contents`, or
    /// `annolink.contents` on PostGIS).
    static func recordedContents(of table: String, in store: any FeatureStore) throws -> (extent: Envelope?, description: String) {
        if let store = store as? PostGISStore {
            let contents = try store.recordedContents(of: table)
            return (contents.extent, contents.description)
        }
        guard let package = store as? GeoPackage else { return (nil, "") }
        let contents = try package.connection.rows(
            "SELECT min_x, min_y, max_x, max_y, description FROM gpkg_contents WHERE table_name = ?", [.text(table)]).first
        var extent: Envelope?
        if let c = contents, let minX = c[0].doubleValue, let minY = c[1].doubleValue, let maxX = c[2].doubleValue, let maxY = c[3].doubleValue {
            extent = Envelope(minX: minX, minY: minY, maxX: maxX, maxY: maxY)
        }
        return (extent, contents?[4].textValue ?? "")
    }

    // MARK: Esri descriptions

    /// `esriGeometryPoint`, `…Multipoint`, `…Polyline`, `…Polygon`; nil for a `GEOMETRY`
    /// column (any kind), which Esri layers cannot declare.
    var geometryType: String? {
        switch table.geometryKind {
        case .point?: "esriGeometryPoint"
        case .multiPoint?: "esriGeometryMultipoint"
        case .lineString?, .multiLineString?: "esriGeometryPolyline"
        case .polygon?, .multiPolygon?: "esriGeometryPolygon"
        case nil: nil
        }
    }

    /// The Esri field type of `column`: the key is the OID; sized integers map to SmallInteger
    /// or Integer (INTEGER, 64-bit in SQLite, to Integer as GDAL's own FeatureServer reader
    /// expects); FLOAT to Single; REAL/DOUBLE to Double; DATE and DATETIME to Date (epoch
    /// milliseconds); BLOB to Blob; a `GlobalID` text column to GlobalID; the rest to String.
    func esriFieldType(_ column: Column) -> String {
        if column.isPrimaryKey { return "esriFieldTypeOID" }
        if column.name.lowercased() == globalIDColumn?.name.lowercased() { return "esriFieldTypeGlobalID" }
        switch column.affinity {
        case .boolean: return "esriFieldTypeSmallInteger"
        case .integer:
            switch column.type.uppercased() {
            case "TINYINT", "SMALLINT": return "esriFieldTypeSmallInteger"
            default: return "esriFieldTypeInteger"
            }
        case .real: return column.type.uppercased() == "FLOAT" ? "esriFieldTypeSingle" : "esriFieldTypeDouble"
        case .date, .dateTime: return "esriFieldTypeDate"
        case .blob: return "esriFieldTypeBlob"
        case .geometry: return "esriFieldTypeGeometry"
        case .text: return "esriFieldTypeString"
        }
    }

    /// Whether `column` holds dates (DATE or DATETIME), which Esri JSON gives as epoch milliseconds.
    func isDate(_ column: String) -> Bool {
        table.column(column).map { [.date, .dateTime].contains($0.affinity) } ?? false
    }

    /// The columns Esri clients see as fields: all but the geometry column.
    var fieldColumns: [Column] {
        table.columns.filter { $0.name.lowercased() != table.geometryColumn.lowercased() }
    }

    /// The Esri field description of `column`.
    func field(_ column: Column, editable: Bool) -> JSONText {
        var members: [(String, JSONText)] = [
            ("name", .string(column.name)), ("type", .string(esriFieldType(column))), ("alias", .string(column.name)),
        ]
        if column.affinity == .text {
            // Esri requires a length for strings; an unsized TEXT gets a large one.
            members.append(("length", .integer(Int64(column.maximumTextLength ?? 2_147_483_647))))
        }
        let isKey = column.isPrimaryKey
        members += [
            ("nullable", .bool(!column.isNotNull && !isKey)),
            ("editable", .bool(editable && !isKey && column.affinity != .geometry)),
            ("domain", domain(of: column)), ("defaultValue", .null),
        ]
        return .object(members)
    }

    /// Esri's coded values of an annotation table's alignment columns (their meaning in
    /// docs/format.md), which clients show by name (QGIS as a value map); null elsewhere.
    func domain(of column: Column) -> JSONText {
        guard isAnnotation else { return .null }
        let names: [String]
        switch column.name.lowercased() {
        case "horizontalalignment": names = ["Left", "Center", "Right", "Full"]
        case "verticalalignment": names = ["Top", "Center", "Baseline", "Bottom"]
        default: return .null
        }
        return .object([
            ("type", .string("codedValue")), ("name", .string(column.name)),
            ("codedValues", .array(names.enumerated().map { .object([("name", .string($0.element)), ("code", .integer(Int64($0.offset)))]) })),
        ])
    }

    /// The fields of the layer, or only those named (case-insensitively) in `names`.
    func fields(editable: Bool, only names: [String]? = nil) -> [JSONText] {
        let wanted = names.map { Set($0.map { $0.lowercased() }) }
        return fieldColumns.filter { $0.isPrimaryKey || (wanted?.contains($0.name.lowercased()) ?? true) }
            .map { field($0, editable: editable) }
    }
}

/// An annotation class published as Esri publishes one: an `Annotation SubLayer` of its
/// annotation table's `Annotation Layer`, reading the table's rows of that class
/// (`AnnotationClassID`). Sublayers are read only: their rows are edited through the parent
/// layer.
struct FeatureServerSublayer {
    var id: Int
    var parent: FeatureServerLayer
    var annotationClass: AnnotationClass

    /// The condition choosing the class's rows of the parent's table.
    var classCondition: String { "\"AnnotationClassID\" = \(annotationClass.classID)" }
}
