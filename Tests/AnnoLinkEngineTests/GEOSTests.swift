import AnnoLinkEngine
import AnnoLinkGeometry
import Testing

// Hand-made cases whose answers are known exactly: 3-4-5 triangles, squares, buffers with one
// segment per quadrant (polygons with exactly known area).

private func point(_ x: Double, _ y: Double) -> Point { Point(x: x, y: y) }
private func line(_ coordinates: [(Double, Double)]) -> LineString { LineString(coordinates.map { point($0.0, $0.1) }) }
private func ring(_ coordinates: [(Double, Double)]) -> LineString { line(coordinates) }
private func square(_ minX: Double, _ minY: Double, _ side: Double) -> LineString {
    ring([(minX, minY), (minX + side, minY), (minX + side, minY + side), (minX, minY + side), (minX, minY)])
}

/// A 10 × 10 square with a 2 × 2 hole: perimeter 40 + 8, area 100 − 4.
private let squareWithHole = Geometry.polygon(Polygon(exterior: square(0, 0, 10), holes: [square(4, 4, 2)]))
/// Edges (0 0)–(10 10) and (10 0)–(0 10) cross at (5 5).
private let bowTie = Geometry.polygon(Polygon(exterior: ring([(0, 0), (10, 10), (10, 0), (0, 10), (0, 0)])))
/// Two segments of lengths 5 (3-4-5) and 6.
private let bentLine = Geometry.lineString(line([(0, 0), (3, 4), (3, 10)]))

@Suite struct ConversionTests {
    static let values: [Geometry] = [
        .point(point(1.5, -2.25)),
        .emptyPoint,
        bentLine,
        .lineString(LineString([])),
        squareWithHole,
        .polygon(Polygon(rings: [])),
        .multiPoint(MultiPoint([point(1, 2), point(3, 4)])),
        .multiPoint(MultiPoint([])),
        .multiLineString(MultiLineString([line([(0, 0), (1, 1)]), line([(2, 2), (3, 3), (4, 2)])])),
        .multiPolygon(MultiPolygon([Polygon(exterior: square(0, 0, 1)), Polygon(exterior: square(11896140, 7034250, 0.5))])),
        .multiPolygon(MultiPolygon([])),
    ]

    @Test("values survive the trip to GEOS and back unchanged", arguments: values)
    func roundTrip(_ value: Geometry) throws {
        let engine = try GeometryEngine()
        let back = try engine.geos(value).value()
        if case .point(let p) = value, p.x.isNaN {
            // NaN is not equal to itself: check the empty point by its kind and emptiness.
            #expect(back.kind == .point && back.isEmpty)
        } else {
            #expect(back == value)
        }
    }

    @Test func refusedStructureCarriesGEOSMessage() throws {
        let engine = try GeometryEngine()
        let open = Geometry.polygon(Polygon(exterior: line([(0, 0), (1, 0), (1, 1), (0, 1)])))
        let error = try #require(throws: GEOSError.self) { try engine.geos(open) }
        #expect(error.function == "GEOSGeom_createLinearRing_r")
        #expect(error.messages == ["IllegalArgumentException: Points of LinearRing do not form a closed linestring"])

        let onePoint = Geometry.lineString(line([(0, 0)]))
        let lineError = try #require(throws: GEOSError.self) { try engine.geos(onePoint) }
        #expect(lineError.messages == ["IllegalArgumentException: point array must contain 0 or >1 elements"])
    }
}

@Suite struct ValidityTests {
    @Test func bowTieIsInvalidAtItsCrossing() throws {
        let engine = try GeometryEngine()
        #expect(try engine.isValid(bowTie) == false)
        #expect(try engine.isValidReason(of: bowTie) == "Self-intersection[5 5]")
        #expect(try engine.invalidity(of: bowTie) == Invalidity(reason: "Self-intersection", location: point(5, 5)))
    }

