import AnnoLinkAnnotation
import AnnoLinkGeometry
import AnnoLinkStore
import Foundation

/// What an import converted, and what it could not.
public struct ImportReport: Sendable, Codable {
    /// One imported table.
    public struct Table: Sendable, Codable {
        public var name: String
        public var geometryTypeName: String
        public var srsID: Int64
        public var rows: Int
        public var isAnnotation: Bool
    }

    public var tables: [Table] = []
    public var annotationClasses = 0
    /// Everything that was not converted, each naming the table, column or row, in the user's
    /// words. Nothing is dropped without a line here.
    public var notConverted: [String] = []

    /// An empty report (a GeoPackage copied as it is converts nothing).
    public init() {}
}

/// Converts an ArcGIS mobile geodatabase into annolink's GeoPackage layout.
///
/// Current rows only (archive history is not carried over). Feature classes keep their names,
/// their attributes (GlobalID included) and the Esri ObjectID as `fid`; annotation classes are
/// mapped to the annotation table layout of docs/format.md, "Annotation tables" (`FeatureGlobalID` resolved to the origin's
/// fid in `FeatureID`, the anchor from the `Element` baseline, the footprint from `SHAPE`) and
/// their label classes go into the annotation class registry.
public struct MobileGeodatabaseImporter {
    let source: Connection
    let package: GeoPackage
    /// Told the table being written, its rows written so far and its rows in all.
    let progress: (_ table: String, _ done: Int, _ total: Int) -> Void
    private var report = ImportReport()

    /// Whether `connection` is a mobile geodatabase: it has `GDB_Items` and `st_geometry_columns`.
    public static func isMobileGeodatabase(_ connection: Connection) throws -> Bool {
        try connection.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('GDB_Items', 'st_geometry_columns')") == 2
    }

    /// Esri annotation columns that annolink's layout holds under the same name.
    static let annotationLayoutColumns: Set<String> = [
        "annotationclassid", "textstring", "fontname", "fontsize", "horizontalalignment", "verticalalignment",
        "xoffset", "yoffset", "angle", "status", "override",
    ]

    /// Imports every feature class of `source` into `package` (a new, empty GeoPackage) in one
    /// transaction. `progress` is told, table by table, how many of its rows are written (every
    /// 1024th and the last) of how many.
    ///
    /// - Throws: `StoreError.invalidData` when the geodatabase lacks what an import needs,
    ///   `GeometryCodecError` naming the table and row of a blob that cannot be decoded, and
    ///   `SQLiteError`.
    public static func run(source: Connection, into package: GeoPackage,
                           progress: @escaping (_ table: String, _ done: Int, _ total: Int) -> Void = { _, _, _ in }) throws -> ImportReport {
        var importer = MobileGeodatabaseImporter(source: source, package: package, progress: progress)
        try package.connection.write {
            try importer.importAll()
            importer.report.notConverted += try ArcGISPlacementRecord.write(into: package)
        }
        return importer.report
    }

    private init(source: Connection, package: GeoPackage, progress: @escaping (_ table: String, _ done: Int, _ total: Int) -> Void) {
        self.source = source
        self.package = package
        self.progress = progress
    }

    /// A feature class to import: its definition and geometry column.
    struct FeatureClass {
        var definition: GeodatabaseItemDefinition
        var shapeColumn: String
        var srsID: Int64
        var table: String { definition.tableName }
    }

