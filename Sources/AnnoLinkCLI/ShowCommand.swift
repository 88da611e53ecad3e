import AnnoLinkEditing
import AnnoLinkGeometry
import AnnoLinkStore
import Foundation

/// `annolink show`: one feature with its fields, geometry and linked annotation.
struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "show one feature: fields, geometry and its linked annotation",
        discussion: """
            Prints the feature's fields, its geometry (WKT, in the table's CRS) and every
            annotation row linked to it in every annotation table that labels TABLE (text, anchor,
            angle, class, Override). TABLE may also be an annotation table: then the annotation row
            itself is shown.

            FILE.gpkg may also be a PostGIS database holding an annolink data set, as a
            connection string: postgresql://USER@HOST/DB or PG:"dbname=DB host=HOST"
            (docs/postgis.md).
            """,
        exitStatus: """
            0 done, 64 bad usage, 65 unknown table or fid or unreadable geometry,
            nothing at the --at location or two features equally near it, 66 no such file.
            """)

    static let json = ArgumentDeclaration.flag("--json", help: """
        {"table", "fid", "fields": {name: value}, "geometry": GeoJSON,
         "annotation": [{"annotationTable", "fid", "classID", "text", "anchor": [x, y],
         "angle", "override", "status"}]}
        """)
    static let arguments = FeatureOperand.argumentsWithCRS + [json]

    var json: Bool
    var feature: FeatureOperand

    init(parsing arguments: inout Arguments) throws {
        json = arguments.flag(Self.json)
        feature = try FeatureOperand(parsing: &arguments)
    }

    mutating func validate() throws {
        try feature.validate()
    }

    func run() throws -> ExitStatus {
        let service = EditService(store: try StoreTarget.open(feature.path, readOnly: true))
        let fid = try feature.resolve(with: service)
        let report = try service.run(ShowFeature(table: feature.table, fid: fid))
        if json {
            Output.line(try Output.json(report))
            return .success
        }
        Output.line("\(report.table) fid \(fid)")
        for column in report.columns {
            Output.line("  \(column) = \(EditOutput.text(report.fields[column] ?? .null))")
        }
        Output.line("  \(report.geometryColumn) = \(report.geometry.flatMap { try? $0.wkt() } ?? "NULL")")
        for annotation in report.annotation {
            let row = annotation.row
            let anchor = row.anchor.map { String(format: "%.2f, %.2f", $0.x, $0.y) } ?? "none"
            Output.line("  annotation \(annotation.annotationTable) fid \(row.fid ?? 0) class \(row.classID): '\(row.text)' at \(anchor), " +
                "angle \(String(format: "%.3f", row.angle))°\(row.override.rawValue != 0 ? ", override \(row.override.rawValue)" : "")")
        }
        if report.annotation.isEmpty { Output.line("  no linked annotation") }
        return .success
    }
}
