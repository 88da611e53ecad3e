/// Numbers as Arcade writes, reads and rounds them.
enum NumberText {
    /// 10^0 … 10^22: every one is exactly representable as a double, so one multiplication or
    /// division by them is correctly rounded.
    static let powersOfTen: [Double] = (0...22).map { n in
        var p = 1.0
        for _ in 0..<n { p *= 10 }
        return p
    }

    /// JavaScript's `Number.prototype.toString` (ECMA-262 Number::toString), which is what Arcade
    /// does when it turns a number into text.
    static func render(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        if value == 0 { return "0" }
        // Integers below 2^53 are their own shortest representation: the common case (house
        // numbers, rounded lengths) takes no detour through digit strings.
        if value.rounded(.towardZero) == value && Swift.abs(value) < 9_007_199_254_740_992 {
            return String(Int64(value))
        }
        // So are short decimals (rounded lengths): the fewest places k for which the decimal
        // r / 10^k reads back as the value are the shortest digits. Below 1e11 no two k-place
        // decimals read back as the same double, so r is the only candidate.
        if Swift.abs(value) < 1e11 {
            for k in 1...4 {
                let p = powersOfTen[k]
                let r = (value * p).rounded()
                if r / p == value { return fixedPoint(Int64(r), places: k) }
            }
        }
        return renderDigits(value)
    }

    /// `integer / 10^places` written with exactly `places` decimals.
    private static func fixedPoint(_ integer: Int64, places: Int) -> String {
        var digits = String(integer.magnitude)
        if digits.count <= places { digits = String(repeating: "0", count: places + 1 - digits.count) + digits }
        let point = digits.index(digits.endIndex, offsetBy: -places)
        return (integer < 0 ? "-" : "") + digits[..<point] + "." + digits[point...]
    }

    /// Number::toString from the shortest round-trip digits, for any finite non-zero value.
    static func renderDigits(_ value: Double) -> String {
        let d = DecimalDigits(value)
        let k = d.digits.count
        let n = d.pointPosition
        var out = d.isNegative ? "-" : ""
        out.reserveCapacity(k + 8)
        func append(_ range: Range<Int>) {
            for i in range { out.unicodeScalars.append(Unicode.Scalar(48 + d.digits[i])) }
        }
        if k <= n && n <= 21 {
            append(0..<k)
            out += String(repeating: "0", count: n - k)
        } else if 0 < n && n <= 21 {
            append(0..<n)
            out += "."
            append(n..<k)
        } else if -6 < n && n <= 0 {
            out += "0."
            out += String(repeating: "0", count: -n)
            append(0..<k)
        } else {
            append(0..<1)
            if k > 1 {
                out += "."
                append(1..<k)
            }
            out += n - 1 >= 0 ? "e+" : "e-"
            out += String(Swift.abs(n - 1))
        }
        return out
    }

    /// Arcade's implicit cast of text to a number: surrounding whitespace is ignored, empty text
    /// is 0 and anything that is not a decimal number is NaN (JavaScript's `Number(text)`, less
    /// hexadecimal).
    static func parse(_ text: String) -> Double {
        let trimmed = text.trimmingWhitespace()
        if trimmed.isEmpty { return 0 }
        switch trimmed {
        case "Infinity", "+Infinity": return .infinity
        case "-Infinity": return -.infinity
        default: break
        }
        var sawDigit = false
        var sawPoint = false
        var sawExponent = false
        var previous: UInt8 = 0
        for (i, c) in trimmed.utf8.enumerated() {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): sawDigit = true
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                guard i == 0 || previous == UInt8(ascii: "e") || previous == UInt8(ascii: "E") else { return .nan }
            case UInt8(ascii: "."):
                guard !sawPoint && !sawExponent else { return .nan }
                sawPoint = true
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                guard sawDigit && !sawExponent else { return .nan }
                sawExponent = true
            default: return .nan
            }
            previous = c
        }
        return Double(trimmed) ?? .nan
    }

    /// `value` rounded to `places` decimal places (negative: to tens, hundreds, …), halves away
    /// from zero, judged on the value's shortest decimal representation: `1.005` is the text
    /// "1.005", so it rounds to 1.01 although the double is a hair below 1.005.
    ///
    /// Arcade's math functions page says only that Round returns the value "rounded to the given
    /// number of decimal places … Trailing zeros will be truncated" (`Round(2316.2562, 2)` is
    /// 2316.26); the treatment of halves is not documented. Halves away from zero on the shortest
    /// decimal is annolink's choice: it is what a reader of the text expects, and it agrees with
    /// JavaScript's `Math.round` for positive halves; for negative halves `Math.round` goes up
    /// (-2.5 → -2) where annolink goes away from zero (-3).
    ///
    /// The result is the double nearest to the rounded decimal, so it renders with at most
    /// `places` decimals. Fast path: one multiplication and one division, with the decimal digits
    /// consulted only when the scaled value lies within rounding error of a half.
    static func round(_ value: Double, places: Int) -> Double {
        guard value.isFinite, value != 0 else { return value }
        let scale = Swift.abs(places)
        guard scale <= 22 else { return DecimalDigits(value).rounded(places: places).doubleValue }
        let p = powersOfTen[scale]
        let scaled = places >= 0 ? value * p : value / p
        let magnitude = Swift.abs(scaled)
        guard magnitude < 4_503_599_627_370_496 else {  // 2^52: too few fraction bits to judge
            return DecimalDigits(value).rounded(places: places).doubleValue
        }
        let whole = scaled.rounded(.towardZero)
        let fraction = Swift.abs(scaled - whole)  // exact below 2^52
        // `scaled` differs from the shortest decimal times 10^places by at most ~3 ulps.
        if Swift.abs(fraction - 0.5) <= Swift.max(magnitude, 1) * 1e-15 {
            return DecimalDigits(value).rounded(places: places).doubleValue
        }
        var r = whole
        if fraction > 0.5 { r += value < 0 ? -1 : 1 }
        return places >= 0 ? r / p : r * p
    }
}

