/// Why an annotation `Element` blob could not be read: where (when a byte offset applies), and
/// what was wrong.
public struct AnnotationElementError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Offset from the start of the blob, in bytes; nil when the problem is a missing field.
    public var offset: Int?
    /// What was wrong (no trailing period).
    public var message: String

    /// Creates an error.
    public init(offset: Int?, message: String) {
        self.offset = offset
        self.message = message
    }

    public var description: String {
        if let offset { return "annotation element: \(message) at offset \(offset)" }
        return "annotation element: \(message)"
    }
}
