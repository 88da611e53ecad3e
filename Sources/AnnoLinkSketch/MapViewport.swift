import AnnoLinkGeometry
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A headless map view: a viewpoint shown in a view of a given size, with the conversions
/// between screen points and map locations that Esri's `MapView` offers.
///
/// Scale follows Esri's rule for 96 dpi: one point on the screen is `scale × 0.0254 / 96`
/// metres on the ground, which is `unitsPerPoint` in the CRS's own unit. The scale is
/// nominal: in Web Mercator it is true only at the equator. The reticle is the centre of the
/// view, so `reticleLocation` is the viewpoint's centre.
public struct MapViewport: Hashable, Sendable {
    /// Metres per degree along the equator of the WGS 84 ellipsoid (2πR / 360, R = 6378137 m):
    /// the size Esri gives a degree when it computes the scale of a geographic CRS.
    public static let metresPerDegree = 2 * Double.pi * 6_378_137 / 360

    /// What the view shows.
    public var viewpoint: Viewpoint
    /// The view's width in points.
    public private(set) var width: Double
    /// The view's height in points.
    public private(set) var height: Double
    /// The size of the CRS's linear unit in metres: 1 for metres (Web Mercator),
    /// 1200/3937 for the US survey foot, `metresPerDegree` for a geographic CRS.
    public private(set) var metresPerUnit: Double

    /// A view `width` × `height` points showing `viewpoint` in a CRS whose unit is
    /// `metresPerUnit` metres.
    /// - Throws: `SketchError.invalidViewpoint` when a size or the unit is not a positive
    ///   finite number.
    public init(viewpoint: Viewpoint, width: Double, height: Double, metresPerUnit: Double = 1) throws {
        guard width.isFinite, height.isFinite, width > 0, height > 0 else {
            throw SketchError.invalidViewpoint("the view size must be positive, not \(width) × \(height) points")
        }
        guard metresPerUnit.isFinite, metresPerUnit > 0 else {
            throw SketchError.invalidViewpoint("the CRS unit must be a positive number of metres, not \(metresPerUnit)")
        }
        self.viewpoint = viewpoint
        self.width = width
        self.height = height
        self.metresPerUnit = metresPerUnit
    }

    /// Map units (of the CRS) per screen point at the current scale: `scale × 0.0254 / 96`
    /// metres, in the CRS's unit.
    public var unitsPerPoint: Double { viewpoint.scale * 0.0254 / 96 / metresPerUnit }

    /// The screen point at the centre of the view, where the reticle is drawn.
    public var screenCenter: ScreenPoint { ScreenPoint(x: width / 2, y: height / 2) }

    /// The map location under the reticle.
    public var reticleLocation: Point { viewpoint.center }

    /// The map location shown at `screenPoint` (which may lie outside the view).
    ///
    /// The screen offset from the centre is scaled by `unitsPerPoint`, y flipped (screen y
    /// grows down, map y up), then turned clockwise by the rotation, undoing the view's
    /// counter-clockwise turn of the map.
    public func location(fromScreenPoint screenPoint: ScreenPoint) -> Point {
        let u = unitsPerPoint
        let ex = (screenPoint.x - width / 2) * u
        let ey = -(screenPoint.y - height / 2) * u
        let (sin, cos) = Self.sinCos(viewpoint.rotation)
        return Point(x: viewpoint.center.x + ex * cos + ey * sin, y: viewpoint.center.y - ex * sin + ey * cos)
    }

    /// The screen point at which `location` is shown (outside the view's bounds when the
    /// location is not in view). The inverse of `location(fromScreenPoint:)`.
    public func screenPoint(fromLocation location: Point) -> ScreenPoint {
        let u = unitsPerPoint
        let mx = location.x - viewpoint.center.x
        let my = location.y - viewpoint.center.y
        let (sin, cos) = Self.sinCos(viewpoint.rotation)
        let ex = mx * cos - my * sin
        let ey = mx * sin + my * cos
        return ScreenPoint(x: width / 2 + ex / u, y: height / 2 - ey / u)
    }

    /// Moves the view so that the reticle lands on what was shown `dx` points right of and
    /// `dy` points below it: the gesture of dragging the map the other way.
    public mutating func pan(dx: Double, dy: Double) {
        viewpoint.center = location(fromScreenPoint: ScreenPoint(x: width / 2 + dx, y: height / 2 + dy))
    }

    /// The bounding box in map units of what the view shows (of the turned view when rotated).
    public var visibleExtent: Envelope {
        let corners = [ScreenPoint(x: 0, y: 0), ScreenPoint(x: width, y: 0), ScreenPoint(x: width, y: height), ScreenPoint(x: 0, y: height)]
        var envelope = Envelope(location(fromScreenPoint: corners[0]))
        for corner in corners.dropFirst() { envelope.expand(toInclude: location(fromScreenPoint: corner)) }
        return envelope
    }

    /// Sine and cosine of an angle in degrees, exact at the multiples of 90°, so that a
    /// quarter-turned view maps whole points to whole points.
    static func sinCos(_ degrees: Double) -> (Double, Double) {
        switch degrees {
        case 0: return (0, 1)
        case 90: return (1, 0)
        case 180: return (0, -1)
        case 270: return (-1, 0)
        default:
            let radians = degrees * .pi / 180
            return (sin(radians), cos(radians))
        }
    }
}