    private mutating func importAll() throws {
        var featureClasses: [FeatureClass] = []
        var relationships: [GeodatabaseItemDefinition] = []
        let geometryColumns = try source.rows("SELECT f_table_name, f_geometry_column, srid FROM st_geometry_columns")
        var columnsByTable: [String: (String, Int64)] = [:]
        for row in geometryColumns {
            guard let table = row[0].textValue, let column = row[1].textValue else { continue }
            columnsByTable[table.lowercased()] = (column, row[2].integerValue ?? 0)
        }
        for row in try source.rows("SELECT Name, Type, Definition FROM GDB_Items WHERE Type IN (?, ?, ?) ORDER BY Name", [
            .text(GeodatabaseItemDefinition.ItemTypeID.featureClass), .text(GeodatabaseItemDefinition.ItemTypeID.relationshipClass),
            .text(GeodatabaseItemDefinition.ItemTypeID.table),
        ]) {
            let name = row[0].textValue ?? "?"
            guard let xml = row[2].textValue else {
                report.notConverted.append("\(name): no definition in GDB_Items; not imported")
                continue
            }
            let definition: GeodatabaseItemDefinition
            do {
                definition = try GeodatabaseItemDefinition(xml: xml)
            } catch {
                report.notConverted.append("\(name): its definition cannot be read (\(error)); not imported")
                continue
            }
            switch definition.kind {
            case .relationshipClass:
                relationships.append(definition)
            case .featureClass:
                guard let (column, srid) = columnsByTable[definition.tableName.lowercased()] else {
                    report.notConverted.append("\(definition.tableName): no entry in st_geometry_columns; not imported")
                    continue
                }
                featureClasses.append(FeatureClass(definition: definition, shapeColumn: column, srsID: srid))
            case .table:
                report.notConverted.append("\(definition.tableName): a table without geometry; annolink imports feature classes only")
            case .other:
                break
            }
        }
        guard !featureClasses.isEmpty else { throw StoreError.invalidData("the geodatabase has no feature classes") }

        // Origins first, so that annotation can resolve FeatureGlobalID to the origin's fid.
        var globalIDs: [String: [String: Int64]] = [:]
        for featureClass in featureClasses where !featureClass.definition.isAnnotation {
            globalIDs[featureClass.table.lowercased()] = try importFeatureClass(featureClass)
        }
        for featureClass in featureClasses where featureClass.definition.isAnnotation {
            let link = featureClass.definition.annotationLink(in: relationships)
            let origin = link?.originTableName
            try importAnnotationClass(featureClass, origin: origin, originGlobalIDs: origin.flatMap { globalIDs[$0.lowercased()] } ?? [:])
        }
        for table in report.tables {
            let featureTable = try package.featureTable(table.name)
            try package.createSpatialIndex(table: featureTable.name, column: featureTable.geometryColumn)
            try package.refreshContents(of: featureTable)
        }
    }

    /// The columns of `table` in the source, as `PRAGMA table_info` declares them.
    private func sourceColumns(_ table: String) throws -> [Column] {
        try source.rows("SELECT name, type, \"notnull\" FROM pragma_table_info(?)", [.text(table)]).map {
            Column(name: $0[0].textValue ?? "", type: $0[1].textValue ?? "", isNotNull: $0[2].integerValue == 1)
        }
    }

    /// Columns that are not carried over as attributes: the ObjectID (it becomes `fid`), the
    /// shape (it becomes `geom`), and the archive bookkeeping.
    private static func isStructural(_ name: String, _ featureClass: FeatureClass) -> Bool {
        let lower = name.lowercased()
        return lower == (featureClass.definition.oidFieldName ?? "OBJECTID").lowercased()
            || lower == featureClass.shapeColumn.lowercased()
            || ["gdb_archive_oid", "gdb_from_date", "gdb_to_date"].contains(lower)
    }

    /// The GeoPackage column for a source column, or nil (reported) when its type is unknown.
    private mutating func targetColumn(_ column: Column, table: String) -> Column? {
        do {
            guard let type = try GeoPackageColumnType(declaredType: column.type).sqlName else { return nil }
            return Column(name: column.name, type: type, isNotNull: column.isNotNull)
        } catch {
            report.notConverted.append("\(table).\(column.name): \(error); column not imported")
            return nil
        }
    }

    /// Decodes every current row's shape, in ObjectID order.
    private func decodeRows(
        _ featureClass: FeatureClass, columns: [Column]
    ) throws -> (geometries: [(Int64, Geometry?)], values: [[SQLValue]], kindName: String) {
        guard let grid = featureClass.definition.grid else {
            throw StoreError.invalidData("\(featureClass.table): its definition has no coordinate grid (XOrigin, YOrigin, XYScale)")
        }
        let oid = quoteIdentifier(featureClass.definition.oidFieldName ?? "OBJECTID")
        let list = ([oid, quoteIdentifier(featureClass.shapeColumn)] + columns.map { quoteIdentifier($0.name) }).joined(separator: ", ")
        let statement = try source.prepare(
            "SELECT \(list) FROM \(quoteIdentifier(featureClass.table)) WHERE \(GeodatabaseArchive.currentRowCondition) ORDER BY \(oid)")
        var geometries: [(Int64, Geometry?)] = []
        var values: [[SQLValue]] = []
        var kinds = Set<Geometry.Kind>()
        while try statement.step() {
            let objectID = statement.int64(0)
            var geometry: Geometry?
            if !statement.isNull(1) {
                do {
                    geometry = try statement.withBlob(1) { try EsriShapeBlob.decode($0, grid: grid) }
                } catch {
                    throw StoreError.invalidData("\(featureClass.table) ObjectID \(objectID): the shape cannot be read: \(error)")
                }
                kinds.insert(geometry!.kind)
            }
            geometries.append((objectID, geometry))
            values.append((0..<columns.count).map { statement.value($0 + 2) })
        }
        return (geometries, values, Self.geometryTypeName(kinds, featureClass.definition.shapeType))
    }

