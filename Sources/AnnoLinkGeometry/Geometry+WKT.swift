extension Geometry {
    /// Decodes well-known text (OGC Simple Features 1.2.1 §7): POINT, LINESTRING, POLYGON,
    /// MULTIPOINT, MULTILINESTRING, MULTIPOLYGON, each with `EMPTY`.
    ///
    /// Keywords are case-insensitive and whitespace is free. Multipoints are read with or
    /// without parentheses around each point (`MULTIPOINT ((1 2), (3 4))` and
    /// `MULTIPOINT (1 2, 3 4)`), and `EMPTY` is accepted for parts of multi-geometries. Numbers
    /// take an optional sign, fraction and exponent (`-1.5e3`, `.5`); NaN and infinity are not
    /// numbers here. Structure is checked, validity is left to GEOS.
    ///
    /// Throws `GeometryCodecError` (format `.wkt`, offset in characters) for an unknown or
    /// missing keyword, unbalanced parentheses, a missing or malformed coordinate, text after
    /// the geometry, Z, M and ZM (a `Z`/`M`/`ZM` tag or a third number: refused, not dropped),
    /// GEOMETRYCOLLECTION and the EWKT `SRID=…;` prefix (give the CRS separately).
    public init(wkt text: String) throws {
        var reader = WKTReader(input: TextInput(text, format: .wkt))
        self = try reader.readDocument()
    }

    /// Encodes the geometry as well-known text in the style GEOS and GDAL write, e.g.
    /// `POLYGON ((0 0, 10 0, 10 10, 0 0))` and `MULTIPOINT ((1 2), (3 4))`.
    ///
    /// Keywords are upper case, followed by one space; coordinates are formatted as by
    /// `geoJSON()` (shortest round-trip text, integral values without a fraction). Empty
    /// geometries and empty parts are written `EMPTY`.
    ///
    /// Throws `GeometryCodecError` (format `.wkt`, offset = the vertex's index) for a NaN or
    /// infinite coordinate, which WKT cannot hold.
    public func wkt() throws -> String {
        try requireFiniteCoordinates(self, format: .wkt)
        var out = kind.rawValue
        func coordinate(_ p: Point) {
            CoordinateText.append(p.x, to: &out)
            out += " "
            CoordinateText.append(p.y, to: &out)
        }
        func line(_ l: LineString) {
            guard !l.isEmpty else { out += "EMPTY"; return }
            out += "("
            for (i, p) in l.points.enumerated() {
                if i > 0 { out += ", " }
                coordinate(p)
            }
            out += ")"
        }
        func polygon(_ p: Polygon) {
            guard !p.isEmpty else { out += "EMPTY"; return }
            list(p.rings, line)
        }
        func list<T>(_ items: [T], _ write: (T) -> Void) {
            out += "("
            for (i, item) in items.enumerated() {
                if i > 0 { out += ", " }
                write(item)
            }
            out += ")"
        }
        out += " "
        switch self {
        case .point(let p):
            if p.isEmpty {
                out += "EMPTY"
            } else {
                out += "("
                coordinate(p)
                out += ")"
            }
        case .lineString(let l):
            line(l)
        case .polygon(let p):
            polygon(p)
        case .multiPoint(let m):
            if m.points.isEmpty { out += "EMPTY"; break }
            list(m.points) { p in
                if p.isEmpty {
                    out += "EMPTY"
                } else {
                    out += "("
                    coordinate(p)
                    out += ")"
                }
            }
        case .multiLineString(let m):
            if m.lines.isEmpty { out += "EMPTY"; break }
            list(m.lines, line)
        case .multiPolygon(let m):
            if m.polygons.isEmpty { out += "EMPTY"; break }
            list(m.polygons, polygon)
        }
        return out
    }
}

/// A recursive-descent WKT reader over UTF-8 bytes.
struct WKTReader {
    let input: TextInput
    private var position = 0

    init(input: TextInput) {
        self.input = input
    }

    private var bytes: [UInt8] { input.bytes }

