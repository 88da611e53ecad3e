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

extension GeometryCodecError {
    /// The error for input that carries Z or M coordinates, which annolink refuses.
    ///
    /// Every codec refuses rather than drops a third or fourth ordinate: annotation and the edit
    /// rules are planar, and writing back a geometry whose Z was silently lost would damage the
    /// user's data. `detail` names what was found, e.g. "WKB type 1002" or "POINT Z".
    public static func unsupportedDimension(_ format: Format, offset: Int, _ detail: String) -> GeometryCodecError {
        GeometryCodecError(format, offset: offset, "Z and M coordinates are not supported (\(detail))")
    }
}