    /// The `gpkg_geometry_columns` type for the kinds found: a single kind as it is, a kind and
    /// its multi form as the multi form.
    static func geometryTypeName(_ kinds: Set<Geometry.Kind>, _ shapeType: GeodatabaseItemDefinition.ShapeType?) -> String {
        if kinds.count == 1 { return kinds.first!.rawValue }
        if kinds == [.lineString, .multiLineString] { return "MULTILINESTRING" }
        if kinds == [.polygon, .multiPolygon] { return "MULTIPOLYGON" }
        if kinds.isEmpty {
            switch shapeType {
            case .point: return "POINT"
            case .polyline: return "LINESTRING"
            case .polygon: return "POLYGON"
            default: return "GEOMETRY"
            }
        }
        return "GEOMETRY"
    }

    /// Promotes a single geometry to the multi kind a table holds.
    static func conform(_ geometry: Geometry, to typeName: String) -> Geometry {
        switch (geometry, typeName) {
        case (.lineString(let l), "MULTILINESTRING"): .multiLineString(MultiLineString([l]))
        case (.polygon(let p), "MULTIPOLYGON"): .multiPolygon(MultiPolygon([p]))
        default: geometry
        }
    }

    /// Converts a value to what the GeoPackage column holds: Esri dates (Julian days) become
    /// ISO 8601 DATETIME text.
    static func convert(_ value: SQLValue, declaredType: String) -> SQLValue {
        if declaredType.lowercased() == "realdate", let day = value.doubleValue {
            return GeodatabaseArchive.dateTime(fromJulianDay: day).map(SQLValue.text) ?? .null
        }
        return value
    }

    /// Imports one ordinary feature class; returns its GlobalID → fid map.
    private mutating func importFeatureClass(_ featureClass: FeatureClass) throws -> [String: Int64] {
        let all = try sourceColumns(featureClass.table).filter { !Self.isStructural($0.name, featureClass) }
        var kept: [(source: Column, target: Column)] = []
        for column in all {
            if let target = targetColumn(column, table: featureClass.table) { kept.append((column, target)) }
        }
        let rows = try decodeRows(featureClass, columns: kept.map(\.source))
        try package.addSpatialReferenceSystem(epsg: featureClass.srsID)
        let table = try package.createFeatureTable(FeatureTableDefinition(
            name: featureClass.table, geometryColumn: "geom", geometryTypeName: rows.kindName, srsID: featureClass.srsID,
            columns: kept.map(\.target), description: featureClass.definition.name), spatialIndex: false)
        let globalIDIndex = kept.firstIndex { $0.source.name.lowercased() == (featureClass.definition.globalIDFieldName ?? "GlobalID").lowercased() }
        var globalIDs: [String: Int64] = [:]
        let insert = try package.connection.prepare(
            "INSERT INTO \(quoteIdentifier(table.name)) (fid, geom\(kept.map { ", " + quoteIdentifier($0.target.name) }.joined())) "
                + "VALUES (?, ?\(String(repeating: ", ?", count: kept.count)))")
        for (i, (objectID, geometry)) in rows.geometries.enumerated() {
            insert.reset()
            try insert.bind(objectID, at: 1)
            try insert.bind(geometry.map { .blob(package.encode(Self.conform($0, to: rows.kindName), for: table)) } ?? .null, at: 2)
            for (j, column) in kept.enumerated() {
                try insert.bind(Self.convert(rows.values[i][j], declaredType: column.source.type), at: j + 3)
            }
            _ = try insert.step()
            if let g = globalIDIndex, let id = rows.values[i][g].textValue { globalIDs[id.uppercased()] = objectID }
            if (i + 1) & 1023 == 0 { progress(table.name, i + 1, rows.geometries.count) }
        }
        progress(table.name, rows.geometries.count, rows.geometries.count)
        report.tables.append(.init(name: table.name, geometryTypeName: rows.kindName, srsID: table.srsID, rows: rows.geometries.count, isAnnotation: false))
        return globalIDs
    }

