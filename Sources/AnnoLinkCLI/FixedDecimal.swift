import Foundation

/// `value` with `places` decimals, exactly as `String(format: "%.<places>f", value)` writes it
/// (the exact binary value rounded half to even, and "-0.00" for a negative value that rounds
/// to zero), without Foundation's formatting: a first `String(format:)` in a process costs the
/// Swift runtime a scan of every protocol conformance in the binary for its `CVarArg` casts,
/// about a third of a millisecond of a one-edit command (docs/benchmarks.md, "Single attribute
/// edit").
///
/// `value × 10^places` is rounded with its exact rounding error (a fused multiply-add), so the
/// result is right even where the product itself rounds across a half. Values too large for that
/// (beyond 2^52 ÷ 10^places) and non-finite ones are handed to `String(format:)`.
func fixedDecimal(_ value: Double, places: Int = 2) -> String {
    precondition((0...9).contains(places), "places must be 0...9")
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    let product = value * scale
    guard value.isFinite, abs(product) < 0x1p52 else { return String(format: "%.\(places)f", value) }
    // value × scale = product + error exactly, error being what the multiplication rounded off.
    let error = (-product).addingProduct(value, scale)
    let floor = product.rounded(.down)
    // (product − floor) − ½ is exact for |product| < 2^52; the exact value lies above the half
    // between floor and floor + 1 when that plus error is positive.
    let aboveHalf = (product - floor) - 0.5
    let rounded: Double
    if aboveHalf > -error {
        rounded = floor + 1
    } else if aboveHalf < -error {
        rounded = floor
    } else {
        rounded = floor.truncatingRemainder(dividingBy: 2) == 0 ? floor : floor + 1
    }
    let units = Int64(rounded)
    let digits = String(units.magnitude)
    let sign = value.sign == .minus ? "-" : ""
    guard places > 0 else { return sign + digits }
    let padded = String(repeating: "0", count: max(0, places + 1 - digits.count)) + digits
    return sign + padded.dropLast(places) + "." + padded.suffix(places)
}
