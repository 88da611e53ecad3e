import AnnoLinkGeometry
import AnnoLinkSketch
import AnnoLinkTestSupport
import Testing

@Suite("viewpoint and screen conversion")
struct MapViewportTests {
    @Test("one point is scale × 0.0254 / 96 metres: 5.2917 m at 1:20 000")
    func unitsPerPointInMetres() throws {
        let view = try viewport(scale: 20_000)
        #expect(abs(view.unitsPerPoint - 5.291_666_666_666_667) < 1e-12)
    }

    @Test("Esri's Web Mercator tiling scheme: level 0 is 1:591657527.591555 at 156543.033928 m a pixel")
    func agreesWithEsriTilingScheme() throws {
        let view = try viewport(scale: 591_657_527.591555)
        // The tiling scheme rounds the inch to 1/39.37 m (a ratio of 96 × 39.37 = 3779.52);
        // 0.0254 m differs from that by 2 parts in a million.
        #expect(abs(view.unitsPerPoint / 156_543.033928 - 1) < 3e-6)
    }

    @Test("in US survey feet, 1:1200 is 0.3175 m = 1.041664 ft a point")
    func unitsPerPointInSurveyFeet() throws {
        let view = try MapViewport(viewpoint: Viewpoint(center: p(11_790_000, 7_056_000), scale: 1200), width: 800, height: 600, metresPerUnit: 1200.0 / 3937.0)
        #expect(abs(view.unitsPerPoint - 0.3175 * 3937 / 1200) < 1e-12)
        #expect(abs(view.unitsPerPoint - 1.041_664_6) < 1e-6)
    }

    @Test("screen points from the upper-left corner, y down; the reticle is the centre")
    func unrotatedConversion() throws {
        let view = try viewport(center: p(1000, 2000), scale: 2 * metrePerPointScale)
        #expect(view.reticleLocation == p(1000, 2000))
        #expect(view.screenCenter == ScreenPoint(x: 100, y: 50))
        #expect(view.location(fromScreenPoint: ScreenPoint(x: 100, y: 50)) == p(1000, 2000))
        // The upper-left corner is 100 points west and 50 north of the centre, 2 m a point.
        #expect(close(view.location(fromScreenPoint: ScreenPoint(x: 0, y: 0)), p(800, 2100)))
        #expect(close(view.location(fromScreenPoint: ScreenPoint(x: 200, y: 100)), p(1200, 1900)))
        let back = view.screenPoint(fromLocation: p(1010, 1990))
        #expect(abs(back.x - 105) < 1e-9 && abs(back.y - 55) < 1e-9)
        // Locations outside the view map outside the screen.
        #expect(view.screenPoint(fromLocation: p(0, 2000)).x < 0)
    }

    @Test("rotation is counter-clockwise: at 90° map north points to the left of the screen")
    func rotatedConversion() throws {
        let view = try viewport(center: p(0, 0), rotation: 90)
        let north = view.screenPoint(fromLocation: p(0, 10))
        #expect(abs(north.x - 90) < 1e-9 && abs(north.y - 50) < 1e-9)
        let east = view.screenPoint(fromLocation: p(10, 0))
        #expect(abs(east.x - 100) < 1e-9 && abs(east.y - 40) < 1e-9)
        // The top of the screen shows what lies east of the centre.
        #expect(close(view.location(fromScreenPoint: ScreenPoint(x: 100, y: 0)), p(50, 0)))
    }

    @Test("screen and map conversions invert each other at any rotation", arguments: [0.0, 30, 90, 181.5, 270, 359])
    func roundTrip(rotation: Double) throws {
        let view = try viewport(center: p(-1_067_898.59, 6_998_366.62), scale: 5000, rotation: rotation)
        for location in [p(-1_067_943.67, 6_998_403.86), p(-1_067_800, 6_998_300), view.reticleLocation] {
            let back = view.location(fromScreenPoint: view.screenPoint(fromLocation: location))
            #expect(close(back, location, 1e-6))
        }
    }

    @Test("rotations are normalised into [0, 360)")
    func normalisedRotation() throws {
        #expect(try Viewpoint(center: p(0, 0), scale: 1, rotation: -90).rotation == 270)
        #expect(try Viewpoint(center: p(0, 0), scale: 1, rotation: 450).rotation == 90)
        #expect(try Viewpoint(center: p(0, 0), scale: 1, rotation: 720).rotation == 0)
    }

    @Test("panning moves the reticle over what was shown that many points away")
    func panning() throws {
        var view = try viewport(center: p(0, 0), scale: 3 * metrePerPointScale)
        view.pan(dx: 10, dy: -4)
        #expect(close(view.reticleLocation, p(30, 12)))
        var turned = try viewport(center: p(0, 0), rotation: 90)
        turned.pan(dx: 0, dy: -10)
        // Up the screen is east on a map turned a quarter counter-clockwise.
        #expect(close(turned.reticleLocation, p(10, 0)))
    }

    @Test("the visible extent covers the view's corners")
    func visibleExtent() throws {
        let view = try viewport(center: p(0, 0), rotation: 90)
        #expect(view.visibleExtent == Envelope(minX: -50, minY: -100, maxX: 50, maxY: 100))
    }

    @Test("a scale, size or unit that is not a positive number is refused")
    func invalidViewpoints() throws {
        #expect(throws: SketchError.self) { try Viewpoint(center: p(0, 0), scale: 0) }
        #expect(throws: SketchError.self) { try Viewpoint(center: p(0, 0), scale: -5) }
        #expect(throws: SketchError.self) { try Viewpoint(center: p(0, 0), scale: .nan) }
        #expect(throws: SketchError.self) { try Viewpoint(center: p(.infinity, 0), scale: 1) }
        let viewpoint = try Viewpoint(center: p(0, 0), scale: 1000)
        #expect(throws: SketchError.self) { try MapViewport(viewpoint: viewpoint, width: 0, height: 10) }
        #expect(throws: SketchError.self) { try MapViewport(viewpoint: viewpoint, width: 10, height: 10, metresPerUnit: 0) }
    }
}
