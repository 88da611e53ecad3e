/// An axis-aligned bounding box in CRS units. An envelope always holds at least one point;
/// "no envelope" (an empty geometry) is `nil`.
public struct Envelope: Hashable, Sendable {
    public var minX: Double
    public var minY: Double
    public var maxX: Double
    public var maxY: Double

    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    /// The envelope of one point (zero width and height).
    public init(_ point: Point) {
        self.init(minX: point.x, minY: point.y, maxX: point.x, maxY: point.y)
    }

    /// Grows the envelope to include `point`.
    public mutating func expand(toInclude point: Point) {
        if point.x < minX { minX = point.x }
        if point.x > maxX { maxX = point.x }
        if point.y < minY { minY = point.y }
        if point.y > maxY { maxY = point.y }
    }

    /// Grows the envelope to include `other`.
    public mutating func expand(toInclude other: Envelope) {
        if other.minX < minX { minX = other.minX }
        if other.maxX > maxX { maxX = other.maxX }
        if other.minY < minY { minY = other.minY }
        if other.maxY > maxY { maxY = other.maxY }
    }

    /// The smallest envelope holding both.
    public func union(_ other: Envelope) -> Envelope {
        var copy = self
        copy.expand(toInclude: other)
        return copy
    }

    /// Whether the two boxes share at least one point (touching counts).
    public func intersects(_ other: Envelope) -> Bool {
        minX <= other.maxX && other.minX <= maxX && minY <= other.maxY && other.minY <= maxY
    }

    /// Whether `point` lies inside or on the boundary.
    public func contains(_ point: Point) -> Bool {
        point.x >= minX && point.x <= maxX && point.y >= minY && point.y <= maxY
    }

    /// Whether `other` lies wholly inside or on the boundary.
    public func contains(_ other: Envelope) -> Bool {
        other.minX >= minX && other.maxX <= maxX && other.minY >= minY && other.maxY <= maxY
    }

    public var width: Double { maxX - minX }
    public var height: Double { maxY - minY }

    /// The envelope moved by `dx`, `dy`.
    public func translated(dx: Double, dy: Double) -> Envelope {
        Envelope(minX: minX + dx, minY: minY + dy, maxX: maxX + dx, maxY: maxY + dy)
    }

    /// The box as a polygon whose edges are divided into `stepsPerEdge` segments each,
    /// counter-clockwise from (minX, minY): transformed into another CRS, its edges bend as
    /// the CRS does, where the box's corners alone would make a straight-sided quadrilateral.
    public func densifiedPolygon(stepsPerEdge: Int) -> Polygon {
        let corners = [Point(x: minX, y: minY), Point(x: maxX, y: minY), Point(x: maxX, y: maxY), Point(x: minX, y: maxY)]
        var ring: [Point] = []
        ring.reserveCapacity(4 * stepsPerEdge + 1)
        for (i, from) in corners.enumerated() {
            let to = corners[(i + 1) % 4]
            for step in 0..<stepsPerEdge {
                let f = Double(step) / Double(stepsPerEdge)
                ring.append(Point(x: from.x + (to.x - from.x) * f, y: from.y + (to.y - from.y) * f))
            }
        }
        ring.append(corners[0])
        return Polygon(exterior: LineString(ring))
    }
}
