/// A geometry read from Esri JSON (the ArcGIS REST API's geometry objects) together with the
/// spatial reference ids it named.
///
/// Esri JSON shapes: a point `{"x":…,"y":…}`, a multipoint `{"points":[[x,y],…]}`, a polyline
/// `{"paths":[[[x,y],…],…]}` and a polygon `{"rings":[[[x,y],…],…]}`, each optionally with
/// `"spatialReference":{"wkid":102100,"latestWkid":3857}`. Envelopes (`xmin`…), curves and
/// Z or M (`hasZ`/`hasM` true, three-number positions, a point's `z` or `m`) are refused.
public struct EsriJSONGeometry: Hashable, Sendable {
    /// The geometry, in the coordinates of the spatial reference.
    public var geometry: Geometry
    /// The `wkid` of the spatial reference: the id Esri first gave the CRS (102100 for Web
    /// Mercator); nil when the object names none.
    public var wkid: Int32?
    /// The `latestWkid`: the id the CRS has now, usually its EPSG code (3857); nil when absent.
    public var latestWkid: Int32?

    /// Wraps a geometry and its spatial reference ids for encoding.
    public init(geometry: Geometry, wkid: Int32? = nil, latestWkid: Int32? = nil) {
        self.geometry = geometry
        self.wkid = wkid
        self.latestWkid = latestWkid
    }

    /// Decodes an Esri JSON geometry object.
    ///
    /// The kind follows the member present: `x` gives a point (empty when `x` is null or
    /// "NaN", as the REST API documents), `points` a multipoint, `paths` a line string when it
    /// holds exactly one path and a multi-line string otherwise (no paths: an empty line
    /// string), and `rings` a polygon or multipolygon.
    ///
    /// Esri marks a ring's role by its winding, not its position: clockwise rings are
    /// exteriors and counter-clockwise rings are holes (y pointing up). Each hole is put in
    /// the smallest exterior that contains its first vertex (a point-in-ring test); a hole that
    /// no exterior contains becomes a polygon of its own rather than being dropped. Degenerate
    /// rings of zero area count as exteriors. Vertices keep their order: nothing is rewound.
    ///
    /// Throws `GeometryCodecError` (format `.esriJSON`, offset in characters) for malformed
    /// JSON, no or several geometry members, bad coordinates, Z or M, envelopes and curves, and
    /// a `wkid` that is not a 32-bit integer.
    public init(esriJSON text: String) throws {
        let input = TextInput(text, format: .esriJSON)
        let root = try JSONParser.parse(input)
        self = try EsriJSONReader(input: input).read(root)
    }

    /// Encodes the geometry and its spatial reference as compact Esri JSON.
    ///
    /// A line string or multi-line string becomes `paths`, a polygon or multipolygon `rings`
    /// (all polygons' rings in one list, as Esri stores them), with exteriors rewound
    /// clockwise and holes counter-clockwise because Esri readers take the role from the
    /// winding. The empty point is `{"x":null}`. `spatialReference` is written when `wkid`
    /// or `latestWkid` is set. Coordinates are formatted as by `Geometry.geoJSON()`.
    ///
    /// Throws `GeometryCodecError` (format `.esriJSON`, offset = the vertex's index) for a
    /// NaN or infinite coordinate, or an empty point inside a multipoint.
    public func esriJSON() throws -> String {
        try requireFiniteCoordinates(geometry, format: .esriJSON)
        var out = "{"
        switch geometry {
        case .point(let p):
            if p.isEmpty {
                out += "\"x\":null"
            } else {
                out += "\"x\":"
                CoordinateText.append(p.x, to: &out)
                out += ",\"y\":"
                CoordinateText.append(p.y, to: &out)
            }
        case .multiPoint(let m):
            if let empty = m.points.firstIndex(where: \.isEmpty) {
                throw GeometryCodecError(.esriJSON, offset: empty, "Esri JSON cannot hold the empty point at index \(empty) of a multipoint")
            }
            out += "\"points\":"
            JSONCoordinates.append(m.points, to: &out)
        case .lineString(let l):
            out += "\"paths\":"
            JSONCoordinates.append(l.isEmpty ? [] : [l], to: &out)
        case .multiLineString(let m):
            out += "\"paths\":"
            JSONCoordinates.append(m.lines, to: &out)
        case .polygon(let p):
            out += "\"rings\":"
            JSONCoordinates.append(EsriRings.wound([p]), to: &out)
        case .multiPolygon(let m):
            out += "\"rings\":"
            JSONCoordinates.append(EsriRings.wound(m.polygons), to: &out)
        }
        if wkid != nil || latestWkid != nil {
            out += ",\"spatialReference\":{"
            if let wkid { out += "\"wkid\":\(wkid)" }
            if let latestWkid { out += (wkid == nil ? "" : ",") + "\"latestWkid\":\(latestWkid)" }
            out += "}"
        }
        out += "}"
        return out
    }
}