    /// Imports one annotation feature class into the annotation table layout (docs/format.md, "Annotation tables"), and registers its classes.
    private mutating func importAnnotationClass(_ featureClass: FeatureClass, origin: String?, originGlobalIDs: [String: Int64]) throws {
        let name = featureClass.table
        let sourceColumns = try sourceColumns(name)
        let extra = sourceColumns.filter {
            let lower = $0.name.lowercased()
            return !Self.isStructural($0.name, featureClass) && !Self.annotationLayoutColumns.contains(lower) && lower != "element"
        }
        var extraColumns: [(source: Column, target: Column)] = []
        for column in extra {
            if let target = targetColumn(column, table: name) { extraColumns.append((column, target)) }
        }
        try package.addSpatialReferenceSystem(epsg: featureClass.srsID)
        var table = try package.createAnnotationTable(name: name, srsID: featureClass.srsID, description: featureClass.definition.name, spatialIndex: false)
        for column in extraColumns {
            // ALTER TABLE cannot add NOT NULL without a default; the values are copied as they are.
            try package.connection.execute("ALTER TABLE \(quoteIdentifier(name)) ADD COLUMN \(quoteIdentifier(column.target.name)) \(column.target.type)")
        }
        package.invalidateTableCache()
        table = try package.featureTable(name)
        report.notConverted.append("\(name).Element: Esri's text graphic blob is not kept; its baseline became AnchorX, AnchorY and Angle")

        let layout = [
            "AnnotationClassID", "TextString", "FontName", "FontSize", "HorizontalAlignment", "VerticalAlignment", "XOffset", "YOffset",
            "Angle", "Status", "Override",
        ]
        let present = layout.filter { c in sourceColumns.contains { $0.name.lowercased() == c.lowercased() } }
        let sourceList = (present + ["Element", "FeatureGlobalID"] + extraColumns.map(\.source.name)).map(quoteIdentifier)
        let oid = quoteIdentifier(featureClass.definition.oidFieldName ?? "OBJECTID")
        let rows = try source.rows(
            "SELECT \(oid), \(quoteIdentifier(featureClass.shapeColumn)), \(sourceList.joined(separator: ", ")) FROM \(quoteIdentifier(name)) "
                + "WHERE \(GeodatabaseArchive.currentRowCondition) ORDER BY \(oid)")
        let targetList = ["fid", "geom", "FeatureID", "AnchorX", "AnchorY"] + present + extraColumns.map(\.target.name)
        let insert = try package.connection.prepare(
            "INSERT INTO \(quoteIdentifier(name)) (\(targetList.map(quoteIdentifier).joined(separator: ", "))) "
                + "VALUES (\(Array(repeating: "?", count: targetList.count).joined(separator: ", ")))")
        guard let grid = featureClass.definition.grid else {
            throw StoreError.invalidData("\(name): its definition has no coordinate grid (XOrigin, YOrigin, XYScale)")
        }
        var unlinked = 0, withoutElement = 0
        for (done, row) in rows.enumerated() {
            if done & 1023 == 0, done > 0 { progress(name, done, rows.count) }
            let objectID = row[0].integerValue ?? 0
            var values: [SQLValue] = [.integer(objectID)]
            if let blob = row[1].blobValue {
                do {
                    values.append(.blob(package.encode(try EsriShapeBlob.decode(blob, grid: grid), for: table)))
                } catch {
                    throw StoreError.invalidData("\(name) ObjectID \(objectID): the footprint cannot be read: \(error)")
                }
            } else {
                values.append(.null)
            }
            let attributes = Array(row[2...])
            let byName = Dictionary(uniqueKeysWithValues: zip(present + ["Element", "FeatureGlobalID"], attributes))
            let originFID = byName["FeatureGlobalID"]?.textValue.flatMap { originGlobalIDs[$0.uppercased()] }
            if originFID == nil { unlinked += 1 }
            values.append(originFID.map(SQLValue.integer) ?? .null)
            let alignment = byName["HorizontalAlignment"]?.integerValue ?? 1
            if let bytes = byName["Element"]?.blobValue, let element = try? AnnotationElement(bytes), element.baseline.points.count >= 2 {
                let anchor = Self.anchor(of: element.baseline, horizontalAlignment: alignment)
                values += [.real(anchor.x), .real(anchor.y)]
            } else {
                withoutElement += 1
                values += [.null, .null]
            }
            for column in present {
                var value = byName[column] ?? .null
                if column == "Angle", let angle = value.doubleValue { value = .real(PlacementRules.normalizedAngle(angle)) }
                values.append(value)
            }
            for (i, column) in extraColumns.enumerated() {
                values.append(Self.convert(attributes[present.count + 2 + i], declaredType: column.source.type))
            }
            insert.reset()
            try insert.bind(values)
            _ = try insert.step()
        }
        progress(name, rows.count, rows.count)
        if unlinked > 0 { report.notConverted.append("\(name): \(unlinked) annotation rows have no origin feature; FeatureID is NULL") }
        if withoutElement > 0 { report.notConverted.append("\(name): \(withoutElement) rows have no readable Element baseline; AnchorX and AnchorY are NULL") }
        report.tables.append(.init(name: name, geometryTypeName: "POLYGON", srsID: featureClass.srsID, rows: rows.count, isAnnotation: true))
        try importClasses(of: featureClass, origin: origin)
    }

