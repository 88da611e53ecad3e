extension Geometry {
    /// Decodes a GeoJSON geometry object (RFC 7946 §3.1): Point, LineString, Polygon,
    /// MultiPoint, MultiLineString or MultiPolygon.
    ///
    /// Members other than `type` and `coordinates` (`bbox`, foreign members) are ignored. An
    /// empty `coordinates` array gives the empty geometry of that type (`"Point"` with `[]` is
    /// the empty point). Structure is checked, validity is not: ring closure and minimum
    /// vertex counts are for GEOS to judge before anything is stored.
    ///
    /// Throws `GeometryCodecError` (format `.geoJSON`, offset in characters) for malformed
    /// JSON, a missing or misspelt member, non-numeric or out-of-range coordinates, positions
    /// with three or more numbers (Z and M are refused rather than dropped), and for
    /// GeometryCollection, Feature and FeatureCollection objects.
    public init(geoJSON text: String) throws {
        let input = TextInput(text, format: .geoJSON)
        let root = try JSONParser.parse(input)
        self = try GeoJSONReader(input: input).geometry(root)
    }

    /// Encodes the geometry as a compact GeoJSON geometry object, e.g.
    /// `{"type":"Point","coordinates":[10,20.5]}`.
    ///
    /// Coordinates are written as the shortest text that reads back to the same Double, and
    /// integral values without a fraction (`10`, not `10.0`). Rings are written in the order
    /// stored: the encoder does not rewind them to RFC 7946's right-hand rule, which the RFC
    /// asks readers not to rely on. The empty point is `"coordinates":[]`.
    ///
    /// Throws `GeometryCodecError` (format `.geoJSON`, offset = the vertex's index) when a
    /// coordinate is NaN or infinite, or a multipoint holds an empty point, which GeoJSON
    /// cannot express.
    public func geoJSON() throws -> String {
        try requireFiniteCoordinates(self, format: .geoJSON)
        var out = "{\"type\":\"" + GeoJSONReader.typeName(kind) + "\",\"coordinates\":"
        switch self {
        case .point(let p):
            if p.isEmpty { out += "[]" } else { JSONCoordinates.append(p, to: &out) }
        case .lineString(let l):
            JSONCoordinates.append(l.points, to: &out)
        case .polygon(let p):
            JSONCoordinates.append(p.rings, to: &out)
        case .multiPoint(let m):
            if let empty = m.points.firstIndex(where: \.isEmpty) {
                throw GeometryCodecError(.geoJSON, offset: empty, "GeoJSON cannot hold the empty point at index \(empty) of a MultiPoint")
            }
            JSONCoordinates.append(m.points, to: &out)
        case .multiLineString(let m):
            JSONCoordinates.append(m.lines, to: &out)
        case .multiPolygon(let m):
            out += "["
            for (i, polygon) in m.polygons.enumerated() {
                if i > 0 { out += "," }
                JSONCoordinates.append(polygon.rings, to: &out)
            }
            out += "]"
        }
        out += "}"
        return out
    }
}

/// Turns a parsed JSON value into a geometry, with GeoJSON's rules.
struct GeoJSONReader {
    let input: TextInput

    static func typeName(_ kind: Geometry.Kind) -> String {
        switch kind {
        case .point: "Point"
        case .lineString: "LineString"
        case .polygon: "Polygon"
        case .multiPoint: "MultiPoint"
        case .multiLineString: "MultiLineString"
        case .multiPolygon: "MultiPolygon"
        }
    }

    func geometry(_ value: JSONValue) throws -> Geometry {
        guard case .object = value.content else {
            throw input.error("a GeoJSON geometry must be an object, found \(value.typeName)", at: value.offset)
        }
        guard let typeValue = value.member("type") else {
            throw input.error("the object has no \"type\" member", at: value.offset)
        }
        guard case .string(let type) = typeValue.content else {
            throw input.error("\"type\" must be a string, found \(typeValue.typeName)", at: typeValue.offset)
        }
        guard let kind = Geometry.Kind.allCases.first(where: { Self.typeName($0) == type }) else {
            switch type {
            case "GeometryCollection":
                throw input.error("GeometryCollection is not supported: give a single geometry", at: typeValue.offset)
            case "Feature", "FeatureCollection":
                throw input.error("expected a geometry object, found a \(type) (give its \"geometry\")", at: typeValue.offset)
            default:
                if let near = Geometry.Kind.allCases.first(where: { Self.typeName($0).lowercased() == type.lowercased() }) {
                    throw input.error("unknown geometry type \"\(type)\" (type names are case-sensitive: \"\(Self.typeName(near))\")", at: typeValue.offset)
                }
                throw input.error("unknown geometry type \"\(type)\"", at: typeValue.offset)
            }
        }
        guard let coordinates = value.member("coordinates") else {
            throw input.error("the \(type) has no \"coordinates\" member", at: value.offset)
        }
        switch kind {
        case .point:
            if case .array(let elements) = coordinates.content, elements.isEmpty { return .emptyPoint }
            return .point(try input.position(coordinates))
        case .lineString:
            return .lineString(try input.line(coordinates, "LineString coordinates"))
        case .polygon:
            return .polygon(try polygon(coordinates))
        case .multiPoint:
            return .multiPoint(MultiPoint(try input.array(coordinates, "MultiPoint coordinates").map(input.position)))
        case .multiLineString:
            return .multiLineString(MultiLineString(try input.array(coordinates, "MultiLineString coordinates").map {
                try input.line($0, "a line")
            }))
        case .multiPolygon:
            return .multiPolygon(MultiPolygon(try input.array(coordinates, "MultiPolygon coordinates").map(polygon)))
        }
    }

    private func polygon(_ value: JSONValue) throws -> Polygon {
        Polygon(rings: try input.array(value, "Polygon coordinates").map { try input.line($0, "a ring") })
    }
}
