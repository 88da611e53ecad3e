/// A number as a person types it on a command line or in a request parameter: decimal digits with an optional sign,
/// fraction and exponent (`-77.4011`, `.5`, `1e-3`), or `nan`/`inf` so that the caller can say
/// they are not finite. Swift's `Double(_:)` also reads hexadecimal (`0x10` is 16), which no
/// one means in a coordinate.
public func decimalNumber<S: StringProtocol>(_ text: S) -> Double? {
    let lower = text.lowercased()
    let unsigned = lower.hasPrefix("+") || lower.hasPrefix("-") ? String(lower.dropFirst()) : lower
    if ["nan", "inf", "infinity"].contains(unsigned) { return Double(lower) }
    let parts = unsigned.split(separator: "e", maxSplits: 1, omittingEmptySubsequences: false)
    let mantissa = parts[0].split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
    let isDigits = { (part: Substring) in part.allSatisfy { $0 >= "0" && $0 <= "9" } }
    guard mantissa.allSatisfy(isDigits), mantissa.contains(where: { !$0.isEmpty }) else { return nil }
    if parts.count == 2 {
        var exponent = parts[1]
        if exponent.hasPrefix("+") || exponent.hasPrefix("-") { exponent = exponent.dropFirst() }
        guard !exponent.isEmpty, isDigits(exponent) else { return nil }
    }
    return Double(lower)
}