/// The digits of a finite double's shortest round-trip decimal representation:
/// `value = ±0.d₁d₂…dₖ × 10^pointPosition`, with no leading or trailing zero digits (zero has
/// no digits).
struct DecimalDigits {
    /// Digit values 0…9, most significant first.
    var digits: [UInt8]
    /// Where the decimal point goes: after `pointPosition` digits (negative: leading zeros).
    var pointPosition: Int
    var isNegative: Bool

    init(digits: [UInt8], pointPosition: Int, isNegative: Bool) {
        self.digits = digits
        self.pointPosition = pointPosition
        self.isNegative = isNegative
        normalize()
    }

    /// Reads Swift's `description`, which is the shortest representation that round-trips
    /// (the same digits ECMAScript asks for), in whichever notation Swift chose.
    init(_ value: Double) {
        precondition(value.isFinite, "DecimalDigits needs a finite value")
        var digits: [UInt8] = []
        digits.reserveCapacity(17)
        var integerDigits = 0
        var inFraction = false
        var exponent = 0
        var exponentSign = 1
        var inExponent = false
        var negative = false
        for c in value.description.utf8 {
            switch c {
            case UInt8(ascii: "-"):
                if inExponent { exponentSign = -1 } else { negative = true }
            case UInt8(ascii: "+"): break
            case UInt8(ascii: "."): inFraction = true
            case UInt8(ascii: "e"), UInt8(ascii: "E"): inExponent = true
            default:
                let digit = c &- UInt8(ascii: "0")
                if inExponent {
                    exponent = exponent * 10 + Int(digit)
                } else {
                    digits.append(digit)
                    if !inFraction { integerDigits += 1 }
                }
            }
        }
        self.init(digits: digits, pointPosition: integerDigits + exponentSign * exponent, isNegative: negative)
    }

    private mutating func normalize() {
        let leading = digits.prefix { $0 == 0 }.count
        if leading == digits.count {
            digits = []
            pointPosition = 0
            return
        }
        if leading > 0 {
            digits.removeFirst(leading)
            pointPosition -= leading
        }
        while digits.last == 0 { digits.removeLast() }
    }

    /// Rounded to `places` digits after the point (negative: before it), halves away from zero.
    func rounded(places: Int) -> DecimalDigits {
        let keep = pointPosition + places
        if keep >= digits.count { return self }
        if keep < 0 { return DecimalDigits(digits: [], pointPosition: 0, isNegative: isNegative) }
        var kept = Array(digits[0..<keep])
        var point = pointPosition
        if digits[keep] >= 5 {
            var i = kept.count - 1
            while i >= 0 && kept[i] == 9 {
                kept[i] = 0
                i -= 1
            }
            if i >= 0 {
                kept[i] += 1
            } else {
                kept.insert(1, at: 0)
                point += 1
            }
        }
        return DecimalDigits(digits: kept, pointPosition: point, isNegative: isNegative)
    }

    /// The double nearest to this decimal (one correctly rounded operation when the digits fit
    /// in 15 and the scale in 10^22; otherwise the standard library's parser).
    var doubleValue: Double {
        if digits.isEmpty { return isNegative ? -0.0 : 0 }
        let exponent = pointPosition - digits.count
        if digits.count <= 15 && Swift.abs(exponent) <= 22 {
            var integer = 0.0
            for d in digits { integer = integer * 10 + Double(d) }
            let magnitude = exponent >= 0
                ? integer * NumberText.powersOfTen[exponent]
                : integer / NumberText.powersOfTen[-exponent]
            return isNegative ? -magnitude : magnitude
        }
        var text = isNegative ? "-0." : "0."
        for d in digits { text.unicodeScalars.append(Unicode.Scalar(48 + d)) }
        text += "e\(pointPosition)"
        return Double(text)!
    }

    /// The digits before the point as text ("0" when there are none).
    var integerText: String {
        guard pointPosition > 0 else { return "0" }
        var out = ""
        out.reserveCapacity(pointPosition)
        for i in 0..<pointPosition {
            out.unicodeScalars.append(Unicode.Scalar(48 + (i < digits.count ? digits[i] : 0)))
        }
        return out
    }

    /// The digits after the point, leading zeros included, no trailing zeros.
    var fractionText: String {
        var out = ""
        let start = pointPosition
        guard digits.count > Swift.max(start, 0) else { return "" }
        if start < 0 { out += String(repeating: "0", count: -start) }
        for i in Swift.max(start, 0)..<digits.count { out.unicodeScalars.append(Unicode.Scalar(48 + digits[i])) }
        return out
    }
}

extension String {
    /// The text without leading and trailing whitespace (spaces, tabs, line breaks, and the
    /// other Unicode white space), without Foundation.
    func trimmingWhitespace() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }) else { return "" }
        let last = lastIndex(where: { !$0.isWhitespace })!
        return String(self[first...last])
    }
}
