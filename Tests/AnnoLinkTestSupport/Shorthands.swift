import AnnoLinkGeometry

/// `Point(x:y:)`, shortly: test data reads as lists of coordinates.
public func p(_ x: Double, _ y: Double) -> Point { Point(x: x, y: y) }
