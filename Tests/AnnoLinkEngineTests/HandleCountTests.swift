import AnnoLinkEngine
import AnnoLinkGeometry
import Testing

/// Each test counts with its own `HandleCounter`, so tests running in parallel do not disturb
/// each other's counts.
@Suite struct HandleCountTests {
    @Test func everyGEOSAndPROJObjectIsFreed() throws {
        let counter = HandleCounter()
        do {
            let engine = try GeometryEngine(handleCounter: counter)
            #expect(counter.geos == 1)
            let transformer = try CoordinateTransformer(handleCounter: counter)
            #expect(counter.proj == 1)

            let square = Geometry.polygon(Polygon(exterior: LineString([
                Point(x: 0, y: 0), Point(x: 1, y: 0), Point(x: 1, y: 1), Point(x: 0, y: 1), Point(x: 0, y: 0),
            ])))
            let held = try engine.geos(square)
            #expect(counter.geos == 2)
            _ = try held.buffer(by: 1).simplify(tolerance: 0.1).value()
            _ = try held.makeValid()
            _ = try engine.isValidReason(of: square)
            _ = try engine.nearestPoints(square, .point(Point(x: 5, y: 5)))
            _ = try engine.distanceAlong(.lineString(LineString([Point(x: 0, y: 0), Point(x: 4, y: 0)])), to: Point(x: 1, y: 1))
            // Failure paths free what they made too.
            _ = try? engine.validateForWriting(.polygon(Polygon(exterior: LineString([
                Point(x: 0, y: 0), Point(x: 10, y: 10), Point(x: 10, y: 0), Point(x: 0, y: 10), Point(x: 0, y: 0),
            ]))))
            _ = try? engine.geos(.polygon(Polygon(exterior: LineString([Point(x: 0, y: 0), Point(x: 1, y: 0)]))))
            #expect(counter.geos == 2, "only the engine's context and the held geometry are alive")

            _ = try transformer.transform(Point(x: 11896140, y: 7034250), from: "EPSG:2924", to: "EPSG:3857")
            _ = try? transformer.transform(Point(x: 0, y: 0), from: "EPSG:999999", to: "EPSG:4326")
            _ = try? transformer.transform(Point(x: 1e30, y: 1e30), from: "EPSG:4326", to: "EPSG:3857")
            #expect(counter.proj == 3, "the context and two cached transformations")
            withExtendedLifetime((engine, transformer, held)) {}
        }
        #expect(counter.geos == 0)
        #expect(counter.proj == 0)
        #expect(counter.total == 0)
    }
}
