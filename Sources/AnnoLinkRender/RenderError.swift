/// What can go wrong drawing a map, in the user's words.
public enum RenderError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Cairo refused a call: the function and Cairo's status text (`cairo_status_to_string`).
    case cairo(function: String, status: String)
    /// Cairo cannot be loaded; the reason names the package to install.
    case libraryMissing(String)
    /// A file or folder of the output cannot be written.
    case cannotWrite(path: String, reason: String)
    /// No view was given and the tables drawn hold no geometry to take an extent from.
    case noExtent
    /// The view's coordinates or scale are not finite numbers after the CRS change.
    case invalidView(String)

    public var description: String {
        switch self {
        case let .cairo(function, status): "Cairo failed in \(function): \(status)"
        case let .libraryMissing(reason): reason
        case let .cannotWrite(path, reason): "cannot write \(path): \(reason)"
        case .noExtent: "the tables hold no geometry, so there is no extent to draw: give --bbox or --center and --scale"
        case let .invalidView(reason): "the view cannot be drawn: \(reason)"
        }
    }
}
