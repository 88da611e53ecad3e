extension Point: Encodable {
    /// Encodes the point as a GeoJSON position, `[x, y]` (RFC 7946 §3.1.1).
    ///
    /// Throws `EncodingError.invalidValue` for a coordinate that is NaN or infinite (the empty
    /// point included), which JSON cannot hold.
    public func encode(to encoder: any Encoder) throws {
        guard isFinite else {
            throw EncodingError.invalidValue(self, .init(codingPath: encoder.codingPath, debugDescription: "GeoJSON positions must be finite"))
        }
        var container = encoder.unkeyedContainer()
        try container.encode(x)
        try container.encode(y)
    }
}

extension Geometry: Encodable {
    /// Encodes the geometry as a GeoJSON geometry object, `{"type", "coordinates"}`, the same
    /// object `geoJSON()` writes as text, so that a result holding a geometry can be encoded by
    /// any `Encoder` (`JSONEncoder` for the command line's `--json` and HTTP responses).
    ///
    /// Throws `EncodingError.invalidValue` where `geoJSON()` throws: a coordinate that is NaN
    /// or infinite, or an empty point inside a multipoint.
    public func encode(to encoder: any Encoder) throws {
        do {
            try requireFiniteCoordinates(self, format: .geoJSON)
        } catch {
            throw EncodingError.invalidValue(self, .init(codingPath: encoder.codingPath, debugDescription: "\(error)"))
        }
        var container = encoder.container(keyedBy: GeoJSONKey.self)
        try container.encode(GeoJSONReader.typeName(kind), forKey: .type)
        switch self {
        case .point(let p):
            if p.isEmpty { try container.encode([Double](), forKey: .coordinates) } else { try container.encode(p, forKey: .coordinates) }
        case .lineString(let l):
            try container.encode(l.points, forKey: .coordinates)
        case .polygon(let p):
            try container.encode(p.rings.map(\.points), forKey: .coordinates)
        case .multiPoint(let m):
            try container.encode(m.points, forKey: .coordinates)
        case .multiLineString(let m):
            try container.encode(m.lines.map(\.points), forKey: .coordinates)
        case .multiPolygon(let m):
            try container.encode(m.polygons.map { $0.rings.map(\.points) }, forKey: .coordinates)
        }
    }

    private enum GeoJSONKey: String, CodingKey { case type, coordinates }
}
