import AnnoLinkGeometry
import AnnoLinkImport
import AnnoLinkTestSupport
import Testing

@Suite("GDB_Items definitions")
struct GeodatabaseItemDefinitionTests {
    func definition(_ file: String) throws -> GeodatabaseItemDefinition {
        try GeodatabaseItemDefinition(xml: try Fixtures.text(file))
    }

    @Test("the parcel-line annotation class: expression, symbol, scale, switches, Maplex line placement")
    func parcelAnnotation() throws {
        let anno = try definition("ParcelLinesAnno_1.xml")
        #expect(anno.kind == .featureClass)
        #expect(anno.name == "main.ParcelLinesAnno_1")
        #expect(anno.tableName == "ParcelLinesAnno_1")
        #expect(anno.isAnnotation)
        #expect(anno.shapeType == .polygon)
        #expect(anno.shapeFieldName == "SHAPE")
        #expect(anno.grid == CoordinateGrid(xOrigin: -110_512_500, yOrigin: -88_858_000, xyScale: 3048.0060960121928))
        #expect(anno.wkid == 2924)
        #expect(anno.hasZ == false && anno.hasM == false)
        #expect(anno.annotationClasses.count == 1)
        let c = try #require(anno.annotationClasses.first)
        #expect(c.classID == 0)
        #expect(c.name == "Class 1")
        #expect(c.expression == "Round(Length(Geometry($feature), 'feet'), 2)")
        #expect(c.expressionEngine == "Arcade")
        #expect(c.whereClause == nil)
        #expect(c.fontName == "Tahoma")
        #expect(c.fontStyle == "Regular")
        #expect(c.fontSize == 10)
        #expect(c.horizontalAlignment == .center)
        #expect(c.verticalAlignment == .baseline)
        #expect(c.referenceScale == 1200)
        #expect(c.autoCreate == true)
        #expect(c.updateOnShapeChange == true)
        #expect(c.isVisible == true)
        let p = try #require(c.placement)
        #expect(p.engine == .maplex)
        #expect(p.featureType == "Line")
        #expect(p.method == "OffsetStraightFromLine")
        #expect(p.primaryOffset == 1)
        #expect(p.primaryOffsetUnit == "Point")
        #expect(p.constrainOffset == "AboveLine")
        #expect(p.alongLinePlacement == "BestPositionAlongLine")
        #expect(p.alongLineAnchor == "CenterOfLabel")
        #expect(p.usesLineDirection == true)
        #expect(p.multiPartOption == "OneLabelPerFeature")
    }

    @Test("the address-point annotation class places around the point")
    func addressAnnotation() throws {
        let anno = try definition("Loudoun_Address_PointsAnno_1.xml")
        let c = try #require(anno.annotationClasses.first)
        #expect(c.expression == #"$feature.AD_ADDRESS + " " + $feature.ST_STR_NAM"#)
        #expect(c.fontName == "Tahoma" && c.fontSize == 10)
        #expect(c.horizontalAlignment == .center && c.verticalAlignment == .baseline)
        #expect(c.referenceScale == 1200)
        let p = try #require(c.placement)
        #expect(p.engine == .maplex)
        #expect(p.featureType == "Point")
        #expect(p.method == "AroundPoint")
        #expect(p.primaryOffset == 1)
        #expect(p.pointZonePriorities["aboveCenter"] == 1)
        #expect(p.pointZonePriorities.count == 8)
    }

    @Test("annotation fields carry the domains of the alignment columns")
    func annotationFields() throws {
        let anno = try definition("ParcelLinesAnno_1.xml")
        let names = anno.fields.map(\.name)
        #expect(names.starts(with: ["FeatureGlobalID", "ZOrder", "AnnotationClassID", "Element", "SymbolID", "Status", "TextString"]))
        let horizontal = try #require(anno.fields.first { $0.name == "HorizontalAlignment" })
        #expect(horizontal.type == .smallInteger)
        #expect(horizontal.domainName == "HorizontalAlignment")
        #expect(anno.fields.first { $0.name == "FeatureGlobalID" }?.type == .guid)
        #expect(anno.fields.first { $0.name == "Element" }?.type == .blob)
        #expect(anno.areaFieldName == "st_area(SHAPE)")
        #expect(names.count == 25)
        #expect(names.last == "SHAPE")
    }

