import AnnoLinkGeometry
import Foundation

/// What a mobile geodatabase says about one of its items: the XML in `GDB_Items.Definition`
/// (`SELECT Definition FROM GDB_Items WHERE Name = 'main.ParcelLinesAnno_1'`), read into values.
///
/// For a feature class or table: the coordinate grid, the spatial reference, the geometry type
/// and the fields; for an annotation feature class also its annotation classes (CIM JSON inside
/// the XML) and reference scale; for a relationship class its origin and destination.
///
/// The definition of an annotation feature class does not name its origin feature class; the
/// relationship class does (`annotationLink(in:)`). Read the relationship classes with
/// `SELECT Definition FROM GDB_Items WHERE Type = '{B606A7E1-FA5B-439C-849C-6E9C2481537B}'`
/// (`ItemTypeID.relationshipClass`).
public struct GeodatabaseItemDefinition: Hashable, Sendable {
    /// The kind of item, from the definition's root element.
    public enum Kind: Hashable, Sendable {
        /// `DEFeatureClassInfo`.
        case featureClass
        /// `DETableInfo`.
        case table
        /// `DERelationshipClassInfo`.
        case relationshipClass
        /// Any other root element (domains, workspace, …), by name.
        case other(String)
    }

    /// The geometry type of a feature class (`ShapeType`).
    public enum ShapeType: String, Hashable, Sendable {
        case point = "esriGeometryPoint"
        case multipoint = "esriGeometryMultipoint"
        case polyline = "esriGeometryPolyline"
        case polygon = "esriGeometryPolygon"
        case multipatch = "esriGeometryMultiPatch"
    }

    /// `GDB_Items.Type` values of the items the importer reads (`GDB_ItemTypes`).
    public enum ItemTypeID {
        /// Feature classes (annotation included).
        public static let featureClass = "{70737809-852C-4A03-9E22-2CECEA5B9BFA}"
        /// Tables without geometry.
        public static let table = "{CD06BC3B-789D-4C51-AAFA-A467912B8965}"
        /// Relationship classes (the link from an annotation class to its origin).
        public static let relationshipClass = "{B606A7E1-FA5B-439C-849C-6E9C2481537B}"
    }

    /// The kind of item.
    public var kind: Kind
    /// The item name as stored (`main.ParcelLinesAnno_1`).
    public var name: String
    /// `esriFTSimple`, `esriFTAnnotation`, … (feature classes only).
    public var featureType: String?
    /// The geometry type (feature classes only); nil also for types annolink does not know.
    public var shapeType: ShapeType?
    /// The geometry column (`Shape`, `SHAPE`).
    public var shapeFieldName: String?
    /// The object id column (`OBJECTID`).
    public var oidFieldName: String?
    /// The global id column (`GlobalID`), when the table has one.
    public var globalIDFieldName: String?
    /// Whether geometries carry Z values.
    public var hasZ: Bool
    /// Whether geometries carry M values.
    public var hasM: Bool
    /// The coordinate grid of the geometry column (`XOrigin`, `YOrigin`, `XYScale` of the
    /// item's spatial reference).
    public var grid: CoordinateGrid?
    /// The EPSG code the spatial reference was defined with (`WKID`).
    public var wkid: Int?
    /// The current EPSG code for it (`LatestWKID`).
    public var latestWKID: Int?
    /// The spatial reference as Esri WKT.
    public var spatialReferenceWKT: String?
    /// The extent the geodatabase records for the data, in CRS units.
    public var extent: Envelope?
    /// The stored fields in definition order. Archive columns (`gdb_from_date`, …) are not
    /// listed by the geodatabase; the computed shape length and area (`lengthFieldName`,
    /// `areaFieldName`, which the XML lists as fields too) are left out here.
    public var fields: [EsriField]
    /// The computed shape-length field (`st_length(Shape)`), not a stored column.
    public var lengthFieldName: String?
    /// The computed shape-area field (`st_area(SHAPE)`), not a stored column.
    public var areaFieldName: String?
    /// The extension properties (`Key` → `Value` text), e.g. `ReferenceScale`, `AutoCreate`.
    public var properties: [String: String]
    /// The annotation classes of an annotation feature class; empty for other items.
    public var annotationClasses: [EsriAnnotationClass]
    /// The relationship, for a relationship class.
    public var relationship: EsriRelationshipClass?

