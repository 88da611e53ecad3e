/// Why the geometry editor or one of its tools refused a call, in the words of the person
/// using it.
public enum SketchError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The call needs a started editor.
    case notStarted
    /// `start` was called on an editor that is already editing.
    case alreadyStarted
    /// A reticle call needs an editor attached to a map view (a `MapViewport`).
    case noMapView
    /// The tool is not the editor's current tool, or belongs to no editor.
    case toolNotAttached(tool: String)
    /// A viewpoint or view size that cannot be shown.
    case invalidViewpoint(String)
    /// The geometry type does not fit the call (an envelope, a shape of points…).
    case unsupportedGeometryType(String)
    /// A part, vertex or segment index outside the geometry.
    case indexOutOfRange(String)
    /// The call acts on the selection, and nothing is selected.
    case noSelection
    /// Only a vertex or a mid-vertex can be picked up.
    case cannotPickUp(element: String)
    /// One element is picked up already; drop it or cancel first.
    case alreadyPickedUp
    /// Mid-vertices exist only in the display: they cannot be moved, rotated or deleted.
    case midVertexNotEditable(action: String)
    /// A transform with a factor or distance that is not a finite (non-zero) number.
    case invalidTransform(String)
    /// An identify tolerance outside 0…100 points.
    case invalidTolerance(Double)
    /// A freehand stroke that does not make a part of the geometry's type.
    case strokeTooShort(points: Int, needed: Int)
    /// A shape drag that encloses nothing (zero width or height on the screen).
    case degenerateShape(String)

    public var description: String {
        switch self {
        case .notStarted: "the geometry editor is not started"
        case .alreadyStarted: "the geometry editor is editing already: stop it first"
        case .noMapView: "the geometry editor is not attached to a map view"
        case .toolNotAttached(let tool): "the \(tool) is not the geometry editor's tool"
        case .invalidViewpoint(let reason): "invalid viewpoint: \(reason)"
        case .unsupportedGeometryType(let reason): reason
        case .indexOutOfRange(let reason): reason
        case .noSelection: "nothing is selected"
        case .cannotPickUp(let element): "only a vertex or a mid-vertex can be picked up, not the \(element)"
        case .alreadyPickedUp: "an element is picked up already: drop it or cancel first"
        case .midVertexNotEditable(let action): "a mid-vertex cannot be \(action): pick it up and drop it to insert a vertex"
        case .invalidTransform(let reason): reason
        case .invalidTolerance(let value): "the tolerance must be between 0 and 100 points, not \(value)"
        case .strokeTooShort(let points, let needed):
            "the stroke simplifies to \(points) point\(points == 1 ? "" : "s"); a part needs at least \(needed)"
        case .degenerateShape(let reason): reason
        }
    }
}
