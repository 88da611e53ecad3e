/// QGIS layer styles (QML documents) for the tables annolink writes, so that QGIS, which reads
/// a GeoPackage's `layer_styles` table when it opens a layer, shows annotation as text.
///
/// An annotation table's style draws no symbol for the footprint polygons and labels every row
/// with its stored columns, all data-defined: the text from `TextString`, placed at
/// `AnchorX`/`AnchorY`, turned by `Angle` (QGIS counts clockwise, the column counter-clockwise),
/// in the `FontName` family, `FontSize` points at the class's reference scale given in map units
/// (so the text keeps its size on the ground, as ArcGIS draws annotation), aligned by
/// `HorizontalAlignment` and `VerticalAlignment`; every label is shown (no collision removal, no
/// upside-down flipping, no size limits). `XOffset`/`YOffset` are not applied (QGIS offsets do
/// not turn with a data-defined angle); annolink writes them as 0.
///
/// A feature table's style is a plain single symbol, `DefaultSymbology`'s: small dark circles
/// for points, thin grey dashed lines for lines, grey outlines without fill for polygons.
public enum QGISStyle {
    /// The `styleName` annolink writes its styles under in `layer_styles`.
    public static let styleName = "annolink"

    /// The QML document labelling an annotation table whose classes are `classes` (at least one)
    /// and whose CRS unit is `metresPerUnit` metres.
    public static func annotation(_ classes: [AnnotationClass], metresPerUnit: Double) -> String {
        precondition(!classes.isEmpty, "an annotation style needs its classes")
        let first = classes.min { $0.classID < $1.classID }!
        // Map units per point of text at each class's reference scale (PlacementRules'
        // formula: S × 0.0254 / 72 metres per point).
        func mapUnitsPerPoint(_ c: AnnotationClass) -> String { number(c.referenceScale * 0.0254 / 72 / metresPerUnit) }
        let sizeFactor: String
        if Set(classes.map(\.referenceScale)).count == 1 {
            sizeFactor = mapUnitsPerPoint(first)
        } else {
            let cases = classes.map { "WHEN \"AnnotationClassID\" = \($0.classID) THEN \(mapUnitsPerPoint($0))" }.joined(separator: " ")
            sizeFactor = "(CASE \(cases) ELSE \(mapUnitsPerPoint(first)) END)"
        }
        let properties = [
            property("PositionX", field: "AnchorX"),
            property("PositionY", field: "AnchorY"),
            property("LabelRotation", expression: "(360 - \"Angle\") % 360"),
            property("Size", expression: "\"FontSize\" * \(sizeFactor)"),
            property("Family", expression: "coalesce(\"FontName\", '\(first.fontName.replacingOccurrences(of: "'", with: "''"))')"),
            // QGIS expressions know only the searched form of CASE.
            property("Hali", expression: "CASE WHEN \"HorizontalAlignment\" = 0 THEN 'Left' WHEN \"HorizontalAlignment\" = 2 THEN 'Right' ELSE 'Center' END"),
            property("Vali", expression: """
                CASE WHEN "VerticalAlignment" = 0 THEN 'Top' WHEN "VerticalAlignment" = 1 THEN 'Half' \
                WHEN "VerticalAlignment" = 3 THEN 'Bottom' ELSE 'Base' END
                """),
        ].joined()
        return """
            <!DOCTYPE qgis PUBLIC 'http://mrcc.com/qgis.dtd' 'SYSTEM'>
            <qgis version="3.22.16" styleCategories="Symbology|Labeling" labelsEnabled="1">
              <renderer-v2 type="nullSymbol" forceraster="0" symbollevels="0" enableorderby="0"/>
              <labeling type="simple">
                <settings calloutType="simple">
                  <text-style fieldName="TextString" isExpression="0" fontFamily="\(xml(first.fontName))" namedStyle="Regular" fontSize="\(number(first.fontSize * first.referenceScale * 0.0254 / 72 / metresPerUnit))" fontSizeUnit="MapUnit" fontSizeMapUnitScale="3x:0,0,0,0,0,0" fontWeight="50" fontItalic="0" fontUnderline="0" fontStrikeout="0" fontKerning="1" fontLetterSpacing="0" fontWordSpacing="0" textColor="\(rgba(DefaultSymbology.text))" textOpacity="1" multilineHeight="1" capitalization="0" blendMode="0" allowHtml="0" textOrientation="horizontal" useSubstitutions="0" previewBkgrdColor="255,255,255,255">
                    <families/>
                    <text-buffer bufferDraw="0" bufferSize="1" bufferSizeUnits="MM" bufferColor="255,255,255,255" bufferOpacity="1" bufferNoFill="1" bufferJoinStyle="128" bufferBlendMode="0" bufferSizeMapUnitScale="3x:0,0,0,0,0,0"/>
                    <text-mask maskEnabled="0" maskType="0" maskSize="0" maskSizeUnits="MM" maskOpacity="1" maskJoinStyle="128" maskSizeMapUnitScale="3x:0,0,0,0,0,0" maskedSymbolLayers=""/>
                    <background shapeDraw="0" shapeType="0"/>
                    <shadow shadowDraw="0"/>
                    <dd_properties><Option type="Map"><Option type="QString" name="name" value=""/><Option name="properties"/><Option type="QString" name="type" value="collection"/></Option></dd_properties>
                    <substitutions/>
                  </text-style>
                  <text-format wrapChar="" autoWrapLength="0" useMaxLineLengthForAutoWrap="1" multilineAlign="3" addDirectionSymbol="0" formatNumbers="0" decimals="3" plussign="0" reverseDirectionSymbol="0" placeDirectionSymbol="0" leftDirectionSymbol="&lt;" rightDirectionSymbol="&gt;"/>
                  <placement placement="1" placementFlags="10" quadOffset="4" dist="0" distUnits="MM" offsetType="0" xOffset="0" yOffset="0" offsetUnits="MM" rotationAngle="0" preserveRotation="1" priority="5" repeatDistance="0" repeatDistanceUnits="MM" centroidWhole="0" centroidInside="0" fitInPolygonOnly="0" overrunDistance="0" overrunDistanceUnit="MM" maxCurvedCharAngleIn="25" maxCurvedCharAngleOut="-25" geometryGenerator="" geometryGeneratorEnabled="0" geometryGeneratorType="PointGeometry" layerType="PolygonGeometry" lineAnchorPercent="0.5" lineAnchorType="0" lineAnchorClipping="0" polygonPlacementFlags="2" predefinedPositionOrder="TR,TL,BR,BL,R,L,TSR,BSR" labelOffsetMapUnitScale="3x:0,0,0,0,0,0" distMapUnitScale="3x:0,0,0,0,0,0" repeatDistanceMapUnitScale="3x:0,0,0,0,0,0" overrunDistanceMapUnitScale="3x:0,0,0,0,0,0"/>
                  <rendering drawLabels="1" displayAll="1" obstacle="0" obstacleType="1" obstacleFactor="1" upsidedownLabels="2" labelPerPart="0" mergeLines="0" limitNumLabels="0" maxNumLabels="2000" minFeatureSize="0" scaleVisibility="0" scaleMin="0" scaleMax="0" fontLimitPixelSize="0" fontMinPixelSize="0" fontMaxPixelSize="10000" zIndex="0" unplacedVisibility="0"/>
                  <dd_properties>
                    <Option type="Map">
                      <Option type="QString" name="name" value=""/>
                      <Option type="Map" name="properties">\(properties)</Option>
                      <Option type="QString" name="type" value="collection"/>
                    </Option>
                  </dd_properties>
                </settings>
              </labeling>
              <blendMode>0</blendMode>
              <featureBlendMode>0</featureBlendMode>
              <layerGeometryType>2</layerGeometryType>
            </qgis>

            """
    }

