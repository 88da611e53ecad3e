import AnnoLinkAnnotation
import AnnoLinkGeometry
import AnnoLinkStore

/// What `SampleWriter` wrote.
public struct SampleSummary: Sendable, Codable {
    public var addressPoints = 0
    public var parcelLines = 0
    public var annotationRows = 0
    /// Messages for the user (a missing font replaced by the fallback).
    public var warnings: [String] = []
}

/// Writes a `SampleGenerator`'s data into a new GeoPackage: the tables `address_points`,
/// `parcel_lines`, `address_points_anno` and `parcel_lines_anno`, and the two annotation
/// classes of the Loudoun data.
public enum SampleWriter {
    /// The annotation classes of the Loudoun data (`reference/loudoun-facts.md`), for the
    /// sample's tables.
    public static let addressClass = AnnotationClass(
        annotationTable: "address_points_anno", classID: 0, name: "Default", originTable: "address_points",
        expression: "$feature.AD_ADDRESS + \" \" + $feature.ST_STR_NAM", fontName: "Tahoma", fontSize: 10,
        horizontalAlignment: 1, verticalAlignment: 2, referenceScale: 1200, placement: .point, placementOffset: 3.35)
    public static let parcelLineClass = AnnotationClass(
        annotationTable: "parcel_lines_anno", classID: 0, name: "Default", originTable: "parcel_lines",
        expression: "Round(Length(Geometry($feature), 'feet'), 2)", fontName: "Tahoma", fontSize: 10,
        horizontalAlignment: 1, verticalAlignment: 2, referenceScale: 1200, placement: .line, placementOffset: 1.5)

    /// Writes the sample into `package` (a new, empty GeoPackage that already has the EPSG:2924
    /// spatial reference system), in one transaction.
    ///
    /// The annotation of both classes is generated with the annotation engine. `progress` is
    /// told each stage's words, what is done of it and its total when known: the parcels written
    /// ("writing parcels", of the generator's), the features labelled per class ("labelling
    /// address_points"), then the tables indexed ("indexing", of 4).
    public static func write(_ generator: SampleGenerator, into package: GeoPackage,
                             progress: (_ stage: String, _ done: Int, _ total: Int?) -> Void = { _, _, _ in })
        throws -> SampleSummary {
        let srs = SampleGenerator.srsID
        var summary = SampleSummary()
        try package.connection.write {
            let points = try package.createFeatureTable(FeatureTableDefinition(
                name: "address_points", geometryTypeName: "POINT", srsID: srs,
                columns: [
                    Column(name: "AD_ADDRESS", type: "INTEGER", isNotNull: true),
                    Column(name: "ST_STR_NAM", type: "TEXT(60)", isNotNull: true),
                    Column(name: "ST_STR_TYP", type: "TEXT(10)"),
                    Column(name: "FULL_ADDRE", type: "TEXT(120)"),
                    Column(name: "PARCEL_ID", type: "INTEGER"),
                ], description: "synthetic address points"), spatialIndex: false)
            let lines = try package.createFeatureTable(FeatureTableDefinition(
                name: "parcel_lines", geometryTypeName: "LINESTRING", srsID: srs,
                columns: [
                    Column(name: "LEFT_FID", type: "INTEGER"),
                    Column(name: "RIGHT_FID", type: "INTEGER"),
                    Column(name: "Length", type: "DOUBLE"),
                ], description: "synthetic parcel boundary segments"), spatialIndex: false)
            try package.createAnnotationTable(name: "address_points_anno", srsID: srs, description: "address annotation", spatialIndex: false)
            try package.createAnnotationTable(name: "parcel_lines_anno", srsID: srs, description: "parcel line length annotation", spatialIndex: false)
            try package.saveAnnotationClass(addressClass)
            try package.saveAnnotationClass(parcelLineClass)

            let insertPoint = try package.connection.prepare(
                "INSERT INTO address_points (geom, AD_ADDRESS, ST_STR_NAM, ST_STR_TYP, FULL_ADDRE, PARCEL_ID) VALUES (?, ?, ?, ?, ?, ?)")
            let insertLine = try package.connection.prepare(
                "INSERT INTO parcel_lines (geom, LEFT_FID, RIGHT_FID, Length) VALUES (?, ?, ?, ?)")
            try generator.generate(address: { a in
                insertPoint.reset()
                try insertPoint.bind(.blob(package.encode(.point(a.location), for: points)), at: 1)
                try insertPoint.bind(a.number, at: 2)
                try insertPoint.bind(.text(a.streetName), at: 3)
                try insertPoint.bind(.text(a.streetType), at: 4)
                try insertPoint.bind(.text("\(a.number) \(a.streetName) \(a.streetType), STERLING"), at: 5)
                try insertPoint.bind(a.parcelID, at: 6)
                _ = try insertPoint.step()
                summary.addressPoints += 1
                if summary.addressPoints % 4096 == 0 { progress("writing parcels", summary.addressPoints, generator.parcels) }
            }, line: { l in
                insertLine.reset()
                let geometry = LineString([l.start, l.end])
                try insertLine.bind(.blob(package.encode(.lineString(geometry), for: lines)), at: 1)
                try insertLine.bind(l.leftParcel.map(SQLValue.integer) ?? .null, at: 2)
                try insertLine.bind(l.rightParcel.map(SQLValue.integer) ?? .null, at: 3)
                try insertLine.bind(geometry.length, at: 4)
                _ = try insertLine.step()
                summary.parcelLines += 1
            })
            progress("writing parcels", summary.addressPoints, generator.parcels)
            let engine = AnnotationEngine(package: package)
            for compiled in try engine.allClasses() {
                let stage = "labelling \(compiled.definition.originTable)"
                let total = compiled.definition.originTable == points.name ? summary.addressPoints : summary.parcelLines
                summary.annotationRows += try engine.generate(compiled) { progress(stage, $0, total) }.created
            }
            summary.warnings = engine.warnings
            let indexed = [points.name, lines.name, addressClass.annotationTable, parcelLineClass.annotationTable]
            for (done, name) in indexed.enumerated() {
                progress("indexing", done, indexed.count)
                let table = try package.featureTable(name)
                try package.createSpatialIndex(table: table.name, column: table.geometryColumn)
                try package.refreshContents(of: package.featureTable(name))
            }
            progress("indexing", indexed.count, indexed.count)
        }
        return summary
    }
}
