/// One annotation class of an Esri annotation feature class: which origin features it labels,
/// with what text, in which symbol, placed how.
///
/// Read from the CIM label class (`LabelClassCollection` in the definition's extension
/// properties) and the feature class's `ReferenceScale`, `AutoCreate` and
/// `UpdateOnShapeChange`. Optional properties are nil when the definition does not state them.
public struct EsriAnnotationClass: Hashable, Sendable {
    /// Horizontal text alignment, with the codes of Esri's `HorizontalAlignment` domain (and
    /// annolink's `HorizontalAlignment` column).
    public enum HorizontalAlignment: Int, Hashable, Sendable {
        case left = 0
        case center = 1
        case right = 2
        /// CIM `Justify`.
        case full = 3

        /// The alignment for a CIM text symbol value (`Left`, `Center`, `Right`, `Justify`).
        public init?(cimName: String) {
            switch cimName {
            case "Left": self = .left
            case "Center": self = .center
            case "Right": self = .right
            case "Justify", "Full": self = .full
            default: return nil
            }
        }
    }

    /// Vertical text alignment, with the codes of Esri's `VerticalAlignment` domain (and
    /// annolink's `VerticalAlignment` column).
    public enum VerticalAlignment: Int, Hashable, Sendable {
        case top = 0
        case center = 1
        case baseline = 2
        case bottom = 3

        /// The alignment for a CIM text symbol value (`Top`, `Center`, `Baseline`, `Bottom`).
        public init?(cimName: String) {
            switch cimName {
            case "Top": self = .top
            case "Center": self = .center
            case "Baseline": self = .baseline
            case "Bottom": self = .bottom
            default: return nil
            }
        }
    }

    /// The class id (`AnnotationClassID` of the annotation rows; CIM `iD`).
    public var classID: Int
    /// The class name (`Class 1`).
    public var name: String
    /// The label expression, in `expressionEngine`'s language.
    public var expression: String
    /// `Arcade`, `VBScript`, `JScript` or `Python`, as stored; nil when not stated.
    public var expressionEngine: String?
    /// The SQL where clause selecting the origin features the class labels; nil for all.
    public var whereClause: String?
    /// Font family (`Tahoma`).
    public var fontName: String?
    /// Font style (`Regular`).
    public var fontStyle: String?
    /// Font size in points at the reference scale.
    public var fontSize: Double?
    /// Horizontal alignment of the text symbol.
    public var horizontalAlignment: HorizontalAlignment?
    /// Vertical alignment of the text symbol.
    public var verticalAlignment: VerticalAlignment?
    /// The reference scale's denominator (1200 for 1:1200): the scale at which `fontSize` is
    /// the printed size. Shared by all classes of a feature class.
    public var referenceScale: Double?
    /// Where the text goes.
    public var placement: EsriLabelPlacement?
    /// Whether new origin features get annotation (`AutoCreate`).
    public var autoCreate: Bool?
    /// Whether annotation is re-placed when its feature's shape changes (`UpdateOnShapeChange`).
    public var updateOnShapeChange: Bool?
    /// Whether the class is switched on (CIM `visibility`).
    public var isVisible: Bool?

    /// Creates a class.
    public init(
        classID: Int, name: String, expression: String, expressionEngine: String? = nil, whereClause: String? = nil,
        fontName: String? = nil, fontStyle: String? = nil, fontSize: Double? = nil,
        horizontalAlignment: HorizontalAlignment? = nil, verticalAlignment: VerticalAlignment? = nil,
        referenceScale: Double? = nil, placement: EsriLabelPlacement? = nil, autoCreate: Bool? = nil,
        updateOnShapeChange: Bool? = nil, isVisible: Bool? = nil
    ) {
        self.classID = classID
        self.name = name
        self.expression = expression
        self.expressionEngine = expressionEngine
        self.whereClause = whereClause
        self.fontName = fontName
        self.fontStyle = fontStyle
        self.fontSize = fontSize
        self.horizontalAlignment = horizontalAlignment
        self.verticalAlignment = verticalAlignment
        self.referenceScale = referenceScale
        self.placement = placement
        self.autoCreate = autoCreate
        self.updateOnShapeChange = updateOnShapeChange
        self.isVisible = isVisible
    }
}