    /// The QML document of a plain single-symbol style for a feature table holding
    /// `geometryTypeName` (`POINT`, `MULTILINESTRING`, …; `GEOMETRY` is drawn as lines): the
    /// table's `DefaultSymbology` symbol.
    public static func features(geometryTypeName: String) -> String {
        let symbol: String
        let geometryType: Int
        switch DefaultSymbology.symbol(geometryTypeName: geometryTypeName) {
        case .marker(let colour, let diameter):
            geometryType = 0
            symbol = """
                <symbol type="marker" name="0" alpha="1" clip_to_extent="1" force_rhr="0"><layer class="SimpleMarker" enabled="1" locked="0" pass="0"><Option type="Map">\
                <Option type="QString" name="name" value="circle"/><Option type="QString" name="color" value="\(rgba(colour))"/>\
                <Option type="QString" name="outline_style" value="no"/><Option type="QString" name="size" value="\(number(diameter))"/>\
                <Option type="QString" name="size_unit" value="MM"/></Option></layer></symbol>
                """
        case .fill(let fill, let outline, let width, let stroke):
            geometryType = 2
            symbol = """
                <symbol type="fill" name="0" alpha="1" clip_to_extent="1" force_rhr="0"><layer class="SimpleFill" enabled="1" locked="0" pass="0"><Option type="Map">\
                <Option type="QString" name="style" value="\(fill.alpha == 0 ? "no" : "solid")"/><Option type="QString" name="color" value="\(rgba(fill))"/>\
                <Option type="QString" name="outline_color" value="\(rgba(outline))"/><Option type="QString" name="outline_style" value="\(stroke.rawValue)"/>\
                <Option type="QString" name="outline_width" value="\(number(width))"/><Option type="QString" name="outline_width_unit" value="MM"/></Option></layer></symbol>
                """
        case .line(let colour, let width, let stroke):
            geometryType = 1
            symbol = """
                <symbol type="line" name="0" alpha="1" clip_to_extent="1" force_rhr="0"><layer class="SimpleLine" enabled="1" locked="0" pass="0"><Option type="Map">\
                <Option type="QString" name="line_color" value="\(rgba(colour))"/><Option type="QString" name="line_style" value="\(stroke.rawValue)"/>\
                <Option type="QString" name="line_width" value="\(number(width))"/><Option type="QString" name="line_width_unit" value="MM"/></Option></layer></symbol>
                """
        }
        return """
            <!DOCTYPE qgis PUBLIC 'http://mrcc.com/qgis.dtd' 'SYSTEM'>
            <qgis version="3.22.16" styleCategories="Symbology|Labeling" labelsEnabled="0">
              <renderer-v2 type="singleSymbol" forceraster="0" symbollevels="0" enableorderby="0">
                <symbols>\(symbol)</symbols>
              </renderer-v2>
              <blendMode>0</blendMode>
              <featureBlendMode>0</featureBlendMode>
              <layerGeometryType>\(geometryType)</layerGeometryType>
            </qgis>

            """
    }

    /// A data-defined property bound to a field.
    private static func property(_ name: String, field: String) -> String {
        """
        <Option type="Map" name="\(name)"><Option type="bool" name="active" value="true"/>\
        <Option type="QString" name="field" value="\(xml(field))"/><Option type="int" name="type" value="2"/></Option>
        """
    }

    /// A data-defined property computed by a QGIS expression.
    private static func property(_ name: String, expression: String) -> String {
        """
        <Option type="Map" name="\(name)"><Option type="bool" name="active" value="true"/>\
        <Option type="QString" name="expression" value="\(xml(expression))"/><Option type="int" name="type" value="3"/></Option>
        """
    }

    /// `colour` as QML writes one: `red,green,blue,alpha`.
    private static func rgba(_ colour: DefaultSymbology.Colour) -> String {
        "\(colour.red),\(colour.green),\(colour.blue),\(colour.alpha)"
    }

    /// `value` in full precision, without a Swift-only form (no `e` for the sizes met here).
    private static func number(_ value: Double) -> String { "\(value)" }

    /// `text` escaped for an XML attribute.
    static func xml(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(c)
            }
        }
        return out
    }
}
