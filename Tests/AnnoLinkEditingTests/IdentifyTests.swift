import AnnoLinkEditing
import AnnoLinkEngine
import AnnoLinkGeometry
import AnnoLinkImport
import AnnoLinkStore
import AnnoLinkTestSupport
import Foundation
import Testing

/// The Loudoun data as `annolink import` writes it, in its own temporary directory, with an
/// edit service on it.
final class LoudounScratch {
    let directory: URL
    let path: String
    let package: GeoPackage
    let service: EditService

    static let points = "Loudoun_Address_Points_1"
    static let pointsAnnotation = "Loudoun_Address_PointsAnno_1"
    static let lines = "ParcelLines_1"

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("annolink-identify-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("loudoun.gpkg").path
        let source = try Connection(path: Fixtures.loudoun, mode: .readOnly)
        _ = try GeoPackage.build(at: path) { try MobileGeodatabaseImporter.run(source: source, into: $0) }
        package = try GeoPackage(path: path)
        service = EditService(package: package)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// Every feature of `table` as (fid, geometry), in fid order.
    func features(_ table: String) throws -> [(fid: Int64, geometry: Geometry)] {
        var all: [(Int64, Geometry)] = []
        try package.forEachFeature(package.featureTable(table)) { feature in
            if let geometry = feature.geometry { all.append((feature.fid, geometry)) }
        }
        return all
    }

    /// The address points as (fid, point in EPSG:2924).
    func addressPoints() throws -> [(fid: Int64, point: Point)] {
        try features(Self.points).map { fid, geometry in
            guard case .point(let p) = geometry else { throw ScratchError("address point \(fid) is not a point") }
            return (fid, p)
        }
    }

    /// Longitude and latitude of `points` (EPSG:2924) as PROJ's `cs2cs` gives them, an oracle
    /// from outside the project: one run for all of them.
    static func longitudeLatitude(of points: [Point]) throws -> [Point] {
        let input = points.map { String(format: "%.6f %.6f", $0.x, $0.y) }.joined(separator: "\n") + "\n"
        let output = try ExternalTool.cs2cs.output(["-f", "%.10f", "EPSG:2924", "EPSG:4326"], input: input)
        return try output.split(separator: "\n").map { line in
            // cs2cs writes latitude, longitude (EPSG:4326's axis order), then the height.
            let numbers = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap { Double($0) }
            guard numbers.count >= 2 else { throw ScratchError("cs2cs wrote '\(line)'") }
            return Point(x: numbers[1], y: numbers[0])
        }
    }
}

@Suite("Identify and PickFeature")
struct IdentifyTests {
    /// 10 points at 1:1200 in US survey feet: 10/72 in × 1200 = 1666.67 in of 1200/3937 m ft.
    static let loudounTolerance = 10.0 / 72 * 0.0254 * 1200 / (1200.0 / 3937.0)

    @Test("identify at an address point's longitude and latitude (cs2cs) lists that point first, with its label; so for every point")
    func addressPointsByLongitudeLatitude() throws {
        let s = try LoudounScratch()
        let points = try s.addressPoints()
        #expect(points.count == 33)
        let lonLat = try LoudounScratch.longitudeLatitude(of: points.map(\.point))
        for ((fid, point), location) in zip(points, lonLat) {
            let found = try s.service.run(Identify(location: location, crs: "EPSG:4326"))
            let first = try #require(found.features.first, "address point \(fid): nothing found")
            #expect(first.table == LoudounScratch.points && first.fid == fid, "address point \(fid): first is \(first.table) \(first.fid)")
            // cs2cs prints 1e-10°, about 3e-5 ft; PROJ's round trip adds nothing worth counting.
            #expect(first.distance < 0.001, "address point \(fid): \(first.distance) ft")
            let label = try #require(first.annotation.first)
            #expect(label.annotationTable == LoudounScratch.pointsAnnotation && label.row.featureID == fid)
            let feature = try s.package.feature(s.package.featureTable(LoudounScratch.points), fid: fid)
            let number = feature.attributes["AD_ADDRESS"].map { "\($0.integerValue ?? -1)" } ?? ""
            #expect(label.row.text.hasPrefix(number + " "), "\(label.row.text)")
            // Its label is among the annotation rows found, linked back to it.
            #expect(found.annotation.contains { $0.annotationTable == LoudounScratch.pointsAnnotation && $0.row.featureID == fid
                && $0.originTable == LoudounScratch.points })
            // Every table of the file was searched, each in EPSG:2924 with the default tolerance.
            #expect(found.searched.count == 8)
            for searched in found.searched {
                #expect(abs(searched.tolerance - Self.loudounTolerance) < 1e-9)
                #expect(abs(searched.location.x - point.x) < 0.001 && abs(searched.location.y - point.y) < 0.001)
            }
            // Nothing beyond the tolerance; features come points, lines, polygons, nearest first.
            #expect(found.features.allSatisfy { $0.distance <= Self.loudounTolerance })
            #expect(found.annotation.allSatisfy { $0.distance <= Self.loudounTolerance })
            #expect(zip(found.annotation, found.annotation.dropFirst()).allSatisfy { $0.distance <= $1.distance })

