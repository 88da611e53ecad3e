import AnnoLinkEditing
import AnnoLinkStore
import Foundation

/// `annolink info`: what a GeoPackage or a PostGIS database holds.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "list the feature and annotation tables of a GeoPackage or PostGIS database",
        discussion: """
            Lists every feature table with its geometry type, CRS, feature count and extent, and
            every annotation table with its annotation classes (origin table, label expression,
            font, reference scale, placement) and how many annotation rows it holds.
            """,
        exitStatus: "0 done, 65 not a GeoPackage or no such table, 66 no such file or database, 75 database unreachable (try again).")

    static let table = ArgumentDeclaration.option("--table", value: "TABLE", help: "only this feature or annotation table, with its columns")
    static let json = ArgumentDeclaration.flag("--json", help: """
        machine-readable output:
        {"path", "tables": [{"name", "kind": "features"|"annotation", "geometryType",
         "srsID", "crs", "count", "extent": [minX, minY, maxX, maxY] or null}],
         "annotationClasses": [{"annotationTable", "classID", "name", "originTable",
         "whereClause", "expression", "fontName", "fontSize", "referenceScale",
         "placement", "placementOffset", "autoCreate", "updateOnShapeChange",
         "annotationCount", "originCount", "whereClauseProblem"}]}

        (with --table, each table also has "columns": [{"name", "type", "notNull"}])
        """)
    static let arguments = [SetCommand.file, table, json]

    var json: Bool
    var only: String?
    var path: String

    init(parsing arguments: inout Arguments) throws {
        json = arguments.flag(Self.json)
        only = try arguments.option(Self.table)
        path = try arguments.positional(SetCommand.file)
    }

    func run() throws -> ExitStatus {
        let service = EditService(store: try StoreTarget.open(path, readOnly: true))
        var info = try service.run(DescribePackage(table: only))
        info.path = path
        if json {
            Output.line(try Output.json(info))
            return .success
        }
        Output.line(path)
        if info.tables.isEmpty { Output.line("  no feature tables") }
        for t in info.tables {
            let extent = t.extent.map { e in e.map { String(format: "%.2f", $0) }.joined(separator: ", ") } ?? "empty"
            Output.line("  \(t.name) (\(t.kind.rawValue)): \(t.count) \(t.geometryType) in \(t.crs); extent \(extent)")
            for column in t.columns ?? [] {
                Output.line("    \(column.name) \(column.type)\(column.notNull ? " NOT NULL" : "")")
            }
        }
        if !info.annotationClasses.isEmpty { Output.line("annotation classes:") }
        for c in info.annotationClasses {
            let whereText = c.whereClause.map { " where \($0)" } ?? ""
            Output.line("  \(c.annotationTable) class \(c.classID) '\(c.name)': labels \(c.originTable)\(whereText)")
            Output.line("    expression \(c.expression)")
            Output.line("    \(c.fontName) \(c.fontSize) pt at 1:\(Int(c.referenceScale)), \(c.placement) placement, offset \(c.placementOffset) pt")
            if let originCount = c.originCount {
                Output.line("    \(c.annotationCount) annotation rows for \(originCount) origin features")
            } else {
                Output.line("    \(c.annotationCount) annotation rows; \(c.whereClauseProblem ?? "the where clause cannot run")")
            }
        }
        return .success
    }
}
