import AnnoLinkEngine
import AnnoLinkGeometry
import AnnoLinkStore

/// A geometry an edit gives, held against the feature's stored one (docs/serve.md, "Round
/// trips that change nothing"): a client that read a feature in some CRS and sends it back
/// untouched must change nothing.
///
/// The stored geometry is transformed into the CRS the edit's coordinates are in, by the same
/// PROJ operation a query in that CRS uses, and each vertex given is the stored one when it is
/// within that CRS's resolution of it (`resolution(of:)`), in x and in y. Comparing there,
/// rather than after transforming the edit back, leaves PROJ's round-trip error out: a vertex
/// read and sent back is then exactly what was read.
struct GeometryMatch {
    /// The geometry given, in the table's CRS, its parts of the stored kind and its rings wound
    /// as the stored rings are; vertices that match take the stored coordinates exactly.
    var geometry: Geometry
    /// Whether every vertex matched (and the shape has the stored parts and vertex counts).
    var unchanged: Bool

    /// Esri's default XY resolution of a projected CRS, the one the Loudoun geodatabase has
    /// (XYScale 3048.006 per US survey foot): 0.0001 m.
    static let linearResolution = 1e-4
    /// Esri's default XY resolution of a geographic CRS, in degrees (about 0.11 mm).
    static let angularResolutionDegrees = 1e-9
}

extension EditService {
    /// `given` (in `crs`; nil: the table's own) held against `stored` (see `GeometryMatch`).
    ///
    /// - Throws: `EditError.nonFiniteCoordinate` for a coordinate to transform that is not a
    ///   finite number (in the table's own CRS such a geometry is left to `validate`, which
    ///   names the vertex); PROJ's errors for a CRS it does not know or a coordinate outside
    ///   the transformation's domain.
    func match(_ given: Geometry, crs: String?, stored: Geometry?, in table: FeatureTable) throws -> GeometryMatch {
        guard given.isFinite else {
            if crs != nil { throw EditError.nonFiniteCoordinate("in the geometry") }
            return GeometryMatch(geometry: Self.promoted(given, to: table.geometryKind ?? stored?.kind), unchanged: false)
        }
        let shaped = Self.wound(Self.promoted(given, to: table.geometryKind ?? stored?.kind), like: stored)
        let tableCRS = try crs == nil ? nil : crsName(of: table)
        let inTable = try crs.map { try coordinateTransformer().transform(shaped, from: $0, to: tableCRS!) } ?? shaped
        guard let stored, Self.sameParts(stored, shaped) else { return GeometryMatch(geometry: inTable, unchanged: false) }
        let storedThere = try crs.map { try coordinateTransformer().transform(stored, from: tableCRS!, to: $0) } ?? stored
        let resolution = try crs.map(resolution(of:)) ?? tableResolution(table)
        var matched: [Bool] = []
        let there = storedThere.allPoints
        var index = 0
        shaped.forEachPoint { p in
            let q = there[index]
            matched.append(abs(p.x - q.x) <= resolution && abs(p.y - q.y) <= resolution)
            index += 1
        }
        if matched.allSatisfy({ $0 }) { return GeometryMatch(geometry: stored, unchanged: true) }
        let storedPoints = stored.allPoints
        index = 0
        let snapped = inTable.mapPoints { p in
            defer { index += 1 }
            return matched[index] ? storedPoints[index] : p
        }
        return GeometryMatch(geometry: snapped, unchanged: false)
    }

    /// The resolution of the CRS `definition` in its own unit: `GeometryMatch.linearResolution`
    /// metres in a projected CRS, `angularResolutionDegrees` in a geographic one.
    func resolution(of definition: String) throws -> Double {
        let crs = try coordinateTransformer().referenceSystem(definition)
        guard crs.unit.factor > 0 else { return GeometryMatch.linearResolution }
        return crs.unit.kind == .angular
            ? GeometryMatch.angularResolutionDegrees * .pi / 180 / crs.unit.factor
            : GeometryMatch.linearResolution / crs.unit.factor
    }

    /// The resolution of `table`'s own CRS, read from the file as `coordinateLimits` reads it
    /// (no PROJ: a file without a known CRS still has one).
    func tableResolution(_ table: FeatureTable) throws -> Double {
        if try coordinateLimits(of: table).unit == "degrees" { return GeometryMatch.angularResolutionDegrees }
        return GeometryMatch.linearResolution / (try store.spatialReferenceSystem(table.srsID)?.metresPerUnitFromDefinition ?? 1)
    }

    /// `geometry` as the multi kind `kind` when it is its single part (a polygon for a
    /// multipolygon column: Esri JSON has one `rings` member for both), else as it is.
    static func promoted(_ geometry: Geometry, to kind: Geometry.Kind?) -> Geometry {
        switch (geometry, kind) {
        case (.point(let p), .multiPoint?): .multiPoint(MultiPoint([p]))
        case (.lineString(let l), .multiLineString?): .multiLineString(MultiLineString([l]))
        case (.polygon(let p), .multiPolygon?): .multiPolygon(MultiPolygon([p]))
        default: geometry
        }
    }

    /// `geometry` with each ring wound as `stored` winds its rings: the ring of the same
    /// polygon and place as a stored ring turns its way, any other exterior as the stored
    /// exteriors turn and any other hole the other way. A closed ring reversed keeps its first
    /// vertex. Without stored polygons the rings stay as given.
    static func wound(_ geometry: Geometry, like stored: Geometry?) -> Geometry {
        let reference = polygons(of: stored)
        guard let exteriorTurn = reference.first?.exterior.map({ $0.signedArea >= 0 }) else { return geometry }
        func wind(_ polygon: Polygon, at p: Int) -> Polygon {
            Polygon(rings: polygon.rings.enumerated().map { r, ring in
                let counterClockwise: Bool
                if p < reference.count, r < reference[p].rings.count {
                    counterClockwise = reference[p].rings[r].signedArea >= 0
                } else {
                    counterClockwise = r == 0 ? exteriorTurn : !exteriorTurn
                }
                let area = ring.signedArea
                return area != 0 && (area > 0) != counterClockwise ? LineString(ring.points.reversed()) : ring
            })
        }
        switch geometry {
        case .polygon(let p): return .polygon(wind(p, at: 0))
        case .multiPolygon(let m): return .multiPolygon(MultiPolygon(m.polygons.enumerated().map { wind($1, at: $0) }))
        default: return geometry
        }
    }

    static func polygons(of geometry: Geometry?) -> [Polygon] {
        switch geometry {
        case .polygon(let p)?: [p]
        case .multiPolygon(let m)?: m.polygons
        default: []
        }
    }

    /// Whether both are of one kind with the same parts and vertex counts, so that their
    /// vertices pair off in storage order.
    static func sameParts(_ a: Geometry, _ b: Geometry) -> Bool {
        func counts(_ g: Geometry) -> [Int] {
            switch g {
            case .point(let p): [p.isEmpty ? 0 : 1]
            case .lineString(let l): [l.points.count]
            case .polygon(let p): p.rings.map(\.points.count)
            case .multiPoint(let m): m.points.map { $0.isEmpty ? 0 : 1 }
            case .multiLineString(let m): m.lines.map(\.points.count)
            case .multiPolygon(let m): m.polygons.flatMap { [-1] + $0.rings.map(\.points.count) }
            }
        }
        return a.kind == b.kind && counts(a) == counts(b)
    }
}
