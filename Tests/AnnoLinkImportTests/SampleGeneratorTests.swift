import AnnoLinkEngine
import AnnoLinkGeometry
import AnnoLinkImport
import AnnoLinkStore
import AnnoLinkTestSupport
import Foundation
import Testing

/// The synthetic sample looks like the Loudoun data (docs/benchmarks.md, "What the sample looks
/// like") and leaves every label room at the reference scale.
@Suite("sample generator")
struct SampleGeneratorTests {
    /// Every parcel line and address point of a sample of `parcels` parcels.
    static func generate(parcels: Int, seed: UInt64) -> (points: [SampleGenerator.AddressPoint], lines: [SampleGenerator.ParcelLine]) {
        var points: [SampleGenerator.AddressPoint] = [], lines: [SampleGenerator.ParcelLine] = []
        SampleGenerator(parcels: parcels, seed: seed).generate(address: { points.append($0) }, line: { lines.append($0) })
        return (points, lines)
    }

    static func length(_ line: SampleGenerator.ParcelLine) -> Double {
        ((line.end.x - line.start.x) * (line.end.x - line.start.x) + (line.end.y - line.start.y) * (line.end.y - line.start.y)).squareRoot()
    }

    static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

    @Test("as written, no two labels touch, in either table or across them (GEOS intersects)", arguments: [1, 2, 3] as [UInt64])
    func labelsDoNotOverlap(seed: UInt64) throws {
        let scratch = try ScratchDirectory(prefix: "sample")
        let package = try GeoPackage.create(path: scratch.path("s.gpkg"))
        try package.addSpatialReferenceSystem(epsg: SampleGenerator.srsID)
        let summary = try SampleWriter.write(SampleGenerator(parcels: 480, seed: seed), into: package)
        #expect(summary.annotationRows == 480 + 1240)

        var footprints: [(geometry: Geometry, box: Envelope)] = []
        for table in ["address_points_anno", "parcel_lines_anno"] {
            for row in try package.connection.rows("SELECT geom FROM \(table) WHERE Status = 0") {
                let geometry = try GeoPackageGeometry(blob: try #require(row[0].blobValue)).geometry
                footprints.append((geometry, try #require(geometry.envelope)))
            }
        }
        #expect(footprints.count == summary.annotationRows)
        footprints.sort { $0.box.minX < $1.box.minX }
        let engine = try GeometryEngine()
        var touching = 0
        for i in footprints.indices {
            for j in (i + 1)..<footprints.count {
                let a = footprints[i].box, b = footprints[j].box
                if b.minX > a.maxX { break }
                if b.minY > a.maxY || a.minY > b.maxY { continue }
                if try engine.intersects(footprints[i].geometry, footprints[j].geometry) { touching += 1 }
            }
        }
        #expect(touching == 0)
    }

    @Test("frontages, depths and streets are Loudoun-sized; 62 lines per 24 parcels, as before")
    func sizes() throws {
        let (points, lines) = Self.generate(parcels: 2400, seed: 1)
        #expect(points.count == 2400)
        #expect(lines.count == 6200)
        // Fronts: the street on one side and nearly east-west. The drawn widths (95–300 ft) move
        // by the side lines' lean, up to 8 ft at each end.
        let fronts = lines.filter { $0.rightParcel == nil && abs($0.end.y - $0.start.y) < 10 }.map(Self.length)
        #expect(fronts.count == 2400)
        #expect(fronts.allSatisfy { (79...316).contains($0) }, "\(fronts.min() ?? 0)…\(fronts.max() ?? 0)")
        // Log-uniform over 95–300 ft: the median is √(95 × 300) = 169 ft.
        #expect(abs(Self.median(fronts) - 169) < 8, "median frontage \(Self.median(fronts))")
        // Side lines run front to back: the parcels' depths, 42–58 % of 340–600 ft.
        let sides = lines.filter { abs($0.end.y - $0.start.y) > 100 }.map(Self.length)
        #expect(sides.count == 2400 + 200)
        #expect(sides.allSatisfy { (140...352).contains($0) }, "\(sides.min() ?? 0)…\(sides.max() ?? 0)")
        // East-west streets: between one grid row's north fronts and the next row's south
        // fronts (each within 2 ft of its row's line). Fronts cluster by y, two per grid row.
        var rows: [[Double]] = []
        for y in lines.filter({ $0.rightParcel == nil && abs($0.end.y - $0.start.y) < 10 }).map({ ($0.start.y + $0.end.y) / 2 }).sorted() {
            if let last = rows.last?.last, y - last < 20 { rows[rows.count - 1].append(y) } else { rows.append([y]) }
        }
        #expect(rows.count % 2 == 0 && rows.count >= 6, "\(rows.count) front lines")
        let streets = stride(from: 1, to: rows.count - 1, by: 2).map { rows[$0 + 1].min()! - rows[$0].max()! }
        #expect(streets.allSatisfy { (46...100).contains($0) }, "\(streets)")
        // North-south streets: from a block's west line to the east line of the block before it.
        let west = lines.filter { $0.leftParcel == nil && abs($0.end.y - $0.start.y) > 100 }
        let east = lines.filter { $0.rightParcel == nil && $0.leftParcel != nil && abs($0.end.y - $0.start.y) > 100 }
        let gaps = west.compactMap { w in
            east.filter { max($0.start.y, $0.end.y) > min(w.start.y, w.end.y) && min($0.start.y, $0.end.y) < max(w.start.y, w.end.y) && $0.start.x < w.start.x }
                .map { w.start.x - $0.start.x }.min()
        }
        #expect(gaps.count > 50)
        #expect(gaps.allSatisfy { (50...96).contains($0) }, "\(gaps.min() ?? 0)…\(gaps.max() ?? 0)")
    }

    @Test("address points sit inside their parcels, 18 ft or more from every parcel line, at Loudoun's spacing")
    func addressPoints() throws {
        let (points, lines) = Self.generate(parcels: 480, seed: 2)
        let engine = try GeometryEngine()
        var byParcel: [Int64: [Geometry]] = [:]
        for line in lines {
            let geometry = Geometry.lineString(LineString([line.start, line.end]))
            for parcel in [line.leftParcel, line.rightParcel].compactMap({ $0 }) { byParcel[parcel, default: []].append(geometry) }
        }
        var nearest: [Double] = []
        for point in points {
            let boundary = try #require(byParcel[point.parcelID])
            let distances = try boundary.map { try engine.distance(from: .point(point.location), to: $0) }
            #expect(distances.min()! >= 18, "point of parcel \(point.parcelID) is \(distances.min()!) ft from a line")
            nearest.append(points.filter { $0.parcelID != point.parcelID }.map {
                (($0.location.x - point.location.x) * ($0.location.x - point.location.x) +
                    ($0.location.y - point.location.y) * ($0.location.y - point.location.y)).squareRoot()
            }.min()!)
        }
        // Loudoun: 112–427 ft to the nearest other address point, median 168 ft.
        #expect(nearest.min()! > 100, "closest address points \(nearest.min()!) ft apart")
        #expect((150...200).contains(Self.median(nearest)), "median spacing \(Self.median(nearest))")
    }
}
