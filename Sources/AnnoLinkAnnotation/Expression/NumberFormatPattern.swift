/// A number format of Arcade's `Text(value, format)`, compiled once.
///
/// Supported (the number rows of the format table on Arcade's Text function page): `0` a digit
/// always shown, `#` a digit shown when significant, `,` grouping (its distance from the end of
/// the integer part is the group size), `.` the decimal point, `%` (multiply by 100), literal text
/// before and after the digits (`$#,###.00`, `Floor #`), and a second, negative pattern after `;`
/// (`Floor #;Basement #`). Date formats are not supported.
///
/// Two rules follow the Arcade documentation's examples rather than Java's DecimalFormat:
/// - an integer part made only of `0`s restricts the integer digits to that many, keeping the
///   last ones (`Text(123, '00')` is "23"; `Text(123, '0000')` is "0123");
/// - fraction digits round halves away from zero on the shortest decimal of the value, like
///   `Round` (`Text(1.236, '#.00')` is "1.24").
/// An integer part of `#`s alone still shows a 0 before the point (`Text(0.5, '#.##')` is "0.5").
struct NumberFormatPattern: Hashable, Sendable {
    var positivePrefix = ""
    var positiveSuffix = ""
    /// nil: the negative form is "-" followed by the positive one.
    var negativePrefix: String?
    var negativeSuffix: String?
    var minimumIntegerDigits = 0
    var restrictsIntegerDigits = false
    /// Digits per group; 0 for no grouping.
    var groupingSize = 0
    var minimumFractionDigits = 0
    var maximumFractionDigits = 0
    /// 100 for a percentage.
    var multiplier = 1.0

    /// Compiles `pattern`, or returns nil when it is not a supported number format.
    init?(_ pattern: String) {
        let parts = pattern.split(separator: ";", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count <= 2, let positive = Self.split(parts[0]) else { return nil }
        positivePrefix = positive.prefix
        positiveSuffix = positive.suffix
        if parts.count == 2 {
            // As in the documentation: a negative subpattern only gives the negative prefix and suffix.
            guard let negative = Self.split(parts[1]) else { return nil }
            negativePrefix = negative.prefix
            negativeSuffix = negative.suffix
        }
        if (positivePrefix + positiveSuffix).contains("%") { multiplier = 100 }

        let number = positive.number
        let pieces = number.split(separator: ".", omittingEmptySubsequences: false)
        guard pieces.count <= 2 else { return nil }
        let integerPart = pieces[0]
        let fractionPart = pieces.count == 2 ? pieces[1] : ""
        guard !fractionPart.contains(",") else { return nil }
        minimumIntegerDigits = integerPart.filter { $0 == "0" }.count
        restrictsIntegerDigits = minimumIntegerDigits > 0 && !integerPart.contains("#")
        if let comma = integerPart.lastIndex(of: ",") {
            groupingSize = integerPart[integerPart.index(after: comma)...].count
            guard groupingSize > 0 else { return nil }
        }
        minimumFractionDigits = fractionPart.filter { $0 == "0" }.count
        maximumFractionDigits = fractionPart.count
    }

    /// Splits a subpattern into literal prefix, the run of `#0,.` and literal suffix; nil when
    /// there is no digit placeholder or a placeholder appears in the literal text.
    private static func split(_ sub: Substring) -> (prefix: String, number: String, suffix: String)? {
        let isNumberChar: (Character) -> Bool = { "#0,.".contains($0) }
        guard let start = sub.firstIndex(where: { $0 == "#" || $0 == "0" }) else { return nil }
        var numberStart = start
        while numberStart > sub.startIndex, isNumberChar(sub[sub.index(before: numberStart)]) {
            numberStart = sub.index(before: numberStart)
        }
        var numberEnd = start
        while numberEnd < sub.endIndex, isNumberChar(sub[numberEnd]) { numberEnd = sub.index(after: numberEnd) }
        let prefix = sub[..<numberStart]
        let suffix = sub[numberEnd...]
        guard !prefix.contains(where: { $0 == "#" || $0 == "0" }),
              !suffix.contains(where: { $0 == "#" || $0 == "0" }) else { return nil }
        return (String(prefix), String(sub[numberStart..<numberEnd]), String(suffix))
    }

    /// `value` written with this pattern.
    func format(_ value: Double) -> String {
        let scaled = value * multiplier
        guard scaled.isFinite else { return NumberText.render(scaled) }
        let digits = DecimalDigits(scaled).rounded(places: maximumFractionDigits)
        var integer = digits.integerText
        var fraction = digits.fractionText
        if integer.count < minimumIntegerDigits {
            integer = String(repeating: "0", count: minimumIntegerDigits - integer.count) + integer
        } else if restrictsIntegerDigits && integer.count > minimumIntegerDigits {
            integer = String(integer.suffix(minimumIntegerDigits))
        }
        if groupingSize > 0 && integer.count > groupingSize {
            var grouped = ""
            for (i, c) in integer.enumerated() {
                if i > 0 && (integer.count - i) % groupingSize == 0 { grouped += "," }
                grouped.append(c)
            }
            integer = grouped
        }
        if fraction.count < minimumFractionDigits {
            fraction += String(repeating: "0", count: minimumFractionDigits - fraction.count)
        }
        let body = fraction.isEmpty ? integer : integer + "." + fraction
        let isNegative = digits.isNegative && !digits.digits.isEmpty
        guard isNegative else { return positivePrefix + body + positiveSuffix }
        if let negativePrefix, let negativeSuffix { return negativePrefix + body + negativeSuffix }
        return "-" + positivePrefix + body + positiveSuffix
    }
}