    @Test("the parcel lines: polyline, fields and their GeoPackage types")
    func parcelLines() throws {
        let lines = try definition("ParcelLines_1.xml")
        #expect(lines.isAnnotation == false)
        #expect(lines.featureType == "esriFTSimple")
        #expect(lines.shapeType == .polyline)
        #expect(lines.oidFieldName == "OBJECTID")
        #expect(lines.globalIDFieldName == "GlobalID")
        #expect(lines.annotationClasses.isEmpty)
        #expect(lines.lengthFieldName == "st_length(Shape)")
        #expect(lines.areaFieldName == nil)
        #expect(lines.relationship == nil)
        let types = Dictionary(uniqueKeysWithValues: lines.fields.map { ($0.name, $0.geoPackageColumnType.sqlName ?? "geometry") })
        #expect(types == [
            "LEFT_FID": "MEDIUMINT", "RIGHT_FID": "MEDIUMINT", "Length": "DOUBLE", "GlobalID": "TEXT(38)",
            "created_user": "TEXT", "created_date": "DATETIME", "last_edited_user": "TEXT",
            "last_edited_date": "DATETIME", "OBJECTID": "INTEGER", "Shape": "geometry",
        ])
        var user = try #require(lines.fields.first { $0.name == "created_user" })
        try user.applyDeclaredType("text(255)")
        #expect(user.length == 255)
        #expect(user.geoPackageColumnType == .text(maxLength: 255))
        let extent = try #require(lines.extent)
        #expect(extent.minX < extent.maxX && extent.minY < extent.maxY)
    }

    @Test("relationship classes name the origin of each annotation feature class")
    func relationships() throws {
        let parcel = try definition("Anno_14_33.xml")
        let address = try definition("Anno_11_29_1.xml")
        #expect(parcel.kind == .relationshipClass)
        let link = try #require(parcel.relationship)
        #expect(link.originClassNames == ["main.ParcelLines_1"])
        #expect(link.destinationClassNames == ["main.ParcelLinesAnno_1"])
        #expect(link.originTableName == "ParcelLines_1")
        #expect(link.destinationTableName == "ParcelLinesAnno_1")
        #expect(link.originPrimaryKey == "GlobalID")
        #expect(link.originForeignKey == "FeatureGlobalID")
        #expect(link.isComposite)
        #expect(link.cardinality == "esriRelCardinalityOneToMany")

        let candidates = [parcel, address, try definition("ParcelLines_1.xml")]
        #expect(try definition("ParcelLinesAnno_1.xml").annotationLink(in: candidates)?.originTableName == "ParcelLines_1")
        #expect(try definition("Loudoun_Address_PointsAnno_1.xml").annotationLink(in: candidates)?.originTableName == "Loudoun_Address_Points_1")
        #expect(try definition("ParcelLines_1.xml").annotationLink(in: candidates) == nil)
    }

    @Test("malformed definitions are refused")
    func malformed() throws {
        #expect(throws: GeodatabaseDefinitionError.self) { try GeodatabaseItemDefinition(xml: "<DEFeatureClassInfo><Name>x</Name>") }
        #expect(throws: GeodatabaseDefinitionError.self) { try GeodatabaseItemDefinition(xml: "") }
        let xml = try Fixtures.text("ParcelLinesAnno_1.xml")
        let badScale = xml.replacingOccurrences(of: "<XYScale>3048.0060960121928</XYScale>", with: "<XYScale>many</XYScale>")
        #expect(badScale != xml)
        #expect(throws: GeodatabaseDefinitionError.invalidValue(element: "XYScale", value: "many")) { try GeodatabaseItemDefinition(xml: badScale) }
        let zeroScale = xml.replacingOccurrences(of: "<XYScale>3048.0060960121928</XYScale>", with: "<XYScale>0</XYScale>")
        #expect(throws: GeodatabaseDefinitionError.self) { try GeodatabaseItemDefinition(xml: zeroScale) }
        let badJSON = xml.replacingOccurrences(of: "[{&quot;type&quot;:&quot;CIMLabelClass&quot;", with: "[{&quot;type&quot;:")
        #expect(badJSON != xml)
        #expect(throws: GeodatabaseDefinitionError.self) { try GeodatabaseItemDefinition(xml: badJSON) }
        let badAlignment = xml.replacingOccurrences(
            of: "&quot;horizontalAlignment&quot;:&quot;Center&quot;", with: "&quot;horizontalAlignment&quot;:&quot;Sideways&quot;")
        #expect(throws: GeodatabaseDefinitionError.self) { try GeodatabaseItemDefinition(xml: badAlignment) }
        let badType = xml.replacingOccurrences(of: "esriFieldTypeBlob", with: "esriFieldTypeHologram")
        #expect(throws: GeodatabaseDefinitionError.unknownFieldType("esriFieldTypeHologram")) { try GeodatabaseItemDefinition(xml: badType) }
    }

    /// Found by `scripts/fuzz itemdef`: Foundation's XMLParser crashed the process (a NULL
    /// string's length) on a processing instruction without data.
    @Test("a processing instruction is refused, not handed to the XML parser")
    func processingInstruction() throws {
        let found = "<DEFeatureClas.8~>|CatalogPtrue<?Cereered?><Ed.nfo>"
        #expect(throws: GeodatabaseDefinitionError.self) { try GeodatabaseItemDefinition(xml: found) }
        #expect(throws: GeodatabaseDefinitionError.malformedXML(
            line: 2, column: 15, message: "a processing instruction (<?…?>), which definition documents do not have")) {
            try GeodatabaseItemDefinition(xml: "<DEFeatureClassInfo>\n<Name>x</Name><?x?></DEFeatureClassInfo>")
        }
        // The XML declaration may still open a document.
        let xml = try Fixtures.text("ParcelLines_1.xml")
        #expect(try GeodatabaseItemDefinition(xml: "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + xml).name == GeodatabaseItemDefinition(xml: xml).name)
    }

    @Test("a where clause in a label class is kept")
    func whereClause() throws {
        let xml = try Fixtures.text("ParcelLinesAnno_1.xml")
            .replacingOccurrences(
                of: "&quot;expressionEngine&quot;:&quot;Arcade&quot;,",
                with: "&quot;expressionEngine&quot;:&quot;Arcade&quot;,&quot;whereClause&quot;:&quot;Length &gt; 10&quot;,")
        let c = try #require(try GeodatabaseItemDefinition(xml: xml).annotationClasses.first)
        #expect(c.whereClause == "Length > 10")
    }
}

