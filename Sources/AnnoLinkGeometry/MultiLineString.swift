/// A collection of lines.
public struct MultiLineString: Hashable, Sendable {
    public var lines: [LineString]
    public init(_ lines: [LineString]) { self.lines = lines }
}
