/// The files `render` writes.
public enum ImageFormat: String, Hashable, Sendable, CaseIterable {
    /// A raster image (Cairo's image surface, 32-bit ARGB, written by `cairo_surface_write_to_png`).
    case png
    /// Scalable Vector Graphics (Cairo's SVG surface).
    case svg
    /// Portable Document Format (Cairo's PDF surface).
    case pdf

    /// The format a file name's extension names (case-insensitive), or nil for any other name.
    public init?(path: String) {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        self.init(rawValue: path[path.index(after: dot)...].lowercased())
    }
}