    @Test func bowTieInStatePlaneFeetIsReportedAtItsCrossing() throws {
        // The Sterling bow-tie: edges cross at (11896145, 7034255) exactly.
        let engine = try GeometryEngine()
        let bowTie = Geometry.polygon(Polygon(exterior: ring([
            (11896140, 7034250), (11896150, 7034260), (11896150, 7034250), (11896140, 7034260), (11896140, 7034250),
        ])))
        #expect(try engine.isValidReason(of: bowTie) == "Self-intersection[11896145 7034255]")
        #expect(try engine.invalidity(of: bowTie)?.location == point(11896145, 7034255))
    }

    @Test func holeOutsideShell() throws {
        let engine = try GeometryEngine()
        let polygon = Geometry.polygon(Polygon(exterior: square(0, 0, 10), holes: [square(20, 20, 1)]))
        #expect(try engine.isValidReason(of: polygon) == "Hole lies outside shell[20 20]")
    }

    @Test func validPolygon() throws {
        let engine = try GeometryEngine()
        #expect(try engine.isValid(squareWithHole))
        #expect(try engine.isValidReason(of: squareWithHole) == "Valid Geometry")
        #expect(try engine.invalidity(of: squareWithHole) == nil)
    }

    @Test func makeValidSplitsTheBowTieIntoItsTriangles() throws {
        let engine = try GeometryEngine()
        let repaired = try engine.makeValid(bowTie)
        guard case .multiPolygon(let multi) = repaired else {
            Issue.record("expected a MULTIPOLYGON, got \(repaired.kind)")
            return
        }
        #expect(multi.polygons.count == 2)
        #expect(try engine.isValid(repaired))
        #expect(try engine.area(of: repaired) == 50)
        let areas = try multi.polygons.map { try engine.area(of: .polygon($0)) }
        #expect(areas == [25, 25])
    }
}

@Suite struct MeasureTests {
    @Test func lengthAndArea() throws {
        let engine = try GeometryEngine()
        #expect(try engine.length(of: bentLine) == 11)
        #expect(try engine.length(of: squareWithHole) == 48)
        #expect(try engine.area(of: squareWithHole) == 96)
        #expect(try engine.area(of: bentLine) == 0)
        #expect(try engine.length(of: .point(point(1, 1))) == 0)
    }

    @Test func envelope() throws {
        let engine = try GeometryEngine()
        #expect(try engine.envelope(of: bentLine) == Envelope(minX: 0, minY: 0, maxX: 3, maxY: 10))
        #expect(try engine.envelope(of: .polygon(Polygon(rings: []))) == nil)
    }

    @Test func distanceAndNearestPoints() throws {
        let engine = try GeometryEngine()
        // Corner (1 1) of the unit square and corner (4 5) of the other are 3-4-5 apart.
        let a = Geometry.polygon(Polygon(exterior: square(0, 0, 1)))
        let b = Geometry.polygon(Polygon(exterior: square(4, 5, 2)))
        #expect(try engine.distance(from: a, to: b) == 5)
        let (onA, onB) = try engine.nearestPoints(a, b)
        #expect(onA == point(1, 1))
        #expect(onB == point(4, 5))

        let vertical = Geometry.lineString(line([(3, -5), (3, 5)]))
        #expect(try engine.distance(from: .point(point(0, 0)), to: vertical) == 3)
        let (fromOrigin, onLine) = try engine.nearestPoints(.point(point(0, 0)), vertical)
        #expect(fromOrigin == point(0, 0))
        #expect(onLine == point(3, 0))
    }

    @Test func predicates() throws {
        let engine = try GeometryEngine()
        let a = Geometry.polygon(Polygon(exterior: square(0, 0, 1)))
        let touching = Geometry.polygon(Polygon(exterior: square(1, 0, 1)))
        let far = Geometry.polygon(Polygon(exterior: square(4, 5, 2)))
        #expect(try engine.intersects(a, touching))
        #expect(try engine.intersects(a, far) == false)
        #expect(try engine.isWithinDistance(5, a, far))
        #expect(try engine.isWithinDistance(4.999, a, far) == false)
        #expect(throws: EngineError.invalidArgument("the distance must be zero or more, not -1.0")) {
            try engine.isWithinDistance(-1, a, far)
        }
    }

    @Test func emptyGeometriesHaveNoDistance() throws {
        let engine = try GeometryEngine()
        #expect(throws: EngineError.emptyGeometry(operation: "distance(to:)")) {
            try engine.distance(from: .emptyPoint, to: bentLine)
        }
        #expect(throws: EngineError.emptyGeometry(operation: "nearestPoints(with:)")) {
            try engine.nearestPoints(bentLine, .polygon(Polygon(rings: [])))
        }
    }
}

