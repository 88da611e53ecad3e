import AnnoLinkGeometry
import AnnoLinkRender
import Testing

@Suite("MapView: pixels and map points")
struct MapViewTests {
    /// 1:1200 at 96 dpi in US survey feet: 1200 × 0.0254 / 96 m = 0.3175 m per pixel.
    let feet = 1200.0 / 3937
    @Test("units per pixel from scale, dpi and the CRS unit")
    func unitsPerPixel() {
        let view = MapView(center: Point(x: 0, y: 0), scale: 1200, width: 100, height: 100, dpi: 96, metresPerUnit: feet)
        #expect(abs(view.unitsPerPixel - 0.3175 / feet) < 1e-12)
        #expect(abs(view.pixelsPerPoint - 4.0 / 3) < 1e-12)
    }

    @Test("the centre falls on the middle pixel, north is up, and pixels go back to the same map points", arguments: [0.0, 30, 90, 245])
    func roundTrip(rotation: Double) {
        let view = MapView(center: Point(x: 1000, y: 2000), scale: 500, width: 640, height: 480, dpi: 96, rotation: rotation, metresPerUnit: 1)
        let middle = view.pixel(of: view.center)
        #expect(abs(middle.x - 320) < 1e-9 && abs(middle.y - 240) < 1e-9)
        for p in [Point(x: 1010, y: 1990), Point(x: 950, y: 2050)] {
            let back = view.mapPoint(atPixel: view.pixel(of: p))
            #expect(abs(back.x - p.x) < 1e-6 && abs(back.y - p.y) < 1e-6)
        }
        if rotation == 0 {
            #expect(view.pixel(of: Point(x: 1000, y: 2010)).y < 240)
            #expect(view.pixel(of: Point(x: 1010, y: 2000)).x > 320)
        }
        if rotation == 90 {
            // Turned a quarter counter-clockwise: east points up.
            let east = view.pixel(of: Point(x: 1010, y: 2000))
            #expect(abs(east.x - 320) < 1e-9 && east.y < 240)
        }
    }

    @Test("fitting an envelope shows all of it, touching two sides")
    func fitting() {
        let box = Envelope(minX: 0, minY: 0, maxX: 400, maxY: 100)
        let view = MapView.fitting(box, width: 800, height: 800, metresPerUnit: 1)
        #expect(abs(view.unitsPerPixel - 0.5) < 1e-12)
        let corner = view.pixel(of: Point(x: 0, y: 100))
        #expect(abs(corner.x) < 1e-9 && abs(corner.y - 300) < 1e-9)
        #expect(view.envelope.contains(box))
    }

    @Test("a picture of a whole data set: the features' spacing spans 6 px, from 1024 to 8192 px on the longer side")
    func overviewSize() {
        let box = Envelope(minX: 0, minY: 0, maxX: 10_000, maxY: 2_500)
        // 250,000 features in 25,000,000 square units: 10 units apart, 6 pixels.
        #expect(MapView.overviewLongerSide(of: box, features: 250_000) == 6_000)
        let wide = MapView.size(of: box, longerSide: 6_000)
        #expect(wide.width == 6_000 && wide.height == 1_500)
        // Sparse: 100 units apart would be 600 px; a picture is never smaller than 1024.
        #expect(MapView.overviewLongerSide(of: box, features: 2_500) == 1_024)
        // Dense: 1.6 units apart would be 37,947 px.
        #expect(MapView.overviewLongerSide(of: box, features: 10_000_000) == 8_192)
        #expect(MapView.overviewLongerSide(of: box, features: 0) == 1_024)
        #expect(MapView.overviewLongerSide(of: Envelope(minX: 0, minY: 0, maxX: 100, maxY: 0), features: 1_000) == 1_024)
        let tall = MapView.size(of: Envelope(minX: 0, minY: 0, maxX: 10, maxY: 40), longerSide: 2_000)
        #expect(tall.width == 500 && tall.height == 2_000)
    }
}
