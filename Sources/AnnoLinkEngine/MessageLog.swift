/// Messages a C library reported through its callback since the last call began.
///
/// The C callbacks receive this object as their user-data pointer (unretained: its owner keeps
/// it alive until after the C context is destroyed), so nothing reaches stderr.
final class MessageLog {
    private(set) var messages: [String] = []

    func append(_ message: String) {
        // GEOS and PROJ both end some messages with a newline; the error types add their own.
        var text = message
        while text.last == "\n" { text.removeLast() }
        messages.append(text)
    }

    /// Forgets earlier messages, before a new C call.
    func clear() {
        messages.removeAll(keepingCapacity: true)
    }

    /// The messages since the last `clear()`, and forgets them.
    func take() -> [String] {
        defer { clear() }
        return messages
    }
}

@available(*, unavailable)
extension MessageLog: Sendable {}
