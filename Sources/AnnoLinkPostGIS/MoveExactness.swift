/// Whether moving coordinates by a vector and back gives them back bit for bit, decided for a
/// whole range of coordinates at once — what lets a bulk move skip testing each row.
///
/// The rule: every double in one binade [2^e, 2^(e+1)) (or its negative) is a multiple of
/// q = 2^(e−52). If the shift d is a multiple of q too, and |x| + |d| ≤ 2^(e+1) for the
/// largest |x|, then x + d is a multiple of q no larger than 2^53·q, so it is representable and
/// the addition exact; (x + d) − d = x is then exact as well. `ST_Translate` computes
/// 1·x + 0·y + 0·z + d, whose first three terms give x exactly for finite coordinates.
/// A range that crosses a binade (or zero), or a shift that is not such a multiple, gets no
/// promise: the caller tests row by row.
public enum MoveExactness {
    /// True when every x in `range` satisfies (x + d) − d == x exactly (bit for bit); nil (no
    /// coordinates) is trivially true.
    public static func restores(_ range: ClosedRange<Double>?, by d: Double) -> Bool {
        guard let range else { return true }
        let lo = range.lowerBound, hi = range.upperBound
        guard lo.isFinite, hi.isFinite, d.isFinite else { return false }
        // One sign, away from zero (−0 and +0 do not survive x + 0 − 0 alike).
        guard lo > 0 || hi < 0 else { return false }
        let small = min(abs(lo), abs(hi)), large = max(abs(lo), abs(hi))
        guard small.isNormal, small.exponent == large.exponent else { return false }
        let e = small.exponent
        let quantum = Double(sign: .plus, exponent: e - 52, significand: 1)
        guard quantum.isNormal, d.truncatingRemainder(dividingBy: quantum) == 0 else { return false }
        // 2^(e+1) − large is exact (Sterbenz: large lies in [2^e, 2^(e+1))).
        let top = Double(sign: .plus, exponent: e + 1, significand: 1)
        return abs(d) <= top - large
    }
}
