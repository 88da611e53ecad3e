import AnnoLinkGeometry

/// The linear units `Length(geometry, unit)` accepts, and their size in metres.
///
/// Names follow the "Units reference" table of Arcade's geometry functions page: a unit value and
/// its alternate values (`feet`, `foot`, `ft`, …), matched without regard to case. As that page
/// says, areal names are accepted for linear units (`square-feet` means feet); the area-only units
/// (acres, hectares) are refused. Beyond Arcade's table, annolink accepts the British spellings
/// (`metres`, `kilometres`, …) and the US survey foot (`us-survey-feet`, `us-survey-foot`,
/// `us-feet`), the unit of the Loudoun data (docs/expressions.md, "Decisions", Length).
enum LengthUnit {
    /// Metres per international foot.
    static let foot = 0.3048
    /// Metres per US survey foot (exactly 1200/3937 m).
    static let usSurveyFoot = 1200.0 / 3937.0

    /// Metres per unit of `name`, or nil for an unknown or area-only unit.
    static func metres(per name: String) -> Double? {
        table[name.lowercased()]
    }

    private static let table: [String: Double] = {
        var table: [String: Double] = [:]
        func add(_ metres: Double, _ names: [String], areal: [String] = []) {
            for name in names + areal { table[name] = metres }
        }
        add(foot, ["feet", "foot", "ft", "international-feet"],
            areal: ["square-feet", "square-foot", "squarefeet", "squarefoot"])
        add(usSurveyFoot, ["us-survey-feet", "us-survey-foot", "us-feet", "us-foot"])
        add(1, ["meters", "meter", "m", "metres", "metre"],
            areal: ["square-meters", "square-meter", "squaremeters", "squaremeter", "square-metres", "square-metre"])
        add(1000, ["kilometers", "kilometer", "km", "kilometres", "kilometre"],
            areal: ["square-kilometers", "square-kilometer", "squarekilometers", "squarekilometer"])
        add(1609.344, ["miles", "mile", "mi"], areal: ["square-miles", "square-mile", "squaremiles", "squaremile"])
        add(0.9144, ["yards", "yard", "yd"], areal: ["square-yards", "square-yard", "squareyards", "squareyard"])
        add(1852, ["nautical-miles", "nautical-mile"],
            areal: ["square-nautical-miles", "square-nautical-mile", "squarenauticalmiles", "squarenauticalmile"])
        return table
    }()
}

extension Geometry {
    /// Planar length in CRS units as Arcade's `Length` measures it: the sum of the segments of
    /// every line, the perimeter of a polygon (every ring, holes included), 0 for points.
    var arcadeLength: Double {
        switch self {
        case .point, .multiPoint: 0
        case .lineString(let l): l.length
        case .polygon(let p): p.rings.reduce(0) { $0 + $1.length }
        case .multiLineString(let m): m.lines.reduce(0) { $0 + $1.length }
        case .multiPolygon(let m): m.polygons.reduce(0) { sum, p in p.rings.reduce(sum) { $0 + $1.length } }
        }
    }
}
