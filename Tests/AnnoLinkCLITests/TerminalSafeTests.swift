import Testing

@testable import AnnoLinkCLI

/// Issue 16, D10: a name with a newline or an escape sequence reaches the terminal escaped.
@Suite("messages safe for a terminal")
struct TerminalSafeTests {
    @Test("control characters in a message are escaped; newlines become spaces")
    func escaped() {
        #expect(AnnoLinkCommand.terminalSafe("no feature table named 'a\u{1B}[31mred'") == "no feature table named 'a\\u{1b}[31mred'")
        #expect(AnnoLinkCommand.terminalSafe("two\nlines\r\u{7}") == "two lines \\u{7}")
        #expect(AnnoLinkCommand.terminalSafe("plain 'Loudoun_Address_Points_1' é") == "plain 'Loudoun_Address_Points_1' é")
        #expect(AnnoLinkCommand.terminalSafe("\u{202E}txt.exe") == "\\u{202e}txt.exe")
    }
}
