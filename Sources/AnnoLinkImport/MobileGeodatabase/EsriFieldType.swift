/// A field type of an Esri geodatabase, as the XML definition names it (`esriFieldType…`).
public enum EsriFieldType: String, Hashable, Sendable, CaseIterable {
    case smallInteger = "esriFieldTypeSmallInteger"
    case integer = "esriFieldTypeInteger"
    case bigInteger = "esriFieldTypeBigInteger"
    case single = "esriFieldTypeSingle"
    case double = "esriFieldTypeDouble"
    case string = "esriFieldTypeString"
    case date = "esriFieldTypeDate"
    case dateOnly = "esriFieldTypeDateOnly"
    case timeOnly = "esriFieldTypeTimeOnly"
    case timestampOffset = "esriFieldTypeTimestampOffset"
    case oid = "esriFieldTypeOID"
    case geometry = "esriFieldTypeGeometry"
    case blob = "esriFieldTypeBlob"
    case raster = "esriFieldTypeRaster"
    case guid = "esriFieldTypeGUID"
    case globalID = "esriFieldTypeGlobalID"
    case xml = "esriFieldTypeXML"

    /// The GeoPackage column type that holds this field's values without loss.
    ///
    /// `length` is the maximum number of characters of a string field (nil: unbounded).
    /// Integers map by width (16 → SMALLINT, 32 → MEDIUMINT, 64 and object ids → INTEGER),
    /// `Date` → DATETIME (values are Julian days in the geodatabase, see
    /// `GeodatabaseArchive.dateTime(fromJulianDay:)`), GUIDs → TEXT(38) (`{…}` form),
    /// time-only and offset timestamps → TEXT (GeoPackage has no type for them).
    public func geoPackageColumnType(length: Int? = nil) -> GeoPackageColumnType {
        switch self {
        case .smallInteger: .smallInt
        case .integer: .mediumInt
        case .bigInteger, .oid: .integer
        case .single: .float
        case .double: .double
        case .string: .text(maxLength: length)
        case .date: .dateTime
        case .dateOnly: .date
        case .timeOnly, .timestampOffset, .xml: .text(maxLength: nil)
        case .geometry: .geometry
        case .blob, .raster: .blob(maxSize: nil)
        case .guid, .globalID: .text(maxLength: 38)
        }
    }
}
