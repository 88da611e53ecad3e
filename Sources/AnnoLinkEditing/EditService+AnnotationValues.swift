import AnnoLinkStore
import Foundation

/// What the display fields of an annotation row may hold when an edit sets them
/// (docs/format.md, "Values an edit may set"). A value outside these made footprints with
/// coordinates of 1.6e308 and an infinite index box, after which every page of the table failed
/// (issue 25): the edit is refused instead, naming the field and what it takes.
enum AnnotationValueRules {
    /// The largest font size, in points at the reference scale.
    static let maximumFontSize = 1000.0
    /// The largest |XOffset|, |YOffset|, in points.
    static let maximumOffset = 1000.0
    /// The largest |Angle|, in degrees: two turns either way (`Angle=375` is a turn and 15°);
    /// the row keeps it normalized to [0, 360).
    static let maximumAngle = 720.0

    /// Esri's coded values of the two alignments and of `Status`.
    static let horizontalAlignments = [0: "left", 1: "center", 2: "right", 3: "full"]
    static let verticalAlignments = [0: "top", 1: "center", 2: "baseline", 3: "bottom"]
    static let statuses = [0: "placed", 1: "unplaced"]

    /// The fields these rules check, lower-cased.
    static let checkedFields: Set<String> = [
        "anchorx", "anchory", "fontsize", "horizontalalignment", "verticalalignment", "angle", "xoffset", "yoffset", "status",
    ]

    /// `0 (left), 1 (center), 2 (right) or 3 (full)`.
    static func listing(_ domain: [Int: String]) -> String {
        let items = domain.keys.sorted().map { "\($0) (\(domain[$0]!))" }
        return items.dropLast().joined(separator: ", ") + " or " + items.last!
    }

    /// A limit as messages write it: to the whole unit, as `EditError.coordinateOutOfRange` does.
    static func number(_ value: Double) -> String {
        String(format: "%.0f", value)
    }
}

extension EditService {
    /// Whether `table` is an annotation table, when `fields` include one the annotation value
    /// rules check (otherwise false, without asking the store).
    func holdsCheckedAnnotationFields(_ table: FeatureTable, fields: some Sequence<String>) throws -> Bool {
        guard fields.contains(where: { AnnotationValueRules.checkedFields.contains($0.lowercased()) }) else { return false }
        return try store.annotationTableNames().contains { $0.lowercased() == table.name.lowercased() }
    }

    /// Refuses `value` (typed as `text`) for `column` of annotation table `table` when it is
    /// outside what the field can mean: an anchor that is not finite or lies beyond the
    /// coordinates the table's CRS can hold (`coordinateLimits(of:)`), a font size not more
    /// than 0 or above `AnnotationValueRules.maximumFontSize` (NULL too: the row would read it
    /// as 0), an alignment or status outside Esri's coded values, an offset or angle beyond
    /// its bound. Fields the rules do not name pass.
    ///
    /// - Throws: `EditError.invalidValue` naming the table, the field, the value and the range
    ///   allowed.
    func checkAnnotationValue(_ value: SQLValue, text: String, column: Column, of table: FeatureTable) throws {
        let field = column.name.lowercased()
        guard AnnotationValueRules.checkedFields.contains(field) else { return }
        func refuse(_ allowed: String) -> EditError {
            .invalidValue(table: table.name, field: column.name, value: text, reason: "\(column.name) takes \(allowed)")
        }
        let number: Double? = switch value {
        case .integer(let v): Double(v)
        case .real(let v): v
        default: nil
        }
        typealias Rules = AnnotationValueRules
        switch field {
        case "fontsize":
            guard let number, number > 0, number <= Rules.maximumFontSize else {
                throw refuse("a size in points more than 0 and at most \(Rules.number(Rules.maximumFontSize))")
            }
        case "horizontalalignment", "verticalalignment", "status":
            let domain = field == "status" ? Rules.statuses : field == "horizontalalignment" ? Rules.horizontalAlignments : Rules.verticalAlignments
            guard let number, let code = Int(exactly: number), domain[code] != nil else {
                throw refuse(Rules.listing(domain))
            }
        default:
            // NULL leaves an anchor unknown (the annotation is not placed); the other fields
            // are NOT NULL in the layout, which `FieldValue` checks.
            guard let number else { return }
            let limit: Double, unit: String
            switch field {
            case "anchorx", "anchory":
                let limits = try coordinateLimits(of: table)
                (limit, unit) = (field == "anchorx" ? limits.x : limits.y, limits.unit)
            case "angle": (limit, unit) = (Rules.maximumAngle, "degrees")
            default: (limit, unit) = (Rules.maximumOffset, "points")
            }
            guard number.isFinite, abs(number) <= limit else {
                throw refuse("a number from -\(Rules.number(limit)) to \(Rules.number(limit)) (\(unit))")
            }
        }
    }
}
