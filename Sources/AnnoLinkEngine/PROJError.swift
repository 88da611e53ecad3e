/// A PROJ call failed: the function, PROJ's error number with its text
/// (`proj_context_errno_string`), and the messages PROJ logged through the context's
/// `proj_log_func` while it ran.
public struct PROJError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The PROJ C function that failed, e.g. `proj_create`.
    public var function: String
    /// PROJ's error number (`PROJ_ERR_…`), 0 when PROJ set none.
    public var code: Int
    /// PROJ's text for `code`, e.g. `Invalid coordinate`; nil when `code` is 0.
    public var codeDescription: String?
    /// PROJ's log messages at error level, e.g. `proj_create: crs not found`.
    public var messages: [String]

    /// An error for `function` with PROJ's error number, its text and log messages.
    public init(function: String, code: Int, codeDescription: String?, messages: [String]) {
        self.function = function
        self.code = code
        self.codeDescription = codeDescription
        self.messages = messages
    }

    /// PROJ's explanation in one line: the log messages, else the error number's text.
    public var reason: String {
        if !messages.isEmpty { return messages.joined(separator: "; ") }
        if let codeDescription { return codeDescription }
        return "no message from PROJ"
    }

    /// The function and PROJ's explanation in one line.
    public var description: String {
        var text = "PROJ \(function) failed: \(reason)"
        if let codeDescription, !messages.isEmpty { text += " (\(codeDescription))" }
        return text
    }
}
