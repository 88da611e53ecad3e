import Foundation

/// Why an edit was refused, in the user's words.
public enum EditError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `set` was given a field that cannot be set that way.
    case fieldNotEditable(table: String, field: String, reason: String)
    /// A value that does not fit its column.
    case invalidValue(table: String, field: String, value: String, reason: String)
    /// `move` on a table that does not hold points.
    case notAPointTable(table: String, geometryType: String)
    /// `move-vertex` on a feature that is not a single-segment line.
    case notSingleSegment(table: String, fid: Int64, parts: Int, points: Int)
    /// `move-vertex` on a table that does not hold lines.
    case notALineTable(table: String, geometryType: String)
    /// A coordinate that is not a finite number.
    case nonFiniteCoordinate(String)
    /// A coordinate no place on Earth has in the table's CRS.
    case coordinateOutOfRange(table: String, value: Double, limit: Double, unit: String)
    /// A where clause for `translate` that is not one read-only condition.
    case invalidSelection(String)
    /// Nothing to do.
    case emptySelection(String)
    /// An empty or blank text for a field a label expression reads (refused unless the edit
    /// allows empty values).
    case emptyLabelValue(table: String, field: String, annotationTable: String, classID: Int64, className: String, expression: String)

    public var description: String {
        switch self {
        case .fieldNotEditable(let table, let field, let reason): "\(table).\(field) cannot be set: \(reason)"
        case .invalidValue(let table, let field, let value, let reason): "invalid value '\(value)' for \(table).\(field): \(reason)"
        case .notAPointTable(let table, let type): "move changes point features, but \(table) holds \(type) geometries (use move-vertex or translate)"
        case .notSingleSegment(let table, let fid, let parts, let points):
            "\(table) fid \(fid) is not a single-segment line: it has \(parts) part\(parts == 1 ? "" : "s") and \(points) point\(points == 1 ? "" : "s") " +
                "(move-vertex moves an end of a line of one part and two points)"
        case .notALineTable(let table, let type): "move-vertex changes line features, but \(table) holds \(type) geometries"
        case .nonFiniteCoordinate(let text): "coordinates must be finite numbers, not \(text)"
        case .coordinateOutOfRange(let table, let value, let limit, let unit):
            "coordinate \(String(format: "%g", value)) is outside what the CRS of \(table) can hold (at most ±\(String(format: "%.0f", limit)) \(unit))"
        case .invalidSelection(let reason): "invalid selection: \(reason)"
        case .emptySelection(let text): text
        case .emptyLabelValue(let table, let field, let annotationTable, let classID, let className, let expression):
            "\(table).\(field) may not be empty: annotation class '\(className)' (\(annotationTable) class \(classID)) labels with " +
                "\(expression), which reads it (--allow-empty sets it anyway)"
        }
    }
}
