/// Why a geodatabase item definition (or a type declared in a geodatabase) could not be read.
public enum GeodatabaseDefinitionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The `Definition` text is not well-formed XML.
    case malformedXML(line: Int, column: Int, message: String)
    /// An element holds a value of the wrong kind (a scale that is not a number, …).
    case invalidValue(element: String, value: String)
    /// The annotation classes (CIM JSON in `LabelClassCollection`) could not be read.
    case malformedAnnotationClasses(String)
    /// A field type annolink does not know (`esriFieldType…` or a declared SQLite type).
    case unknownFieldType(String)

    public var description: String {
        switch self {
        case .malformedXML(let line, let column, let message):
            "geodatabase definition: malformed XML at line \(line), column \(column): \(message)"
        case .invalidValue(let element, let value):
            "geodatabase definition: <\(element)> holds '\(value.prefix(80))', which is not valid there"
        case .malformedAnnotationClasses(let message):
            "geodatabase definition: annotation classes: \(message)"
        case .unknownFieldType(let type):
            "geodatabase definition: unknown field type '\(type)'"
        }
    }
}