    mutating func readDocument() throws -> Geometry {
        skipWhitespace()
        let geometry = try readTagged()
        skipWhitespace()
        if position < bytes.count {
            throw input.error("unexpected \(input.quote(at: position)) after the geometry", at: position)
        }
        return geometry
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): position += 1
            default: return
            }
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    /// Reads a keyword at `position` (upper-cased), or nil when there is none.
    private mutating func word() -> (text: String, offset: Int)? {
        skipWhitespace()
        let start = position
        while position < bytes.count, WKTReader.isLetter(bytes[position]) { position += 1 }
        guard position > start else { return nil }
        return (String(decoding: bytes[start..<position], as: UTF8.self).uppercased(), start)
    }

    private mutating func readTagged() throws -> Geometry {
        guard let tag = word() else {
            if position >= bytes.count { throw input.error("empty text: expected a geometry keyword such as POINT", at: position) }
            throw input.error("expected a geometry keyword such as POINT, found \(input.quote(at: position))", at: position)
        }
        let name = tag.text
        // GEOS and PostGIS also write the dimension glued to the keyword (POINTZ, POINTZM).
        for suffix in ["ZM", "Z", "M"] where name.hasSuffix(suffix) {
            let base = String(name.dropLast(suffix.count))
            if Geometry.Kind(rawValue: base) != nil {
                throw GeometryCodecError.unsupportedDimension(.wkt, offset: input.characterOffset(of: tag.offset), name)
            }
        }
        guard let kind = Geometry.Kind(rawValue: name) else {
            switch name {
            case "GEOMETRYCOLLECTION":
                throw input.error("GEOMETRYCOLLECTION is not supported: give a single geometry", at: tag.offset)
            case "SRID":
                throw input.error("the EWKT prefix SRID=…; is not supported: give the CRS separately", at: tag.offset)
            default:
                throw input.error("unknown geometry type \(input.quote(at: tag.offset))", at: tag.offset)
            }
        }
        let afterTag = position
        if let dimension = word() {
            if ["Z", "M", "ZM"].contains(dimension.text) {
                throw GeometryCodecError.unsupportedDimension(
                    .wkt, offset: input.characterOffset(of: dimension.offset), "\(kind.rawValue) \(dimension.text)")
            }
            if dimension.text != "EMPTY" {
                throw input.error("expected '(' or EMPTY after \(kind.rawValue), found \(input.quote(at: dimension.offset))", at: dimension.offset)
            }
            position = afterTag
        }
        switch kind {
        case .point:
            if try readEmpty() { return .emptyPoint }
            try expect("(")
            let point = try readCoordinate()
            try expect(")")
            return .point(point)
        case .lineString:
            return .lineString(try readLine())
        case .polygon:
            return .polygon(try readPolygon())
        case .multiPoint:
            if try readEmpty() { return .multiPoint(MultiPoint([])) }
            return .multiPoint(MultiPoint(try readList { reader in
                if try reader.readEmpty() { return Point(x: .nan, y: .nan) }
                reader.skipWhitespace()
                if reader.position < reader.bytes.count, reader.bytes[reader.position] == UInt8(ascii: "(") {
                    try reader.expect("(")
                    let point = try reader.readCoordinate()
                    try reader.expect(")")
                    return point
                }
                return try reader.readCoordinate()
            }))
        case .multiLineString:
            if try readEmpty() { return .multiLineString(MultiLineString([])) }
            return .multiLineString(MultiLineString(try readList { try $0.readLine() }))
        case .multiPolygon:
            if try readEmpty() { return .multiPolygon(MultiPolygon([])) }
            return .multiPolygon(MultiPolygon(try readList { try $0.readPolygon() }))
        }
    }

    /// Consumes `EMPTY` if it comes next.
    private mutating func readEmpty() throws -> Bool {
        let start = position
        if let next = word() {
            if next.text == "EMPTY" { return true }
            throw input.error("expected '(' or EMPTY, found \(input.quote(at: next.offset))", at: next.offset)
        }
        position = start
        return false
    }

    private mutating func expect(_ character: Unicode.Scalar) throws {
        skipWhitespace()
        guard position < bytes.count else {
            throw input.error("unexpected end of text, expected '\(character)'", at: position)
        }
        guard bytes[position] == UInt8(ascii: character) else {
            throw input.error("expected '\(character)', found \(input.quote(at: position))", at: position)
        }
        position += 1
    }

    /// Reads `( item, item, … )`.
    private mutating func readList<T>(_ item: (inout WKTReader) throws -> T) throws -> [T] {
        try expect("(")
        var items: [T] = []
        while true {
            items.append(try item(&self))
            skipWhitespace()
            guard position < bytes.count else {
                throw input.error("unexpected end of text, expected ',' or ')'", at: position)
            }
            switch bytes[position] {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: ")"):
                position += 1
                return items
            default:
                throw input.error("expected ',' or ')', found \(input.quote(at: position))", at: position)
            }
        }
    }

    private mutating func readLine() throws -> LineString {
        if try readEmpty() { return LineString([]) }
        return LineString(try readList { try $0.readCoordinate() })
    }

    private mutating func readPolygon() throws -> Polygon {
        if try readEmpty() { return Polygon(rings: []) }
        return Polygon(rings: try readList { try $0.readLine() })
    }

    /// Reads `x y`; a third number is refused as Z or M.
    private mutating func readCoordinate() throws -> Point {
        let x = try readNumber()
        let y = try readNumber()
        skipWhitespace()
        if position < bytes.count, bytes[position] != UInt8(ascii: ","), bytes[position] != UInt8(ascii: ")") {
            let save = position
            if (try? readNumber()) != nil {
                throw GeometryCodecError.unsupportedDimension(.wkt, offset: input.characterOffset(of: save), "a coordinate with more than 2 numbers")
            }
            position = save
        }
        return Point(x: x, y: y)
    }

    /// Reads a decimal number: `[+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?`.
    private mutating func readNumber() throws -> Double {
        skipWhitespace()
        let start = position
        func digits() -> Int {
            let from = position
            while position < bytes.count, TextInput.isDigit(bytes[position]) { position += 1 }
            return position - from
        }
        guard position < bytes.count else {
            throw input.error("unexpected end of text, expected a number", at: position)
        }
        if bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
        var mantissaDigits = digits()
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            mantissaDigits += digits()
        }
        guard mantissaDigits > 0 else {
            position = start
            throw input.error("expected a number, found \(input.quote(at: start))", at: start)
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard digits() > 0 else {
                throw input.error("expected a digit in the exponent", at: position)
            }
        }
        if position < bytes.count, !TextInput.isDelimiter(bytes[position]) {
            throw input.error("expected a number, found \(input.quote(at: start))", at: start)
        }
        guard let value = input.number(in: start..<position), value.isFinite else {
            throw input.error("number out of range", at: start)
        }
        return value
    }
}
