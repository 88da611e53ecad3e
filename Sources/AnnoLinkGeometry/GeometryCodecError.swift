/// Why bytes or text could not be read as a geometry: the format, the byte (or character)
/// offset where reading failed, and what was wrong there.
public struct GeometryCodecError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The encodings annolink reads.
    public enum Format: String, Sendable {
        case wkb = "WKB"
        case geoPackageBinary = "GeoPackage geometry blob"
        case geoJSON = "GeoJSON"
        case esriJSON = "Esri JSON"
        case esriShapeBuffer = "Esri ST_Geometry blob"
        case wkt = "WKT"
    }

    public var format: Format
    /// Offset from the start of the input, in bytes (binary formats) or characters (text).
    public var offset: Int
    /// What was wrong, in a user's words (no trailing period).
    public var message: String

    public init(_ format: Format, offset: Int, _ message: String) {
        self.format = format
        self.offset = offset
        self.message = message
    }

    public var description: String { "\(format.rawValue): \(message) at offset \(offset)" }
}