@Suite struct LineTests {
    @Test(arguments: [
        (5.0, point(3, 4)), (8, point(3, 7)), (0, point(0, 0)), (-1, point(3, 9)), (100, point(3, 10)),
    ] as [(Double, Point)])
    func pointAtDistance(_ distance: Double, _ expected: Point) throws {
        let engine = try GeometryEngine()
        #expect(try engine.interpolatedPoint(along: bentLine, atDistance: distance) == expected)
    }

    @Test func pointAtFraction() throws {
        let engine = try GeometryEngine()
        // Halfway along 11 units is 5.5: 0.5 past the bend at (3 4).
        #expect(try engine.interpolatedPoint(along: bentLine, atFraction: 0.5) == point(3, 4.5))
        #expect(try engine.interpolatedPoint(along: bentLine, atFraction: 1) == point(3, 10))
    }

    @Test func distanceAlongLine() throws {
        let engine = try GeometryEngine()
        #expect(try engine.distanceAlong(bentLine, to: point(10, 7)) == 8)
        #expect(try engine.fractionAlong(bentLine, to: point(10, 7)) == 8.0 / 11.0)
        #expect(try engine.distanceAlong(bentLine, to: point(-3, -4)) == 0)
    }

    @Test func onlyLinesHaveDistancesAlong() throws {
        let engine = try GeometryEngine()
        #expect(throws: EngineError.notLineal(.polygon, operation: "interpolatedPoint(atDistance:)")) {
            try engine.interpolatedPoint(along: squareWithHole, atDistance: 1)
        }
        #expect(throws: EngineError.emptyGeometry(operation: "distanceAlongLine(to:)")) {
            try engine.distanceAlong(.lineString(LineString([])), to: point(0, 0))
        }
    }
}

@Suite struct NearestVertexTests {
    @Test func endOfSingleSegment() throws {
        let engine = try GeometryEngine()
        let segment = Geometry.lineString(line([(0, 0), (10, 0)]))
        let nearest = try engine.nearestVertex(of: segment, to: point(7, 4))
        #expect(nearest == NearestVertex(part: 0, vertex: 1, point: point(10, 0), distance: 5))
        #expect(try engine.nearestVertex(of: segment, to: point(3, 4)).vertex == 0)
    }

    @Test func ringsArePartsAndTiesGoToTheFirst() throws {
        let engine = try GeometryEngine()
        // (5 5) is √2 from each hole corner (4 4), (6 4), (6 6), (4 6): the first, vertex 0, wins.
        let nearest = try engine.nearestVertex(of: squareWithHole, to: point(5, 5))
        #expect(nearest.part == 1)
        #expect(nearest.vertex == 0)
        #expect(nearest.point == point(4, 4))
        #expect(nearest.distance == 2.0.squareRoot())
    }

    @Test func multiPolygonRingsAreNumberedOn() throws {
        let engine = try GeometryEngine()
        let multi = Geometry.multiPolygon(MultiPolygon([
            Polygon(exterior: square(0, 0, 10), holes: [square(4, 4, 2)]),
            Polygon(exterior: square(20, 0, 10)),
        ]))
        let nearest = try engine.nearestVertex(of: multi, to: point(31, 11))
        #expect(nearest == NearestVertex(part: 2, vertex: 2, point: point(30, 10), distance: 2.0.squareRoot()))
    }

    @Test func emptyHasNoVertex() throws {
        let engine = try GeometryEngine()
        #expect(throws: EngineError.emptyGeometry(operation: "nearestVertex(to:)")) {
            try engine.nearestVertex(of: .emptyPoint, to: point(0, 0))
        }
    }
}