extension Geometry {
    /// Decodes an Esri JSON geometry, ignoring its spatial reference; see
    /// `EsriJSONGeometry(esriJSON:)`, which keeps it.
    public init(esriJSON text: String) throws {
        self = try EsriJSONGeometry(esriJSON: text).geometry
    }

    /// Encodes the geometry as Esri JSON with an optional spatial reference; see
    /// `EsriJSONGeometry.esriJSON()`.
    public func esriJSON(wkid: Int32? = nil, latestWkid: Int32? = nil) throws -> String {
        try EsriJSONGeometry(geometry: self, wkid: wkid, latestWkid: latestWkid).esriJSON()
    }
}

/// Turns a parsed JSON value into an Esri geometry.
struct EsriJSONReader {
    let input: TextInput

    func read(_ root: JSONValue) throws -> EsriJSONGeometry {
        guard case .object(let members) = root.content else {
            throw input.error("an Esri JSON geometry must be an object, found \(root.typeName)", at: root.offset)
        }
        for flag in ["hasZ", "hasM"] {
            guard let value = root.member(flag) else { continue }
            switch value.content {
            case .bool(true):
                throw GeometryCodecError.unsupportedDimension(.esriJSON, offset: input.characterOffset(of: value.offset), "\(flag) is true")
            case .bool(false), .null: break
            default: throw input.error("\"\(flag)\" must be true or false, found \(value.typeName)", at: value.offset)
            }
        }
        for key in ["curvePaths", "curveRings"] {
            if let value = root.member(key) {
                throw input.error("Esri curves (\"\(key)\") are not supported", at: value.offset)
            }
        }
        if let value = root.member("xmin") {
            throw input.error("Esri envelopes (\"xmin\"…) are not supported: give a polygon", at: value.offset)
        }
        let shapeKeys = ["x", "points", "paths", "rings"]
        let present = members.filter { shapeKeys.contains($0.key) }
        guard let shape = present.first else {
            throw input.error("no Esri geometry member (\"x\", \"points\", \"paths\" or \"rings\") in the object", at: root.offset)
        }
        if present.count > 1 {
            throw input.error("the object has both \"\(shape.key)\" and \"\(present[1].key)\": give one geometry", at: present[1].value.offset)
        }

        let geometry: Geometry
        switch shape.key {
        case "x":
            geometry = try point(root, x: shape.value)
        case "points":
            geometry = .multiPoint(MultiPoint(try input.array(shape.value, "\"points\"").map(input.position)))
        case "paths":
            let paths = try input.array(shape.value, "\"paths\"").map { try input.line($0, "a path") }
            geometry = paths.count == 1 ? .lineString(paths[0])
                : paths.isEmpty ? .lineString(LineString([])) : .multiLineString(MultiLineString(paths))
        default:
            let rings = try input.array(shape.value, "\"rings\"").map { try input.line($0, "a ring") }
            let polygons = EsriRings.polygons(from: rings)
            geometry = polygons.count == 1 ? .polygon(polygons[0])
                : polygons.isEmpty ? .polygon(Polygon(rings: [])) : .multiPolygon(MultiPolygon(polygons))
        }

        var result = EsriJSONGeometry(geometry: geometry)
        if let reference = root.member("spatialReference") {
            switch reference.content {
            case .null: break
            case .object:
                result.wkid = try id(reference.member("wkid"), "wkid")
                result.latestWkid = try id(reference.member("latestWkid"), "latestWkid")
            default:
                throw input.error("\"spatialReference\" must be an object, found \(reference.typeName)", at: reference.offset)
            }
        }
        return result
    }

