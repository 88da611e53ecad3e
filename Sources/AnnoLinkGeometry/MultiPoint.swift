/// A collection of points.
public struct MultiPoint: Hashable, Sendable {
    public var points: [Point]
    public init(_ points: [Point]) { self.points = points }
}