    /// Whether this is an annotation feature class.
    public var isAnnotation: Bool { featureType == "esriFTAnnotation" }

    /// The SQLite table name (`ParcelLinesAnno_1` for `main.ParcelLinesAnno_1`).
    public var tableName: String { Self.tableName(ofItemName: name) }

    /// Reads a definition.
    ///
    /// - Throws: `GeodatabaseDefinitionError` when the XML is malformed, a number or switch
    ///   holds text that is not one, a field type is unknown, or the annotation classes are not
    ///   readable (bad JSON, a class without id, name or expression, an unknown alignment).
    public init(xml: String) throws(GeodatabaseDefinitionError) {
        let root = try DefinitionXMLElement.parse(xml)
        switch root.name {
        case "DEFeatureClassInfo": kind = .featureClass
        case "DETableInfo": kind = .table
        case "DERelationshipClassInfo": kind = .relationshipClass
        default: kind = .other(root.name)
        }
        name = root.text(at: "Name") ?? ""
        featureType = root.text(at: "FeatureType").nonEmpty
        shapeType = root.text(at: "ShapeType").flatMap(ShapeType.init(rawValue:))
        shapeFieldName = root.text(at: "ShapeFieldName").nonEmpty
        oidFieldName = root.text(at: "OIDFieldName").nonEmpty
        globalIDFieldName = root.text(at: "GlobalIDFieldName").nonEmpty
        hasZ = try Self.bool(root.text(at: "HasZ"), element: "HasZ") ?? false
        hasM = try Self.bool(root.text(at: "HasM"), element: "HasM") ?? false

        if let reference = root.child("SpatialReference") {
            if let x = reference.text(at: "XOrigin"), let y = reference.text(at: "YOrigin"), let scale = reference.text(at: "XYScale") {
                let grid = CoordinateGrid(
                    xOrigin: try Self.double(x, element: "XOrigin"),
                    yOrigin: try Self.double(y, element: "YOrigin"),
                    xyScale: try Self.double(scale, element: "XYScale"))
                guard grid.isValid else { throw .invalidValue(element: "XYScale", value: scale) }
                self.grid = grid
            }
            wkid = try reference.text(at: "WKID").map { text throws(GeodatabaseDefinitionError) in try Self.int(text, element: "WKID") }
            latestWKID = try reference.text(at: "LatestWKID").map { text throws(GeodatabaseDefinitionError) in try Self.int(text, element: "LatestWKID") }
            spatialReferenceWKT = reference.text(at: "WKT").nonEmpty
        }
        if let e = root.child("Extent"), let minX = e.text(at: "XMin"), let minY = e.text(at: "YMin"), let maxX = e.text(at: "XMax"),
            let maxY = e.text(at: "YMax")
        {
            extent = Envelope(
                minX: try Self.double(minX, element: "XMin"), minY: try Self.double(minY, element: "YMin"),
                maxX: try Self.double(maxX, element: "XMax"), maxY: try Self.double(maxY, element: "YMax"))
        }

        lengthFieldName = root.text(at: "LengthFieldName").nonEmpty
        areaFieldName = root.text(at: "AreaFieldName").nonEmpty
        let computed = Set([lengthFieldName, areaFieldName].compactMap { $0 })
        var fields: [EsriField] = []
        for info in root.child("GPFieldInfoExs")?.children("GPFieldInfoEx") ?? [] {
            guard let fieldName = info.text(at: "Name"), !fieldName.isEmpty, !computed.contains(fieldName) else { continue }
            let typeName = info.text(at: "FieldType") ?? ""
            guard let type = EsriFieldType(rawValue: typeName) else { throw .unknownFieldType(typeName) }
            fields.append(EsriField(
                name: fieldName,
                aliasName: info.text(at: "AliasName").nonEmpty,
                type: type,
                isNullable: try Self.bool(info.text(at: "IsNullable"), element: "IsNullable") ?? true,
                length: try info.text(at: "Length").map { text throws(GeodatabaseDefinitionError) in try Self.int(text, element: "Length") },
                domainName: info.text(at: "DomainName").nonEmpty))
        }
        self.fields = fields

        var properties: [String: String] = [:]
        for property in root.child("ExtensionProperties")?.child("PropertyArray")?.children("PropertySetProperty") ?? [] {
            if let key = property.text(at: "Key") { properties[key] = property.text(at: "Value") ?? "" }
        }
        self.properties = properties

        annotationClasses = []
        if let collection = properties["LabelClassCollection"] {
            annotationClasses = try Self.annotationClasses(json: collection, properties: properties)
        }

        if kind == .relationshipClass {
            let keys = root.child("OriginClassKeys")?.children("RelationshipClassKey") ?? []
            func key(_ role: String) -> String? {
                keys.first { $0.text(at: "KeyRole") == role }?.text(at: "ObjectKeyName").nonEmpty
            }
            relationship = EsriRelationshipClass(
                name: name,
                originClassNames: root.child("OriginClassNames")?.children("Name").map(\.text) ?? [],
                destinationClassNames: root.child("DestinationClassNames")?.children("Name").map(\.text) ?? [],
                originPrimaryKey: key("esriRelKeyRoleOriginPrimary"),
                originForeignKey: key("esriRelKeyRoleOriginForeign"),
                cardinality: root.text(at: "Cardinality").nonEmpty,
                isComposite: try Self.bool(root.text(at: "IsComposite"), element: "IsComposite") ?? false,
                notification: root.text(at: "Notification").nonEmpty,
                forwardPathLabel: root.text(at: "ForwardPathLabel").nonEmpty,
                backwardPathLabel: root.text(at: "BackwardPathLabel").nonEmpty)
        }
    }