@Suite("Field types")
struct GeoPackageColumnTypeTests {
    @Test("declared mobile-geodatabase types map to GeoPackage types", arguments: [
        ("int16", "SMALLINT"), ("int32", "MEDIUMINT"), ("INT32", "MEDIUMINT"), ("int64", "INTEGER"),
        ("INTEGER", "INTEGER"), ("float32", "FLOAT"), ("float64", "DOUBLE"), ("REAL", "DOUBLE"),
        ("text(255)", "TEXT(255)"), ("TEXT(2048)", "TEXT(2048)"), ("uuidtext", "TEXT(38)"),
        ("realdate", "DATETIME"), ("blob", "BLOB"), ("blob(52428800)", "BLOB(52428800)"),
        ("xmltext", "TEXT"), ("CLOB", "TEXT"),
    ])
    func declared(_ declared: String, _ expected: String) throws {
        #expect(try GeoPackageColumnType(declaredType: declared).sqlName == expected)
    }

    @Test("the geometry declaration maps to the geometry column")
    func geometry() throws {
        #expect(try GeoPackageColumnType(declaredType: "geometryblob") == .geometry)
        #expect(GeoPackageColumnType.geometry.sqlName == nil)
    }

    @Test("unknown declarations are refused", arguments: ["", "varchar(10)", "text(x)", "text(0)", "int32(4)", "float128"])
    func unknown(_ declared: String) {
        #expect(throws: GeodatabaseDefinitionError.unknownFieldType(declared)) { try GeoPackageColumnType(declaredType: declared) }
    }

    @Test("every Esri field type has a GeoPackage type")
    func esriTypes() {
        for type in EsriFieldType.allCases {
            let column = type.geoPackageColumnType(length: 80)
            #expect(column.sqlName != nil || type == .geometry)
        }
        #expect(EsriFieldType.string.geoPackageColumnType(length: 80) == .text(maxLength: 80))
        #expect(EsriFieldType.integer.geoPackageColumnType() == .mediumInt)
        #expect(EsriFieldType.date.geoPackageColumnType() == .dateTime)
    }
}

@Suite("Archive rows and dates")
struct GeodatabaseArchiveTests {
    @Test("the open end is julianday('9999-12-31 23:59:59') and the stored value counts as current")
    func openEnd() {
        // Both values printed by sqlite3 with %.17g: SQLite's julianday and the rows' gdb_to_date.
        #expect(GeodatabaseArchive.openEndedToDate == 5373484.4999884259)
        #expect(GeodatabaseArchive.isCurrent(gdbToDate: 5373484.499988425))
        // A row retired in 2020 is not current, though its gdb_to_date is above 2,400,000.
        #expect(!GeodatabaseArchive.isCurrent(gdbToDate: 2459043.94149139))
    }

    @Test("Julian days become GeoPackage DATETIME text", arguments: [
        // Julian days from sqlite3's julianday() of the expected text.
        (2459043.94149139, "2020-07-13T10:35:44.856Z"),
        (2440587.5, "1970-01-01T00:00:00.000Z"),
        (1721425.5, "0001-01-01T00:00:00.000Z"),
        (2415080.0, "1900-03-01T12:00:00.000Z"),
        (2451604.49999999, "2000-02-29T23:59:59.999Z"),
    ])
    func dateTime(_ julianDay: Double, _ expected: String) {
        #expect(GeodatabaseArchive.dateTime(fromJulianDay: julianDay) == expected)
    }

    @Test("dates outside years 1–9999 have no DATETIME")
    func outOfRange() {
        #expect(GeodatabaseArchive.dateTime(fromJulianDay: GeodatabaseArchive.openEndedToDate) == "9999-12-31T23:59:59.000Z")
        #expect(GeodatabaseArchive.dateTime(fromJulianDay: 5373484.5) == nil)
        #expect(GeodatabaseArchive.dateTime(fromJulianDay: 0) == nil)
        #expect(GeodatabaseArchive.dateTime(fromJulianDay: .nan) == nil)
    }
}
