/// Why annotation could not be made.
public enum AnnotationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A class's label expression does not parse or evaluate.
    case expression(annotationTable: String, classID: Int64, message: String)
    /// A class's where clause is not valid SQL for its origin table.
    case whereClause(annotationTable: String, classID: Int64, message: String)
    /// The CRS has no linear unit (a geographic CRS), so text cannot be sized on the map.
    case noLinearUnit(table: String, srsID: Int64)
    /// The feature cannot be placed by its class's rules.
    case placement(table: String, fid: Int64, message: String)

    public var description: String {
        switch self {
        case .expression(let table, let id, let message): "label expression of \(table) class \(id): \(message)"
        case .whereClause(let table, let id, let message): "where clause of \(table) class \(id): \(message)"
        case .noLinearUnit(let table, let srs): "table \(table) is in CRS \(srs), which has no linear unit; annotation needs a projected CRS"
        case .placement(let table, let fid, let message): "cannot place the annotation of \(table) fid \(fid): \(message)"
        }
    }
}
