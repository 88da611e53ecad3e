import AnnoLinkGeometry
import Foundation

/// What part of the map a picture shows and how: the map point at its centre, the scale, the
/// picture's size in pixels and their density, and the map's rotation, in the coordinates of
/// the view's CRS.
///
/// Pixels count right and down from the picture's top-left corner. At scale 1:`scale` and
/// `dpi` pixels per inch, one pixel covers `scale × 0.0254 / dpi` metres of the ground.
public struct MapView: Hashable, Sendable {
    /// The map point at the picture's centre, in view CRS units.
    public var center: Point
    /// The scale denominator (1200 for 1:1200).
    public var scale: Double
    /// The picture's width and height in pixels.
    public var width: Int
    public var height: Int
    /// Pixels per inch: the picture's pixels, printed at this density, show the map at `scale`.
    public var dpi: Double
    /// Degrees the map is turned counter-clockwise on the picture (0: north up).
    public var rotation: Double
    /// The size of the view CRS's unit in metres (0.3048006 for the US survey foot).
    public var metresPerUnit: Double

    public init(center: Point, scale: Double, width: Int, height: Int, dpi: Double = 96, rotation: Double = 0, metresPerUnit: Double) {
        self.center = center
        self.scale = scale
        self.width = width
        self.height = height
        self.dpi = dpi
        self.rotation = rotation
        self.metresPerUnit = metresPerUnit
    }

    /// The view that shows all of `envelope` (view CRS units) in a picture `width` × `height`
    /// pixels, centred, at the largest scale that fits it whole.
    public static func fitting(_ envelope: Envelope, width: Int, height: Int, dpi: Double = 96, rotation: Double = 0,
                               metresPerUnit: Double) -> MapView {
        let radians = rotation * .pi / 180
        let c = abs(cos(radians)), s = abs(sin(radians))
        // The rotated envelope's extent along the picture's axes.
        let across = envelope.width * c + envelope.height * s
        let down = envelope.width * s + envelope.height * c
        let unitsPerPixel = max(across / Double(width), down / Double(height), 1e-9)
        let scale = unitsPerPixel * metresPerUnit * dpi / 0.0254
        let center = Point(x: (envelope.minX + envelope.maxX) / 2, y: (envelope.minY + envelope.maxY) / 2)
        return MapView(center: center, scale: scale, width: width, height: height, dpi: dpi, rotation: rotation, metresPerUnit: metresPerUnit)
    }

    /// View CRS units per pixel.
    public var unitsPerPixel: Double { scale * 0.0254 / dpi / metresPerUnit }

    /// The most view CRS units one pixel may cover: a trillion, far beyond any map of the
    /// Earth in any unit, and far below where Cairo's matrices stop being invertible (their
    /// determinant, the square of pixels per unit, underflows near 1e154 units per pixel).
    public static let maximumUnitsPerPixel = 1e12

    /// Why the view cannot be drawn (a centre or scale that is not a finite number, a pixel
    /// wider than `maximumUnitsPerPixel`), or nil when it can.
    public var undrawableReason: String? {
        guard center.x.isFinite, center.y.isFinite, scale.isFinite, scale > 0, dpi.isFinite, dpi > 0, rotation.isFinite,
              unitsPerPixel.isFinite, unitsPerPixel > 0 else {
            return "the centre, scale or rotation is not a finite number"
        }
        guard unitsPerPixel <= Self.maximumUnitsPerPixel else {
            return String(format: "one pixel would cover %.3g map units, more than the %.0g a map can use", unitsPerPixel, Self.maximumUnitsPerPixel)
        }
        return nil
    }

    /// Pixels per point of text printed at this view's `dpi` (1⅓ at 96 dpi).
    public var pixelsPerPoint: Double { dpi / 72 }

