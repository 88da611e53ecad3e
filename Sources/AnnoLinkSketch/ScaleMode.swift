/// How scaling keeps proportions: free in x and y, or with the aspect ratio kept.
public enum ScaleMode: String, Hashable, Sendable {
    /// x and y scale independently (Esri's default).
    case stretch
    /// The aspect ratio is kept: shapes are drawn as squares, circles and equilateral
    /// triangles.
    case uniform
}
