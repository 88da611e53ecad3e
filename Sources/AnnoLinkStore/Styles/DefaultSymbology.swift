/// The plain symbology annolink gives feature tables wherever it says how to draw them: the
/// QGIS styles it writes (`QGISStyle.features`) and the renderers of the FeatureServer's
/// feature layers (docs/serve.md, "Drawing info"). One value per kind of geometry, so that a
/// table looks the same in QGIS whether it is read from the file or through the service.
///
/// Sizes are in millimetres on the page, as QGIS styles give them; Esri's symbols take points
/// (`points(_:)`).
public enum DefaultSymbology {
    /// A colour with alpha, each channel from 0 to 255.
    public struct Colour: Hashable, Sendable {
        public var red: Int, green: Int, blue: Int, alpha: Int
        public init(_ red: Int, _ green: Int, _ blue: Int, _ alpha: Int = 255) {
            self.red = red
            self.green = green
            self.blue = blue
            self.alpha = alpha
        }
        /// Nothing drawn.
        public static let none = Colour(0, 0, 0, 0)
    }

    /// How a line or outline is drawn.
    public enum Stroke: String, Hashable, Sendable {
        case solid, dash
    }

    /// A symbol of one of the three kinds.
    public enum Symbol: Hashable, Sendable {
        /// A filled circle without outline, `diameter` mm across.
        case marker(colour: Colour, diameter: Double)
        /// A line `width` mm wide.
        case line(colour: Colour, width: Double, stroke: Stroke)
        /// A polygon filled with `fill` (`.none`: not filled) and outlined.
        case fill(fill: Colour, outline: Colour, width: Double, stroke: Stroke)
    }

    /// Points: small dark circles.
    public static let point = Symbol.marker(colour: Colour(30, 30, 30), diameter: 1.2)
    /// Lines: thin grey dashes, as Esri's sample draws parcel lines.
    public static let line = Symbol.line(colour: Colour(110, 110, 110), width: 0.2, stroke: .dash)
    /// Polygons: grey outlines without fill.
    public static let polygon = Symbol.fill(fill: .none, outline: Colour(90, 90, 90), width: 0.2, stroke: .solid)
    /// Annotation text.
    public static let text = Colour(0, 0, 0)

    /// The symbol of a table holding `geometryTypeName` (`POINT`, `MULTILINESTRING`, …;
    /// `GEOMETRY` and anything else is drawn as lines).
    public static func symbol(geometryTypeName: String) -> Symbol {
        let kind = geometryTypeName.uppercased()
        if kind.hasSuffix("POINT") { return point }
        if kind.hasSuffix("POLYGON") { return polygon }
        return line
    }

    /// `millimetres` in typographic points (72 to the inch), rounded to 0.01 pt.
    public static func points(_ millimetres: Double) -> Double {
        (millimetres * 72 / 25.4 * 100).rounded() / 100
    }
}
