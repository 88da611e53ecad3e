import Foundation

/// A small deterministic random number generator (SplitMix64), so that `annolink sample` makes
/// the same data for the same seed on every machine and Swift version.
struct SampleRandom {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A double uniformly in `range`.
    mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        let unit = Double(next() >> 11) / Double(1 << 53)
        return range.lowerBound + unit * (range.upperBound - range.lowerBound)
    }

    /// A double in `range` (positive bounds) whose logarithm is uniform: many small values and a
    /// long tail of large ones, as lot sizes are.
    mutating func logUniform(_ range: ClosedRange<Double>) -> Double {
        precondition(range.lowerBound > 0, "logUniform needs a positive range")
        return exp(uniform(log(range.lowerBound)...log(range.upperBound)))
    }

    /// The mean of `logUniform(range)`: (b − a) / ln(b / a).
    static func logUniformMean(_ range: ClosedRange<Double>) -> Double {
        (range.upperBound - range.lowerBound) / log(range.upperBound / range.lowerBound)
    }
}