    /// The relationship class among `candidates` whose destination is this (annotation)
    /// feature class: it names the origin feature class (`originTableName`) and the key
    /// fields. Names compare case-insensitively, as the geodatabase does.
    ///
    /// Pass the definitions of the `GDB_Items` rows of type `ItemTypeID.relationshipClass`.
    /// Returns nil when none links here. Complexity: O(candidates).
    public func annotationLink(in candidates: [GeodatabaseItemDefinition]) -> EsriRelationshipClass? {
        let own = name.lowercased()
        return candidates.lazy.compactMap(\.relationship).first { relationship in
            relationship.destinationClassNames.contains { $0.lowercased() == own }
        }
    }

    /// The SQLite table for a geodatabase item name: the name without its `main.` schema.
    public static func tableName(ofItemName itemName: String) -> String {
        itemName.lowercased().hasPrefix("main.") ? String(itemName.dropFirst(5)) : itemName
    }

    // MARK: - Values

    private static func double(_ text: String, element: String) throws(GeodatabaseDefinitionError) -> Double {
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite else {
            throw .invalidValue(element: element, value: text)
        }
        return value
    }

    private static func int(_ text: String, element: String) throws(GeodatabaseDefinitionError) -> Int {
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
            throw .invalidValue(element: element, value: text)
        }
        return value
    }

    /// XML booleans (`true`/`false`) and Esri's VARIANT_BOOL property values (`-1`/`0`).
    private static func bool(_ text: String?, element: String) throws(GeodatabaseDefinitionError) -> Bool? {
        guard let text else { return nil }
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "true", "-1", "1": return true
        case "false", "0": return false
        default: throw .invalidValue(element: element, value: text)
        }
    }

    // MARK: - Annotation classes

    private static func annotationClasses(json: String, properties: [String: String]) throws(GeodatabaseDefinitionError) -> [EsriAnnotationClass] {
        let labelClasses: [CIMLabelClass]
        let general: CIMTyped?
        do {
            labelClasses = try JSONDecoder().decode([CIMLabelClass].self, from: Data(json.utf8))
            general = try properties["GeneralPlacementProperties"].map { try JSONDecoder().decode(CIMTyped.self, from: Data($0.utf8)) }
        } catch {
            throw .malformedAnnotationClasses(String(describing: error))
        }
        let referenceScale = try properties["ReferenceScale"].map { text throws(GeodatabaseDefinitionError) in try double(text, element: "ReferenceScale") }
        let autoCreate = try bool(properties["AutoCreate"], element: "AutoCreate")
        let updateOnShapeChange = try bool(properties["UpdateOnShapeChange"], element: "UpdateOnShapeChange")
        let engine: EsriLabelPlacement.Engine? = general.map { ($0.type ?? "").contains("Standard") ? .standard : .maplex }

        var classes: [EsriAnnotationClass] = []
        for (index, label) in labelClasses.enumerated() {
            guard let id = label.iD else { throw .malformedAnnotationClasses("label class \(index + 1) has no iD") }
            guard let name = label.name else { throw .malformedAnnotationClasses("label class \(id) has no name") }
            guard let expression = label.expression else { throw .malformedAnnotationClasses("label class \(id) has no expression") }
            let symbol = label.textSymbol?.symbol
            var horizontal: EsriAnnotationClass.HorizontalAlignment?
            if let value = symbol?.horizontalAlignment {
                guard let alignment = EsriAnnotationClass.HorizontalAlignment(cimName: value) else {
                    throw .malformedAnnotationClasses("label class \(id): unknown horizontal alignment '\(value)'")
                }
                horizontal = alignment
            }
            var vertical: EsriAnnotationClass.VerticalAlignment?
            if let value = symbol?.verticalAlignment {
                guard let alignment = EsriAnnotationClass.VerticalAlignment(cimName: value) else {
                    throw .malformedAnnotationClasses("label class \(id): unknown vertical alignment '\(value)'")
                }
                vertical = alignment
            }
            let whereClause = label.whereClause?.trimmingCharacters(in: .whitespacesAndNewlines)
            classes.append(EsriAnnotationClass(
                classID: id,
                name: name,
                expression: expression,
                expressionEngine: label.expressionEngine,
                whereClause: whereClause?.isEmpty == false ? whereClause : nil,
                fontName: symbol?.fontFamilyName,
                fontStyle: symbol?.fontStyleName,
                fontSize: symbol?.height,
                horizontalAlignment: horizontal,
                verticalAlignment: vertical,
                referenceScale: referenceScale,
                placement: placement(of: label, engine: engine),
                autoCreate: autoCreate,
                updateOnShapeChange: updateOnShapeChange,
                isVisible: label.visibility))
        }
        return classes
    }

    /// The placement of the engine in use: the one `GeneralPlacementProperties` names, else
    /// Maplex when the class has Maplex properties, else Standard.
    private static func placement(of label: CIMLabelClass, engine: EsriLabelPlacement.Engine?) -> EsriLabelPlacement? {
        let chosen = engine ?? (label.maplexLabelPlacementProperties != nil ? .maplex : .standard)
        switch chosen {
        case .maplex:
            guard let m = label.maplexLabelPlacementProperties else { return nil }
            let method: String? = switch m.featureType {
            case "Point": m.pointPlacementMethod
            case "Line": m.linePlacementMethod
            case "Polygon": m.polygonPlacementMethod
            default: nil
            }
            return EsriLabelPlacement(
                engine: .maplex,
                featureType: m.featureType,
                method: method,
                primaryOffset: m.primaryOffset,
                primaryOffsetUnit: m.primaryOffsetUnit,
                constrainOffset: m.constrainOffset,
                alongLinePlacement: m.offsetAlongLineProperties?.placementMethod,
                alongLineAnchor: m.offsetAlongLineProperties?.labelAnchorPoint,
                alongLineDistanceUnit: m.offsetAlongLineProperties?.distanceUnit,
                usesLineDirection: m.offsetAlongLineProperties?.useLineDirection,
                pointZonePriorities: m.pointExternalZonePriorities?.integers ?? [:],
                rotationType: m.rotationProperties?.rotationType,
                alignmentType: m.rotationProperties?.alignmentType,
                multiPartOption: m.multiPartOption)
        case .standard:
            guard let s = label.standardLabelPlacementProperties else { return nil }
            return EsriLabelPlacement(
                engine: .standard,
                featureType: s.featureType,
                method: s.featureType == "Point" ? s.pointPlacementMethod : nil,
                pointZonePriorities: s.pointPlacementPriorities?.integers ?? [:],
                linePositions: s.lineLabelPosition?.booleans ?? [:],
                rotationType: s.rotationType)
        }
    }
}