    /// Where the map point `p` (view CRS units) falls in the picture, in pixels.
    public func pixel(of p: Point) -> Point {
        let radians = rotation * .pi / 180
        let c = cos(radians), s = sin(radians)
        let dx = p.x - center.x, dy = p.y - center.y
        let u = (dx * c - dy * s) / unitsPerPixel, v = (dx * s + dy * c) / unitsPerPixel
        return Point(x: Double(width) / 2 + u, y: Double(height) / 2 - v)
    }

    /// The map point (view CRS units) at pixel `p` of the picture.
    public func mapPoint(atPixel p: Point) -> Point {
        let radians = rotation * .pi / 180
        let c = cos(radians), s = sin(radians)
        let u = (p.x - Double(width) / 2) * unitsPerPixel, v = (Double(height) / 2 - p.y) * unitsPerPixel
        return Point(x: center.x + u * c + v * s, y: center.y - u * s + v * c)
    }

    /// The picture's outline as map points (view CRS units), `steps` points per side, for
    /// changing it into another CRS; the first corner is the top-left one.
    public func outline(steps: Int = 8) -> [Point] {
        let w = Double(width), h = Double(height)
        let corners = [Point(x: 0, y: 0), Point(x: w, y: 0), Point(x: w, y: h), Point(x: 0, y: h)]
        var points: [Point] = []
        for i in 0..<4 {
            let a = corners[i], b = corners[(i + 1) % 4]
            for k in 0..<steps {
                let t = Double(k) / Double(steps)
                points.append(mapPoint(atPixel: Point(x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t)))
            }
        }
        return points
    }

    /// The smallest envelope (view CRS units) holding the whole picture.
    public var envelope: Envelope {
        let corners = outline(steps: 1)
        var envelope = Envelope(corners[0])
        for corner in corners.dropFirst() { envelope.expand(toInclude: corner) }
        return envelope
    }
}

extension MapView {
    /// The pixels on the longer side of a picture when the caller asks for none: 1024.
    public static let defaultLongerSide = 1024

    /// The bounds of the longer side of a picture of a whole data set (`overviewLongerSide`):
    /// never smaller than a picture of a view, and never so large that the overview's memory
    /// (28 bytes a pixel: docs/render.md, "Overviews") passes 2 GB.
    public static let overviewLongerSides = defaultLongerSide...8192

    /// How many pixels the typical spacing of features spans in a picture of a whole data set:
    /// enough for a gap under half that spacing wide to hold white pixels between the strokes
    /// and discs — the sample's streets, 50 to 96 ft wide, between parcels some 120 ft apart
    /// (docs/render.md, "Overviews").
    public static let overviewPixelsPerSpacing = 6.0

    /// The longer side, in pixels, of a picture of all of `envelope` (view CRS units) holding
    /// `features` features when the caller gives no size: the typical spacing of the features,
    /// √(area ÷ features), spans `overviewPixelsPerSpacing` pixels, within
    /// `overviewLongerSides`. So a small file keeps `defaultLongerSide`, and a dense one is drawn
    /// large enough for the gaps between its features to show. An envelope without an area
    /// gives `defaultLongerSide`.
    public static func overviewLongerSide(of envelope: Envelope, features: Int) -> Int {
        let area = envelope.width * envelope.height
        let bounds = overviewLongerSides
        guard features > 0, area.isFinite, area > 0 else { return bounds.lowerBound }
        let spacing = (area / Double(features)).squareRoot()
        let wanted = (max(envelope.width, envelope.height) / spacing * overviewPixelsPerSpacing).rounded(.up)
        return Int(min(max(wanted, Double(bounds.lowerBound)), Double(bounds.upperBound)))
    }

    /// A picture `longerSide` pixels on its longer side, the other side in the shape of
    /// `envelope` (at least 1 pixel).
    public static func size(of envelope: Envelope, longerSide: Int) -> (width: Int, height: Int) {
        let aspect = envelope.height / envelope.width
        let side = Double(longerSide)
        return aspect > 1 ? (max(1, Int((side / aspect).rounded())), longerSide) : (longerSide, max(1, Int((side * aspect).rounded())))
    }
}
