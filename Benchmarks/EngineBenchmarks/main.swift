// Measures the two obvious ways of moving geometry values into and out of GEOS:
//
// - coordinate sequences copied in one block (`GEOSCoordSeq_copyFromBuffer_r` /
//   `GEOSCoordSeq_copyToBuffer_r`), which AnnoLinkEngine uses, through its public API;
// - ISO WKB, written and read by a minimal Swift codec here and parsed and written by GEOS
//   (`GEOSWKBReader_read_r` / `GEOSWKBWriter_write_r`).
//
// It also times what PROJ costs: a transformer, its first transformation, one point.
//
// Run with `swift run -c release EngineBenchmarks`. The figures are in docs/engine.md.
import AnnoLinkEngine
import AnnoLinkGeometry
import CGEOS
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: Shapes

func square(_ x: Double, _ y: Double, _ side: Double) -> LineString {
    LineString([Point(x: x, y: y), Point(x: x + side, y: y), Point(x: x + side, y: y + side),
                Point(x: x, y: y + side), Point(x: x, y: y)])
}

func circle(_ count: Int, radius: Double) -> LineString {
    var points = (0..<count).map { index -> Point in
        let angle = Double(index) / Double(count) * 2 * Double.pi
        return Point(x: 11896140 + radius * cos(angle), y: 7034250 + radius * sin(angle))
    }
    points.append(points[0])
    return LineString(points)
}

let shapes: [(String, Geometry)] = [
    ("point", .point(Point(x: 11896140, y: 7034250))),
    ("2-point line (parcel line)", .lineString(LineString([Point(x: 11896140, y: 7034250), Point(x: 11896180.5, y: 7034290.25)]))),
    ("5-vertex polygon (footprint)", .polygon(Polygon(exterior: square(11896140, 7034250, 40)))),
    ("100-vertex polygon + hole", .polygon(Polygon(exterior: circle(99, radius: 100), holes: [square(11896130, 7034240, 20)]))),
    ("10 000-vertex line", .lineString(LineString(circle(9_999, radius: 500).points))),
]

// MARK: Minimal ISO WKB codec (little-endian, XY)

struct WKBWriter {
    var bytes: [UInt8] = []

    /// A writer with room for `geometry`, so that the timing is not of array growth.
    init(reservingFor geometry: Geometry? = nil) {
        guard let geometry else { return }
        var parts = 0
        forEachPart(geometry) { _ in parts += 1 }
        bytes.reserveCapacity(9 + 9 * parts + 4 * parts + 16 * geometry.allPoints.count)
    }

    private func forEachPart(_ geometry: Geometry, _ body: (Int) -> Void) {
        switch geometry {
        case .point: body(1)
        case .lineString: body(1)
        case .polygon(let p): p.rings.forEach { _ in body(1) }
        case .multiPoint(let m): m.points.forEach { _ in body(1) }
        case .multiLineString(let m): m.lines.forEach { _ in body(1) }
        case .multiPolygon(let m): m.polygons.forEach { $0.rings.forEach { _ in body(1) } }
        }
    }

