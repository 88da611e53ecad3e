/// Bytes from hex text, two digits a byte; whitespace is ignored.
///
/// Traps on an odd number of digits or a character that is not a hex digit: the text is a test's
/// own constant.
public func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.filter { !$0.isWhitespace })
    precondition(digits.count % 2 == 0, "an odd number of hex digits")
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
}
