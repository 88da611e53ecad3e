import AnnoLinkStore

/// The `drawingInfo` of the FeatureServer's layer resources: how a client that draws a layer
/// from its description alone (QGIS's `arcgisfeatureserver` provider, the ArcGIS Maps SDKs)
/// should draw it (docs/serve.md, "Drawing info").
///
/// - A feature layer gets a simple renderer with the table's `DefaultSymbology` symbol as an
///   Esri symbol (`esriSMS`, `esriSLS`, `esriSFS`, sizes in points), the symbol annolink's QGIS
///   styles give the table, and no labels.
/// - An annotation layer (and each of its class sublayers) gets a simple renderer whose fill
///   and outline are null, so that the footprints are not drawn, and one label class per
///   annotation class: the `TextString` of the class's rows (`where` on `AnnotationClassID`),
///   as an `esriTS` text symbol in the class's font at its size in points (which is the text's
///   size at the class's reference scale), aligned as the class is, turned by `Angle`, every
///   label shown at every scale.
enum FeatureServerDrawingInfo {
    /// The drawing info of a feature layer holding `geometryTypeName`.
    static func features(geometryTypeName: String) -> JSONText {
        .object([
            ("renderer", simpleRenderer(esriSymbol(DefaultSymbology.symbol(geometryTypeName: geometryTypeName)))),
            ("transparency", .integer(0)),
            ("labelingInfo", .null),
        ])
    }

    /// The drawing info of an annotation layer or sublayer drawing `classes`.
    static func annotation(_ classes: [AnnotationClass]) -> JSONText {
        let nothing = JSONText.object([
            ("type", .string("esriSFS")), ("style", .string("esriSFSNull")), ("color", colour(.none)),
            ("outline", .object([("type", .string("esriSLS")), ("style", .string("esriSLSNull")), ("color", colour(.none)), ("width", .integer(0))])),
        ])
        return .object([
            ("renderer", simpleRenderer(nothing)),
            ("transparency", .integer(0)),
            // The text keeps its size on the ground: the symbols' sizes hold at the reference scale.
            ("scaleSymbols", .bool(true)),
            ("labelingInfo", .array(classes.sorted { $0.classID < $1.classID }.map(labelClass))),
        ])
    }

    /// Esri's label class for annotation class `c`.
    static func labelClass(_ c: AnnotationClass) -> JSONText {
        .object([
            ("name", .string(c.name)),
            // QGIS 3.22 reads this one ([FIELD] syntax); Esri's clients the Arcade expression.
            ("labelExpression", .string("[TextString]")),
            ("labelExpressionInfo", .object([("expression", .string("$feature.TextString"))])),
            ("useCodedValues", .bool(false)),
            ("labelPlacement", .string(labelPlacement)),
            ("where", .string("AnnotationClassID = \(c.classID)")),
            ("labelAngleInfo", .object([
                ("angleExpressionInfo", .object([("expression", .string("$feature.Angle")), ("returnType", .string("Number"))])),
                ("rotationType", .string("arithmetic")),
            ])),
            // Annotation is all drawn: no label is removed for crowding another.
            ("deconflictionStrategy", .string("none")),
            ("allowOverrun", .bool(true)),
            ("minScale", .integer(0)), ("maxScale", .integer(0)),
            ("symbol", textSymbol(c)),
        ])
    }

    /// Where a label goes on its footprint: level, on the footprint's middle (which is the
    /// text's), Esri's one placement for polygons; QGIS 3.22 places it so (docs/serve.md).
    static let labelPlacement = "esriServerPolygonPlacementAlwaysHorizontal"

    /// The `esriTS` text symbol of annotation class `c`.
    static func textSymbol(_ c: AnnotationClass) -> JSONText {
        .object([
            ("type", .string("esriTS")),
            ("color", colour(DefaultSymbology.text)),
            ("backgroundColor", .null), ("borderLineColor", .null), ("borderLineSize", .null),
            ("verticalAlignment", .string(verticalAlignment(c.verticalAlignment))),
            ("horizontalAlignment", .string(horizontalAlignment(c.horizontalAlignment))),
            ("rightToLeft", .bool(false)),
            ("angle", .integer(0)), ("xoffset", .integer(0)), ("yoffset", .integer(0)),
            ("kerning", .bool(true)),
            ("haloColor", .null), ("haloSize", .null),
            ("font", .object([
                ("family", .string(c.fontName)), ("size", .number(c.fontSize)),
                ("style", .string("normal")), ("weight", .string("normal")), ("decoration", .string("none")),
            ])),
        ])
    }

    /// Esri's word for an annotation row's `HorizontalAlignment` (docs/format.md).
    static func horizontalAlignment(_ value: Int) -> String {
        switch value {
        case 0: "left"
        case 2: "right"
        case 3: "justify"
        default: "center"
        }
    }

    /// Esri's word for an annotation row's `VerticalAlignment` (docs/format.md).
    static func verticalAlignment(_ value: Int) -> String {
        switch value {
        case 0: "top"
        case 1: "middle"
        case 3: "bottom"
        default: "baseline"
        }
    }

    /// A simple renderer drawing every feature with `symbol`.
    static func simpleRenderer(_ symbol: JSONText) -> JSONText {
        .object([("type", .string("simple")), ("symbol", symbol), ("label", .string("")), ("description", .string(""))])
    }

    /// `symbol` as an Esri symbol: sizes and widths in points.
    static func esriSymbol(_ symbol: DefaultSymbology.Symbol) -> JSONText {
        func line(_ colour: DefaultSymbology.Colour, _ width: Double, _ stroke: DefaultSymbology.Stroke) -> JSONText {
            .object([
                ("type", .string("esriSLS")), ("style", .string(stroke == .dash ? "esriSLSDash" : "esriSLSSolid")),
                ("color", Self.colour(colour)), ("width", .number(DefaultSymbology.points(width))),
            ])
        }
        switch symbol {
        case .marker(let colour, let diameter):
            return .object([
                ("type", .string("esriSMS")), ("style", .string("esriSMSCircle")), ("color", Self.colour(colour)),
                ("size", .number(DefaultSymbology.points(diameter))), ("angle", .integer(0)), ("xoffset", .integer(0)), ("yoffset", .integer(0)),
                ("outline", .object([("type", .string("esriSLS")), ("style", .string("esriSLSNull")), ("color", Self.colour(.none)), ("width", .integer(0))])),
            ])
        case .line(let colour, let width, let stroke):
            return line(colour, width, stroke)
        case .fill(let fill, let outline, let width, let stroke):
            return .object([
                ("type", .string("esriSFS")), ("style", .string(fill.alpha == 0 ? "esriSFSNull" : "esriSFSSolid")),
                ("color", Self.colour(fill)), ("outline", line(outline, width, stroke)),
            ])
        }
    }

    /// An Esri colour: `[red, green, blue, alpha]`, each 0 to 255.
    static func colour(_ c: DefaultSymbology.Colour) -> JSONText {
        .array([.integer(Int64(c.red)), .integer(Int64(c.green)), .integer(Int64(c.blue)), .integer(Int64(c.alpha))])
    }
}