// MARK: - The CIM JSON subset annolink reads

/// Any CIM object, for its `type` only.
private struct CIMTyped: Decodable {
    var type: String?
}

private struct CIMLabelClass: Decodable {
    var iD: Int?
    var name: String?
    var expression: String?
    var expressionEngine: String?
    var whereClause: String?
    var visibility: Bool?
    var textSymbol: CIMSymbolReference?
    var maplexLabelPlacementProperties: CIMMaplexPlacement?
    var standardLabelPlacementProperties: CIMStandardPlacement?
}

private struct CIMSymbolReference: Decodable {
    var symbol: CIMTextSymbol?
}

private struct CIMTextSymbol: Decodable {
    var fontFamilyName: String?
    var fontStyleName: String?
    /// Points.
    var height: Double?
    var horizontalAlignment: String?
    var verticalAlignment: String?
}

private struct CIMMaplexPlacement: Decodable {
    var featureType: String?
    var pointPlacementMethod: String?
    var linePlacementMethod: String?
    var polygonPlacementMethod: String?
    var primaryOffset: Double?
    var primaryOffsetUnit: String?
    var constrainOffset: String?
    var multiPartOption: String?
    var offsetAlongLineProperties: CIMOffsetAlongLine?
    var pointExternalZonePriorities: CIMScalarMap?
    var rotationProperties: CIMRotation?
}

private struct CIMOffsetAlongLine: Decodable {
    var placementMethod: String?
    var labelAnchorPoint: String?
    var distanceUnit: String?
    var useLineDirection: Bool?
}

private struct CIMRotation: Decodable {
    var rotationType: String?
    var alignmentType: String?
}

private struct CIMStandardPlacement: Decodable {
    var featureType: String?
    var pointPlacementMethod: String?
    var rotationType: String?
    var pointPlacementPriorities: CIMScalarMap?
    var lineLabelPosition: CIMScalarMap?
}

/// A CIM object read as a map of its integer and boolean members (zone priorities, line
/// position switches); other members are skipped.
private struct CIMScalarMap: Decodable {
    var integers: [String: Int] = [:]
    var booleans: [String: Bool] = [:]

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        for key in container.allKeys {
            if let flag = try? container.decode(Bool.self, forKey: key) {
                booleans[key.stringValue] = flag
            } else if let number = try? container.decode(Int.self, forKey: key) {
                integers[key.stringValue] = number
            }
        }
    }
}

extension Optional where Wrapped == String {
    /// The string, or nil when it is missing or empty.
    fileprivate var nonEmpty: String? {
        guard let self, !self.isEmpty else { return nil }
        return self
    }
}