    private func point(_ root: JSONValue, x: JSONValue) throws -> Geometry {
        switch x.content {
        case .null: return .emptyPoint
        case .string("NaN"): return .emptyPoint
        default: break
        }
        for key in ["z", "m"] {
            if let value = root.member(key) {
                throw GeometryCodecError.unsupportedDimension(.esriJSON, offset: input.characterOffset(of: value.offset), "a point with \"\(key)\"")
            }
        }
        guard let y = root.member("y") else {
            throw input.error("the point has \"x\" but no \"y\"", at: root.offset)
        }
        return .point(Point(x: try input.finiteNumber(x, "\"x\""), y: try input.finiteNumber(y, "\"y\"")))
    }

    private func id(_ value: JSONValue?, _ name: String) throws -> Int32? {
        guard let value else { return nil }
        if case .null = value.content { return nil }
        guard case .number(let number) = value.content, let id = Int32(exactly: number) else {
            throw input.error("\"\(name)\" must be a 32-bit integer, found \(input.quote(at: value.offset))", at: value.offset)
        }
        return id
    }
}

/// The ring rules of Esri polygons: the winding says which rings are exteriors.
enum EsriRings {
    /// Twice the signed area of a ring, positive when counter-clockwise (y up). Coordinates are
    /// taken relative to the first vertex so that large projected values (state plane feet)
    /// do not lose the area's digits to cancellation. An unclosed ring is closed implicitly.
    static func signedDoubleArea(_ ring: LineString) -> Double {
        let points = ring.points
        guard points.count > 2 else { return 0 }
        let origin = points[0]
        var sum = 0.0
        for i in 1..<points.count - 1 {
            let a = points[i], b = points[i + 1]
            sum += (a.x - origin.x) * (b.y - origin.y) - (b.x - origin.x) * (a.y - origin.y)
        }
        return sum
    }

    /// Whether `point` lies inside `ring` (even-odd crossing rule; a point on the boundary
    /// may go either way, which is fine for telling holes apart).
    static func contains(_ ring: LineString, _ point: Point) -> Bool {
        let points = ring.points
        guard points.count > 2 else { return false }
        var inside = false
        var j = points.count - 1
        for i in 0..<points.count {
            let a = points[i], b = points[j]
            if (a.y > point.y) != (b.y > point.y) {
                let crossX = a.x + (point.y - a.y) / (b.y - a.y) * (b.x - a.x)
                if point.x < crossX { inside.toggle() }
            }
            j = i
        }
        return inside
    }

    /// Groups Esri rings into polygons; see `EsriJSONGeometry(esriJSON:)` for the rules.
    static func polygons(from rings: [LineString]) -> [Polygon] {
        var exteriors: [(ring: LineString, area: Double, holes: [LineString])] = []
        var holes: [LineString] = []
        for ring in rings {
            let area = signedDoubleArea(ring)
            if area > 0 { holes.append(ring) } else { exteriors.append((ring, -area, [])) }
        }
        var orphans: [Polygon] = []
        for hole in holes {
            var best: Int?
            if let probe = hole.points.first {
                for (i, exterior) in exteriors.enumerated() where contains(exterior.ring, probe) {
                    if best == nil || exterior.area < exteriors[best!].area { best = i }
                }
            }
            if let best { exteriors[best].holes.append(hole) } else { orphans.append(Polygon(exterior: hole)) }
        }
        return exteriors.map { Polygon(exterior: $0.ring, holes: $0.holes) } + orphans
    }

    /// The rings of `polygons` in one list, exteriors clockwise and holes counter-clockwise.
    static func wound(_ polygons: [Polygon]) -> [LineString] {
        var rings: [LineString] = []
        for polygon in polygons {
            for (i, ring) in polygon.rings.enumerated() {
                let area = signedDoubleArea(ring)
                let wrongWay = i == 0 ? area > 0 : area < 0
                rings.append(wrongWay ? LineString(ring.points.reversed()) : ring)
            }
        }
        return rings
    }
}
