/// Why a check or a repair could not run, in the user's words.
public enum CheckError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file has annotation tables but no annotation class says what their annotation should
    /// be, so there is nothing to check them against.
    case noAnnotationClasses(annotationTables: [String])
    /// `--table` names a feature table that is neither an annotation table nor the origin of a
    /// class.
    case notAnnotated(table: String)
    /// More annotation rows need repair than one journal entry holds (docs/checks.md).
    case tooManyRepairs(count: Int, limit: Int)

    public var description: String {
        switch self {
        case .noAnnotationClasses(let tables):
            "the file has annotation tables (\(tables.joined(separator: ", "))) but no annotation classes, so there is nothing to "
                + "check them against; register classes with 'annolink annotate'"
        case .notAnnotated(let table):
            "'\(table)' is neither an annotation table nor labelled by an annotation class"
        case .tooManyRepairs(let count, let limit):
            "\(count) annotation rows need repair, more than the \(limit) one journal entry holds; regenerate with 'annolink annotate --regenerate' instead"
        }
    }
}