    /// The anchor of a baseline for a horizontal alignment: its start for left, its end for
    /// right, its midpoint for center and full.
    static func anchor(of baseline: LineString, horizontalAlignment: Int64) -> Point {
        let first = baseline.points.first!, last = baseline.points.last!
        switch horizontalAlignment {
        case 0: return first
        case 2: return last
        default: return Point(x: (first.x + last.x) / 2, y: (first.y + last.y) / 2)
        }
    }

    /// Registers the annotation classes of an annotation feature class.
    private mutating func importClasses(of featureClass: FeatureClass, origin: String?) throws {
        let name = featureClass.table
        guard let origin, let originTable = try? package.featureTable(origin) else {
            report.notConverted.append("\(name): no relationship class names its origin feature class; its annotation classes are not registered")
            return
        }
        let placement: PlacementStyle
        switch originTable.geometryKind {
        case .point, .multiPoint: placement = .point
        case .lineString, .multiLineString: placement = .line
        default:
            report.notConverted.append(
                "\(name): origin \(origin) holds \(originTable.geometryTypeName) features; annolink places annotation for points and "
                    + "lines only, so its classes are not registered")
            return
        }
        let properties = featureClass.definition.properties
        func flag(_ value: Bool?, _ key: String) -> Bool {
            value ?? (properties[key].map { $0.lowercased() == "true" } ?? true)
        }
        for esri in featureClass.definition.annotationClasses {
            if let engine = esri.expressionEngine, !engine.lowercased().contains("arcade") {
                report.notConverted.append(
                    "\(name) class \(esri.classID) '\(esri.name)': its expression is \(engine), not Arcade; registered, but annolink "
                        + "cannot evaluate it")
            }
            var parameters = EsriPlacementParameters()
            if let p = esri.placement {
                parameters.engine = p.engine.rawValue
                parameters.method = p.method
                parameters.primaryOffset = p.primaryOffset
                parameters.primaryOffsetUnit = p.primaryOffsetUnit
                parameters.constrainOffset = p.constrainOffset
                parameters.alongLinePlacement = p.alongLinePlacement
            }
            let json = try? EsriPlacementParameters.json(parameters)
            try package.saveAnnotationClass(AnnotationClass(
                annotationTable: name, classID: Int64(esri.classID), name: esri.name, originTable: originTable.name,
                whereClause: esri.whereClause, expression: esri.expression, fontName: esri.fontName ?? "Tahoma",
                fontSize: esri.fontSize ?? 10, horizontalAlignment: esri.horizontalAlignment?.rawValue ?? 1,
                verticalAlignment: esri.verticalAlignment?.rawValue ?? 2,
                referenceScale: esri.referenceScale ?? Double(properties["ReferenceScale"] ?? "") ?? 1200,
                placement: placement,
                // The offsets ArcGIS's output shows for the Loudoun data (docs/placement.md, "Rules"), not the
                // Maplex setting (1 pt), which its label engine does not apply literally.
                placementOffset: placement == .point ? 3.35 : 1.5,
                placementParameters: json,
                autoCreate: flag(esri.autoCreate, "AutoCreate"), updateOnShapeChange: flag(esri.updateOnShapeChange, "UpdateOnShapeChange")))
            report.annotationClasses += 1
        }
    }
}

/// The Esri placement settings an imported class keeps in `placement_parameters`, as one JSON
/// object with sorted keys (absent settings left out).
struct EsriPlacementParameters: Encodable {
    var source = "esri"
    var engine: String?
    var method: String?
    var primaryOffset: Double?
    var primaryOffsetUnit: String?
    var constrainOffset: String?
    var alongLinePlacement: String?

    static func json(_ parameters: Self) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(parameters), as: UTF8.self)
    }
}
