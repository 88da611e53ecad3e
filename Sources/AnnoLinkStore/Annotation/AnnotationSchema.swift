import Foundation

/// The annotation table layout and the annotation class registry, as GeoPackage extensions of
/// annolink's own (docs/format.md, "Annotation tables", "The annotation class registry").
enum AnnotationSchema {
    static let registryTable = "annolink_annotation_classes"
    static let extensionName = "annolink_feature_linked_annotation"
    static let extensionDefinition = "https://github.com/annolink/annolink/blob/main/docs/format.md#feature-linked-annotation"

    static let registry = """
        CREATE TABLE annolink_annotation_classes (
          annotation_table TEXT NOT NULL,
          class_id INTEGER NOT NULL,
          name TEXT NOT NULL,
          origin_table TEXT NOT NULL,
          where_clause TEXT,
          expression TEXT NOT NULL,
          font_name TEXT NOT NULL,
          font_size REAL NOT NULL CHECK (font_size > 0),
          horizontal_alignment INTEGER NOT NULL CHECK (horizontal_alignment BETWEEN 0 AND 3),
          vertical_alignment INTEGER NOT NULL CHECK (vertical_alignment BETWEEN 0 AND 3),
          reference_scale REAL NOT NULL CHECK (reference_scale > 0),
          placement TEXT NOT NULL CHECK (placement IN ('point', 'line')),
          placement_offset REAL NOT NULL,
          placement_parameters TEXT,
          auto_create INTEGER NOT NULL CHECK (auto_create IN (0, 1)),
          update_on_shape_change INTEGER NOT NULL CHECK (update_on_shape_change IN (0, 1)),
          PRIMARY KEY (annotation_table, class_id))
        """

    /// The attribute columns of an annotation table, after `fid` and `geom` (docs/format.md, "Annotation tables").
    static let columns: [Column] = [
        Column(name: "FeatureID", type: "INTEGER"),
        Column(name: "AnnotationClassID", type: "INTEGER", isNotNull: true, defaultSQL: "0"),
        Column(name: "TextString", type: "TEXT"),
        Column(name: "FontName", type: "TEXT"),
        Column(name: "FontSize", type: "REAL"),
        Column(name: "HorizontalAlignment", type: "INTEGER", isNotNull: true, defaultSQL: "1"),
        Column(name: "VerticalAlignment", type: "INTEGER", isNotNull: true, defaultSQL: "2"),
        Column(name: "AnchorX", type: "REAL"),
        Column(name: "AnchorY", type: "REAL"),
        Column(name: "Angle", type: "REAL", isNotNull: true, defaultSQL: "0"),
        Column(name: "XOffset", type: "REAL", isNotNull: true, defaultSQL: "0"),
        Column(name: "YOffset", type: "REAL", isNotNull: true, defaultSQL: "0"),
        Column(name: "Status", type: "INTEGER", isNotNull: true, defaultSQL: "0"),
        Column(name: "Override", type: "INTEGER", isNotNull: true, defaultSQL: "0"),
        // Why the row is where it is (`PlacementBasis`); NULL: unknown. docs/format.md.
        Column(name: "PlacedFrom", type: "TEXT"),
    ]
}

extension GeoPackage {
    /// The attribute columns of an annotation table after `fid` and `geom` (docs/format.md), with
    /// their GeoPackage declared types: what another store makes an annotation table with.
    public static var annotationAttributeColumns: [Column] { AnnotationSchema.columns }
}
