/// A GEOS call failed: the function and the messages GEOS reported through the context's error
/// (and notice) handler while it ran.
public struct GEOSError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The GEOS C function that failed, e.g. `GEOSDistance_r`.
    public var function: String
    /// GEOS's messages, e.g. `IllegalArgumentException: Points of LinearRing do not form a
    /// closed linestring`, in the order GEOS gave them.
    public var messages: [String]

    /// An error for `function` with GEOS's `messages`.
    public init(function: String, messages: [String]) {
        self.function = function
        self.messages = messages
    }

    /// The function and GEOS's messages in one line.
    public var description: String {
        let detail = messages.isEmpty ? "no message from GEOS" : messages.joined(separator: "; ")
        return "GEOS \(function) failed: \(detail)"
    }
}