            let picked = try s.service.run(PickFeature(table: LoudounScratch.points, location: location, crs: "EPSG:4326"))
            #expect(picked.fid == fid && picked.table == LoudounScratch.points)
        }
    }

    @Test("what identify finds is what a scan of every feature finds within the tolerance, by GEOS's distance")
    func sameAsAScan() throws {
        let s = try LoudounScratch()
        let engine = try GeometryEngine()
        // 7 ft east of a vertex three parcel lines share.
        let location = Point(x: 11_789_582, y: 7_055_835)
        for (tolerance, count) in [(5.0, 0), (40.0, 3), (150.0, 6), (400.0, 9)] {
            let found = try s.service.run(Identify(location: location, tolerance: tolerance, table: LoudounScratch.lines))
            var expected: [Int64] = []
            for (fid, geometry) in try s.features(LoudounScratch.lines) where try engine.distance(from: .point(location), to: geometry) <= tolerance {
                expected.append(fid)
            }
            #expect(Set(found.features.map(\.fid)) == Set(expected), "tolerance \(tolerance)")
            #expect(found.features.count == expected.count && expected.count == count, "tolerance \(tolerance)")
            #expect(zip(found.features, found.features.dropFirst()).allSatisfy { $0.distance <= $1.distance })
        }
    }

    @Test("a tolerance is a closed bound: a point at distance d is found with d and not with d less a little")
    func toleranceBound() throws {
        let s = try LoudounScratch()
        let (fid, point) = try #require(try s.addressPoints().first)
        let location = Point(x: point.x + 3, y: point.y + 4)
        let found = try s.service.run(Identify(location: location, tolerance: 5, table: LoudounScratch.points))
        #expect(found.features.map(\.fid).contains(fid))
        #expect(found.features.first { $0.fid == fid }?.distance == 5)
        let short = try s.service.run(Identify(location: location, tolerance: 4.999, table: LoudounScratch.points))
        #expect(!short.features.map(\.fid).contains(fid))
    }

    @Test("at a vertex two parcel lines share, PickFeature refuses and lists both at distance 0")
    func ambiguous() throws {
        let s = try LoudounScratch()
        var ends: [Point: [Int64]] = [:]
        for (fid, geometry) in try s.features(LoudounScratch.lines) {
            guard case .lineString(let line) = geometry else { continue }
            for end in [line.points.first!, line.points.last!] { ends[end, default: []].append(fid) }
        }
        let (vertex, fids) = try #require(ends.filter { $0.value.count >= 2 }.min { ($0.key.x, $0.key.y) < ($1.key.x, $1.key.y) })
        let error = #expect(throws: EditError.self) { try s.service.run(PickFeature(table: LoudounScratch.lines, location: vertex)) }
        guard case .ambiguousLocation(let table, _, let tolerance, let candidates, let more)? = error else {
            Issue.record("expected ambiguousLocation, got \(String(describing: error))")
            return
        }
        #expect(table == LoudounScratch.lines && more == 0 && abs(tolerance - Self.loudounTolerance) < 1e-9)
        #expect(Set(fids).isSubset(of: Set(candidates.map(\.fid))))
        #expect(candidates.filter { $0.distance == 0 }.count == Set(fids).count)
        #expect(error?.candidateLines.count == candidates.count)
        #expect(error?.candidateLines.first == "fid \(candidates[0].fid) at 0.000")
    }

    @Test("a location with nothing near is refused, naming the table and the tolerance")
    func nothing() throws {
        let s = try LoudounScratch()
        let error = #expect(throws: EditError.self) {
            try s.service.run(PickFeature(table: LoudounScratch.points, location: Point(x: 11_700_000, y: 7_000_000)))
        }
        #expect(error == .nothingAtLocation(table: LoudounScratch.points, location: "11700000,7000000", tolerance: Self.loudounTolerance, nearest: []))
        #expect(error?.candidateLines == [])
        // 20 ft east of an address point (beyond 13.889 ft): refused, with that point listed as the nearest.
        let (fid, point) = try #require(try s.addressPoints().first)
        let near = #expect(throws: EditError.self) {
            try s.service.run(PickFeature(table: LoudounScratch.points, location: Point(x: point.x + 20, y: point.y)))
        }
        guard case .nothingAtLocation(_, _, _, let nearest)? = near else {
            Issue.record("expected nothingAtLocation, got \(String(describing: near))")
            return
        }
        #expect(nearest.first?.fid == fid && abs((nearest.first?.distance ?? 0) - 20) < 1e-6)
        #expect(nearest.count <= PickFeature.listedNearest && zip(nearest, nearest.dropFirst()).allSatisfy { $0.distance <= $1.distance })
        let found = try s.service.run(Identify(location: Point(x: 11_700_000, y: 7_000_000)))
        #expect(found.features.isEmpty && found.annotation.isEmpty && found.searched.count == 8)
    }

    @Test("on an annotation table the footprints are searched: the label at its anchor is picked")
    func annotationTable() throws {
        let s = try LoudounScratch()
        let table = try s.package.featureTable(LoudounScratch.pointsAnnotation)
        let row = try s.package.annotationRow(table, fid: 5)
        let anchor = try #require(row.anchor)
        let picked = try s.service.run(PickFeature(table: LoudounScratch.pointsAnnotation, location: anchor))
        #expect(picked.fid == 5 && picked.distance == 0)
        let found = try s.service.run(Identify(location: anchor, table: LoudounScratch.pointsAnnotation))
        #expect(found.features.isEmpty && found.annotation.first?.row.fid == 5 && found.annotation.first?.row.featureID == row.featureID)
    }

    @Test("bad input: a negative or infinite tolerance, a non-finite location, an unknown table or CRS, no class for a default")
    func refusals() throws {
        let s = try LoudounScratch()
        let here = Point(x: 11_790_400, y: 7_056_300)
        #expect(throws: EditError.invalidTolerance(-1)) { try s.service.run(Identify(location: here, tolerance: -1)) }
        #expect(throws: EditError.self) { try s.service.run(Identify(location: here, tolerance: .infinity)) }
        #expect(throws: EditError.self) { try s.service.run(Identify(location: Point(x: .nan, y: 0))) }
        #expect(throws: StoreError.unknownTable("nope")) { try s.service.run(Identify(location: here, table: "nope")) }
        #expect(throws: (any Error).self) { try s.service.run(Identify(location: here, crs: "EPSG:999999")) }
        try s.package.connection.execute("DELETE FROM annolink_annotation_classes")
        #expect(throws: EditError.noReferenceScale(table: LoudounScratch.points)) {
            try s.service.run(Identify(location: here, table: LoudounScratch.points))
        }
        // A tolerance given needs no class.
        #expect(try s.service.run(Identify(location: here, tolerance: 1, table: LoudounScratch.points)).searched.first?.tolerance == 1)
    }
}
