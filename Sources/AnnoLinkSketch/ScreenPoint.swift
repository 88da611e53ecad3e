/// A position on the screen in points (device-independent pixels, 1/96 inch at the nominal
/// 96 dpi), measured from the view's upper-left corner: x to the right, y down.
public struct ScreenPoint: Hashable, Sendable {
    /// Points from the left edge.
    public var x: Double
    /// Points from the top edge.
    public var y: Double

    /// The screen point `x` points right of and `y` points below the upper-left corner.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// The distance to `other`, in points.
    public func distance(to other: ScreenPoint) -> Double {
        ((other.x - x) * (other.x - x) + (other.y - y) * (other.y - y)).squareRoot()
    }
}
