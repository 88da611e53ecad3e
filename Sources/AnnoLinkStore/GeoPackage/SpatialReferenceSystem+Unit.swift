extension SpatialReferenceSystem {
    /// The CRS as PROJ reads it: `EPSG:n` when the file says it is EPSG's, else its WKT.
    public var projName: String {
        organization.uppercased() == "EPSG" ? "EPSG:\(organizationCoordsysID)" : definition
    }

    /// The size in metres of the CRS's linear unit, read from the OGC WKT 1 `definition` (the
    /// `UNIT` of a `PROJCS`, e.g. 0.304800609601219 for the US survey foot); nil for a
    /// geographic CRS, or when the definition is not WKT 1.
    ///
    /// Read from the file rather than asked of PROJ, so that an edit pays no PROJ start-up.
    public var metresPerUnitFromDefinition: Double? {
        let text = Array(definition.utf8)
        guard text.starts(with: Array("PROJCS[".utf8)) else { return nil }
        // The PROJCS's own UNIT is the last UNIT at bracket depth 1.
        var depth = 0, lastUnit: Int?
        var i = 0
        let unit = Array("UNIT[".utf8)
        var inString = false
        while i < text.count {
            let c = text[i]
            if c == UInt8(ascii: "\"") { inString.toggle() }
            if !inString {
                if c == UInt8(ascii: "[") { depth += 1 } else if c == UInt8(ascii: "]") { depth -= 1 }
                if depth == 1, c == UInt8(ascii: "U"), text[i...].starts(with: unit) { lastUnit = i }
            }
            i += 1
        }
        guard let start = lastUnit else { return nil }
        // UNIT["name",factor,...]
        var j = start + unit.count
        guard j < text.count, text[j] == UInt8(ascii: "\"") else { return nil }
        j += 1
        while j < text.count, text[j] != UInt8(ascii: "\"") { j += 1 }
        j += 1
        guard j < text.count, text[j] == UInt8(ascii: ",") else { return nil }
        j += 1
        var end = j
        while end < text.count, text[end] != UInt8(ascii: ","), text[end] != UInt8(ascii: "]") { end += 1 }
        guard let factor = Double(String(decoding: text[j..<end], as: UTF8.self)), factor > 0, factor.isFinite else { return nil }
        // WKT rounds the US survey foot to 15 digits; its exact size is 1200/3937 m.
        let surveyFoot = 1200.0 / 3937.0
        return abs(factor - surveyFoot) < 1e-12 ? surveyFoot : factor
    }

    /// The length of a degree along the equator of WGS 84's ellipsoid (2π × 6 378 137 m / 360):
    /// the size of a geographic CRS's unit where a map needs one in metres.
    public static let metresPerDegree = 2 * Double.pi * 6_378_137 / 360

    /// The size in metres of the unit a map drawn in this CRS is measured in, for its scale: the
    /// projected CRS's linear unit (`metresPerUnitFromDefinition`), `metresPerDegree` for a
    /// geographic CRS, and a metre when the definition says neither.
    public var metresPerMapUnit: Double {
        if let unit = metresPerUnitFromDefinition { return unit }
        return definition.hasPrefix("GEOGCS[") ? Self.metresPerDegree : 1
    }
}
