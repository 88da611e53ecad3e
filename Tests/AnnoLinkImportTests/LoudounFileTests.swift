import AnnoLinkGeometry
import AnnoLinkImport
import AnnoLinkTestSupport
import Foundation
import Testing

/// The decoders on every row of the Loudoun geodatabase, checked against what ArcGIS stored
/// beside the blobs (lengths, texts, angles, extents).
@Suite("Loudoun geodatabase")
struct LoudounFileTests {
    let database: LoudounDatabase

    init() throws {
        database = try LoudounDatabase(path: Fixtures.loudoun)
    }

    /// The parsed definition of `main.<table>`.
    func definition(_ table: String) throws -> GeodatabaseItemDefinition {
        let row = try #require(try database.rows("SELECT Definition FROM GDB_Items WHERE Name = 'main.\(table)'").first)
        return try GeodatabaseItemDefinition(xml: try #require(row[0].text))
    }

    @Test("114 of 115 parcel lines are as long as their Length attribute, within 0.01 ft")
    func parcelLengths() throws {
        let grid = try #require(try definition("ParcelLines_1").grid)
        let rows = try database.rows("SELECT Length, Shape FROM ParcelLines_1 WHERE \(GeodatabaseArchive.currentRowCondition)")
        #expect(rows.count == 115)
        var matching = 0
        for row in rows {
            let geometry = try EsriShapeBlob.decode(try #require(row[1].blob), grid: grid)
            guard case .lineString(let line) = geometry else {
                Issue.record("expected a line, got \(geometry.kind)")
                continue
            }
            if abs(line.length - (try #require(row[0].double))) < 0.01 { matching += 1 }
        }
        #expect(matching >= 114)
    }

    @Test("all 148 annotation rows decode: footprints are closed rectangles, Elements match their columns",
          arguments: ["ParcelLinesAnno_1", "Loudoun_Address_PointsAnno_1"])
    func annotationRows(_ table: String) throws {
        let grid = try #require(try definition(table).grid)
        let rows = try database.rows("SELECT TextString, Angle, WordSpacing, SHAPE, Element FROM \(table) WHERE \(GeodatabaseArchive.currentRowCondition)")
        #expect(rows.count == (table == "ParcelLinesAnno_1" ? 115 : 33))
        for row in rows {
            let geometry = try EsriShapeBlob.decode(try #require(row[3].blob), grid: grid)
            guard case .polygon(let footprint) = geometry else {
                Issue.record("expected a polygon, got \(geometry.kind)")
                continue
            }
            #expect(footprint.rings.count == 1)
            #expect(footprint.exterior?.points.count == 5)
            #expect(footprint.exterior?.isClosed == true)
            let element = try AnnotationElement(try #require(row[4].blob))
            #expect(element.text == row[0].text)
            #expect(abs(element.angle - (try #require(row[1].double))) < 1e-9)
            #expect((element.wordSpacing ?? 100) == row[2].double)
            #expect(try #require(geometry.envelope).contains(element.baselineMidpoint))
            // The baseline runs in the direction of the angle.
            let start = element.baseline.points[0], end = element.baseline.points[1]
            let direction = (atan2(end.y - start.y, end.x - start.x) * 180 / .pi + 360).truncatingRemainder(dividingBy: 360)
            let difference = abs(direction - element.angle)
            #expect(min(difference, 360 - difference) < 0.01)
        }
    }

    @Test("every geometry of every feature class decodes, and together they span the extent ArcGIS recorded", arguments: [
        "Loudoun_Address_Points_1", "ParcelLines_1", "Loudoun_Address_PointsAnno_1", "ParcelLinesAnno_1",
        "Loudoun_Buildings_1", "Loudoun_Road_Casings_1", "Loudoun_Forest_1", "Loudoun_Subdivision_1",
    ])
    func everyGeometry(_ table: String) throws {
        let definition = try definition(table)
        let grid = try #require(definition.grid)
        let column = try #require(definition.shapeFieldName)
        var union: Envelope?
        for row in try database.rows("SELECT \(column) FROM \(table) WHERE \(column) IS NOT NULL") {
            let geometry = try EsriShapeBlob.decode(try #require(row[0].blob), grid: grid)
            let envelope = try #require(geometry.envelope)
            union = union.map { $0.union(envelope) } ?? envelope
        }
        let recorded = try #require(definition.extent)
        let decoded = try #require(union)
        // The extent is stored as decimal text; 1e-6 ft covers its rounding.
        #expect(abs(decoded.minX - recorded.minX) < 1e-6)
        #expect(abs(decoded.minY - recorded.minY) < 1e-6)
        #expect(abs(decoded.maxX - recorded.maxX) < 1e-6)
        #expect(abs(decoded.maxY - recorded.maxY) < 1e-6)
    }

    @Test("address text sits centred over its point for at least 31 of 33 points")
    func addressAnchors() throws {
        let grid = try #require(try definition("Loudoun_Address_Points_1").grid)
        let rows = try database.rows("""
            SELECT p.Shape, a.Element FROM Loudoun_Address_Points_1 p
            JOIN Loudoun_Address_PointsAnno_1 a ON a.FeatureGlobalID = p.GlobalID
            """)
        #expect(rows.count == 33)
        var centred = 0
        for row in rows {
            guard case .point(let point) = try EsriShapeBlob.decode(try #require(row[0].blob), grid: grid) else {
                Issue.record("expected a point")
                continue
            }
            let anchor = try AnnotationElement(try #require(row[1].blob)).baselineMidpoint
            if abs(anchor.x - point.x) < 0.05 { centred += 1 }
        }
        #expect(centred >= 31)
    }

    @Test("every item definition parses, and each annotation class links to its origin")
    func definitions() throws {
        for row in try database.rows("SELECT Name, Definition FROM GDB_Items WHERE Definition IS NOT NULL") {
            #expect(throws: Never.self, "\(row[0].text ?? "?")") { try GeodatabaseItemDefinition(xml: row[1].text ?? "") }
        }
        let relationships = try database.rows("SELECT Definition FROM GDB_Items WHERE Type = '\(GeodatabaseItemDefinition.ItemTypeID.relationshipClass)'")
            .map { try GeodatabaseItemDefinition(xml: $0[0].text ?? "") }
        #expect(relationships.count == 2)
        let parcels = try definition("ParcelLinesAnno_1").annotationLink(in: relationships)
        #expect(parcels?.originTableName == "ParcelLines_1")
        #expect(parcels?.originForeignKey == "FeatureGlobalID")
        #expect(try definition("Loudoun_Address_PointsAnno_1").annotationLink(in: relationships)?.originTableName == "Loudoun_Address_Points_1")
    }

    @Test("every column of the four tables has a GeoPackage type, and every field is a column", arguments: [
        "Loudoun_Address_Points_1", "ParcelLines_1", "Loudoun_Address_PointsAnno_1", "ParcelLinesAnno_1",
    ])
    func columnTypes(_ table: String) throws {
        let declared = Dictionary(uniqueKeysWithValues: try database.rows("PRAGMA table_info(\(table))").map { ($0[1].text ?? "", $0[2].text ?? "") })
        for (_, type) in declared {
            #expect(throws: Never.self, "\(type)") { try GeoPackageColumnType(declaredType: type) }
        }
        for var field in try definition(table).fields {
            let type = try #require(declared[field.name], "\(field.name) is not a column")
            try field.applyDeclaredType(type)
            if field.type == .string { #expect(field.length != nil) }
        }
    }

    @Test("every row is current by the archive rule",
          arguments: ["Loudoun_Address_Points_1", "ParcelLines_1", "Loudoun_Address_PointsAnno_1", "ParcelLinesAnno_1"])
    func currentRows(_ table: String) throws {
        let dates = try database.rows("SELECT gdb_to_date FROM \(table)").map { $0[0].double ?? 0 }
        #expect(!dates.isEmpty)
        #expect(dates.allSatisfy { GeodatabaseArchive.isCurrent(gdbToDate: $0) })
        let current = try database.rows("SELECT count(*) FROM \(table) WHERE \(GeodatabaseArchive.currentRowCondition)")
        #expect(current.first?.first?.integer == Int64(dates.count))
    }
}