    mutating func uint32(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func double(_ value: Double) {
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func points(_ points: [Point]) {
        uint32(UInt32(points.count))
        for point in points {
            double(point.x)
            double(point.y)
        }
    }

    mutating func header(_ code: UInt32) {
        bytes.append(1)
        uint32(code)
    }

    mutating func write(_ geometry: Geometry) {
        header(geometry.kind.wkbCode)
        switch geometry {
        case .point(let p):
            double(p.x)
            double(p.y)
        case .lineString(let l):
            points(l.points)
        case .polygon(let p):
            uint32(UInt32(p.rings.count))
            p.rings.forEach { points($0.points) }
        case .multiPoint(let m):
            uint32(UInt32(m.points.count))
            m.points.forEach { write(.point($0)) }
        case .multiLineString(let m):
            uint32(UInt32(m.lines.count))
            m.lines.forEach { write(.lineString($0)) }
        case .multiPolygon(let m):
            uint32(UInt32(m.polygons.count))
            m.polygons.forEach { write(.polygon($0)) }
        }
    }
}

struct WKBReader {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    mutating func uint32() -> UInt32 {
        defer { offset += 4 }
        return UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    mutating func double() -> Double {
        defer { offset += 8 }
        return Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
    }

    mutating func points() -> [Point] {
        let count = Int(uint32())
        var result: [Point] = []
        result.reserveCapacity(count)
        for _ in 0..<count {
            let x = double()
            result.append(Point(x: x, y: double()))
        }
        return result
    }

    mutating func read() -> Geometry {
        precondition(bytes[offset] == 1, "the benchmark asks GEOS for little-endian WKB")
        offset += 1
        switch uint32() {
        case 1:
            let x = double()
            return .point(Point(x: x, y: double()))
        case 2:
            return .lineString(LineString(points()))
        case 3:
            return .polygon(Polygon(rings: (0..<uint32()).map { _ in LineString(points()) }))
        case 4:
            return .multiPoint(MultiPoint((0..<uint32()).map { _ in
                guard case .point(let p) = read() else { fatalError("not a point") }
                return p
            }))
        case 5:
            return .multiLineString(MultiLineString((0..<uint32()).map { _ in
                guard case .lineString(let l) = read() else { fatalError("not a line") }
                return l
            }))
        case 6:
            return .multiPolygon(MultiPolygon((0..<uint32()).map { _ in
                guard case .polygon(let p) = read() else { fatalError("not a polygon") }
                return p
            }))
        case let code:
            fatalError("WKB type \(code) is not XY simple features")
        }
    }
}

// MARK: Timing

/// Mean time per call in microseconds, over enough calls to take about 0.3 s.
func measure(_ body: () -> Void) -> Double {
    let clock = ContinuousClock()
    for _ in 0..<100 { body() }
    var iterations = 100
    while true {
        let elapsed = clock.measure { for _ in 0..<iterations { body() } }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        if seconds >= 0.3 { return seconds / Double(iterations) * 1e6 }
        iterations *= 2
    }
}

func column(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}

func microseconds(_ value: Double) -> String {
    let rounded = (value * 100).rounded() / 100
    return column("\(rounded) µs", 12)
}

let context = try GEOSContext()
guard let handle = GEOS_init_r() else { fatalError("GEOS_init_r failed") }
defer { GEOS_finish_r(handle) }
guard let wkbReader = GEOSWKBReader_create_r(handle), let wkbWriter = GEOSWKBWriter_create_r(handle) else {
    fatalError("cannot make GEOS WKB reader and writer")
}
GEOSWKBWriter_setByteOrder_r(handle, wkbWriter, Int32(GEOS_WKB_NDR.rawValue))

print("GEOS \(GEOSContext.version)")
print(column("shape", 30), column("to GEOS: seq", 14), column("to GEOS: WKB", 14), column("from GEOS: seq", 16), column("from GEOS: WKB", 14),
      column("(GEOS WKB parse", 16), "GEOS WKB write)")
for (name, shape) in shapes {
    // Both paths must give the same geometry, or the comparison means nothing.
    var check = WKBWriter()
    check.write(shape)
    let checked = check.bytes.withUnsafeBufferPointer { GEOSWKBReader_read_r(handle, wkbReader, $0.baseAddress, $0.count) }!
    var size = 0
    let written = GEOSWKBWriter_write_r(handle, wkbWriter, checked, &size)!
    var reader = WKBReader(bytes: UnsafeRawBufferPointer(start: written, count: size))
    precondition(reader.read() == shape, "WKB path changed \(name)")
    let sequenceResult = try GEOSGeometry(shape, context: context).value()
    precondition(sequenceResult == shape, "sequence path changed \(name)")
    GEOSFree_r(handle, written)
    GEOSGeom_destroy_r(handle, checked)

    let toGEOSSequence = measure {
        _ = try! GEOSGeometry(shape, context: context)
    }
    let capacityHint = WKBWriter(reservingFor: shape).bytes.capacity
    let toGEOSWKB = measure {
        var writer = WKBWriter()
        writer.bytes.reserveCapacity(capacityHint)
        writer.write(shape)
        let geometry = writer.bytes.withUnsafeBufferPointer { GEOSWKBReader_read_r(handle, wkbReader, $0.baseAddress, $0.count) }
        GEOSGeom_destroy_r(handle, geometry)
    }
    // GEOS's share of the WKB path alone, without the Swift codec.
    let parseOnly = measure {
        let geometry = check.bytes.withUnsafeBufferPointer { GEOSWKBReader_read_r(handle, wkbReader, $0.baseAddress, $0.count) }
        GEOSGeom_destroy_r(handle, geometry)
    }
    let held = try GEOSGeometry(shape, context: context)
    let fromGEOSSequence = measure {
        _ = try! held.value()
    }
    let raw = check.bytes.withUnsafeBufferPointer { GEOSWKBReader_read_r(handle, wkbReader, $0.baseAddress, $0.count) }!
    let fromGEOSWKB = measure {
        var size = 0
        let bytes = GEOSWKBWriter_write_r(handle, wkbWriter, raw, &size)!
        var reader = WKBReader(bytes: UnsafeRawBufferPointer(start: bytes, count: size))
        _ = reader.read()
        GEOSFree_r(handle, bytes)
    }
    let writeOnly = measure {
        var size = 0
        GEOSFree_r(handle, GEOSWKBWriter_write_r(handle, wkbWriter, raw, &size))
    }
    GEOSGeom_destroy_r(handle, raw)
    print(column(name, 30), microseconds(toGEOSSequence), " ", microseconds(toGEOSWKB), " ",
          microseconds(fromGEOSSequence), "   ", microseconds(fromGEOSWKB), microseconds(parseOnly), microseconds(writeOnly))
}
GEOSWKBReader_destroy_r(handle, wkbReader)
GEOSWKBWriter_destroy_r(handle, wkbWriter)

// MARK: PROJ

func milliseconds(_ duration: Duration) -> Double {
    (Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18) * 1e3
}

let clock = ContinuousClock()
var transformer: CoordinateTransformer?
let makeTransformer = clock.measure { transformer = try! CoordinateTransformer() }
let firstTransformation = clock.measure { _ = try! transformer!.transformation(from: "EPSG:2924", to: "EPSG:4326") }
let sterling = Point(x: 11896140, y: 7034250)
let perPoint = measure { _ = try! transformer!.transform(sterling, from: "EPSG:2924", to: "EPSG:4326") }
print()
print("PROJ \(CoordinateTransformer.projVersion)")
print("CoordinateTransformer():                       \((milliseconds(makeTransformer) * 1000).rounded() / 1000) ms")
print("first transformation EPSG:2924 → EPSG:4326:    \((milliseconds(firstTransformation) * 10).rounded() / 10) ms")
print("one point EPSG:2924 → EPSG:4326 (cached, with round-trip check): \(microseconds(perPoint))")
