import AnnoLinkGeometry
import AnnoLinkStore
import Foundation

/// `annolink show`: one feature with its fields, geometry and linked annotation.
enum ShowCommand: Command {
    static let name = "show"
    static let summary = "show one feature: fields, geometry and its linked annotation"
    static let help = """
        usage: annolink show FILE.gpkg TABLE FID [--json]

        Prints the feature's fields, its geometry (WKT, in the table's CRS) and every
        annotation row linked to it in every annotation table that labels TABLE (text, anchor,
        angle, class, Override). TABLE may also be an annotation table: then the annotation row
        itself is shown.

        options:
          --json   {"table", "fid", "fields": {name: value}, "geometry": GeoJSON,
                    "annotation": [{"annotationTable", "fid", "classID", "text", "anchor": [x, y],
                    "angle", "override", "status"}]}

        exit status: 0 done, 64 bad usage, 65 unknown table or fid or unreadable geometry,
        66 no such file.
        """

    static func run(_ arguments: inout Arguments) throws -> ExitStatus {
        let json = arguments.flag("--json")
        let path = try arguments.positional("FILE.gpkg")
        let tableName = try arguments.positional("TABLE")
        let fid = try EditOutput.fid(try arguments.positional("FID"))
        try arguments.finish()

        let package = try GeoPackage(path: path, readOnly: true)
        let table = try package.featureTable(tableName)
        let feature = try package.feature(table, fid: fid)
        var annotation: [(String, AnnotationRow)] = []
        for c in try package.annotationClasses() where c.originTable.lowercased() == table.name.lowercased() {
            let annotationTable = try package.featureTable(c.annotationTable)
            if annotation.contains(where: { $0.0 == annotationTable.name }) { continue }
            for row in try package.annotationRows(annotationTable, featureID: fid) { annotation.append((annotationTable.name, row)) }
        }

        if json {
            var fields: [String: Any] = [:]
            for (name, value) in feature.attributes { fields[name] = EditOutput.json(value) }
            let object: [String: Any] = [
                "table": table.name, "fid": fid, "fields": fields, "geometry": EditOutput.json(feature.geometry),
                "annotation": annotation.map { name, row in
                    [
                        "annotationTable": name, "fid": row.fid ?? 0, "classID": row.classID, "text": row.text,
                        "anchor": EditOutput.json(row.anchor), "angle": row.angle, "override": row.override.rawValue, "status": row.status,
                    ] as [String: Any]
                },
            ]
            Output.line(try Output.json(object))
            return .success
        }
        Output.line("\(table.name) fid \(fid)")
        for column in table.attributeColumns {
            Output.line("  \(column.name) = \(EditOutput.text(feature.attributes[column.name] ?? .null))")
        }
        Output.line("  \(table.geometryColumn) = \(feature.geometry.flatMap { try? $0.wkt() } ?? "NULL")")
        for (name, row) in annotation {
            let anchor = row.anchor.map { String(format: "%.2f, %.2f", $0.x, $0.y) } ?? "none"
            Output.line("  annotation \(name) fid \(row.fid ?? 0) class \(row.classID): '\(row.text)' at \(anchor), angle \(String(format: "%.3f", row.angle))°\(row.override.rawValue != 0 ? ", override \(row.override.rawValue)" : "")")
        }
        if annotation.isEmpty { Output.line("  no linked annotation") }
        return .success
    }
}
