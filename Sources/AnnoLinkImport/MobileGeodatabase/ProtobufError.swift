/// Why bytes could not be read as a protocol-buffers message: where, and what was wrong.
public struct ProtobufError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Offset from the start of the message, in bytes.
    public var offset: Int
    /// What was wrong (no trailing period).
    public var message: String

    /// Creates an error.
    public init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }

    public var description: String { "protobuf message: \(message) at offset \(offset)" }
}
