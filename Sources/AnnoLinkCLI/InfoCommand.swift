import AnnoLinkStore
import Foundation

/// `annolink info`: what a GeoPackage holds.
enum InfoCommand: Command {
    static let name = "info"
    static let summary = "list the feature and annotation tables of a GeoPackage"
    static let help = """
        usage: annolink info FILE.gpkg [--table TABLE] [--json]

        Lists every feature table with its geometry type, CRS, feature count and extent, and
        every annotation table with its annotation classes (origin table, label expression,
        font, reference scale, placement) and how many annotation rows it holds.

        options:
          --table TABLE   only this feature or annotation table, with its columns
          --json   machine-readable output:
                   {"path", "tables": [{"name", "kind": "features"|"annotation", "geometryType",
                    "srsID", "crs", "count", "extent": [minX, minY, maxX, maxY] or null}],
                    "annotationClasses": [{"annotationTable", "classID", "name", "originTable",
                    "whereClause", "expression", "fontName", "fontSize", "referenceScale",
                    "placement", "placementOffset", "autoCreate", "updateOnShapeChange",
                    "annotationCount", "originCount"}]}

                   (with --table, each table also has "columns": [{"name", "type", "notNull"}])

        exit status: 0 done, 65 not a GeoPackage or no such table, 66 no such file.
        """

    static func run(_ arguments: inout Arguments) throws -> ExitStatus {
        let json = arguments.flag("--json")
        let only = try arguments.option("--table")
        let path = try arguments.positional("FILE.gpkg")
        try arguments.finish()

        let package = try GeoPackage(path: path, readOnly: true)
        let annotationTables = Set(try package.annotationTableNames().map { $0.lowercased() })
        var tables: [[String: Any]] = []
        try package.connection.read {
            let names = try only.map { [try package.featureTable($0).name] } ?? package.featureTableNames()
            for name in names {
                let table = try package.featureTable(name)
                let count = try package.connection.scalarInt("SELECT count(*) FROM \(quoteIdentifier(table.name))") ?? 0
                let extent = try package.connection.rows("SELECT min_x, min_y, max_x, max_y FROM gpkg_contents WHERE table_name = ?", [.text(table.name)]).first
                let crs = try package.spatialReferenceSystem(table.srsID)
                tables.append([
                    "name": table.name,
                    "kind": annotationTables.contains(name.lowercased()) ? "annotation" : "features",
                    "geometryType": table.geometryTypeName,
                    "srsID": table.srsID,
                    "crs": crs.map { "\($0.organization):\($0.organizationCoordsysID) \($0.name)" } ?? "unregistered",
                    "count": count,
                    "extent": extent.flatMap { row in row.contains(where: \.isNull) ? nil : row.compactMap(\.doubleValue) } ?? NSNull(),
                ])
                if only != nil {
                    tables[tables.count - 1]["columns"] = table.columns.map { ["name": $0.name, "type": $0.type, "notNull": $0.isNotNull] }
                }
            }
        }
        var classes: [[String: Any]] = []
        let selected = Set(tables.compactMap { ($0["name"] as? String)?.lowercased() })
        for c in try package.annotationClasses() where only == nil || selected.contains(c.annotationTable.lowercased()) || selected.contains(c.originTable.lowercased()) {
            let annotationCount = try package.connection.scalarInt(
                "SELECT count(*) FROM \(quoteIdentifier(c.annotationTable)) WHERE AnnotationClassID = ?", [.integer(c.classID)]) ?? 0
            // A stored where clause is checked before it runs; one that is refused is reported
            // for its class (no count) rather than stopping `info` for the whole file.
            var originCount: Any = NSNull()
            var whereClauseProblem: Any = NSNull()
            do {
                var originSQL = "SELECT count(*) FROM \(quoteIdentifier(c.originTable))"
                if let clause = c.whereClause, !clause.allSatisfy(\.isWhitespace) {
                    originSQL += " WHERE \(try package.connection.condition(clause, on: c.originTable).sql)"
                }
                originCount = try package.connection.scalarInt(originSQL) ?? 0
            } catch let refusal as SQLCondition.Refusal {
                whereClauseProblem = "the where clause \(refusal)"
            }
            classes.append([
                "annotationTable": c.annotationTable, "classID": c.classID, "name": c.name, "originTable": c.originTable,
                "whereClause": c.whereClause ?? NSNull(), "expression": c.expression, "fontName": c.fontName,
                "fontSize": c.fontSize, "referenceScale": c.referenceScale, "placement": c.placement.rawValue,
                "placementOffset": c.placementOffset, "autoCreate": c.autoCreate, "updateOnShapeChange": c.updateOnShapeChange,
                "annotationCount": annotationCount, "originCount": originCount, "whereClauseProblem": whereClauseProblem,
            ])
        }

        if json {
            Output.line(try Output.json(["path": path, "tables": tables, "annotationClasses": classes]))
            return .success
        }
        Output.line(path)
        if tables.isEmpty { Output.line("  no feature tables") }
        for t in tables {
            let extent = (t["extent"] as? [Double]).map { e in e.map { String(format: "%.2f", $0) }.joined(separator: ", ") } ?? "empty"
            Output.line("  \(t["name"]!) (\(t["kind"]!)): \(t["count"]!) \(t["geometryType"]!) in \(t["crs"]!); extent \(extent)")
            for column in t["columns"] as? [[String: Any]] ?? [] {
                Output.line("    \(column["name"]!) \(column["type"]!)\(column["notNull"] as? Bool == true ? " NOT NULL" : "")")
            }
        }
        if !classes.isEmpty { Output.line("annotation classes:") }
        for c in classes {
            let whereText = (c["whereClause"] as? String).map { " where \($0)" } ?? ""
            Output.line("  \(c["annotationTable"]!) class \(c["classID"]!) '\(c["name"]!)': labels \(c["originTable"]!)\(whereText)")
            Output.line("    expression \(c["expression"]!)")
            Output.line("    \(c["fontName"]!) \(c["fontSize"]!) pt at 1:\(Int(c["referenceScale"] as! Double)), \(c["placement"]!) placement, offset \(c["placementOffset"]!) pt")
            let annotationCount = c["annotationCount"] as! Int64
            if let originCount = c["originCount"] as? Int64 {
                Output.line("    \(annotationCount) annotation rows for \(originCount) origin features")
            } else {
                Output.line("    \(annotationCount) annotation rows; \(c["whereClauseProblem"]!)")
            }
        }
        return .success
    }
}