@Suite struct NewGeometryTests {
    @Test func bufferWithOneSegmentPerQuadrantIsADiamond() throws {
        let engine = try GeometryEngine()
        let diamond = try engine.buffer(.point(point(0, 0)), by: 1, style: BufferStyle(quadrantSegments: 1))
        #expect(try engine.area(of: diamond) == 2)
        #expect(try engine.envelope(of: diamond) == Envelope(minX: -1, minY: -1, maxX: 1, maxY: 1))
    }

    @Test func flatBufferOfASegmentIsARectangle() throws {
        let engine = try GeometryEngine()
        let segment = Geometry.lineString(line([(0, 0), (10, 0)]))
        let rectangle = try engine.buffer(segment, by: 1, style: BufferStyle(endCap: .flat))
        #expect(try engine.area(of: rectangle) == 20)
        #expect(try engine.envelope(of: rectangle) == Envelope(minX: 0, minY: -1, maxX: 10, maxY: 1))
    }

    @Test func simplifyDropsOnlyVerticesWithinTolerance() throws {
        let engine = try GeometryEngine()
        let bump = Geometry.lineString(line([(0, 0), (1, 0.1), (2, 0)]))
        #expect(try engine.simplify(bump, tolerance: 0.5) == .lineString(line([(0, 0), (2, 0)])))
        #expect(try engine.simplify(bump, tolerance: 0.05) == bump)
        #expect(try engine.simplify(bump, tolerance: 0.5, preservingTopology: false) == .lineString(line([(0, 0), (2, 0)])))
    }
}

@Suite struct ValidateForWritingTests {
    @Test func acceptsValidGeometry() throws {
        let engine = try GeometryEngine()
        try engine.validateForWriting(squareWithHole)
        try engine.validateForWriting(bentLine)
        try engine.validateForWriting(.point(point(11896140, 7034250)))
    }

    @Test func refusesNonFiniteCoordinatesNamingTheVertex() throws {
        let engine = try GeometryEngine()
        let bad = Geometry.polygon(Polygon(exterior: square(0, 0, 10), holes: [ring([(4, 4), (6, 4), (.infinity, 6), (4, 4)])]))
        #expect(throws: GeometryValidationError.nonFiniteCoordinate(point(.infinity, 6), part: 1, vertex: 2)) {
            try engine.validateForWriting(bad)
        }
        // (NaN, NaN) is GeoPackage's empty point; NaN with a number is a broken coordinate.
        let error = try #require(throws: GeometryValidationError.self) {
            try engine.validateForWriting(.point(point(.nan, 1)))
        }
        guard case .nonFiniteCoordinate(let coordinate, part: 0, vertex: 0) = error, coordinate.x.isNaN, coordinate.y == 1 else {
            Issue.record("unexpected \(error)")
            return
        }
    }

    @Test func refusesEmptyUnlessAllowed() throws {
        let engine = try GeometryEngine()
        #expect(throws: GeometryValidationError.empty(.polygon)) {
            try engine.validateForWriting(.polygon(Polygon(rings: [])))
        }
        #expect(throws: GeometryValidationError.empty(.point)) {
            try engine.validateForWriting(.emptyPoint)
        }
        try engine.validateForWriting(.emptyPoint, allowEmpty: true)
    }

    @Test func refusesInvalidPolygonsWithGEOSReason() throws {
        let engine = try GeometryEngine()
        #expect(throws: GeometryValidationError.invalid(reason: "Self-intersection[5 5]", location: point(5, 5))) {
            try engine.validateForWriting(bowTie)
        }
        let open = Geometry.polygon(Polygon(exterior: line([(0, 0), (1, 0), (1, 1), (0, 1)])))
        #expect(throws: GeometryValidationError.invalid(
            reason: "IllegalArgumentException: Points of LinearRing do not form a closed linestring", location: nil)) {
            try engine.validateForWriting(open)
        }
        let onePointTwice = Geometry.lineString(line([(1, 1), (1, 1)]))
        #expect(throws: GeometryValidationError.invalid(reason: "Too few points in geometry component[1 1]", location: point(1, 1))) {
            try engine.validateForWriting(onePointTwice)
        }
        let error = GeometryValidationError.invalid(reason: "Self-intersection[5 5]", location: point(5, 5))
        #expect(error.description == "invalid geometry: Self-intersection[5 5]")
    }
}
