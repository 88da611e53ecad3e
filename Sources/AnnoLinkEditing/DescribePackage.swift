import AnnoLinkStore

/// What a data set holds (a GeoPackage or a PostGIS database, read through the store): its feature and annotation tables and its annotation classes
/// (`annolink info`). Only reads.
public struct DescribePackage: EditRequest {
    public static var writes: Bool { false }
    /// Only this feature or annotation table, with its columns; nil: every table.
    public var table: String?

    public init(table: String? = nil) {
        self.table = table
    }

    public func run(in service: EditService) throws -> PackageInfo {
        // One snapshot on a GeoPackage (a read transaction); on PostGIS each count is a statement.
        if let package = service.store as? GeoPackage { return try package.connection.read { try describe(package) } }
        return try describe(service.store)
    }

    private func describe(_ store: any FeatureStore) throws -> PackageInfo {
        let annotationTables = Set(try store.annotationTableNames().map { $0.lowercased() })
        var info = PackageInfo(path: store.location)
        let names = try table.map { [try store.featureTable($0).name] } ?? store.featureTableNames()
        for name in names {
            let table = try store.featureTable(name)
            let count = try store.rowCount(table, matching: nil)
            let extent = try store.recordedExtent(of: table)
            let crs = try store.spatialReferenceSystem(table.srsID)
            info.tables.append(PackageInfo.Table(
                name: table.name, kind: annotationTables.contains(name.lowercased()) ? .annotation : .features,
                geometryType: table.geometryTypeName, srsID: table.srsID,
                crs: crs.map { "\($0.organization):\($0.organizationCoordsysID) \($0.name)" } ?? "unregistered", count: count,
                extent: extent.map { [$0.minX, $0.minY, $0.maxX, $0.maxY] },
                columns: self.table == nil ? nil : table.columns.map { PackageInfo.Column(name: $0.name, type: $0.type, notNull: $0.isNotNull) }))
        }
        let selected = Set(info.tables.map { $0.name.lowercased() })
        for c in try store.annotationClasses()
        where table == nil || selected.contains(c.annotationTable.lowercased()) || selected.contains(c.originTable.lowercased()) {
            let annotationTable = try store.featureTable(c.annotationTable)
            let annotationCount = try store.rowCount(annotationTable, matching: store.checkedCondition("AnnotationClassID = \(c.classID)", on: annotationTable.name))
            // A stored where clause is checked before it runs; one that is refused is reported
            // for its class (no count) rather than stopping `info` for the whole file.
            var originCount: Int64?
            var whereClauseProblem: String?
            do {
                let origin = try store.featureTable(c.originTable)
                originCount = try store.rowCount(origin, matching: try c.selectingClause.map { try store.checkedCondition($0, on: origin.name) })
            } catch let refusal as SQLCondition.Refusal {
                whereClauseProblem = "the where clause \(refusal)"
            }
            info.annotationClasses.append(PackageInfo.AnnotationClassInfo(
                annotationTable: c.annotationTable, classID: c.classID, name: c.name, originTable: c.originTable,
                whereClause: c.whereClause, expression: c.expression, fontName: c.fontName, fontSize: c.fontSize,
                referenceScale: c.referenceScale, placement: c.placement.rawValue, placementOffset: c.placementOffset,
                autoCreate: c.autoCreate, updateOnShapeChange: c.updateOnShapeChange,
                annotationCount: annotationCount, originCount: originCount, whereClauseProblem: whereClauseProblem))
        }
        return info
    }
}

/// What `info --json` prints: `{"path", "tables": [...], "annotationClasses": [...]}`
/// (docs/cli.md has the keys of each).
public struct PackageInfo: Sendable, Encodable {
    public var path: String
    public var tables: [Table] = []
    public var annotationClasses: [AnnotationClassInfo] = []

    public init(path: String, tables: [Table] = [], annotationClasses: [AnnotationClassInfo] = []) {
        self.path = path
        self.tables = tables
        self.annotationClasses = annotationClasses
    }

    /// One feature or annotation table.
    public struct Table: Sendable, Encodable {
        public enum Kind: String, Sendable, Codable { case features, annotation }

        public var name: String
        public var kind: Kind
        public var geometryType: String
        public var srsID: Int64
        /// `organization:code name`, e.g. `EPSG:2924 NAD83(HARN) / Virginia North (ftUS)`.
        public var crs: String
        public var count: Int64
        /// `[minX, minY, maxX, maxY]` from `gpkg_contents`; nil when unknown or empty.
        public var extent: [Double]?
        /// The columns, only when one table was asked for (the key is absent otherwise).
        public var columns: [Column]?

        enum CodingKeys: String, CodingKey { case name, kind, geometryType, srsID, crs, count, extent, columns }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(name, forKey: .name)
            try c.encode(kind, forKey: .kind)
            try c.encode(geometryType, forKey: .geometryType)
            try c.encode(srsID, forKey: .srsID)
            try c.encode(crs, forKey: .crs)
            try c.encode(count, forKey: .count)
            try c.encode(extent, forKey: .extent)
            try c.encodeIfPresent(columns, forKey: .columns)
        }
    }

    /// One column of a table.
    public struct Column: Sendable, Codable {
        public var name: String
        public var type: String
        public var notNull: Bool
    }

    /// One annotation class with how many rows it holds and how many features it labels.
    public struct AnnotationClassInfo: Sendable, Encodable {
        public var annotationTable: String
        public var classID: Int64
        public var name: String
        public var originTable: String
        public var whereClause: String?
        public var expression: String
        public var fontName: String
        public var fontSize: Double
        public var referenceScale: Double
        public var placement: String
        public var placementOffset: Double
        public var autoCreate: Bool
        public var updateOnShapeChange: Bool
        public var annotationCount: Int64
        /// Null when the where clause was refused (`whereClauseProblem` says why).
        public var originCount: Int64?
        /// Why the class's where clause cannot run (see `SQLCondition`), or null.
        public var whereClauseProblem: String?

        enum CodingKeys: String, CodingKey {
            case annotationTable, classID, name, originTable, whereClause, expression, fontName, fontSize, referenceScale, placement,
                 placementOffset, autoCreate, updateOnShapeChange, annotationCount, originCount, whereClauseProblem
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(annotationTable, forKey: .annotationTable)
            try c.encode(classID, forKey: .classID)
            try c.encode(name, forKey: .name)
            try c.encode(originTable, forKey: .originTable)
            try c.encode(whereClause, forKey: .whereClause)
            try c.encode(expression, forKey: .expression)
            try c.encode(fontName, forKey: .fontName)
            try c.encode(fontSize, forKey: .fontSize)
            try c.encode(referenceScale, forKey: .referenceScale)
            try c.encode(placement, forKey: .placement)
            try c.encode(placementOffset, forKey: .placementOffset)
            try c.encode(autoCreate, forKey: .autoCreate)
            try c.encode(updateOnShapeChange, forKey: .updateOnShapeChange)
            try c.encode(annotationCount, forKey: .annotationCount)
            try c.encode(originCount, forKey: .originCount)
            try c.encode(whereClauseProblem, forKey: .whereClauseProblem)
        }
    }
}
