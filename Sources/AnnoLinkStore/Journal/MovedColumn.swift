/// What a column of a moved row does when the rows move by (dx, dy).
public enum MovedColumn: Hashable, Sendable {
    /// A GeoPackage geometry blob: every vertex and its envelope move.
    case geometry(String)
    /// A real holding an x coordinate: dx is added.
    case x(String)
    /// A real holding a y coordinate: dy is added.
    case y(String)
    /// A column the move is expected to leave as it is (it may still change; see `JournalMove`).
    case kept(String)

    public var name: String {
        switch self {
        case .geometry(let n), .x(let n), .y(let n), .kept(let n): n
        }
    }

    /// "g:geom", "x:AnchorX", …: how `annolink_journal_moves.columns` stores it.
    var stored: String {
        switch self {
        case .geometry(let n): "g:" + n
        case .x(let n): "x:" + n
        case .y(let n): "y:" + n
        case .kept(let n): "k:" + n
        }
    }

    /// The assignment of an `UPDATE` that moves this column by `?3`, `?4` (dx, dy); nil for a
    /// kept column. The forward move (`GeoPackage.translate`) and undo and redo
    /// (`MoveImage.move`) share it, so that moving back is the exact inverse of moving.
    var moveAssignment: String? {
        switch self {
        case .geometry(let n): "\(quoteIdentifier(n)) = annolink_translate(\(quoteIdentifier(n)), ?3, ?4)"
        case .x(let n): "\(quoteIdentifier(n)) = \(quoteIdentifier(n)) + ?3"
        case .y(let n): "\(quoteIdentifier(n)) = \(quoteIdentifier(n)) + ?4"
        case .kept: nil
        }
    }

    init?(stored: Substring) {
        guard stored.count > 2, stored.dropFirst().first == ":" else { return nil }
        let name = String(stored.dropFirst(2))
        switch stored.first {
        case "g": self = .geometry(name)
        case "x": self = .x(name)
        case "y": self = .y(name)
        case "k": self = .kept(name)
        default: return nil
        }
    }
}
