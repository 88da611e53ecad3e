import AnnoLinkGeometry

/// What a map view shows: the map location at its centre, the scale and the rotation.
public struct Viewpoint: Hashable, Sendable {
    /// The map location at the centre of the view (and under the reticle), in CRS units.
    public var center: Point
    /// The scale denominator: 20000 means 1:20 000.
    public var scale: Double
    /// How far the map is turned on the screen, in degrees counter-clockwise (Esri's
    /// `setViewpointRotation` convention), normalised into [0, 360).
    public var rotation: Double

    /// A viewpoint at `center` and 1:`scale`, turned `rotation` degrees counter-clockwise.
    /// - Throws: `SketchError.invalidViewpoint` for a non-finite centre or rotation, or a
    ///   scale that is not a positive finite number.
    public init(center: Point, scale: Double, rotation: Double = 0) throws {
        guard center.isFinite else { throw SketchError.invalidViewpoint("the centre must have finite coordinates") }
        guard scale.isFinite, scale > 0 else { throw SketchError.invalidViewpoint("the scale must be a positive number, not \(scale)") }
        guard rotation.isFinite else { throw SketchError.invalidViewpoint("the rotation must be a finite number of degrees") }
        self.center = center
        self.scale = scale
        self.rotation = Viewpoint.normalized(rotation)
    }
}
